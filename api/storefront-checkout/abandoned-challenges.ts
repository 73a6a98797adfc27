/**
 * Checkouts whose shopper left on the 3-D Secure page: once the challenge expired (the simulator's
 * 15 minutes, plus a margin for a return still on its way), the payment is declined
 * `challenge_expired`, the order cancelled and its stock released, as a failed challenge would. The
 * jobs worker runs the sweep every minute (docs/storefront.md, "Cart and checkout").
 */
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { recordAudit } from '../../storage/audit';
import { inTransaction, systemContext } from '../../storage/request-context';
import { uuidv7 } from '../../storage/ids';
import { cancelOrder } from '../orders/orders.service';
import { expirePendingChallenge } from '../payments/payments.service';
import { startPeriodicTask, type PeriodicTask } from '../../lib/periodic-task';

/** How long after the challenge's expiry a checkout is given up. */
export const ABANDON_MARGIN_MINUTES = 5;
const BATCH = 100;

/** Gives up abandoned checkouts (at most a batch); answers how many. `now` is for tests. */
export async function sweepAbandonedChallenges(dataSource: DataSource, now = new Date()): Promise<number> {
  const due: Array<{ id: string; tenant_id: string; order_id: string; payment_id: string }> = await dataSource.query(
    `SELECT c.id, c.tenant_id, c.order_id, c.payment_id
       FROM storefront_checkouts c JOIN payments p ON p.id = c.payment_id
      WHERE c.status = 'CHALLENGE_REQUIRED' AND p.status = 'PENDING_CHALLENGE'
        AND p.challenge_expires_at < $1::timestamptz - make_interval(mins => $2)
      ORDER BY p.challenge_expires_at
      LIMIT $3`,
    [now, ABANDON_MARGIN_MINUTES, BATCH],
  );
  let given = 0;
  for (const row of due) {
    const ctx = systemContext(dataSource, uuidv7(), row.tenant_id, 'checkout-sweeper');
    const done = await inTransaction(ctx, async (tx) => {
      const [locked] = (await tx.manager.query(
        "SELECT 1 FROM storefront_checkouts WHERE id = $1 AND status = 'CHALLENGE_REQUIRED' FOR UPDATE SKIP LOCKED",
        [row.id],
      )) as unknown[];
      if (!locked || !(await expirePendingChallenge(tx, row.payment_id))) return false;
      await cancelOrder(tx, row.order_id);
      await tx.manager.query(
        "UPDATE storefront_checkouts SET status = 'DECLINED', decline_code = 'challenge_expired', challenge_url = NULL, updated_at = now() WHERE id = $1",
        [row.id],
      );
      await recordAudit(tx, {
        action: 'storefront_checkout.abandoned',
        resourceType: 'order',
        resourceId: row.order_id,
        before: { status: 'CHALLENGE_REQUIRED' },
        after: { status: 'DECLINED', declineCode: 'challenge_expired' },
      });
      return true;
    });
    if (done) given += 1;
  }
  return given;
}

/** Runs the sweep every `intervalMs` until stopped, the first one an interval after start. */
export function startAbandonedChallengeSweeper(dataSource: DataSource, logger: Logger, intervalMs = 60_000): PeriodicTask {
  return startPeriodicTask({
    logger,
    failureKey: 'storefront-checkout:sweep',
    failureMessage: 'the sweep of abandoned checkouts failed; it runs again in a minute',
    intervalMs,
    firstDelayMs: intervalMs,
    run: async () => {
      await sweepAbandonedChallenges(dataSource);
    },
  });
}
