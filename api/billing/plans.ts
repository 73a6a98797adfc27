/**
 * Plans and each tenant's effective plan (docs/billing.md, "Plans and limits"). A tenant without a
 * subscription row is on FREE; a subscription's plan stays in force until its period ends, cancelled
 * or not (the dunning scheduler moves a cancelled one to FREE at its end).
 */
import type { EntityManager } from 'typeorm';
import type { RequestContext } from '../../storage/request-context';
import { billingError } from './billing.errors';
import { PLAN_COLUMNS, planView, type PlanRow, type PlanView } from './billing.views';

export const FREE_PLAN = 'FREE';

export async function listPlans(ctx: RequestContext): Promise<{ items: PlanView[] }> {
  const rows: PlanRow[] = await ctx.manager.query(`SELECT ${PLAN_COLUMNS} FROM billing_plans WHERE is_public ORDER BY position, code`);
  return { items: rows.map(planView) };
}

/** The plan with this code (public or not); 404 plan_not_found unless `publicOnly` finds it on offer. */
export async function loadPlan(manager: EntityManager, code: string, options: { publicOnly?: boolean } = {}): Promise<PlanRow> {
  const rows: PlanRow[] = await manager.query(
    `SELECT ${PLAN_COLUMNS} FROM billing_plans WHERE code = $1 ${options.publicOnly ? 'AND is_public' : ''}`,
    [code],
  );
  if (!rows[0]) throw billingError('plan_not_found', `There is no plan ${code}.`);
  return rows[0];
}

/** The plan in force for a tenant: its subscription's plan, FREE without one. */
export async function effectivePlan(manager: EntityManager, tenantId: string): Promise<PlanRow> {
  const rows: PlanRow[] = await manager.query(
    `SELECT ${PLAN_COLUMNS.split(', ')
      .map((c) => `p.${c}`)
      .join(', ')}
       FROM billing_plans p
      WHERE p.code = coalesce((SELECT s.plan_code FROM billing_subscriptions s WHERE s.tenant_id = $1), $2)`,
    [tenantId, FREE_PLAN],
  );
  return rows[0]!;
}
