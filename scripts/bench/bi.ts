/**
 * `npm run bench:bi [-- --orders N --runs R]`: the business intelligence reports through the real HTTP
 * API on one store with N orders (default 1000000) (docs/benchmarks.md, "Business intelligence";
 * target: p95 < 300 ms per report).
 *
 * 1. Seeds a bench tenant, its owner, a store, 100000 customers, 500 products and N orders over the
 *    last two years (5 % cancelled; 1 to 4 lines each, about 2.5 N order lines) in INSERT … SELECT
 *    statements over generate_series (untimed; where the database user may, with the summary
 *    triggers off and one `insight_rebuild` of the store after), then VACUUM ANALYZE.
 * 2. Starts the app in this process on an ephemeral port, signs the owner in and times R requests
 *    (default 30, after 3 warm-ups) of each case from the client.
 * 3. What keeping the insight summaries costs a write: one order with 3 lines placed by a customer of
 *    the store and then cancelled, each in its own transaction that is rolled back, W times with
 *    the summary triggers and W times without them (disabled inside that transaction, where the
 *    database user owns the tables), side by side.
 * Prints one JSON object per line: the config, the seed, one record per case (p50, p95, max), the
 * write cost and a summary. The bench tenant and everything of its store are deleted at the end, also after a failure.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createApp } from '../../app/http-app';
import { loadConfig } from '../../lib/config';
import { createRuntime } from '../../app/runtime';
import { runMigrations } from '../../storage/migrate';
import { hashPassword } from '../../api/auth/passwords';
import { uuidv7 } from '../../storage/ids';
import { percentile } from './load';
import { emit, log, parseFlags, round } from './common';

const CUSTOMERS = 100_000;
const PRODUCTS = 500;
const PASSWORD = 'Bench-Insight-42-Reports';
const TARGET_P95_MS = 300;

type Db = Pick<import('typeorm').EntityManager, 'query'>;

/** One transaction on one connection (the temp tables live there), without the statement timeout. */
async function unbounded(dataSource: import('typeorm').DataSource, work: (db: Db) => Promise<void>): Promise<void> {
  await dataSource.transaction(async (manager) => {
    await manager.query('SET LOCAL statement_timeout = 0');
    await work(manager);
  });
}

/**
 * VACUUM ANALYZE of the tables read (what autovacuum does after a bulk load): statistics, and the
 * visibility map the index-only scans of the reports need. Outside a transaction, without the timeout.
 */
async function vacuumAnalyze(dataSource: import('typeorm').DataSource): Promise<void> {
  const runner = dataSource.createQueryRunner();
  try {
    await runner.query('SET statement_timeout = 0');
    for (const table of [
      'orders',
      'order_items',
      'customers',
      'products',
      'payments',
      'storefront_checkouts',
      'insight_order_buckets',
      'insight_product_days',
      'insight_customers',
      'insight_customer_months',
      'insight_cohort_months',
    ])
      await runner.query(`VACUUM ANALYZE ${table}`);
    await runner.query('RESET statement_timeout');
  } finally {
    await runner.release();
  }
}

async function seed(db: Db, ids: { tenantId: string; storeId: string; userId: string; email: string }, orders: number) {
  const started = performance.now();
  const { tenantId, storeId, userId, email } = ids;
  await db.query(`INSERT INTO tenants (id, name, kind) VALUES ($1, 'BI bench', 'merchant')`, [tenantId]);
  await db.query(
    `INSERT INTO users (id, tenant_id, tenant_role, email, password_hash, name, email_verified_at) VALUES ($1, $2, 'owner', $3, $4, 'BI bench owner', now())`,
    [userId, tenantId, email, await hashPassword(PASSWORD)],
  );
  await db.query(
    `INSERT INTO stores (id, tenant_id, name, slug, currency, timezone, is_default) VALUES ($1, $2, 'BI bench', $3, 'EUR', 'Europe/Istanbul', true)`,
    [storeId, tenantId, `bi-bench-${storeId.slice(-12)}`],
  );
  await db.query(
    `CREATE TEMP TABLE bench_customers AS SELECT g AS ord, gen_random_uuid() AS id FROM generate_series(0, ${CUSTOMERS - 1}) g`,
  );
  await db.query(
    `INSERT INTO customers (id, tenant_id, store_id, name, email)
     SELECT id, $1, $2, 'Customer ' || ord, 'bi-bench-' || ord || '-' || $3 || '@example.test' FROM bench_customers`,
    [tenantId, storeId, storeId.slice(-8)],
  );
  await db.query(`CREATE TEMP TABLE bench_products AS SELECT g AS ord, gen_random_uuid() AS id FROM generate_series(0, ${PRODUCTS - 1}) g`);
  await db.query(
    `INSERT INTO products (id, tenant_id, store_id, title, slug, type, status, price, currency)
     SELECT id, $1, $2, 'Bench product ' || ord, 'bi-bench-' || ord || '-' || $3, 'PHYSICAL', 'PUBLISHED', 10, 'EUR' FROM bench_products`,
    [tenantId, storeId, storeId.slice(-8)],
  );
  // A bulk load is faster without the summary triggers and one rebuild after it (where the
  // database user may switch triggers off); otherwise the triggers keep the summaries as it loads.
  const [{ rolsuper: summariesOff }] = (await db.query('SELECT rolsuper FROM pg_roles WHERE rolname = current_user')) as [
    { rolsuper: boolean },
  ];
  let rebuildSeconds: number | null = null;
  if (summariesOff) await db.query('SET LOCAL session_replication_role = replica');
  // Orders: customers skewed towards low ordinals (some buy often), spread over 730 days.
  await db.query(
    `INSERT INTO orders (id, tenant_id, store_id, customer_id, status, currency, subtotal, total, item_count, shipping_city, shipping_district,
                         created_at, updated_at, cancelled_at)
     SELECT gen_random_uuid(), $1, $2, c.id, CASE WHEN s.cancelled THEN 'CANCELLED' ELSE 'PLACED' END, 'EUR', s.subtotal,
            s.subtotal + s.shipping, 1, 'Istanbul', 'Kadikoy', s.at, s.at, CASE WHEN s.cancelled THEN s.at END
       FROM (SELECT g, random() < 0.05 AS cancelled, round((5 + random() * 300)::numeric, 2) AS subtotal,
                    CASE WHEN random() < 0.3 THEN 0 ELSE 4.99 END AS shipping,
                    now() - random() * interval '730 days' AS at,
                    floor(${CUSTOMERS} * power(random(), 2))::int AS customer_ord
               FROM generate_series(1, $3::int) g) s
       JOIN bench_customers c ON c.ord = s.customer_ord`,
    [tenantId, storeId, orders],
  );
  await db.query(
    `INSERT INTO order_items (id, tenant_id, order_id, product_id, title, quantity, unit_price, line_total, position)
     SELECT gen_random_uuid(), $1, o.id, p.id, 'Bench line', q.quantity, q.unit, q.quantity * q.unit, k
       FROM orders o
       CROSS JOIN LATERAL generate_series(1, 1 + (abs(hashtext(o.id::text)) % 4)) k
       CROSS JOIN LATERAL (SELECT 1 + floor(random() * 3)::int AS quantity, round((2 + random() * 100)::numeric, 2) AS unit,
                                  floor(${PRODUCTS} * power(random(), 2))::int AS product_ord, k AS kk) q
       JOIN bench_products p ON p.ord = q.product_ord
      WHERE o.store_id = $2`,
    [tenantId, storeId],
  );
  if (summariesOff) {
    await db.query('SET LOCAL session_replication_role = origin');
    const rebuilding = performance.now();
    // Statistics of what was just loaded first (ANALYZE sees this transaction's rows), or the
    // rebuild's joins are planned for the empty tables the statistics still describe.
    await db.query('ANALYZE orders, order_items, customers');
    await db.query('SELECT insight_rebuild($1)', [ids.storeId]);
    rebuildSeconds = round((performance.now() - rebuilding) / 1000, 1);
  }
  await db.query('DROP TABLE bench_customers');
  await db.query('DROP TABLE bench_products');
  const [{ items }] = await db.query(
    `SELECT count(*)::int AS items FROM order_items i JOIN orders o ON o.id = i.order_id WHERE o.store_id = $1`,
    [storeId],
  );
  emit({
    phase: 'seed',
    orders,
    orderItems: items,
    customers: CUSTOMERS,
    products: PRODUCTS,
    summaries: summariesOff ? 'rebuilt after the load' : 'kept by the triggers during the load',
    rebuildSeconds,
    seconds: round((performance.now() - started) / 1000, 1),
  });
}

/** Marks a transaction rolled back on purpose. */
class RolledBack extends Error {}

/** Places and cancels one order of 3 lines in a transaction that is rolled back; the milliseconds it took. */
async function placeAndCancel(dataSource: import('typeorm').DataSource, ids: { tenantId: string; storeId: string }, triggers: boolean) {
  let ms = 0;
  await dataSource
    .transaction(async (tx) => {
      // The baseline: the same writes with the summary triggers (the only user triggers of these
      // tables) off for this transaction alone; foreign keys are still checked.
      if (!triggers) for (const table of ['orders', 'order_items']) await tx.query(`ALTER TABLE ${table} DISABLE TRIGGER USER`);
      const started = performance.now();
      const [order] = (await tx.query(
        `INSERT INTO orders (id, tenant_id, store_id, customer_id, status, currency, subtotal, total, item_count, shipping_city, shipping_district)
         SELECT gen_random_uuid(), $1, $2, (SELECT id FROM customers WHERE store_id = $2 ORDER BY id LIMIT 1 OFFSET floor(random() * 1000)::int),
                'PLACED', 'EUR', 30, 34.99, 3, 'Istanbul', 'Kadikoy'
         RETURNING id`,
        [ids.tenantId, ids.storeId],
      )) as Array<{ id: string }>;
      await tx.query(
        `INSERT INTO order_items (id, tenant_id, order_id, product_id, title, quantity, unit_price, line_total, position)
         SELECT gen_random_uuid(), $1, $2, p.id, 'Bench line', 1, 10, 10, row_number() OVER ()
           FROM (SELECT id FROM products WHERE store_id = $3 ORDER BY random() LIMIT 3) p`,
        [ids.tenantId, order!.id, ids.storeId],
      );
      await tx.query(`UPDATE orders SET status = 'CANCELLED', cancelled_at = now() WHERE id = $1`, [order!.id]);
      ms = performance.now() - started;
      throw new RolledBack();
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
  return ms;
}

/** The write cost of the summary triggers, with and without them in the same run. */
async function writeCost(dataSource: import('typeorm').DataSource, ids: { tenantId: string; storeId: string }, writes: number) {
  const [{ owner }] = (await dataSource.query(
    `SELECT pg_get_userbyid(relowner) = current_user AS owner FROM pg_class WHERE oid = 'orders'::regclass`,
  )) as [{ owner: boolean }];
  const figures: Record<string, unknown> = { phase: 'write cost', writes, what: 'place an order of 3 lines and cancel it' };
  for (const triggers of owner ? [true, false] : [true]) {
    const ms: number[] = [];
    for (let i = 0; i < writes; i++) ms.push(await placeAndCancel(dataSource, ids, triggers));
    ms.sort((x, y) => x - y);
    figures[triggers ? 'withSummaries' : 'withoutSummaries'] = { p50Ms: round(percentile(ms, 50)), p95Ms: round(percentile(ms, 95)) };
  }
  emit(figures);
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), []);
  const orders = Number(flags.get('orders') ?? process.env.ORDERS ?? 1_000_000);
  const runs = Number(flags.get('runs') ?? process.env.RUNS ?? 30);
  if (!Number.isInteger(orders) || orders < 1000) throw new Error('--orders must be an integer of at least 1000');
  const config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
  const runtime = await createRuntime(config, 'bench-bi');
  await runMigrations(runtime.dataSource);
  const db = runtime.dataSource;
  emit({ bench: 'bi', orders, runsPerCase: runs, targetP95Ms: TARGET_P95_MS });
  const ids = { tenantId: uuidv7(), storeId: uuidv7(), userId: uuidv7(), email: `bi-bench-${uuidv7()}@example.test` };
  let seeded = false;
  const server = http.createServer(createApp({ ...runtime }).callback());
  try {
    seeded = true;
    await unbounded(db, (tx) => seed(tx, ids, orders));
    await vacuumAnalyze(db);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
    const login = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: ids.email, password: PASSWORD }),
    });
    const { accessToken } = (await login.json()) as { accessToken: string };
    if (!accessToken) throw new Error(`sign-in failed: ${login.status}`);
    const headers = { Authorization: `Bearer ${accessToken}` };
    const get = async (path: string): Promise<number> => {
      const started = performance.now();
      const res = await fetch(`${base}${path}`, { headers });
      const body = await res.text();
      const ms = performance.now() - started;
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body}`);
      return ms;
    };
    const s = `storeId=${ids.storeId}`;
    const day = (back: number) => new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10);
    const cases: Array<[string, string]> = [
      ['profit-loss 30 days', `/bi/profit-loss?${s}&from=${day(30)}&to=${day(1)}`],
      ['profit-loss 365 days', `/bi/profit-loss?${s}&from=${day(365)}&to=${day(1)}`],
      ['kpis days=30', `/bi/kpis?${s}&days=30`],
      ['kpis days=365', `/bi/kpis?${s}&days=365`],
      ['top-products days=30 limit=50', `/bi/top-products?${s}&days=30&limit=50`],
      ['top-products days=365 limit=100', `/bi/top-products?${s}&days=365&limit=100`],
      ['revenue-timeseries days=30', `/bi/revenue-timeseries?${s}&days=30`],
      ['revenue-timeseries days=365', `/bi/revenue-timeseries?${s}&days=365`],
      ['cohorts monthsBack=12', `/bi/cohorts?${s}&monthsBack=12`],
      ['cohorts monthsBack=36', `/bi/cohorts?${s}&monthsBack=36`],
      ['funnel days=30', `/bi/funnel?${s}&days=30`],
      ['funnel days=365', `/bi/funnel?${s}&days=365`],
      ['customer-ltv limit=50', `/bi/customer-ltv?${s}&limit=50`],
      ['customer-ltv limit=100', `/bi/customer-ltv?${s}&limit=100`],
    ];
    const results: Array<{ case: string; p95Ms: number }> = [];
    for (const [name, path] of cases) {
      for (let i = 0; i < 3; i++) await get(path);
      const ms: number[] = [];
      for (let i = 0; i < runs; i++) ms.push(await get(path));
      ms.sort((x, y) => x - y);
      const p95 = percentile(ms, 95);
      results.push({ case: name, p95Ms: round(p95) });
      emit({ case: name, n: ms.length, p50Ms: round(percentile(ms, 50)), p95Ms: round(p95), maxMs: round(ms[ms.length - 1]!) });
    }
    await writeCost(db, ids, 100);
    const worst = results.reduce((a, b) => (b.p95Ms > a.p95Ms ? b : a));
    emit({
      summary: 'bi',
      worstCase: worst.case,
      worstP95Ms: worst.p95Ms,
      targetMet: worst.p95Ms < TARGET_P95_MS,
      over: results.filter((r) => r.p95Ms >= TARGET_P95_MS),
    });
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (seeded) {
      log('cleaning up the bench tenant');
      await unbounded(db, async (tx) => {
        // The bench's rows have nothing referring to them but each other: the foreign key checks are
        // skipped where the platform allows it (superuser), since some referring columns have no index
        // (order_items.product_id, campaign_recipients' customer) and would be scanned once per row.
        const [{ rolsuper: skipChecks }] = (await tx.query('SELECT rolsuper FROM pg_roles WHERE rolname = current_user')) as [
          { rolsuper: boolean },
        ];
        if (skipChecks) await tx.query('SET LOCAL session_replication_role = replica');
        await tx.query('DELETE FROM order_items WHERE order_id IN (SELECT id FROM orders WHERE store_id = $1)', [ids.storeId]);
        await tx.query('DELETE FROM orders WHERE store_id = $1', [ids.storeId]);
        await tx.query('DELETE FROM customers WHERE store_id = $1', [ids.storeId]);
        await tx.query('DELETE FROM products WHERE store_id = $1', [ids.storeId]);
        if (skipChecks) await tx.query('SET LOCAL session_replication_role = origin');
        await tx.query('DELETE FROM users WHERE id = $1', [ids.userId]);
        await tx.query('DELETE FROM tenants WHERE id = $1', [ids.tenantId]);
      });
      await vacuumAnalyze(db).catch(() => undefined);
    }
    await runtime.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
