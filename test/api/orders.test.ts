/**
 * Orders: validation bounds, store resolution (member token with storeId or the tenant's default
 * store, API key's own store, a disagreeing storeId refused),
 * customer and variant of another store or tenant → 404, insufficient stock → 409 with nothing
 * reserved, stock decremented, exact totals, order.placed outbox row with its data, audit entry,
 * sales_count and its index row, cancel (stock released, order.cancelled, idempotent), list and get
 * with cursor paging, tenant isolation.
 */
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { auditRows, expectProblem } from '../helpers/accounts';
import { apiKey, customer, merchant, product, store, variant, type Merchant } from '../helpers/fixtures';
import { uuidv7 } from '../../storage/ids';

describe('orders', function () {
  this.timeout(60_000);
  let server: TestServer;

  const suite = apiSuite((started) => (server = started));

  const db = () => server.runtime.dataSource;

  const newMerchant = async (): Promise<Merchant> => suite.addMerchant(await merchant(server));

  /** A published product 'Linen Shirt' with variants: [variant price or null, stock]. Returns product and variant ids. */
  async function stockedProduct(
    m: Merchant,
    price: string,
    variants: Array<[string | null, number]>,
    extra: { status?: string; currency?: string; title?: string } = {},
  ): Promise<{ productId: string; variantIds: string[] }> {
    const productId = await product(server, m, { title: 'Linen Shirt', status: 'PUBLISHED', price, ...extra });
    const variantIds: string[] = [];
    for (const [i, [vprice, stock]] of variants.entries()) {
      variantIds.push(
        await variant(server, m, productId, {
          sku: `SKU-${uuidv7().slice(-10)}`,
          options: JSON.stringify({ size: `S${i}` }),
          price: vprice,
          stock,
          position: i,
        }),
      );
    }
    return { productId, variantIds };
  }

  const stockOf = async (variantId: string): Promise<number> =>
    (await db().query('SELECT stock FROM product_variants WHERE id = $1', [variantId]))[0].stock;
  const salesOf = async (productId: string): Promise<number> =>
    (await db().query('SELECT sales_count FROM products WHERE id = $1', [productId]))[0].sales_count;
  const address = { city: 'İstanbul', district: 'Kadıköy' };
  const place = (m: Merchant, body: Record<string, unknown>, headers = m.headers) =>
    call(server, 'POST', '/api/v1/orders', { headers, body: { storeId: m.storeId, shippingAddress: address, ...body } });

  it('places an order: exact totals, stock reserved, sales counts, audit, order.placed and index rows', async () => {
    const m = await newMerchant();
    const customerId = await customer(server, m);
    const a = await stockedProduct(m, '19.99', [
      [null, 10],
      ['24.5', 3],
    ]);
    const b = await stockedProduct(m, '0.10', [[null, 100]], { title: 'Sticker' });
    const res = await place(m, {
      customerId,
      items: [
        { variantId: a.variantIds[0], quantity: 3 },
        { variantId: a.variantIds[1], quantity: 1 },
        { variantId: b.variantIds[0], quantity: 7 },
        { variantId: a.variantIds[0], quantity: 1 },
      ],
    });
    expect(res.status, res.text).to.equal(201);
    const order = res.json;
    expect(order).to.deep.include({
      storeId: m.storeId,
      customerId,
      status: 'PLACED',
      currency: 'EUR',
      subtotal: 105.16,
      total: 105.16,
      itemCount: 12,
      shippingAddress: address,
      cancelledAt: null,
    });
    // 4 × 19.99 + 24.5 + 7 × 0.10 = 79.96 + 24.50 + 0.70
    expect(order.items.map((i: any) => [i.variantId, i.quantity, i.unitPrice, i.lineTotal])).to.deep.equal([
      [a.variantIds[0], 4, 19.99, 79.96],
      [a.variantIds[1], 1, 24.5, 24.5],
      [b.variantIds[0], 7, 0.1, 0.7],
    ]);
    expect(order.items[0]).to.deep.include({ productId: a.productId, title: 'Linen Shirt', options: { size: 'S0' } });
    expect(await stockOf(a.variantIds[0]!)).to.equal(6);
    expect(await stockOf(a.variantIds[1]!)).to.equal(2);
    expect(await stockOf(b.variantIds[0]!)).to.equal(93);
    expect(await salesOf(a.productId)).to.equal(5);
    expect(await salesOf(b.productId)).to.equal(7);

    const events = await db().query("SELECT topic, payload FROM outbox WHERE tenant_id = $1 AND queue = 'webhooks' ORDER BY id", [
      m.owner.tenantId,
    ]);
    expect(events.map((e: any) => e.topic)).to.deep.equal(['order.placed']);
    const data = events[0].payload.data;
    expect(data).to.deep.include({
      orderId: order.id,
      total: 105.16,
      currency: 'EUR',
      customerId,
      storeId: m.storeId,
      itemCount: 12,
      shippingAddress: address,
    });
    expect(data.items).to.have.length(3);
    expect(data.items[0]).to.deep.equal({
      productId: a.productId,
      variantId: a.variantIds[0],
      sku: order.items[0].sku,
      quantity: 4,
      unitPrice: 19.99,
      lineTotal: 79.96,
    });
    const index = await db().query(
      "SELECT aggregate_type, aggregate_id FROM outbox WHERE tenant_id = $1 AND queue = 'index' ORDER BY aggregate_id",
      [m.owner.tenantId],
    );
    expect(index).to.deep.equal([a.productId, b.productId].sort().map((id) => ({ aggregate_type: 'product', aggregate_id: id })));
    const audit = (await auditRows(server, m.owner.tenantId)).filter((r) => r.resource_type === 'order');
    expect(audit.map((r) => [r.action, r.resource_id])).to.deep.equal([['order.create', order.id]]);

    const got = await call(server, 'GET', `/api/v1/orders/${order.id}`, { headers: m.headers });
    expect(got.status).to.equal(200);
    expect(got.json).to.deep.equal(order);
  });

  it("prices lines with the pricing engine: rules in force, customer-group rules for the customer's tags", async () => {
    const m = await newMerchant();
    const customerId = await customer(server, m);
    const vip = await customer(server, m);
    await db().query("UPDATE customers SET tags = '{VIP}' WHERE id = $1", [vip]);
    const p = await stockedProduct(m, '50', [[null, 10]]);
    const rule = (body: Record<string, unknown>) =>
      call(server, 'POST', '/api/v1/pricing/rules', { headers: m.headers, body: { storeId: m.storeId, ...body } });
    expect((await rule({ name: 'Ten off', type: 'PERCENT', value: 10 })).status).to.equal(201);
    expect((await rule({ name: 'VIP', type: 'FIXED_AMOUNT', value: 20, customerGroups: ['vip'] })).status).to.equal(201);
    const plain = await place(m, { customerId, items: [{ variantId: p.variantIds[0], quantity: 2 }] });
    expect(plain.status, plain.text).to.equal(201);
    expect(plain.json.items[0]).to.include({ unitPrice: 45, lineTotal: 90 });
    expect(plain.json.total).to.equal(90);
    const member = await place(m, { customerId: vip, items: [{ variantId: p.variantIds[0], quantity: 1 }] });
    expect(member.status, member.text).to.equal(201);
    expect(member.json.items[0].unitPrice).to.equal(30);
  });

  it("charges unit prices in the currency's minor unit (half up), so lines and totals are what the shopper pays", async () => {
    const m = await newMerchant();
    const customerId = await customer(server, m);
    const p = await stockedProduct(m, '0.3350', [[null, 50]]);
    const res = await place(m, { customerId, items: [{ variantId: p.variantIds[0], quantity: 3 }] });
    expect(res.status, res.text).to.equal(201);
    expect(res.json.items[0]).to.include({ unitPrice: 0.34, lineTotal: 1.02 });
    expect(res.json).to.deep.include({ subtotal: 1.02, total: 1.02 });
  });

  it('answers 409 insufficient_stock naming the short lines and reserves nothing', async () => {
    const m = await newMerchant();
    const customerId = await customer(server, m);
    const a = await stockedProduct(m, '10', [
      [null, 5],
      [null, 1],
    ]);
    const res = await place(m, {
      customerId,
      items: [
        { variantId: a.variantIds[0], quantity: 5 },
        { variantId: a.variantIds[1], quantity: 2 },
      ],
    });
    expectProblem(res, 409, 'insufficient_stock');
    expect(res.json.errors).to.deep.equal([{ path: 'body.items[1].quantity', message: 'only 1 in stock, 2 ordered' }]);
    expect(await stockOf(a.variantIds[0]!)).to.equal(5);
    expect(await stockOf(a.variantIds[1]!)).to.equal(1);
    expect(await salesOf(a.productId)).to.equal(0);
    const rows = await db().query('SELECT count(*)::int AS n FROM orders WHERE store_id = $1', [m.storeId]);
    expect(rows[0].n).to.equal(0);
    const events = await db().query('SELECT count(*)::int AS n FROM outbox WHERE tenant_id = $1', [m.owner.tenantId]);
    expect(events[0].n).to.equal(0);
    // Merged lines count together: 3 + 3 > 5.
    const merged = await place(m, {
      customerId,
      items: [
        { variantId: a.variantIds[0], quantity: 3 },
        { variantId: a.variantIds[0], quantity: 3 },
      ],
    });
    expectProblem(merged, 409, 'insufficient_stock');
    expect(merged.json.errors).to.deep.equal([{ path: 'body.items[0].quantity', message: 'only 5 in stock, 6 ordered' }]);
    // Exactly the stock is fine and leaves 0.
    const exact = await place(m, { customerId, items: [{ variantId: a.variantIds[0], quantity: 5 }] });
    expect(exact.status, exact.text).to.equal(201);
    expect(await stockOf(a.variantIds[0]!)).to.equal(0);
  });

  it('never sells more than the stock under concurrent orders', async () => {
    const m = await newMerchant();
    const customerId = await customer(server, m);
    const a = await stockedProduct(m, '10', [[null, 4]]);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => place(m, { customerId, items: [{ variantId: a.variantIds[0], quantity: 1 }] })),
    );
    expect(results.filter((r) => r.status === 201)).to.have.length(4);
    expect(results.filter((r) => r.status === 409)).to.have.length(4);
    expect(await stockOf(a.variantIds[0]!)).to.equal(0);
    expect(await salesOf(a.productId)).to.equal(4);
  });

  it('validates the body: bounds of items, quantity, address, ids and unknown fields', async () => {
    const m = await newMerchant();
    const customerId = await customer(server, m);
    const variantId = uuidv7();
    const item = { variantId, quantity: 1 };
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ customerId, items: [] }, 'body.items'],
      [{ customerId, items: Array.from({ length: 101 }, () => item) }, 'body.items'],
      [{ customerId, items: [{ variantId, quantity: 0 }] }, 'body.items[0].quantity'],
      [{ customerId, items: [{ variantId, quantity: 10_001 }] }, 'body.items[0].quantity'],
      [{ customerId, items: [{ variantId, quantity: 1.5 }] }, 'body.items[0].quantity'],
      [{ customerId, items: [{ variantId: 'nope', quantity: 1 }] }, 'body.items[0].variantId'],
      [{ customerId: 'x', items: [item] }, 'body.customerId'],
      [{ items: [item] }, 'body.customerId'],
      [{ customerId, items: [item], shippingAddress: { city: '', district: 'x' } }, 'body.shippingAddress.city'],
      [{ customerId, items: [item], shippingAddress: { city: 'x', district: 'd'.repeat(121) } }, 'body.shippingAddress.district'],
      [{ customerId, items: [item], shippingAddress: { city: 'x' } }, 'body.shippingAddress.district'],
      [{ customerId, items: [item], extra: 1 }, 'body.extra'],
    ];
    for (const [body, path] of bad) {
      const res = await place(m, body);
      expectProblem(res, 400, 'validation_failed');
      expect(
        res.json.errors.map((e: any) => e.path),
        JSON.stringify(body).slice(0, 80),
      ).to.include(path);
    }
    const noAddress = await call(server, 'POST', '/api/v1/orders', {
      headers: m.headers,
      body: { storeId: m.storeId, customerId, items: [item] },
    });
    expectProblem(noAddress, 400, 'validation_failed');
    const anonymous = await call(server, 'POST', '/api/v1/orders', { body: { customerId, items: [item], shippingAddress: address } });
    expect(anonymous.status).to.equal(401);
    // 100 lines and quantity 10000 are accepted bounds (the variant does not exist: 404, not 400).
    const maxLines = await place(m, { customerId, items: Array.from({ length: 100 }, () => ({ variantId, quantity: 10_000 })) });
    expectProblem(maxLines, 404, 'variant_not_found');
  });

  it('answers 404 for a customer or variant of another store or tenant, and 409 for an archived product', async () => {
    const m = await newMerchant();
    const other = await newMerchant();
    const sibling = await store(server, m, { name: 'Second' });
    const mine = await customer(server, m);
    const theirs = await customer(server, other);
    const siblingCustomer = await customer(server, { ...m, storeId: sibling });
    const p = await stockedProduct(m, '5', [[null, 5]]);
    const q = await stockedProduct(other, '5', [[null, 5]]);
    const s = await stockedProduct({ ...m, storeId: sibling }, '5', [[null, 5]]);
    expectProblem(await place(m, { customerId: theirs, items: [{ variantId: p.variantIds[0], quantity: 1 }] }), 404, 'customer_not_found');
    expectProblem(
      await place(m, { customerId: siblingCustomer, items: [{ variantId: p.variantIds[0], quantity: 1 }] }),
      404,
      'customer_not_found',
    );
    const foreign = await place(m, {
      customerId: mine,
      items: [
        { variantId: p.variantIds[0], quantity: 1 },
        { variantId: q.variantIds[0], quantity: 1 },
        { variantId: s.variantIds[0], quantity: 1 },
      ],
    });
    expectProblem(foreign, 404, 'variant_not_found');
    expect(foreign.json.errors.map((e: any) => e.path)).to.deep.equal(['body.items[1].variantId', 'body.items[2].variantId']);
    expectProblem(
      await place(m, { storeId: other.storeId, customerId: theirs, items: [{ variantId: q.variantIds[0], quantity: 1 }] }),
      404,
      'store_not_found',
    );
    expect(await stockOf(p.variantIds[0]!)).to.equal(5);
    expect(await stockOf(q.variantIds[0]!)).to.equal(5);

    const archived = await stockedProduct(m, '5', [[null, 5]], { status: 'ARCHIVED' });
    expectProblem(
      await place(m, { customerId: mine, items: [{ variantId: archived.variantIds[0], quantity: 1 }] }),
      409,
      'product_unavailable',
    );
    const dollars = await stockedProduct(m, '5', [[null, 5]], { currency: 'USD' });
    expectProblem(
      await place(m, {
        customerId: mine,
        items: [
          { variantId: p.variantIds[0], quantity: 1 },
          { variantId: dollars.variantIds[0], quantity: 1 },
        ],
      }),
      409,
      'mixed_currencies',
    );
  });

  it('lets a store API key place orders on its own store only, with the orders scopes', async () => {
    const m = await newMerchant();
    const customerId = await customer(server, m);
    const p = await stockedProduct(m, '7.5', [[null, 5]]);
    const key = await apiKey(server, m, ['orders:write', 'orders:read']);
    const res = await call(server, 'POST', '/api/v1/orders', {
      headers: key,
      body: { customerId, items: [{ variantId: p.variantIds[0], quantity: 2 }], shippingAddress: address },
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.json).to.deep.include({ storeId: m.storeId, total: 15 });
    const list = await call(server, 'GET', `/api/v1/orders?storeId=${m.storeId}`, { headers: key });
    expect(list.status).to.equal(200);
    expect(list.json.items.map((o: any) => o.id)).to.deep.equal([res.json.id]);
    const other = await newMerchant();
    expectProblem(
      await call(server, 'POST', '/api/v1/orders', {
        headers: key,
        body: { storeId: other.storeId, customerId, items: [{ variantId: p.variantIds[0], quantity: 1 }], shippingAddress: address },
      }),
      404,
      'store_not_found',
    );
    const readOnly = await apiKey(server, m, ['orders:read']);
    expectProblem(
      await call(server, 'POST', '/api/v1/orders', {
        headers: readOnly,
        body: { customerId, items: [{ variantId: p.variantIds[0], quantity: 1 }], shippingAddress: address },
      }),
      403,
      'insufficient_scope',
    );
  });

  it("places a member's order without storeId in the tenant's default store; 400 when the tenant has none", async () => {
    const m = await newMerchant();
    const second = await store(server, m, { name: 'Second' });
    const body = async (storeId: string) => {
      const customerId = await customer(server, { ...m, storeId });
      const p = await stockedProduct({ ...m, storeId }, '3', [[null, 5]]);
      return { customerId, items: [{ variantId: p.variantIds[0], quantity: 1 }], shippingAddress: address };
    };
    // The first store is the default one.
    const first = await call(server, 'POST', '/api/v1/orders', { headers: m.headers, body: await body(m.storeId) });
    expect(first.status, first.text).to.equal(201);
    expect(first.json.storeId).to.equal(m.storeId);
    // Naming the store still works for any store of the tenant.
    const named = await call(server, 'POST', '/api/v1/orders', { headers: m.headers, body: { storeId: second, ...(await body(second)) } });
    expect(named.status, named.text).to.equal(201);
    expect(named.json.storeId).to.equal(second);
    // Another store made the default: it is used from then on.
    const moved = await call(server, 'PATCH', `/api/v1/organization/stores/${second}`, { headers: m.headers, body: { isDefault: true } });
    expect(moved.status, moved.text).to.equal(200);
    const inSecond = await call(server, 'POST', '/api/v1/orders', { headers: m.headers, body: await body(second) });
    expect(inSecond.status, inSecond.text).to.equal(201);
    expect(inSecond.json.storeId).to.equal(second);
    // A customer of the other store does not fit the inferred one.
    expectProblem(
      await call(server, 'POST', '/api/v1/orders', { headers: m.headers, body: await body(m.storeId) }),
      404,
      'customer_not_found',
    );

    // A tenant whose only store is archived has no default store: it must name one.
    const lone = await newMerchant();
    const orderBody = await body(m.storeId);
    expect((await call(server, 'DELETE', `/api/v1/organization/stores/${lone.storeId}`, { headers: lone.headers })).status).to.equal(204);
    const none = await call(server, 'POST', '/api/v1/orders', { headers: lone.headers, body: orderBody });
    expectProblem(none, 400, 'validation_failed');
    expect(none.json.errors.map((e: any) => e.path)).to.deep.equal(['body.storeId']);
    expectProblem(
      await call(server, 'POST', '/api/v1/orders', { headers: lone.headers, body: { storeId: lone.storeId, ...orderBody } }),
      409,
      'store_archived',
    );
  });

  it('refuses a storeId that disagrees with a store API key, also for a store of the same tenant', async () => {
    const m = await newMerchant();
    const second = await store(server, m, { name: 'Second' });
    const customerId = await customer(server, m);
    const p = await stockedProduct(m, '4', [[null, 5]]);
    const key = await apiKey(server, m, ['orders:write']);
    const order = { customerId, items: [{ variantId: p.variantIds[0], quantity: 1 }], shippingAddress: address };
    expectProblem(
      await call(server, 'POST', '/api/v1/orders', { headers: key, body: { storeId: second, ...order } }),
      404,
      'store_not_found',
    );
    const own = await call(server, 'POST', '/api/v1/orders', { headers: key, body: { storeId: m.storeId, ...order } });
    expect(own.status, own.text).to.equal(201);
    expect(await stockOf(p.variantIds[0]!)).to.equal(4);
  });

  it('cancels: stock released, sales counts reduced, order.cancelled once, idempotent', async () => {
    const m = await newMerchant();
    const customerId = await customer(server, m);
    const p = await stockedProduct(m, '12', [
      [null, 10],
      [null, 4],
    ]);
    const res = await place(m, {
      customerId,
      items: [
        { variantId: p.variantIds[0], quantity: 3 },
        { variantId: p.variantIds[1], quantity: 4 },
      ],
    });
    expect(res.status, res.text).to.equal(201);
    expect(await stockOf(p.variantIds[1]!)).to.equal(0);
    expect(await salesOf(p.productId)).to.equal(7);
    const cancel = await call(server, 'POST', `/api/v1/orders/${res.json.id}/cancel`, { headers: m.headers });
    expect(cancel.status, cancel.text).to.equal(200);
    expect(cancel.json.status).to.equal('CANCELLED');
    expect(cancel.json.cancelledAt).to.be.a('string');
    expect(cancel.json.total).to.equal(84);
    expect(await stockOf(p.variantIds[0]!)).to.equal(10);
    expect(await stockOf(p.variantIds[1]!)).to.equal(4);
    expect(await salesOf(p.productId)).to.equal(0);
    const again = await call(server, 'POST', `/api/v1/orders/${res.json.id}/cancel`, { headers: m.headers });
    expect(again.status).to.equal(200);
    expect(again.json).to.deep.equal(cancel.json);
    expect(await stockOf(p.variantIds[0]!)).to.equal(10);
    const events = await db().query("SELECT topic, payload FROM outbox WHERE tenant_id = $1 AND queue = 'webhooks' ORDER BY id", [
      m.owner.tenantId,
    ]);
    expect(events.map((e: any) => e.topic)).to.deep.equal(['order.placed', 'order.cancelled']);
    expect(events[1].payload.data).to.deep.include({
      orderId: res.json.id,
      total: 84,
      currency: 'EUR',
      customerId,
      status: 'CANCELLED',
      cancelledAt: cancel.json.cancelledAt,
    });
    const index = await db().query("SELECT count(*)::int AS n FROM outbox WHERE tenant_id = $1 AND queue = 'index' AND aggregate_id = $2", [
      m.owner.tenantId,
      p.productId,
    ]);
    expect(index[0].n).to.equal(2);
    const audit = (await auditRows(server, m.owner.tenantId)).filter((r) => r.resource_type === 'order').map((r) => r.action);
    expect(audit).to.deep.equal(['order.create', 'order.cancel']);
    const got = await call(server, 'GET', `/api/v1/orders/${res.json.id}`, { headers: m.headers });
    expect(got.json).to.deep.equal(cancel.json);
  });

  it('lists newest first with cursor paging and filters; isolates tenants (404)', async () => {
    const m = await newMerchant();
    const c1 = await customer(server, m);
    const c2 = await customer(server, m);
    const p = await stockedProduct(m, '1', [[null, 100]]);
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const res = await place(m, { customerId: i % 2 ? c2 : c1, items: [{ variantId: p.variantIds[0], quantity: 1 }] });
      expect(res.status, res.text).to.equal(201);
      ids.push(res.json.id);
    }
    await call(server, 'POST', `/api/v1/orders/${ids[0]}/cancel`, { headers: m.headers });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await call(server, 'GET', `/api/v1/orders?storeId=${m.storeId}&limit=2${cursor ? `&cursor=${cursor}` : ''}`, {
        headers: m.headers,
      });
      expect(page.status, page.text).to.equal(200);
      expect(page.json.items.length).to.be.at.most(2);
      seen.push(...page.json.items.map((o: any) => o.id));
      cursor = page.json.nextCursor;
    } while (cursor);
    expect(seen).to.deep.equal([...ids].reverse());
    const byCustomer = await call(server, 'GET', `/api/v1/orders?storeId=${m.storeId}&customerId=${c2}`, { headers: m.headers });
    expect(byCustomer.json.items.map((o: any) => o.id)).to.deep.equal([ids[3], ids[1]]);
    const cancelled = await call(server, 'GET', `/api/v1/orders?storeId=${m.storeId}&status=CANCELLED`, { headers: m.headers });
    expect(cancelled.json.items.map((o: any) => o.id)).to.deep.equal([ids[0]]);
    for (const q of ['limit=0', 'limit=101', 'status=OPEN', 'cursor=', 'cursor=bm9wZQ', 'customerId=x', 'foo=1']) {
      expectProblem(
        await call(server, 'GET', `/api/v1/orders?storeId=${m.storeId}&${q}`, { headers: m.headers }),
        400,
        'validation_failed',
      );
    }
    expectProblem(await call(server, 'GET', '/api/v1/orders', { headers: m.headers }), 400, 'validation_failed');

    const other = await newMerchant();
    expectProblem(await call(server, 'GET', `/api/v1/orders/${ids[1]}`, { headers: other.headers }), 404, 'order_not_found');
    expectProblem(await call(server, 'POST', `/api/v1/orders/${ids[1]}/cancel`, { headers: other.headers }), 404, 'order_not_found');
    expectProblem(await call(server, 'GET', `/api/v1/orders?storeId=${m.storeId}`, { headers: other.headers }), 404, 'store_not_found');
    expectProblem(await call(server, 'GET', `/api/v1/orders/${uuidv7()}`, { headers: m.headers }), 404, 'order_not_found');
    const otherList = await call(server, 'GET', `/api/v1/orders?storeId=${other.storeId}`, { headers: other.headers });
    expect(otherList.json).to.deep.equal({ items: [], nextCursor: null });
    expect(await stockOf(p.variantIds[0]!)).to.equal(96);
  });
});
