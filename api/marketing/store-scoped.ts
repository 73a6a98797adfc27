/**
 * Reading a campaign or an automation the way every marketing operation does: a row of the caller's
 * tenant, on a store the caller may use (an API key only its own store), locked for a write. Anything
 * else is the area's 404, so another tenant's row looks exactly like a missing one.
 */
import type { RequestContext } from '../../storage/request-context';
import { requireStore } from '../../domain/store-access';

/** The marketing tables read by id (a closed list: the name goes into the SQL text). */
export type MarketingTable = 'marketing_campaigns' | 'marketing_automations';

/** The caller's tenant, or `missing()` for a caller without one. */
export function tenantOf(ctx: RequestContext, missing: () => Error): string {
  if (!ctx.tenantId) throw missing();
  return ctx.tenantId;
}

export async function loadStoreScoped<Row extends { store_id: string }>(
  ctx: RequestContext,
  table: MarketingTable,
  id: string,
  notFound: () => Error,
  forWrite = false,
): Promise<Row> {
  const rows: Row[] = await ctx.manager.query(`SELECT * FROM ${table} WHERE id = $1 AND tenant_id = $2${forWrite ? ' FOR UPDATE' : ''}`, [
    id,
    tenantOf(ctx, notFound),
  ]);
  const row = rows[0];
  if (!row) throw notFound();
  if (ctx.actor.type === 'api_key' && ctx.actor.storeId !== row.store_id) throw notFound();
  await requireStore(ctx, row.store_id, forWrite ? { forWrite: true } : {});
  return row;
}
