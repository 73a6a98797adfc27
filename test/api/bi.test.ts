/**
 * The business intelligence reports over HTTP on a store seeded with a few hundred orders over 14
 * months (some cancelled, some paid and partly refunded, shipping on some, storefront checkouts): each
 * figure is computed again in the test from the rows it inserted, to the cent. Also the bounds, tenant
 * isolation and who may call. The store's time zone is Europe/Istanbul (UTC+3 all year), and every
 * order is placed at local noon of a past day, so days and months are unambiguous.
 */
import { expect } from 'chai';
import type { NamedSchema } from '../../api/http/route';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem } from '../helpers/accounts';
import { apiKey, customer, merchant, product, type Merchant } from '../helpers/fixtures';
import { uuidv7 } from '../../storage/ids';
import { biRoutes } from '../../api/bi/bi.routes';
import * as R from '../../api/bi/bi.responses';

const API = '/api/v1';
const DAY = 86_400_000;
const TZ_OFFSET = 3 * 3_600_000;

interface SeedOrder {
  id: string;
  customerId: string;
  day: string;
  month: string;
  createdAt: Date;
  cancelled: boolean;
  subtotal: number;
  total: number;
  lines: Array<{ productId: string; quantity: number; lineTotal: number }>;
  captured: number;
  refunded: number;
}

/** A small deterministic generator, so a failure can be reproduced. */
function random(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % n;
  };
}

const localDay = (at: Date): string => new Date(at.getTime() + TZ_OFFSET).toISOString().slice(0, 10);
const addDays = (day: string, days: number): string => new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
const cents = (c: number): string => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;
const halfUp = (numerator: number, denominator: number): number => Math.floor((2 * numerator + denominator) / (2 * denominator));
const share = (part: number, whole: number): number | null => (whole > 0 ? halfUp(part * 10_000, whole) / 10_000 : null);

function expectShape(schema: NamedSchema, res: TestResponse): void {
  expect(res.status, res.text).to.equal(200);
  const { error } = schema.schema.validate(res.json, { presence: 'required' });
  expect(error?.message).to.equal(undefined);
}

describe('Business intelligence reports', function () {
  this.timeout(120_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  let m: Merchant;
  let productIds: string[];
  let customerIds: string[];
  const orders: SeedOrder[] = [];
  const checkouts: Array<{ day: string; paid: boolean }> = [];
  const today = localDay(new Date());

  const db = (sql: string, params: unknown[] = []): Promise<any[]> => server.runtime.dataSource.query(sql, params);
  const get = (path: string, headers = m.headers): Promise<TestResponse> => call(server, 'GET', `${API}${path}`, { headers });

  before(async () => {
    m = suite.addMerchant(await merchant(server));
    await db(`UPDATE stores SET timezone = 'Europe/Istanbul' WHERE id = $1`, [m.storeId]);
    productIds = [];
    for (let i = 0; i < 6; i++) productIds.push(await product(server, m, { title: `Product ${i}`, price: '10' }));
    customerIds = [];
    for (let i = 0; i < 40; i++) customerIds.push(await customer(server, m, { name: `Customer ${i}` }));
    const rnd = random(20261127);
    const now = Date.now();
    for (let i = 0; i < 320; i++) {
      const back = 1 + rnd(420);
      const day = addDays(today, -back);
      const createdAt = new Date(Date.parse(`${day}T12:00:00Z`) - TZ_OFFSET);
      if (createdAt.getTime() > now) continue;
      const lines = [];
      for (let l = 0; l < 1 + rnd(3); l++) {
        const quantity = 1 + rnd(3);
        const unit = 199 + rnd(20_000);
        lines.push({ productId: productIds[rnd(productIds.length)]!, quantity, lineTotal: quantity * unit });
      }
      const subtotal = lines.reduce((sum, l) => sum + l.lineTotal, 0);
      const shipping = rnd(3) === 0 ? 0 : 499 + rnd(1000);
      const total = subtotal + shipping;
      const cancelled = rnd(10) === 0;
      const paid = rnd(2) === 0;
      const refunded = paid && rnd(5) === 0 ? 1 + rnd(total) : 0;
      orders.push({
        id: uuidv7(),
        customerId: customerIds[rnd(customerIds.length)]!,
        day,
        month: day.slice(0, 7),
        createdAt,
        cancelled,
        subtotal,
        total,
        lines,
        captured: paid ? total : 0,
        refunded,
      });
    }
    for (const o of orders) {
      await db(
        `INSERT INTO orders (id, tenant_id, store_id, customer_id, status, currency, subtotal, total, item_count, shipping_city, shipping_district, created_at, updated_at, cancelled_at)
         VALUES ($1, $2, $3, $4, $5, 'EUR', $6, $7, $8, 'Istanbul', 'Kadikoy', $9, $9, $10)`,
        [
          o.id,
          m.owner.tenantId,
          m.storeId,
          o.customerId,
          o.cancelled ? 'CANCELLED' : 'PLACED',
          cents(o.subtotal),
          cents(o.total),
          o.lines.reduce((s, l) => s + l.quantity, 0),
          o.createdAt,
          o.cancelled ? o.createdAt : null,
        ],
      );
      for (const [position, l] of o.lines.entries())
        await db(
          `INSERT INTO order_items (id, tenant_id, order_id, product_id, title, quantity, unit_price, line_total, position)
           VALUES ($1, $2, $3, $4, 'line', $5, $6, $7, $8)`,
          [uuidv7(), m.owner.tenantId, o.id, l.productId, l.quantity, cents(l.lineTotal / l.quantity), cents(l.lineTotal), position],
        );
      if (o.captured > 0)
        await db(
          `INSERT INTO payments (id, tenant_id, store_id, order_id, provider, status, currency, amount, captured, refunded, created_at)
           VALUES ($1, $2, $3, $4, 'stripe', $5, 'EUR', $6, $6, $7, $8)`,
          [
            uuidv7(),
            m.owner.tenantId,
            m.storeId,
            o.id,
            o.refunded ? 'PARTIALLY_REFUNDED' : 'CAPTURED',
            cents(o.captured),
            cents(o.refunded),
            o.createdAt,
          ],
        );
    }
    // Storefront checkouts of the last 30 days, one in three paid.
    for (const [i, o] of orders.filter((x) => x.day >= addDays(today, -29)).entries()) {
      const paid = i % 3 === 0;
      checkouts.push({ day: o.day, paid });
      await db(
        `INSERT INTO storefront_checkouts (id, tenant_id, store_id, order_id, customer_id, status, currency, subtotal, shipping_name, shipping_price, total, shipping_address, provider, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'EUR', 1, 'Standard', 0, 1, '{}'::jsonb, 'stripe', $7)`,
        [uuidv7(), m.owner.tenantId, m.storeId, o.id, o.customerId, paid ? 'PAID' : 'DECLINED', o.createdAt],
      );
    }
    await db(`UPDATE products SET view_count = 7 WHERE store_id = $1`, [m.storeId]);
  });

  const placed = () => orders.filter((o) => !o.cancelled);
  const inWindow = (days: number) => {
    const first = addDays(today, -(days - 1));
    return { first, rows: placed().filter((o) => o.day >= first && o.day <= today) };
  };

  it('seeds a few hundred orders, some cancelled', () => {
    expect(orders.length).to.be.greaterThan(250);
    expect(orders.filter((o) => o.cancelled).length).to.be.greaterThan(10);
  });

  it('profit-loss: gross sales, shipping, refunds and net revenue of the period, cancelled orders left out; cost and discounts unknown', async () => {
    const from = addDays(today, -200);
    const to = addDays(today, -20);
    const rows = placed().filter((o) => o.day >= from && o.day <= to);
    const res = await get(`/bi/profit-loss?storeId=${m.storeId}&from=${from}&to=${to}`);
    expectShape(R.ProfitLossResponse, res);
    const gross = rows.reduce((s, o) => s + o.subtotal, 0);
    const shipping = rows.reduce((s, o) => s + o.total - o.subtotal, 0);
    const refunds = rows.reduce((s, o) => s + o.refunded, 0);
    expect(refunds).to.be.greaterThan(0);
    expect(res.json).to.deep.include({
      storeId: m.storeId,
      currency: 'EUR',
      timeZone: 'Europe/Istanbul',
      from,
      to,
      orders: rows.length,
      grossSales: gross / 100,
      shipping: shipping / 100,
      refunds: refunds / 100,
      netRevenue: (gross + shipping - refunds) / 100,
      discounts: null,
      costOfGoods: null,
      grossProfit: null,
    });
    // One day: the bounds are the store's midnights.
    const oneDay = placed()[0]!.day;
    const single = await get(`/bi/profit-loss?storeId=${m.storeId}&from=${oneDay}&to=${oneDay}`);
    const dayRows = placed().filter((o) => o.day === oneDay);
    expect(single.json.orders).to.equal(dayRows.length);
    expect(single.json.grossSales).to.equal(dayRows.reduce((s, o) => s + o.subtotal, 0) / 100);
  });

  it('kpis: revenue, orders, average order value, new and returning customers; conversion null with a reason', async () => {
    for (const days of [1, 30, 90, 365]) {
      const { first, rows } = inWindow(days);
      const res = await get(`/bi/kpis?storeId=${m.storeId}&days=${days}`);
      expectShape(R.KpisResponse, res);
      const revenue = rows.reduce((s, o) => s + o.total, 0);
      const customers = new Set(rows.map((o) => o.customerId));
      const firstDayOf = new Map<string, string>();
      for (const o of placed())
        if (!firstDayOf.has(o.customerId) || o.day < firstDayOf.get(o.customerId)!) firstDayOf.set(o.customerId, o.day);
      const fresh = [...customers].filter((c) => firstDayOf.get(c)! >= first).length;
      expect(res.json, `days=${days}`).to.deep.include({
        days,
        from: first,
        to: today,
        revenue: revenue / 100,
        orders: rows.length,
        averageOrderValue: rows.length ? halfUp(revenue, rows.length) / 100 : null,
        customers: customers.size,
        newCustomers: fresh,
        returningCustomers: customers.size - fresh,
        conversionRate: null,
      });
      expect(res.json.conversionRateUnavailable).to.match(/view/);
    }
  });

  it('top-products: quantity, orders and revenue per product over the window, best first, limited', async () => {
    const { rows } = inWindow(180);
    const byProduct = new Map<string, { quantity: number; revenue: number; orders: Set<string> }>();
    for (const o of rows)
      for (const l of o.lines) {
        const p = byProduct.get(l.productId) ?? { quantity: 0, revenue: 0, orders: new Set<string>() };
        p.quantity += l.quantity;
        p.revenue += l.lineTotal;
        p.orders.add(o.id);
        byProduct.set(l.productId, p);
      }
    const expected = [...byProduct.entries()]
      .sort(([a, x], [b, y]) => y.revenue - x.revenue || y.quantity - x.quantity || (a < b ? -1 : 1))
      .map(([productId, p]) => ({
        productId,
        title: `Product ${productIds.indexOf(productId)}`,
        quantity: p.quantity,
        orders: p.orders.size,
        revenue: p.revenue / 100,
      }));
    const res = await get(`/bi/top-products?storeId=${m.storeId}&days=180&limit=100`);
    expectShape(R.TopProductsResponse, res);
    expect(res.json.items).to.deep.equal(expected);
    const limited = await get(`/bi/top-products?storeId=${m.storeId}&days=180&limit=3`);
    expect(limited.json.items).to.deep.equal(expected.slice(0, 3));
  });

  it('revenue-timeseries: one zero-filled point per day of the store, oldest first', async () => {
    const days = 120;
    const { first, rows } = inWindow(days);
    const res = await get(`/bi/revenue-timeseries?storeId=${m.storeId}&days=${days}`);
    expectShape(R.RevenueTimeseriesResponse, res);
    const expected = [];
    for (let d = 0; d < days; d++) {
      const day = addDays(first, d);
      const dayRows = rows.filter((o) => o.day === day);
      expected.push({ date: day, orders: dayRows.length, revenue: dayRows.reduce((s, o) => s + o.total, 0) / 100 });
    }
    expect(res.json.points).to.deep.equal(expected);
    expect(expected.some((p) => p.orders === 0)).to.equal(true);
    expect((await get(`/bi/revenue-timeseries?storeId=${m.storeId}`)).json.points).to.have.length(30);
  });

  it('cohorts: customers by the month of their first placed order and the months they ordered again', async () => {
    const monthsBack = 12;
    const res = await get(`/bi/cohorts?storeId=${m.storeId}&monthsBack=${monthsBack}`);
    expectShape(R.CohortsResponse, res);
    const monthAdd = (month: string, n: number) => {
      const [y, mo] = month.split('-').map(Number) as [number, number];
      const i = y * 12 + mo - 1 + n;
      return `${Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`;
    };
    const firstMonth = monthAdd(today.slice(0, 7), -(monthsBack - 1));
    const firstOf = new Map<string, string>();
    const active = new Map<string, Set<string>>();
    for (const o of placed()) {
      if (!firstOf.has(o.customerId) || o.month < firstOf.get(o.customerId)!) firstOf.set(o.customerId, o.month);
      active.set(o.customerId, (active.get(o.customerId) ?? new Set()).add(o.month));
    }
    const expected = [];
    for (let c = 0; c < monthsBack; c++) {
      const month = monthAdd(firstMonth, c);
      const members = [...firstOf.entries()].filter(([, f]) => f === month).map(([id]) => id);
      const retention = [];
      for (let k = 0; k < monthsBack - c; k++) {
        const at = monthAdd(month, k);
        const n = members.filter((id) => active.get(id)!.has(at)).length;
        retention.push({ monthOffset: k, month: at, customers: n, rate: share(n, members.length) });
      }
      expected.push({ month, customers: members.length, retention });
    }
    expect(res.json.cohorts).to.deep.equal(expected);
    expect(expected.reduce((s, c) => s + c.customers, 0)).to.be.greaterThan(0);
  });

  it('funnel: storefront checkouts started and paid, orders placed and paid over the window; views only as a lifetime total', async () => {
    const { first, rows } = inWindow(30);
    const started = checkouts.filter((c) => c.day >= first).length;
    const paidCheckouts = checkouts.filter((c) => c.day >= first && c.paid).length;
    const paidOrders = rows.filter((o) => o.captured > 0).length;
    const res = await get(`/bi/funnel?storeId=${m.storeId}&days=30`);
    expectShape(R.FunnelResponse, res);
    expect(res.json.productViews).to.equal(null);
    expect(res.json.productViewsLifetime).to.equal(7 * productIds.length);
    expect(res.json.stages).to.deep.equal([
      { stage: 'CHECKOUT_STARTED', count: started, rateFromPrevious: null },
      { stage: 'CHECKOUT_PAID', count: paidCheckouts, rateFromPrevious: share(paidCheckouts, started) },
      { stage: 'ORDER_PLACED', count: rows.length, rateFromPrevious: null },
      { stage: 'ORDER_PAID', count: paidOrders, rateFromPrevious: share(paidOrders, rows.length) },
    ]);
  });

  it('customer-ltv: customers by lifetime revenue of their placed orders, limited', async () => {
    const byCustomer = new Map<string, SeedOrder[]>();
    for (const o of placed()) byCustomer.set(o.customerId, [...(byCustomer.get(o.customerId) ?? []), o]);
    const expected = [...byCustomer.entries()]
      .map(([customerId, list]) => {
        const revenue = list.reduce((s, o) => s + o.total, 0);
        const times = list.map((o) => o.createdAt.getTime());
        return {
          customerId,
          name: `Customer ${customerIds.indexOf(customerId)}`,
          orders: list.length,
          revenue,
          lifetimeRevenue: revenue / 100,
          averageOrderValue: halfUp(revenue, list.length) / 100,
          firstOrderAt: new Date(Math.min(...times)).toISOString(),
          lastOrderAt: new Date(Math.max(...times)).toISOString(),
        };
      })
      .sort((a, b) => b.revenue - a.revenue || (a.customerId < b.customerId ? -1 : 1));
    const res = await get(`/bi/customer-ltv?storeId=${m.storeId}&limit=10`);
    expectShape(R.CustomerLtvResponse, res);
    expect(res.json.items.map(({ email: _e, ...rest }: Record<string, unknown>) => rest)).to.deep.equal(
      expected.slice(0, 10).map(({ revenue: _r, ...rest }) => rest),
    );
    expect((await get(`/bi/customer-ltv?storeId=${m.storeId}`)).json.items).to.have.length(Math.min(50, expected.length));
  });

  it('refuses out-of-bounds parameters and a period that ends before it starts', async () => {
    const s = `storeId=${m.storeId}`;
    for (const path of [
      `/bi/kpis?${s}&days=0`,
      `/bi/kpis?${s}&days=366`,
      `/bi/top-products?${s}&limit=101`,
      `/bi/top-products?${s}&limit=0`,
      `/bi/revenue-timeseries?${s}&days=1.5`,
      `/bi/cohorts?${s}&monthsBack=37`,
      `/bi/cohorts?${s}&monthsBack=0`,
      `/bi/funnel?${s}&days=abc`,
      `/bi/customer-ltv?${s}&limit=101`,
      `/bi/kpis`,
      `/bi/kpis?${s}&extra=1`,
      `/bi/profit-loss?${s}&from=2026-01-01`,
      `/bi/profit-loss?${s}&from=2026-02-30&to=2026-03-01`,
    ])
      expectProblem(await get(path), 400, 'validation_failed');
    expectProblem(await get(`/bi/profit-loss?${s}&from=2026-03-02&to=2026-03-01`), 400, 'bi_period_invalid');
    for (const path of [
      `/bi/kpis?${s}&days=365`,
      `/bi/cohorts?${s}&monthsBack=36`,
      `/bi/customer-ltv?${s}&limit=100`,
      `/bi/cohorts?${s}&monthsBack=1`,
    ])
      expect((await get(path)).status, path).to.equal(200);
  });

  it("keeps each tenant's stores apart, answers 401 anonymous, and binds a store API key to its store", async () => {
    const other = suite.addMerchant(await merchant(server));
    for (const row of biRoutes) {
      const path = `${API}${row.path}?storeId=${m.storeId}${row.operationId === 'bi.profitLoss' ? '&from=2026-01-01&to=2026-01-31' : ''}`;
      expectProblem(await call(server, 'GET', path, { headers: other.headers }), 404, 'store_not_found');
      expectProblem(await call(server, 'GET', path, {}), 401, 'unauthorized');
    }
    // The other tenant's own store has nothing of ours.
    const empty = await get(`/bi/kpis?storeId=${other.storeId}&days=365`, other.headers);
    expect(empty.json).to.deep.include({ orders: 0, revenue: 0, averageOrderValue: null, customers: 0 });
    const key = await apiKey(server, m, ['bi:read']);
    expect((await get(`/bi/kpis?storeId=${m.storeId}`, key)).status).to.equal(200);
    const secondStore = (
      await call(server, 'POST', `${API}/organization/stores`, {
        headers: m.headers,
        body: { name: 'Second', slug: `second-${uuidv7().slice(-12)}` },
      })
    ).json.id as string;
    expectProblem(await get(`/bi/kpis?storeId=${secondStore}`, key), 404, 'store_not_found');
  });

  it('every BI row is built, for merchants, with a response schema', () => {
    expect(biRoutes).to.have.length(7);
    for (const row of biRoutes) {
      expect(row.auth, row.operationId).to.equal('merchant');
      expect(row.handler, row.operationId).to.be.a('function');
      expect(row.response, row.operationId).to.not.equal(undefined);
    }
  });
});
