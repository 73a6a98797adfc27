/**
 * The insight summaries the business intelligence reports read (docs/insight.md, "How the reports
 * stay fast"): kept exact by triggers through every kind of write (bulk and single inserts,
 * cancellations, changed totals, deleted orders, lines, products and customers, concurrent orders
 * of one customer, a time zone change), checked against a rebuild from scratch; and the reports
 * checked against the orders themselves, computed again here in plain SQL, on a store whose time
 * zone is 5 h 30 ahead of UTC (its days start at a quarter hour that is not a UTC hour) with orders
 * up to the minute before the request, and on a sandbox's 200 factory orders.
 */
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { customer, merchant, product, variant, type Merchant } from '../helpers/fixtures';
import { uuidv7 } from '../../storage/ids';
import { foldInsightDeltas } from '../../api/bi/insight-fold.scheduler';

const API = '/api/v1';

describe('Business intelligence summaries', function () {
  this.timeout(180_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  const db = (sql: string, params: unknown[] = []): Promise<any[]> => server.runtime.dataSource.query(sql, params);
  let m: Merchant;
  let productIds: string[];
  let customerIds: string[];
  /** Sandbox tenants the file made: deleted at the end, once the suite has settled their outbox rows and indexes. */
  const tenants: string[] = [];
  after(async () => {
    await db('DELETE FROM tenants WHERE id = ANY($1::uuid[])', [tenants]);
  });

  /** The store's summaries, rows that count nothing left out (a cancelled order leaves zeros behind). */
  async function summaries(storeId: string) {
    return {
      buckets: await db(
        `SELECT bucket_start, orders, revenue::numeric(20, 4)::text AS revenue, subtotal::numeric(20, 4)::text AS subtotal
           FROM insight_order_buckets_current WHERE store_id = $1 AND (orders <> 0 OR revenue <> 0 OR subtotal <> 0) ORDER BY 1`,
        [storeId],
      ),
      productDays: await db(
        `SELECT day::text, product_key, orders, quantity::text, revenue::numeric(20, 4)::text AS revenue FROM insight_product_days_current
          WHERE store_id = $1 AND (orders <> 0 OR quantity <> 0 OR revenue <> 0) ORDER BY 1, 2`,
        [storeId],
      ),
      customers: await db(
        `SELECT customer_id, orders, revenue::text, first_order_at, last_order_at, cohort::text FROM insight_customers
          WHERE store_id = $1 ORDER BY 1`,
        [storeId],
      ),
      months: await db(`SELECT customer_id, month::text, orders FROM insight_customer_months WHERE store_id = $1 ORDER BY 1, 2`, [storeId]),
      cohorts: await db(
        `SELECT cohort::text, month::text, customers FROM insight_cohort_months_current WHERE store_id = $1 AND customers <> 0 ORDER BY 1, 2`,
        [storeId],
      ),
    };
  }

  /** The summaries as the triggers kept them (with their deltas, then folded) equal those rebuilt from the orders. */
  async function expectExact(storeId: string, what: string): Promise<void> {
    const kept = await summaries(storeId);
    expect(kept.buckets.length, what).to.be.greaterThan(0);
    await foldInsightDeltas(server.runtime.dataSource);
    expect(await summaries(storeId), `${what}, folded`).to.deep.equal(kept);
    await db('SELECT insight_rebuild($1)', [storeId]);
    expect(kept, what).to.deep.equal(await summaries(storeId));
  }

  async function insertOrder(
    q: (sql: string, params: unknown[]) => Promise<unknown>,
    o: { customerId: string; createdAt: Date; lines: Array<{ productId: string; quantity: number; cents: number }>; shipping?: number },
  ): Promise<string> {
    const id = uuidv7();
    const subtotal = o.lines.reduce((s, l) => s + l.quantity * l.cents, 0);
    await q(
      `INSERT INTO orders (id, tenant_id, store_id, customer_id, status, currency, subtotal, total, item_count, shipping_city, shipping_district, created_at)
       VALUES ($1, $2, $3, $4, 'PLACED', 'EUR', $5::numeric / 100, $6::numeric / 100, $7, 'Pune', 'Kothrud', $8)`,
      [id, m.owner.tenantId, m.storeId, o.customerId, subtotal, subtotal + (o.shipping ?? 0), o.lines.length, o.createdAt],
    );
    for (const [position, l] of o.lines.entries())
      await q(
        `INSERT INTO order_items (id, tenant_id, order_id, product_id, title, quantity, unit_price, line_total, position)
         VALUES ($1, $2, $3, $4, 'line', $5, $6::numeric / 100, $7::numeric / 100, $8)`,
        [uuidv7(), m.owner.tenantId, id, l.productId, l.quantity, l.cents, l.quantity * l.cents, position],
      );
    return id;
  }

  before(async () => {
    m = suite.addMerchant(await merchant(server));
    await db(`UPDATE stores SET timezone = 'Asia/Kolkata' WHERE id = $1`, [m.storeId]);
    productIds = [];
    for (let i = 0; i < 5; i++) productIds.push(await product(server, m, { title: `Rollup product ${i}`, price: '10' }));
    customerIds = [];
    for (let i = 0; i < 12; i++) customerIds.push(await customer(server, m, { name: `Rollup customer ${i}` }));
    // 300 orders in one statement, at any minute of the last 400 days, 1 to 3 lines (the same product twice in some).
    await db(
      `WITH o AS (
         INSERT INTO orders (id, tenant_id, store_id, customer_id, status, currency, subtotal, total, item_count, shipping_city, shipping_district, created_at)
         SELECT gen_random_uuid(), $1, $2, ($3::uuid[])[1 + (g * 7) % 12], 'PLACED', 'EUR', 0, (g % 5) * 1.25, 1, 'Pune', 'Kothrud',
                now() - make_interval(mins => (g * 1931) % (400 * 24 * 60))
           FROM generate_series(1, 300) g
         RETURNING id)
       SELECT count(*) FROM o`,
      [m.owner.tenantId, m.storeId, customerIds],
    );
    await db(
      `INSERT INTO order_items (id, tenant_id, order_id, product_id, title, quantity, unit_price, line_total, position)
       SELECT gen_random_uuid(), $1::uuid, o.id, ($3::uuid[])[1 + (n + abs(hashtext(o.id::text))) % 5 / (CASE WHEN n = 2 THEN 5 ELSE 1 END)],
              'line', 1 + n, 3.10, 3.10 * (1 + n), n
         FROM orders o CROSS JOIN generate_series(0, 2) n
        WHERE o.store_id = $2 AND n <= abs(hashtext(o.id::text)) % 3`,
      [m.owner.tenantId, m.storeId, productIds],
    );
    await db(
      `UPDATE orders o SET subtotal = s.subtotal, total = o.total + s.subtotal
         FROM (SELECT order_id, sum(line_total) AS subtotal FROM order_items GROUP BY 1) s
        WHERE s.order_id = o.id AND o.store_id = $1`,
      [m.storeId],
    );
  });

  it('follow bulk inserts, single orders, cancellations, changed totals and deletions of orders, lines, products and customers', async () => {
    await expectExact(m.storeId, 'after the bulk insert');
    // Single orders, some a minute ago and some at the store's midnight.
    const midnight = (await db(`SELECT (date_trunc('day', now() AT TIME ZONE 'Asia/Kolkata') AT TIME ZONE 'Asia/Kolkata') AS at`))[0].at;
    for (const [i, at] of [
      new Date(Date.now() - 60_000),
      midnight,
      new Date(midnight.getTime() - 1),
      new Date(Date.now() - 86_400_000),
    ].entries())
      await insertOrder(db, {
        customerId: customerIds[i]!,
        createdAt: at,
        lines: [
          { productId: productIds[i]!, quantity: 2, cents: 1999 },
          { productId: productIds[i]!, quantity: 1, cents: 1999 },
        ],
        shipping: 499,
      });
    await expectExact(m.storeId, 'after single orders');
    await db(
      `UPDATE orders SET status = 'CANCELLED', cancelled_at = now() WHERE store_id = $1 AND id IN (SELECT id FROM orders WHERE store_id = $1 ORDER BY id LIMIT 40)`,
      [m.storeId],
    );
    await expectExact(m.storeId, 'after cancellations');
    await db(
      `UPDATE orders SET status = 'PLACED', cancelled_at = NULL WHERE store_id = $1 AND id IN (SELECT id FROM orders WHERE store_id = $1 AND status = 'CANCELLED' ORDER BY id LIMIT 10)`,
      [m.storeId],
    );
    await db(
      `UPDATE orders SET total = total + 1, updated_at = now() WHERE store_id = $1 AND id IN (SELECT id FROM orders WHERE store_id = $1 ORDER BY id DESC LIMIT 5)`,
      [m.storeId],
    );
    await db(`UPDATE orders SET updated_at = now() WHERE store_id = $1`, [m.storeId]);
    await expectExact(m.storeId, 'after placing again and changing totals');
    await db(`DELETE FROM orders WHERE id IN (SELECT id FROM orders WHERE store_id = $1 ORDER BY created_at LIMIT 3)`, [m.storeId]);
    await db(
      `DELETE FROM order_items WHERE id IN (SELECT i.id FROM order_items i JOIN orders o ON o.id = i.order_id WHERE o.store_id = $1 AND i.position = 1 ORDER BY i.id LIMIT 20)`,
      [m.storeId],
    );
    await expectExact(m.storeId, 'after deleting orders and lines');
    await db(`DELETE FROM products WHERE id = $1`, [productIds[4]]);
    await expectExact(m.storeId, 'after deleting a product (its lines keep no product)');
    const [deleted] = await db(
      `SELECT count(*)::int AS n FROM order_items i JOIN orders o ON o.id = i.order_id WHERE o.store_id = $1 AND i.product_id IS NULL`,
      [m.storeId],
    );
    expect(deleted.n).to.be.greaterThan(0);
    await db(`DELETE FROM customers WHERE id = $1`, [customerIds[11]]);
    await expectExact(m.storeId, 'after deleting a customer and, by cascade, their orders');
    await db(`UPDATE stores SET timezone = 'America/New_York' WHERE id = $1`, [m.storeId]);
    await expectExact(m.storeId, 'after the time zone changed (months move)');
    await db(`UPDATE stores SET timezone = 'Asia/Kolkata' WHERE id = $1`, [m.storeId]);
  });

  it('stay exact under 30 concurrent orders and cancellations of the same customers', async () => {
    const ids = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        server.runtime.dataSource.transaction((tx) =>
          insertOrder((sql, params) => tx.query(sql, params), {
            customerId: customerIds[i % 3]!,
            createdAt: new Date(Date.now() - (i % 2 ? 0 : 40 * 86_400_000) - 120_000),
            lines: [{ productId: productIds[i % 4]!, quantity: 1, cents: 1000 + i }],
          }),
        ),
      ),
    );
    await Promise.all(
      ids.filter((_, i) => i % 4 === 0).map((id) => db(`UPDATE orders SET status = 'CANCELLED', cancelled_at = now() WHERE id = $1`, [id])),
    );
    await expectExact(m.storeId, 'after concurrent writes');
  });

  it('let orders of one product be placed and cancelled at once through the API: no waits on shared rows, no deadlock', async () => {
    const productId = await product(server, m, { title: 'Busy product', status: 'PUBLISHED', price: '12.50' });
    const variantId = await variant(server, m, productId, { stock: 10_000 });
    const place = () =>
      call(server, 'POST', `${API}/orders`, {
        headers: m.headers,
        body: {
          storeId: m.storeId,
          customerId: customerIds[0],
          items: [{ variantId, quantity: 1 }],
          shippingAddress: { city: 'Pune', district: 'Kothrud' },
        },
      });
    const first = await Promise.all(Array.from({ length: 10 }, place));
    for (const res of first) expect(res.status, res.text).to.equal(201);
    // Cancelling these while as many more of the same product, same quarter hour and same customer are placed.
    const mixed = await Promise.all([
      ...first.map((res) => call(server, 'POST', `${API}/orders/${res.json.id}/cancel`, { headers: m.headers, body: {} })),
      ...Array.from({ length: 10 }, place),
    ]);
    for (const res of mixed) expect([200, 201], res.text).to.include(res.status);
    await expectExact(m.storeId, 'after concurrent placing and cancelling through the API');
  });

  /** The reports of a store recomputed from its orders, as the reports define them (docs/insight.md). */
  async function fromOrders(storeId: string, days: number) {
    const [w] = await db(
      `SELECT s.timezone AS tz, ((now() AT TIME ZONE s.timezone)::date - ($2::int - 1))::timestamp AT TIME ZONE s.timezone AS since
         FROM stores s WHERE s.id = $1`,
      [storeId, days],
    );
    const placed = `o.store_id = $1 AND o.status <> 'CANCELLED' AND o.created_at >= $2 AND o.created_at <= now()`;
    const [kpis] = await db(
      `SELECT count(*)::int AS orders, COALESCE(sum(total), 0)::numeric(20, 2)::float8 AS revenue, count(DISTINCT customer_id)::int AS customers,
              count(DISTINCT customer_id) FILTER (WHERE NOT EXISTS (SELECT 1 FROM orders e WHERE e.store_id = $1 AND e.status <> 'CANCELLED'
                 AND e.customer_id = o.customer_id AND e.created_at < $2))::int AS new_customers
         FROM orders o WHERE ${placed}`,
      [storeId, w.since],
    );
    const products = await db(
      `SELECT i.product_id, sum(i.quantity)::int AS quantity, count(DISTINCT o.id)::int AS orders, sum(i.line_total)::numeric(20, 2)::float8 AS revenue
         FROM orders o JOIN order_items i ON i.order_id = o.id WHERE ${placed}
        GROUP BY 1 ORDER BY sum(i.line_total) DESC, sum(i.quantity) DESC, i.product_id`,
      [storeId, w.since],
    );
    const series = await db(
      `SELECT (o.created_at AT TIME ZONE $3)::date::text AS date, count(*)::int AS orders, sum(total)::numeric(20, 2)::float8 AS revenue
         FROM orders o WHERE ${placed} GROUP BY 1 ORDER BY 1`,
      [storeId, w.since, w.tz],
    );
    const [period] = await db(
      `SELECT ((now() AT TIME ZONE $1)::date - ($2::int - 1))::text AS "from", (now() AT TIME ZONE $1)::date::text AS "to",
              ((now() AT TIME ZONE $1)::date + 1)::timestamp AT TIME ZONE $1 AS until`,
      [w.tz, days],
    );
    const [profitLoss] = await db(
      `SELECT count(*)::int AS orders, COALESCE(sum(subtotal), 0)::numeric(20, 2)::float8 AS gross_sales,
              COALESCE(sum(total - subtotal), 0)::numeric(20, 2)::float8 AS shipping,
              (SELECT COALESCE(sum(p.refunded), 0)::numeric(20, 2)::float8 FROM payments p JOIN orders r ON r.id = p.order_id
                WHERE r.store_id = $1 AND r.status <> 'CANCELLED' AND r.created_at >= $2 AND r.created_at < $3) AS refunds
         FROM orders o WHERE o.store_id = $1 AND o.status <> 'CANCELLED' AND o.created_at >= $2 AND o.created_at < $3`,
      [storeId, w.since, period.until],
    );
    // Cohorts of the last 12 months: customers by the local month of their first order ever, and the months they ordered in.
    const cohorts = await db(
      `WITH firsts AS (
         SELECT customer_id, to_char(min(created_at) AT TIME ZONE $2, 'YYYY-MM') AS cohort FROM orders
          WHERE store_id = $1 AND status <> 'CANCELLED' GROUP BY 1),
       active AS (
         SELECT DISTINCT customer_id, to_char(created_at AT TIME ZONE $2, 'YYYY-MM') AS month FROM orders
          WHERE store_id = $1 AND status <> 'CANCELLED')
       SELECT f.cohort, a.month, count(*)::int AS customers FROM firsts f JOIN active a USING (customer_id)
        WHERE f.cohort >= to_char((now() AT TIME ZONE $2) - interval '11 months', 'YYYY-MM')
        GROUP BY 1, 2 ORDER BY 1, 2`,
      [storeId, w.tz],
    );
    return { kpis, products, series, profitLoss: { from: period.from, to: period.to, ...profitLoss }, cohorts };
  }

  async function expectReportsMatchOrders(storeId: string, headers: Record<string, string>, days: number): Promise<void> {
    const want = await fromOrders(storeId, days);
    const get = async (path: string) => {
      const res = await call(server, 'GET', `${API}${path}`, { headers });
      expect(res.status, res.text).to.equal(200);
      return res.json;
    };
    const kpis = await get(`/bi/kpis?storeId=${storeId}&days=${days}`);
    expect(
      { orders: kpis.orders, revenue: kpis.revenue, customers: kpis.customers, new_customers: kpis.newCustomers },
      `kpis days=${days}`,
    ).to.deep.equal(want.kpis);
    const top = await get(`/bi/top-products?storeId=${storeId}&days=${days}&limit=100`);
    expect(
      top.items.map((p: any) => ({ product_id: p.productId, quantity: p.quantity, orders: p.orders, revenue: p.revenue })),
      `top-products days=${days}`,
    ).to.deep.equal(want.products);
    const series = await get(`/bi/revenue-timeseries?storeId=${storeId}&days=${days}`);
    expect(
      series.points.filter((p: any) => p.orders > 0),
      `revenue-timeseries days=${days}`,
    ).to.deep.equal(want.series);
    const funnel = await get(`/bi/funnel?storeId=${storeId}&days=${days}`);
    expect(funnel.stages.find((s: any) => s.stage === 'ORDER_PLACED').count, `funnel days=${days}`).to.equal(want.kpis.orders);
    const pl = await get(`/bi/profit-loss?storeId=${storeId}&from=${want.profitLoss.from}&to=${want.profitLoss.to}`);
    expect(
      { orders: pl.orders, gross_sales: pl.grossSales, shipping: pl.shipping, refunds: pl.refunds },
      `profit-loss days=${days}`,
    ).to.deep.equal({
      orders: want.profitLoss.orders,
      gross_sales: want.profitLoss.gross_sales,
      shipping: want.profitLoss.shipping,
      refunds: want.profitLoss.refunds,
    });
    const cohorts = await get(`/bi/cohorts?storeId=${storeId}&monthsBack=12`);
    const cells = cohorts.cohorts.flatMap((c: any) =>
      c.retention.filter((r: any) => r.customers > 0).map((r: any) => ({ cohort: c.month, month: r.month, customers: r.customers })),
    );
    expect(cells, 'cohorts monthsBack=12').to.deep.equal(want.cohorts);
  }

  it('answer every window like the orders themselves, edges of the day and the last minutes included, deltas not folded yet', async () => {
    // New orders whose changes wait in the deltas (no fold runs in the tests unless called).
    for (const back of [90_000, 40 * 86_400_000, 200 * 86_400_000])
      await insertOrder(db, {
        customerId: customerIds[5]!,
        createdAt: new Date(Date.now() - back),
        lines: [{ productId: productIds[1]!, quantity: 3, cents: 777 }],
        shipping: 250,
      });
    for (const table of ['insight_order_bucket_deltas', 'insight_product_day_deltas'])
      expect((await db(`SELECT count(*)::int AS n FROM ${table} WHERE store_id = $1`, [m.storeId]))[0].n, table).to.be.greaterThan(0);
    for (const days of [1, 2, 7, 30, 365]) await expectReportsMatchOrders(m.storeId, m.headers, days);
  });

  it("answer a sandbox's 200 factory orders like the orders themselves", async () => {
    const created = await call(server, 'POST', `${API}/sandbox`, { body: { email: `bi-${uuidv7()}@example.com` } });
    expect(created.status, created.text).to.equal(201);
    tenants.push(created.json.tenantId);
    suite.addTenant(created.json.tenantId);
    suite.addIndexedStore(created.json.storeId);
    const storeId: string = created.json.storeId;
    const headers = { Authorization: `Bearer ${created.json.token}` };
    const [count] = await db(`SELECT count(*)::int AS n FROM orders WHERE store_id = $1`, [storeId]);
    expect(count.n).to.equal(200);
    for (const days of [1, 7, 30, 90, 365]) await expectReportsMatchOrders(storeId, headers, days);
    await expectExact(storeId, 'the sandbox');
    const ltv = await call(server, 'GET', `${API}/bi/customer-ltv?storeId=${storeId}&limit=100`, { headers });
    const want = await db(
      `SELECT customer_id, count(*)::int AS orders, sum(total)::numeric(20, 2)::float8 AS revenue FROM orders
          WHERE store_id = $1 AND status <> 'CANCELLED' GROUP BY 1 ORDER BY sum(total) DESC, customer_id`,
      [storeId],
    );
    expect(ltv.json.items.map((c: any) => ({ customer_id: c.customerId, orders: c.orders, revenue: c.lifetimeRevenue }))).to.deep.equal(
      want,
    );
  });
});
