/** Audit log of a tenant: who changed what (docs/accounts.md, "Accounts, access and the audit log"). */
import { csvDownload } from '../http/csv';
import { defineRoutes, listedRequired, type RouteRequest } from '../http/route';
import { cursor, dateTime, positiveInt, text, uuid } from '../http/schema-types';
import { AuditLogCsv, AuditLogDiffResponse, AuditLogListResponse } from './audit-log.schemas';
import { auditDiff, exportAuditLog, listAuditLog, type AuditFilters } from './audit-log.service';

type Params = Record<string, string>;

const admins =
  "Owners and admins of the tenant (staff 403 insufficient_role; API keys 403 api_key_not_allowed); only the tenant's own entries.";

/** The filters shared by the list and the export; all are listed "(r)" and are optional here (docs/decisions.md, Optional filters). */
const filters = () => ({
  action: listedRequired(text(1, 100).description('Action name, for example product.updated.')),
  resourceType: listedRequired(text(1, 100).description('Kind of resource acted on, for example product.')),
  actorUserId: listedRequired(uuid().description('Only entries made by this user.')),
  from: listedRequired(dateTime().description('Entries at or after this instant.')),
  to: listedRequired(dateTime().description('Entries before this instant.')),
});

const untyped =
  'The specification does not type these parameters: action and resourceType are strings of 1 to 100 characters, actorUserId a UUID, from and to ISO 8601 timestamps';
const LIST_DESCRIPTION = `${admins} ${untyped}; to must be after from; limit is 1 to 100, default 50; cursor is the opaque nextCursor of the previous page.`;
const EXPORT_DESCRIPTION = `${admins} ${untyped}; to must be after from. A download (Content-Disposition: attachment), streamed, holding the entries up to the moment of the request.`;

export const auditLogRoutes = defineRoutes({ tag: 'audit-log', auth: 'merchant' }, [
  {
    operationId: 'auditLog.list',
    method: 'GET',
    path: '/audit-log',
    summary: 'Audit log entries of the tenant, newest first',
    description: LIST_DESCRIPTION,
    query: { ...filters(), limit: listedRequired(positiveInt(100).default(50)), cursor: listedRequired(cursor()) },
    response: AuditLogListResponse,
    status: 200,
    handler: (req) => listAuditLog(req.context, req.query as AuditFilters & { limit: number; cursor?: string }),
  },
  {
    operationId: 'auditLog.diff',
    method: 'GET',
    path: '/audit-log/{id}/diff',
    summary: 'Before and after values of one audit log entry',
    description: `${admins} An entry of another tenant answers 404.`,
    response: AuditLogDiffResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => auditDiff(req.context, req.params.id),
  },
  {
    operationId: 'auditLog.export',
    method: 'GET',
    path: '/audit-log/export',
    summary: 'Export the audit log entries matching the filters as CSV',
    description: EXPORT_DESCRIPTION,
    query: filters(),
    response: AuditLogCsv,
    status: 200,
    handler: csvDownload((ctx, query: AuditFilters) => exportAuditLog(ctx, query)),
  },
]);
