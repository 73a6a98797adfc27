/**
 * Reading the audit log of the caller's tenant: the filtered list (newest first, keyset-paginated on
 * the UUIDv7 ids), the diff of one entry, and the CSV export (oldest first, streamed in batches so a
 * long log never sits in memory). Owners and admins only: the log shows what every member did (staff
 * 403 `insufficient_role`, API keys 403 `api_key_not_allowed`). Entries are written by
 * storage/audit.ts in the transaction of each write.
 */
import type { SelectQueryBuilder } from 'typeorm';
import { AuditEntry } from '../../storage/entities';
import type { RequestContext } from '../../storage/request-context';
import { tenantRepository, type TenantOwned } from '../../storage/tenancy';
import { attachment, streamedCsv, type CsvColumn, type CsvDownload } from '../http/csv';
import { ValidationError } from '../../lib/errors';
import { UUID_PATTERN } from '../http/schema-types';
import { requireTenantUser, TENANT_ADMINS } from '../../domain/store-access';
import { auditLogError } from './audit-log.errors';

export interface AuditFilters {
  action?: string;
  resourceType?: string;
  actorUserId?: string;
  from?: Date;
  to?: Date;
}

/** audit_log.tenant_id is nullable (platform-level entries); the tenant's own entries always carry it. */
const entries = (ctx: RequestContext) =>
  tenantRepository<AuditEntry & TenantOwned>(ctx, AuditEntry, () =>
    auditLogError('audit_entry_not_found', 'The audit log entry does not exist.'),
  );

function filtered(ctx: RequestContext, filters: AuditFilters): SelectQueryBuilder<AuditEntry & TenantOwned> {
  if (filters.from && filters.to && filters.from.getTime() >= filters.to.getTime()) {
    throw new ValidationError('The request query is invalid: to must be after from.', [
      { path: 'query.to', message: 'to must be after from' },
    ]);
  }
  const query = entries(ctx).createQueryBuilder('a');
  if (filters.action !== undefined) query.andWhere('a.action = :action', { action: filters.action });
  if (filters.resourceType !== undefined) query.andWhere('a.resourceType = :resourceType', { resourceType: filters.resourceType });
  if (filters.actorUserId !== undefined)
    query.andWhere("a.actorType = 'user' AND a.actorId = :actorId", { actorId: filters.actorUserId.toLowerCase() });
  if (filters.from !== undefined) query.andWhere('a.createdAt >= :from', { from: filters.from });
  if (filters.to !== undefined) query.andWhere('a.createdAt < :to', { to: filters.to });
  return query;
}

export function auditItem(entry: AuditEntry) {
  return {
    id: entry.id,
    action: entry.action,
    resourceType: entry.resourceType,
    resourceId: entry.resourceId,
    actor: { type: entry.actorType, id: entry.actorId },
    ip: entry.ip,
    userAgent: entry.userAgent,
    requestId: entry.requestId,
    createdAt: entry.createdAt.toISOString(),
  };
}

export async function listAuditLog(ctx: RequestContext, input: AuditFilters & { limit: number; cursor?: string }) {
  requireTenantUser(ctx, TENANT_ADMINS);
  const query = filtered(ctx, input);
  if (input.cursor !== undefined) {
    // The cursor is the id of the last entry of the previous page (opaque to clients).
    if (!UUID_PATTERN.test(input.cursor))
      throw auditLogError('invalid_cursor', 'The cursor is not one this list returned.', [
        { path: 'query.cursor', message: 'cursor is invalid' },
      ]);
    query.andWhere('a.id < :cursor', { cursor: input.cursor.toLowerCase() });
  }
  const rows = await query
    .orderBy('a.id', 'DESC')
    .take(input.limit + 1)
    .getMany();
  const page = rows.slice(0, input.limit);
  return { items: page.map(auditItem), nextCursor: rows.length > input.limit ? page[page.length - 1]!.id : null };
}

type Json = unknown;

/** Deterministic JSON (keys sorted), to compare values regardless of key order. */
function canonical(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, Json>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The fields whose values differ between before and after (a field missing on one side counts as null). */
export function changes(
  before: Record<string, Json> | null,
  after: Record<string, Json> | null,
): Array<{ field: string; before: Json; after: Json }> {
  const fields = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  return fields
    .map((field) => ({ field, before: before?.[field] ?? null, after: after?.[field] ?? null }))
    .filter((change) => canonical(change.before) !== canonical(change.after));
}

export async function auditDiff(ctx: RequestContext, id: string) {
  requireTenantUser(ctx, TENANT_ADMINS);
  const entry = await entries(ctx).getOneBy({ id: id.toLowerCase() });
  return {
    id: entry.id,
    action: entry.action,
    resourceType: entry.resourceType,
    resourceId: entry.resourceId,
    createdAt: entry.createdAt.toISOString(),
    before: entry.before,
    after: entry.after,
    changes: changes(entry.before, entry.after),
  };
}

const CSV_COLUMNS: CsvColumn<AuditEntry>[] = [
  { header: 'id', value: (e) => e.id },
  { header: 'createdAt', value: (e) => e.createdAt },
  { header: 'action', value: (e) => e.action },
  { header: 'resourceType', value: (e) => e.resourceType },
  { header: 'resourceId', value: (e) => e.resourceId },
  { header: 'actorType', value: (e) => e.actorType },
  { header: 'actorId', value: (e) => e.actorId },
  { header: 'ip', value: (e) => e.ip },
  { header: 'userAgent', value: (e) => e.userAgent },
  { header: 'requestId', value: (e) => e.requestId },
  { header: 'before', value: (e) => e.before },
  { header: 'after', value: (e) => e.after },
];

export const EXPORT_BATCH = 1000;

/** The largest UUIDv7 of a millisecond: ids at or below it were made no later than `ms`. */
function uuidv7Ceiling(ms: number): string {
  const hex = ms.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7fff-bfff-ffffffffffff`;
}

/**
 * The entries matching the filters as CSV, oldest first, up to the moment of the request (entries
 * written while it streams are left out). The first batch is read before answering, so a failure
 * there is still a proper error response; later batches are read as the client consumes them.
 */
export async function exportAuditLog(ctx: RequestContext, filters: AuditFilters): Promise<CsvDownload> {
  requireTenantUser(ctx, TENANT_ADMINS);
  const ceiling = uuidv7Ceiling(Date.now());
  const batch = (after?: string) => {
    const query = filtered(ctx, filters).andWhere('a.id <= :ceiling', { ceiling });
    if (after) query.andWhere('a.id > :after', { after });
    return query.orderBy('a.id', 'ASC').take(EXPORT_BATCH).getMany();
  };
  const first = await batch();
  const body = streamedCsv(ctx, first, batch, { columns: CSV_COLUMNS, batchSize: EXPORT_BATCH, label: 'audit log' });
  const day = new Date().toISOString().slice(0, 10);
  return { body, disposition: attachment(`audit-log-${day}.csv`) };
}
