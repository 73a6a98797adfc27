/**
 * The digest pass of the jobs worker (docs/messaging.md, "The digest"), every minute: for each tenant
 * with messages held for its digest (storage/customer-messages.ts holds non-transactional e-mail
 * while the tenant's digest is DAILY or WEEKLY), once the digest hour of the period has come in the
 * tenant's time zone (WEEKLY: Mondays), the held messages of each customer become one digest e-mail,
 * queued through the outbound port; the held rows become `digested` (pointing at the digest). A
 * tenant whose digest was turned OFF gets its held messages sent the same way on the next pass.
 * Tenants are claimed with FOR UPDATE SKIP LOCKED; the period is recorded (`last_period`), and the
 * digest's dedupe key is per period and customer, so a pass run twice sends nothing twice.
 */
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, servicesOf, systemContext, type ContextServices, type RequestContext } from '../../storage/request-context';
import { startPeriodicTask, type PeriodicTask } from '../../lib/periodic-task';

const INTERVAL_MS = 60_000;
/** Most held messages listed in one digest e-mail (the rest go into the next one). */
const MAX_ITEMS = 50;

interface LocalTime {
  date: string;
  hour: number;
  weekday: string;
}

function localTime(now: Date, timeZone: string): LocalTime {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      hourCycle: 'h23',
      weekday: 'short',
    })
      .formatToParts(now)
      .map((p) => [p.type, p.value]),
  );
  return { date: `${parts.year}-${parts.month}-${parts.day}`, hour: Number(parts.hour), weekday: parts.weekday! };
}

/** The period due now for these settings (its local date), or null when no digest is due. */
export function duePeriod(
  settings: { frequency: string; hour: number; timeZone: string; lastPeriod: string | null },
  now: Date,
): string | null {
  if (settings.frequency === 'OFF') return `release-${now.toISOString()}`;
  const local = localTime(now, settings.timeZone);
  if (local.hour < settings.hour) return null;
  if (settings.frequency === 'WEEKLY' && local.weekday !== 'Mon') return null;
  return settings.lastPeriod === local.date ? null : local.date;
}

interface HeldRow {
  id: string;
  store_id: string;
  customer_id: string;
  recipient: string;
  subject: string | null;
  body: string;
  category: string;
}

/** One pass at `now` (the tests move the clock). Returns the number of digest e-mails queued. */
export async function runDigestPass(ctx: RequestContext, now: Date = new Date()): Promise<number> {
  const tenants: Array<{ tenant_id: string }> = await ctx.manager.query(
    "SELECT DISTINCT tenant_id FROM outbound_messages WHERE status = 'held' AND created_at <= $1 AND tenant_id IS NOT NULL",
    [now],
  );
  let sent = 0;
  for (const { tenant_id: tenantId } of tenants) {
    sent += await inTransaction({ ...ctx, tenantId }, async (tx) => {
      const rows: Array<{ frequency: string; hour: number; time_zone: string; last_period: string | null }> = await tx.manager.query(
        'SELECT frequency, hour, time_zone, last_period FROM tenant_notification_digests WHERE tenant_id = $1 FOR UPDATE SKIP LOCKED',
        [tenantId],
      );
      const settings = rows[0];
      if (!settings) return 0; // locked by another worker (held rows always have settings: holding needs them)
      const period = duePeriod(
        { frequency: settings.frequency, hour: settings.hour, timeZone: settings.time_zone, lastPeriod: settings.last_period },
        now,
      );
      if (period === null) return 0;
      const held: HeldRow[] = await tx.manager.query(
        `SELECT id, store_id, customer_id, recipient, subject, body, category FROM outbound_messages
          WHERE tenant_id = $1 AND status = 'held' AND created_at <= $2 AND customer_id IS NOT NULL
          ORDER BY customer_id, created_at, id FOR UPDATE`,
        [tenantId, now],
      );
      const byCustomer = new Map<string, HeldRow[]>();
      for (const row of held) byCustomer.set(row.customer_id, [...(byCustomer.get(row.customer_id) ?? []), row]);
      let queued = 0;
      for (const [customerId, items] of byCustomer) {
        const batch = items.slice(0, MAX_ITEMS);
        const body = batch.map((m, i) => `${i + 1}. ${m.subject ?? m.category}\n\n${m.body}`).join('\n\n---\n\n');
        const digestId = await servicesOf(tx).outbound.send(tx.manager, {
          channel: 'email',
          to: batch[0]!.recipient,
          template: 'customer.digest',
          subject: `Your updates (${batch.length})`,
          body,
          tenantId,
          storeId: batch[0]!.store_id,
          customerId,
          category: null,
          dedupeKey: `digest:${period}:${customerId}`,
        });
        if (digestId === null) continue;
        await tx.manager.query("UPDATE outbound_messages SET status = 'digested', digest_message_id = $2 WHERE id = ANY($1::uuid[])", [
          batch.map((m) => m.id),
          digestId,
        ]);
        queued += 1;
      }
      if (settings.frequency !== 'OFF')
        await tx.manager.query('UPDATE tenant_notification_digests SET last_period = $2 WHERE tenant_id = $1', [tenantId, period]);
      if (queued > 0)
        await recordAudit(tx, {
          action: 'notification_digest.send',
          resourceType: 'tenant_notification_digest',
          resourceId: tenantId,
          after: { period, digests: queued, messages: held.length },
        });
      return queued;
    });
  }
  return sent;
}

/** Runs a pass every minute until stopped (the jobs role starts it); `clock` lets tests move time. */
export function startDigestScheduler(
  dataSource: DataSource,
  logger: Logger,
  services: ContextServices,
  clock: () => Date = () => new Date(),
): PeriodicTask {
  return startPeriodicTask({
    logger,
    failureKey: 'messaging:digest',
    failureMessage: 'digest pass failed; retrying',
    intervalMs: INTERVAL_MS,
    run: async () => {
      const count = await runDigestPass(systemContext(dataSource, uuidv7(), undefined, 'notification-digest', services), clock());
      if (count) logger.info({ digests: count }, 'messaging: digest e-mails queued');
    },
  });
}
