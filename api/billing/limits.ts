/**
 * Plan limits and usage (docs/billing.md, "Limits" and "Usage"). The limits of stores and products
 * are enforced where those are created, with one call each: `assertWithinPlan(tx, 'stores')` in
 * POST /organization/stores, `assertWithinPlan(tx, 'products', n)` in product create and in every
 * product import batch. Staff members and API calls are measured, not refused.
 */
import type { EntityManager } from 'typeorm';
import { requireStore } from '../../domain/store-access';
import type { RequestContext } from '../../storage/request-context';
import { billingError } from './billing.errors';
import { effectivePlan, FREE_PLAN } from './plans';
import { LIMIT_NAMES, planFeatures, planLimits, type LimitName, type UsageMetric } from './billing.views';

/** The limits that are refused at creation. */
export type EnforcedLimit = Extract<LimitName, 'stores' | 'products'>;

const LIMIT_WORDS: Record<LimitName, string> = {
  stores: 'stores',
  products: 'products',
  staffMembers: 'staff members',
  apiCallsPerMonth: 'API calls a month',
};

/** Counts of a tenant's resources that plans limit. */
async function countOf(manager: EntityManager, tenantId: string, what: Exclude<LimitName, 'apiCallsPerMonth'>): Promise<number> {
  const sql = {
    stores: 'SELECT count(*)::int AS n FROM stores WHERE tenant_id = $1 AND archived_at IS NULL',
    products: 'SELECT count(*)::int AS n FROM products WHERE tenant_id = $1',
    staffMembers: 'SELECT count(*)::int AS n FROM users WHERE tenant_id = $1',
  }[what];
  const rows: Array<{ n: number }> = await manager.query(sql, [tenantId]);
  return rows[0]!.n;
}

/**
 * Refuses (403 plan_limit_reached, naming the limit) adding `adding` of `limit` when the tenant's plan
 * would be exceeded. Runs in the caller's transaction, before the insert.
 */
export async function assertWithinPlan(tx: RequestContext, limit: EnforcedLimit, adding = 1): Promise<void> {
  if (!tx.tenantId || adding <= 0) return;
  const plan = await effectivePlan(tx.manager, tx.tenantId);
  const max = planLimits(plan)[limit];
  if (max === null) return;
  const used = await countOf(tx.manager, tx.tenantId, limit);
  if (used + adding > max)
    throw billingError(
      'plan_limit_reached',
      `The plan ${plan.code} allows at most ${max} ${LIMIT_WORDS[limit]}; the tenant has ${used} and asked for ${adding} more. Limit: ${limit}.`,
      [{ path: `limits.${limit}`, message: `at most ${max} on the plan ${plan.code}` }],
    );
}

/** The current billing period: the paid subscription's period, else the calendar month (UTC). */
export async function currentPeriod(manager: EntityManager, tenantId: string): Promise<{ start: Date; end: Date }> {
  const rows: Array<{ current_period_start: Date; current_period_end: Date | null; plan_code: string }> = await manager.query(
    'SELECT current_period_start, current_period_end, plan_code FROM billing_subscriptions WHERE tenant_id = $1',
    [tenantId],
  );
  const row = rows[0];
  if (row && row.plan_code !== FREE_PLAN && row.current_period_end) return { start: row.current_period_start, end: row.current_period_end };
  const now = new Date();
  return {
    start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
    end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
  };
}

async function apiCalls(manager: EntityManager, tenantId: string, period: { start: Date; end: Date }): Promise<number> {
  const rows: Array<{ n: string }> = await manager.query(
    `SELECT coalesce(sum(calls), 0)::text AS n FROM billing_api_call_days
      WHERE tenant_id = $1 AND day >= ($2::timestamptz AT TIME ZONE 'UTC')::date AND day < ($3::timestamptz AT TIME ZONE 'UTC')::date`,
    [tenantId, period.start, period.end],
  );
  return Number(rows[0]!.n);
}

export async function storeFeatures(ctx: RequestContext, storeId: string) {
  await requireStore(ctx, storeId);
  const tenantId = ctx.tenantId!;
  const plan = await effectivePlan(ctx.manager, tenantId);
  const limits = planLimits(plan);
  const period = await currentPeriod(ctx.manager, tenantId);
  const used: Record<LimitName, number> = {
    stores: await countOf(ctx.manager, tenantId, 'stores'),
    products: await countOf(ctx.manager, tenantId, 'products'),
    staffMembers: await countOf(ctx.manager, tenantId, 'staffMembers'),
    apiCallsPerMonth: await apiCalls(ctx.manager, tenantId, period),
  };
  return {
    storeId,
    planCode: plan.code,
    features: planFeatures(plan),
    limits: LIMIT_NAMES.map((name) => ({
      name,
      limit: limits[name],
      used: used[name],
      remaining: limits[name] === null ? null : Math.max(0, limits[name]! - used[name]),
    })),
  };
}

export async function usage(ctx: RequestContext) {
  const tenantId = ctx.tenantId!;
  const plan = await effectivePlan(ctx.manager, tenantId);
  const limits = planLimits(plan);
  const period = await currentPeriod(ctx.manager, tenantId);
  const orders: Array<{ n: number }> = await ctx.manager.query(
    'SELECT count(*)::int AS n FROM orders WHERE tenant_id = $1 AND created_at >= $2 AND created_at < $3',
    [tenantId, period.start, period.end],
  );
  const metrics: Array<{ name: UsageMetric; used: number; limit: number | null }> = [
    { name: 'products', used: await countOf(ctx.manager, tenantId, 'products'), limit: limits.products },
    { name: 'stores', used: await countOf(ctx.manager, tenantId, 'stores'), limit: limits.stores },
    { name: 'orders', used: orders[0]!.n, limit: null },
    { name: 'staffMembers', used: await countOf(ctx.manager, tenantId, 'staffMembers'), limit: limits.staffMembers },
    { name: 'apiCalls', used: await apiCalls(ctx.manager, tenantId, period), limit: limits.apiCallsPerMonth },
  ];
  return { planCode: plan.code, periodStart: period.start.toISOString(), periodEnd: period.end.toISOString(), metrics };
}
