/** DTOs of the audit log area. */
import { csvDocument } from '../http/route';

export const AuditLogCsv = csvDocument('AuditLogCsv', 'Audit log entries matching the filters, one row per entry, oldest first.');
