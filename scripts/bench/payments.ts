/**
 * `npm run bench:payments [-- --duration S --connections C --duplicates N]`: payments through the
 * real HTTP API, the app in its own process (docs/benchmarks.md, "Payments").
 *
 * 1. Starts the app (ROLES=api) on a free port, registers one merchant with a store, and inserts
 *    orders of 100 EUR straight into PostgreSQL (untimed).
 * 2. authorize+capture: C connections (default 16) each loop POST /payments (a stripe SUCCESS card)
 *    then POST /payments/{id}/capture for D seconds (default 10); reports pairs per second and the
 *    p50/p95 of each pair and of each call.
 * 3. duplicates: N (default 10000) concurrent POST /payments with one Idempotency-Key and one body,
 *    sent in batches of 500 open requests so the client does not run out of sockets; checks that
 *    every answer is 201 with the same payment id and that exactly one payment row exists.
 * Prints one JSON object per line. The bench tenant (its payments and orders cascade) is deleted at the end.
 */
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../../lib/config';
import { createDataSource } from '../../storage/data-source';
import { runMigrations } from '../../storage/migrate';
import { uuidv7 } from '../../storage/ids';
import { percentile } from './load';
import { emit, freePort, log, parseFlags, round, spawnApiProcess, stopProcess, waitUntilReady } from './common';

const CARD = { number: '4242424242424242', expiryMonth: 12, expiryYear: 2030, cvc: '123', holderName: 'Bench Shopper' };

function stats(ms: number[]): { n: number; p50: number; p95: number; max: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    max: round(sorted[sorted.length - 1] ?? 0),
  };
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), []);
  const duration = Number(flags.get('duration') ?? process.env.DURATION ?? 10);
  const connections = Number(flags.get('connections') ?? process.env.CONNECTIONS ?? 16);
  const duplicates = Number(flags.get('duplicates') ?? process.env.DUPLICATES ?? 10_000);
  const batch = 500;
  const config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
  const db = createDataSource(config, 'bench-payments');
  await db.initialize();
  await runMigrations(db);
  const port = await freePort();
  const child = spawnApiProcess(port);

  let tenantId: string | undefined;
  try {
    await waitUntilReady(child, port);
    const base = `http://127.0.0.1:${port}/api/v1`;
    const register = await fetch(`${base}/auth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        email: `payments-bench-${uuidv7()}@example.test`,
        password: 'Bench-Payments-42-Card',
        name: 'Bench',
        companyName: 'Payments bench',
      }),
    });
    const account = (await register.json()) as { accessToken: string; tenant: { id: string } };
    if (!account.accessToken) throw new Error(`registration failed: ${register.status}`);
    tenantId = account.tenant.id;
    const auth = { Authorization: `Bearer ${account.accessToken}`, 'Content-Type': 'application/json' };
    const storeRes = await fetch(`${base}/organization/stores`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'Bench', slug: `bench-${uuidv7().slice(-12)}` }),
    });
    const storeId = ((await storeRes.json()) as { id: string }).id;
    const customerId = uuidv7();
    await db.query(`INSERT INTO customers (id, tenant_id, store_id, email) VALUES ($1, $2, $3, $4)`, [
      customerId,
      tenantId,
      storeId,
      `c-${customerId}@example.test`,
    ]);
    const newOrders = async (n: number): Promise<string[]> => {
      const ids = Array.from({ length: n }, () => uuidv7());
      await db.query(
        `INSERT INTO orders (id, tenant_id, store_id, customer_id, status, currency, subtotal, total, item_count, shipping_city, shipping_district)
         SELECT id, $2, $3, $4, 'PLACED', 'EUR', 100, 100, 1, 'Istanbul', 'Kadikoy' FROM unnest($1::uuid[]) id`,
        [ids, tenantId, storeId, customerId],
      );
      return ids;
    };
    emit({ bench: 'payments', connections, durationSeconds: duration, duplicates, batch, cores: (await import('node:os')).cpus().length });

    // authorize + capture
    const orders = await newOrders(Math.max(20_000, connections * duration * 400));
    let next = 0;
    const pairs: number[] = [];
    const authorizeMs: number[] = [];
    const captureMs: number[] = [];
    let failures = 0;
    const until = performance.now() + duration * 1000;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < until && next < orders.length) {
          const orderId = orders[next++]!;
          const t0 = performance.now();
          const a = await fetch(`${base}/payments`, {
            method: 'POST',
            headers: auth,
            body: JSON.stringify({ orderId, provider: 'stripe', card: CARD }),
          });
          const payment = (await a.json()) as { id: string; status: string };
          const t1 = performance.now();
          const c = await fetch(`${base}/payments/${payment.id}/capture`, { method: 'POST', headers: auth });
          await c.arrayBuffer();
          const t2 = performance.now();
          if (a.status !== 201 || c.status !== 201) failures += 1;
          authorizeMs.push(t1 - t0);
          captureMs.push(t2 - t1);
          pairs.push(t2 - t0);
        }
      }),
    );
    emit({
      bench: 'payments',
      case: 'authorize+capture',
      pairsPerSecond: round(pairs.length / duration, 1),
      failures,
      pairMs: stats(pairs),
      authorizeMs: stats(authorizeMs),
      captureMs: stats(captureMs),
    });

    // 10 000 concurrent duplicates with one key
    const [dupOrder] = await newOrders(1);
    const key = `bench-${uuidv7()}`;
    const body = JSON.stringify({ orderId: dupOrder, provider: 'stripe', card: CARD });
    const ids = new Set<string>();
    const statuses = new Map<number, number>();
    const started = performance.now();
    const latencies: number[] = [];
    for (let sent = 0; sent < duplicates; sent += batch) {
      await Promise.all(
        Array.from({ length: Math.min(batch, duplicates - sent) }, async () => {
          const t0 = performance.now();
          const res = await fetch(`${base}/payments`, { method: 'POST', headers: { ...auth, 'Idempotency-Key': key }, body });
          const json = (await res.json()) as { id?: string };
          latencies.push(performance.now() - t0);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (json.id) ids.add(json.id);
        }),
      );
    }
    const [{ n }] = (await db.query('SELECT count(*)::int AS n FROM payments WHERE order_id = $1', [dupOrder])) as Array<{ n: number }>;
    emit({
      bench: 'payments',
      case: 'idempotent duplicates',
      requests: duplicates,
      seconds: round((performance.now() - started) / 1000, 2),
      statuses: Object.fromEntries(statuses),
      distinctPaymentIds: ids.size,
      paymentRows: n,
      exactlyOne: n === 1 && ids.size === 1 && statuses.get(201) === duplicates,
      latencyMs: stats(latencies),
    });
  } finally {
    await stopProcess(child);
    if (tenantId) {
      await db.query('DELETE FROM audit_log WHERE tenant_id = $1', [tenantId]).catch(() => undefined);
      await db.query('DELETE FROM idempotency_keys WHERE tenant_id = $1', [tenantId]).catch(() => undefined);
      await db.query('DELETE FROM tenants WHERE id = $1', [tenantId]).catch((e: Error) => log(`cleanup: ${e.message}`));
    }
    await db.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
