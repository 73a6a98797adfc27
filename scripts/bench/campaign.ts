/**
 * `npm run bench:campaign [-- --customers N]`: one marketing campaign sent to N customers (default
 * 100000) through the real sending path (docs/benchmarks.md, "Campaign send").
 *
 * 1. Seeds a bench tenant, a store and N customers who accept marketing in one INSERT … SELECT over
 *    generate_series (untimed), then ANALYZE.
 * 2. Starts the local SMTP sink (lib/smtp-sink.ts) in this process and a runtime whose SMTP_URL points
 *    at it, creates a DRAFT campaign and sends it (campaign service: the audience is taken).
 * 3. Send phase (timed): marketing scheduler passes (api/marketing/marketing-scheduler.ts) until the
 *    campaign is SENT: every recipient through queueCustomerMessage, recorded `queued` with its outbox
 *    row, 500 per transaction.
 * 4. Delivery phase (timed): what the jobs worker's `outbound_message` handler does for each queued
 *    message (`outbound.deliver`, SMTP into the sink), 16 at a time. The relay's hand-off through
 *    Redis is not in this process and not timed.
 * Prints JSON lines: the config, each phase (messages, seconds, messages per second) and a summary with
 * the peak RSS of this process (the sink keeps the messages it received in memory, so it counts too).
 * The bench tenant (customers, campaign, messages cascade) and its outbox rows are deleted at the end,
 * also after a failure.
 */
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../../lib/config';
import { createRuntime } from '../../app/runtime';
import { runMigrations } from '../../storage/migrate';
import { uuidv7 } from '../../storage/ids';
import { startSmtpSink } from '../../lib/smtp-sink';
import { systemContext } from '../../storage/request-context';
import { runMarketingPass } from '../../api/marketing/marketing-scheduler';
import { emit, log, parseFlags, round } from './common';

const CONCURRENCY = 16;

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), []);
  const customers = Number(flags.get('customers') ?? process.env.CUSTOMERS ?? 100_000);
  if (!Number.isInteger(customers) || customers < 100) throw new Error('--customers must be an integer of at least 100');
  const sink = await startSmtpSink({ port: 0 });
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    SMTP_URL: `smtp://127.0.0.1:${sink.port}/?pool=true&maxConnections=${CONCURRENCY}`,
  });
  const runtime = await createRuntime(config, 'bench-campaign');
  await runMigrations(runtime.dataSource);
  const db = runtime.dataSource;
  emit({ bench: 'campaign', customers, deliveryConcurrency: CONCURRENCY });
  const tenantId = uuidv7();
  const storeId = uuidv7();
  const campaignId = uuidv7();
  try {
    const seeded = performance.now();
    await db.query(`INSERT INTO tenants (id, name, kind) VALUES ($1, 'Campaign bench', 'merchant')`, [tenantId]);
    await db.query(`INSERT INTO stores (id, tenant_id, name, slug, currency, is_default) VALUES ($1, $2, 'Bench', $3, 'EUR', true)`, [
      storeId,
      tenantId,
      `campaign-bench-${storeId.slice(-12)}`,
    ]);
    await db.query(
      `INSERT INTO customers (id, tenant_id, store_id, name, email, accepts_marketing, marketing_consent_at)
       SELECT gen_random_uuid(), $1, $2, 'Customer ' || g, 'bench-' || g || '-' || $3 || '@example.test', true, now()
         FROM generate_series(1, $4::int) g`,
      [tenantId, storeId, storeId.slice(-8), customers],
    );
    await db.query('ANALYZE customers');
    emit({ phase: 'seed', customers, seconds: round((performance.now() - seeded) / 1000, 1) });

    await db.query(
      `INSERT INTO marketing_campaigns (id, tenant_id, store_id, name, subject, body, category, segment, status)
       VALUES ($1, $2, $3, 'Bench', 'Hello {{ firstName }}', 'Dear {{ firstName }}, this is the bench campaign.', 'MARKETING', '{}', 'SCHEDULED')`,
      [campaignId, tenantId, storeId],
    );
    const ctx = () => systemContext(db, uuidv7(), undefined, 'bench-campaign', runtime.services);
    // Due now: the next pass takes the audience and sends.
    await db.query('UPDATE marketing_campaigns SET scheduled_at = now() WHERE id = $1', [campaignId]);
    const sendStarted = performance.now();
    for (let pass = 0; pass < 100; pass++) {
      await runMarketingPass(ctx());
      const [{ status }] = await db.query('SELECT status FROM marketing_campaigns WHERE id = $1', [campaignId]);
      if (status === 'SENT') break;
    }
    const sendSeconds = (performance.now() - sendStarted) / 1000;
    const [{ queued }] = await db.query(
      "SELECT count(*)::int AS queued FROM campaign_recipients WHERE campaign_id = $1 AND status = 'queued'",
      [campaignId],
    );
    emit({
      phase: 'send (recipients through the pipeline, recorded queued)',
      messages: queued,
      seconds: round(sendSeconds, 2),
      perSecond: round(queued / sendSeconds, 0),
    });

    const ids: string[] = (await db.query("SELECT id FROM outbound_messages WHERE tenant_id = $1 AND status = 'queued'", [tenantId])).map(
      (r: { id: string }) => r.id,
    );
    const deliverStarted = performance.now();
    let next = 0;
    let sent = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < ids.length) {
          const id = ids[next++]!;
          if ((await runtime.services.outbound.deliver(db, id)) === 'sent') sent++;
        }
      }),
    );
    const deliverSeconds = (performance.now() - deliverStarted) / 1000;
    emit({
      phase: 'deliver (SMTP into the sink, pooled connections)',
      messages: sent,
      received: sink.messages.length,
      seconds: round(deliverSeconds, 2),
      perSecond: round(sent / deliverSeconds, 0),
    });
    emit({
      bench: 'campaign',
      summary: {
        customers,
        sendPerSecond: round(queued / sendSeconds, 0),
        deliverPerSecond: round(sent / deliverSeconds, 0),
        endToEndPerSecond: round(sent / (sendSeconds + deliverSeconds), 0),
        peakRssMiB: round(process.resourceUsage().maxRSS / 1024, 0),
      },
    });
  } finally {
    log('cleaning up the bench tenant');
    // The campaign (its recipients cascade) and the messages first; the tenant's customers last, with
    // no statement timeout: outbound_messages.customer_id is set null row by row.
    await db.query('DELETE FROM marketing_campaigns WHERE tenant_id = $1', [tenantId]);
    await db.query('DELETE FROM outbox WHERE tenant_id = $1', [tenantId]);
    await db.query(
      "DELETE FROM outbox WHERE aggregate_type = 'outbound_message' AND aggregate_id IN (SELECT id::text FROM outbound_messages WHERE tenant_id = $1)",
      [tenantId],
    );
    await db.query('DELETE FROM outbound_messages WHERE tenant_id = $1', [tenantId]);
    await db.query('VACUUM outbound_messages').catch(() => undefined);
    await db.transaction(async (manager) => {
      await manager.query('SET LOCAL statement_timeout = 0');
      await manager.query('DELETE FROM tenants WHERE id = $1', [tenantId]);
    });
    await runtime.close();
    await sink.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
