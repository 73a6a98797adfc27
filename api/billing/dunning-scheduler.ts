/**
 * The billing pass of the jobs worker (docs/billing.md, "Dunning"), every BILLING_DUNNING_INTERVAL_MS:
 * - each dunning case whose next step is due moves one step (REMINDER → GRACE → SUSPENDED), telling
 *   the tenant; cases are claimed with FOR UPDATE SKIP LOCKED, so several workers share the work;
 * - each subscription cancelled at its period end whose period is over moves to FREE.
 */
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, systemContext, type ContextServices, type RequestContext } from '../../storage/request-context';
import { updatedRows, type DunningRow } from './billing.views';
import { DUNNING_COLUMNS, DUNNING_TRANSITIONS, moveCase } from './dunning-steps';
import { FREE_PLAN } from './plans';
import { startPeriodicTask, type PeriodicTask } from '../../lib/periodic-task';

export interface DunningPass {
  advanced: number;
  expired: number;
}

const BATCH = 100;

export async function runDunningPass(ctx: RequestContext, now: Date = new Date()): Promise<DunningPass> {
  let advanced = 0;
  for (;;) {
    const moved = await inTransaction(ctx, async (tx) => {
      const due: DunningRow[] = await tx.manager.query(
        `SELECT ${DUNNING_COLUMNS} FROM billing_dunning_cases
          WHERE step IN ('REMINDER', 'GRACE') AND next_step_at <= $1
          ORDER BY next_step_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`,
        [now],
      );
      for (const row of due) await moveCase({ ...tx, tenantId: row.tenant_id }, row, DUNNING_TRANSITIONS[row.step][0]!);
      return due.length;
    });
    advanced += moved;
    if (moved < BATCH) break;
  }
  const expired = await inTransaction(ctx, async (tx) => {
    const rows = updatedRows<{ tenant_id: string; plan_code: string }>(
      await tx.manager.query(
        `UPDATE billing_subscriptions s
          SET plan_code = $2, status = 'ACTIVE', cancel_at_period_end = false, current_period_start = s.current_period_end,
              current_period_end = NULL, pending_plan_code = NULL, updated_at = $1
         FROM billing_subscriptions old
        WHERE old.tenant_id = s.tenant_id AND s.cancel_at_period_end AND s.current_period_end <= $1
        RETURNING s.tenant_id, old.plan_code`,
        [now, FREE_PLAN],
      ),
    );
    for (const row of rows)
      await recordAudit(tx, {
        action: 'subscription.expire',
        resourceType: 'subscription',
        resourceId: row.tenant_id,
        tenantId: row.tenant_id,
        before: { planCode: row.plan_code },
        after: { planCode: FREE_PLAN },
      });
    return rows.length;
  });
  return { advanced, expired };
}

/** Runs a pass every `intervalMs` until stopped (the jobs role starts it). */
export function startDunningScheduler(dataSource: DataSource, logger: Logger, services: ContextServices): PeriodicTask {
  return startPeriodicTask({
    logger,
    failureKey: 'billing:dunning',
    failureMessage: 'billing dunning pass failed; retrying',
    intervalMs: services.config.billing.dunningIntervalMs,
    run: async () => {
      const pass = await runDunningPass(systemContext(dataSource, uuidv7(), undefined, 'billing-dunning', services));
      if (pass.advanced || pass.expired) logger.info(pass, 'billing: dunning cases advanced, cancelled subscriptions ended');
    },
  });
}
