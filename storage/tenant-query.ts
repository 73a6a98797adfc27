/**
 * Raw SQL as tenant-safe as the tenant repositories (storage/tenancy.ts): `tenantQuery` binds the
 * request's tenant itself, as the parameter `$tenant`, and refuses
 * - a request context without a tenant (a platform job must say which tenant it acts for), and
 * - SQL that does not use `$tenant` at all (a query that forgot the tenant would read every tenant's
 *   rows; here it cannot run).
 * Other parameters are positional as usual ($1, $2, …); `$tenant` becomes the next one, so a value
 * passed by a caller can never stand in for the tenant.
 */
import type { RequestContext } from './request-context';

const TENANT = /\$tenant\b/g;

export class TenantQueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TenantQueryError';
  }
}

/** `sql` with every `$tenant` replaced by the positional parameter that follows `params`. */
export function bindTenant(sql: string, params: readonly unknown[], tenantId: string | undefined): { text: string; values: unknown[] } {
  if (!tenantId) throw new TenantQueryError('tenantQuery needs a request context with a tenant');
  if (!sql.match(TENANT)) throw new TenantQueryError('tenantQuery: the SQL must filter on $tenant');
  return { text: sql.replace(TENANT, `$${params.length + 1}`), values: [...params, tenantId] };
}

/** Runs `sql` for the request's tenant on the request's manager (its transaction when in one). */
export async function tenantQuery<Row = Record<string, unknown>>(
  ctx: RequestContext,
  sql: string,
  params: readonly unknown[] = [],
): Promise<Row[]> {
  const { text, values } = bindTenant(sql, params, ctx.tenantId);
  return ctx.manager.query(text, values);
}
