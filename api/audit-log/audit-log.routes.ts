/** Audit log of a tenant: who changed what (document 2, "API keys and audit log"). */
import { defineRoutes, listedRequired } from '../http/route';
import { cursor, dateTime, positiveInt, text, uuid } from '../http/schema-types';
import { AuditLogCsv } from './audit-log.schemas';

/** The filters shared by the list and the export; all are listed "(r)" and are optional here (ruling 3). */
const filters = () => ({
  action: listedRequired(text(1, 100).description('Action name, for example product.updated.')),
  resourceType: listedRequired(text(1, 100).description('Kind of resource acted on, for example product.')),
  actorUserId: listedRequired(uuid().description('Only entries made by this user.')),
  from: listedRequired(dateTime().description('Entries at or after this instant.')),
  to: listedRequired(dateTime().description('Entries before this instant.')),
});

const untyped = 'The specification does not type these parameters: action and resourceType are strings of 1 to 100 characters, actorUserId a UUID, from and to ISO 8601 timestamps';

export const auditLogRoutes = defineRoutes({ tag: 'audit-log', auth: 'merchant' }, [
  {
    operationId: 'auditLog.list',
    method: 'GET',
    path: '/audit-log',
    summary: 'Audit log entries of the tenant, newest first',
    description: `${untyped}; limit is 1 to 100, default 50; cursor is the opaque nextCursor of the previous page.`,
    query: { ...filters(), limit: listedRequired(positiveInt(100).default(50)), cursor: listedRequired(cursor()) },
    status: 200,
  },
  { operationId: 'auditLog.diff', method: 'GET', path: '/audit-log/{id}/diff', summary: 'Before and after values of one audit log entry', status: 200 },
  {
    operationId: 'auditLog.export',
    method: 'GET',
    path: '/audit-log/export',
    summary: 'Export the audit log entries matching the filters as CSV',
    description: `${untyped}.`,
    query: filters(),
    response: AuditLogCsv,
    status: 200,
  },
]);
