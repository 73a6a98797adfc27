/**
 * The error codes of the audit-log area: each code once, with its HTTP status and what it means.
 * Throw sites use `auditLogError(code, detail, errors)`; the API reference lists the codes
 * (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const AUDIT_LOG_ERRORS = defineErrorCodes('audit-log', {
  audit_entry_not_found: { status: 404, description: "The audit log entry does not exist in the caller's tenant." },
  invalid_cursor: { status: 400, description: 'The cursor is not one this list returned.' },
});

export const auditLogError = AUDIT_LOG_ERRORS.error;
