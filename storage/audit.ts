/**
 * The audit log writer. Every write records who did what to which resource, with the values before
 * and after, in the same transaction as the write: a rolled-back write leaves no entry, and a
 * committed one always has one.
 */
import { AuditEntry } from './entities';
import { uuidv7 } from './ids';
import type { RequestContext } from './request-context';

export interface AuditRecord {
  /** `<resource>.<verb>`, e.g. `store.create`, `api_key.revoke`. */
  action: string;
  resourceType: string;
  resourceId?: string | null;
  before?: object | null;
  after?: object | null;
  /** Defaults to the request's tenant. */
  tenantId?: string | null;
}

const SECRET_FIELDS = /password|secret|token|hash|code/i;

/** Drops secrets (hashes included) from what the audit log keeps. */
function redact(value: object | null | undefined): Record<string, unknown> | null {
  if (!value) return null;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (SECRET_FIELDS.test(key)) continue;
    out[key] = field instanceof Date ? field.toISOString() : field;
  }
  return out;
}

export async function recordAudit(ctx: RequestContext, record: AuditRecord): Promise<void> {
  if (!ctx.inTransaction) throw new Error('recordAudit must run inside the transaction of the write (use inTransaction)');
  await ctx.manager.insert(AuditEntry, {
    id: uuidv7(),
    tenantId: record.tenantId === undefined ? (ctx.tenantId ?? null) : record.tenantId,
    actorType: ctx.actor.type,
    actorId: ctx.actor.id ?? null,
    action: record.action,
    resourceType: record.resourceType,
    resourceId: record.resourceId ?? null,
    before: redact(record.before) as never,
    after: redact(record.after) as never,
    ip: ctx.client?.ip ?? null,
    userAgent: ctx.client?.userAgent?.slice(0, 500) ?? null,
    requestId: ctx.requestId,
  });
}
