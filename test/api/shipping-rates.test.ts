/**
 * Shipping rates: CRUD with bounds and cross-field rules, audit and outbox rows per write, tenancy,
 * CSV export, and public quotes across weight and value bands, free thresholds, district / city /
 * fallback destinations, inactive rates and catalog weights; plus quoteShipping() called directly.
 */
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { auditRows, expectProblem } from '../helpers/accounts';
import { apiKey, merchant, product, type Merchant } from '../helpers/fixtures';
import { uuidv7 } from '../../storage/ids';
import { quoteShipping } from '../../api/shipping-rates/shipping-quote';

describe('shipping rates', function () {
  this.timeout(60_000);
  let server: TestServer;

  const suite = apiSuite((started) => (server = started));

  const newMerchant = async (body: Record<string, unknown> = {}): Promise<Merchant> => suite.addMerchant(await merchant(server, body));

  const create = (m: Merchant, body: Record<string, unknown>) =>
    call(server, 'POST', '/api/v1/shipping-rates', { headers: m.headers, body: { storeId: m.storeId, ...body } });

  async function rate(m: Merchant, body: Record<string, unknown>): Promise<Record<string, any>> {
    const res = await create(m, body);
    expect(res.status, res.text).to.equal(201);
    return res.json;
  }

  const quote = (storeId: string, body: Record<string, unknown>) =>
    call(server, 'POST', `/api/v1/shipping-rates/public/stores/${storeId}/quote`, { body });

  it('creates, lists, updates and deletes rates with one audit entry and one outbox row per write', async () => {
    const m = await newMerchant({ currency: 'TRY' });
    // Every field given comes back as given, the name trimmed.
    const given = {
      city: 'İstanbul',
      district: 'Kadıköy',
      minWeightGrams: 0,
      maxWeightGrams: 5000,
      minOrderValue: 0,
      maxOrderValue: 1000.5,
      price: 29.99,
      freeShippingThreshold: 500,
      minDeliveryDays: 1,
      maxDeliveryDays: 3,
    };
    const created = await rate(m, { name: ' Standard ', ...given });
    expect(created).to.deep.include({
      ...given,
      storeId: m.storeId,
      name: 'Standard',
      destination: 'DISTRICT',
      currency: 'TRY',
      isActive: true,
    });
    const fallback = await rate(m, { name: 'Everywhere', price: 50 });
    expect(fallback).to.deep.include({
      city: null,
      district: null,
      destination: 'EVERYWHERE_ELSE',
      minWeightGrams: null,
      freeShippingThreshold: null,
      isActive: true,
    });

    const list = await call(server, 'GET', `/api/v1/shipping-rates?storeId=${m.storeId}`, { headers: m.headers });
    expect(list.status, list.text).to.equal(200);
    expect(list.json.items.map((r: { id: string }) => r.id)).to.deep.equal([created.id, fallback.id]);
    expect(list.json.nextCursor).to.equal(null);
    const page1 = await call(server, 'GET', `/api/v1/shipping-rates?storeId=${m.storeId}&limit=1`, { headers: m.headers });
    expect(page1.json.items.map((r: { id: string }) => r.id)).to.deep.equal([created.id]);
    const page2 = await call(server, 'GET', `/api/v1/shipping-rates?storeId=${m.storeId}&limit=1&cursor=${page1.json.nextCursor}`, {
      headers: m.headers,
    });
    expect(page2.json.items.map((r: { id: string }) => r.id)).to.deep.equal([fallback.id]);
    expect(page2.json.nextCursor).to.equal(null);

    const patched = await call(server, 'PATCH', `/api/v1/shipping-rates/${created.id}`, {
      headers: m.headers,
      body: { district: null, price: 19.5, isActive: false },
    });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.json).to.deep.include({ city: 'İstanbul', district: null, destination: 'CITY', price: 19.5, isActive: false });
    // Nothing changes: no audit entry, no outbox row.
    const same = await call(server, 'PATCH', `/api/v1/shipping-rates/${created.id}`, {
      headers: m.headers,
      body: { price: 19.5, maxOrderValue: 1000.5 },
    });
    expect(same.status).to.equal(200);
    expect(same.json).to.deep.equal(patched.json);

    expect((await call(server, 'DELETE', `/api/v1/shipping-rates/${fallback.id}`, { headers: m.headers })).status).to.equal(204);
    expectProblem(
      await call(server, 'DELETE', `/api/v1/shipping-rates/${fallback.id}`, { headers: m.headers }),
      404,
      'shipping_rate_not_found',
    );

    const audit = (await auditRows(server, m.owner.tenantId)).filter((r) => r.resource_type === 'shipping_rate');
    expect(audit.map((r) => [r.action, r.resource_id])).to.deep.equal([
      ['shipping_rate.create', created.id],
      ['shipping_rate.create', fallback.id],
      ['shipping_rate.update', created.id],
      ['shipping_rate.delete', fallback.id],
    ]);
    expect(audit[2]!.before).to.deep.equal({ district: 'Kadıköy', price: '29.99', isActive: true });
    expect(audit[2]!.after).to.deep.equal({ district: null, price: '19.5', isActive: false });
    const outbox: Array<{ queue: string; topic: string; aggregate_type: string; aggregate_id: string }> =
      await server.runtime.dataSource.query(
        "SELECT queue, topic, aggregate_type, aggregate_id FROM outbox WHERE tenant_id = $1 AND aggregate_type = 'shipping_rate' ORDER BY id",
        [m.owner.tenantId],
      );
    expect(outbox.map((r) => [r.queue, r.topic, r.aggregate_id])).to.deep.equal([
      ['index', 'shipping_rate.created', created.id],
      ['index', 'shipping_rate.created', fallback.id],
      ['index', 'shipping_rate.updated', created.id],
      ['index', 'shipping_rate.deleted', fallback.id],
    ]);
  });

  it('rejects rates out of bounds or inconsistent, with field paths, and writes nothing', async () => {
    const m = await newMerchant();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ price: 1 }, 'body.name'],
      [{ name: 'A' }, 'body.price'],
      [{ name: '   ', price: 1 }, 'body.name'],
      [{ name: 'x'.repeat(121), price: 1 }, 'body.name'],
      [{ name: 'A', price: -1 }, 'body.price'],
      [{ name: 'A', price: 1_000_000_001 }, 'body.price'],
      [{ name: 'A', price: 1.00001 }, 'body.price'],
      [{ name: 'A', price: 1, city: 'c'.repeat(101) }, 'body.city'],
      [{ name: 'A', price: 1, city: '' }, 'body.city'],
      [{ name: 'A', price: 1, district: 'Moda' }, 'body.district'],
      [{ name: 'A', price: 1, minWeightGrams: -1 }, 'body.minWeightGrams'],
      [{ name: 'A', price: 1, maxWeightGrams: 0 }, 'body.maxWeightGrams'],
      [{ name: 'A', price: 1, maxWeightGrams: 10_000_001 }, 'body.maxWeightGrams'],
      [{ name: 'A', price: 1, minWeightGrams: 1.5 }, 'body.minWeightGrams'],
      [{ name: 'A', price: 1, minWeightGrams: 1000, maxWeightGrams: 1000 }, 'body.maxWeightGrams'],
      [{ name: 'A', price: 1, minOrderValue: 100, maxOrderValue: 50 }, 'body.maxOrderValue'],
      [{ name: 'A', price: 1, maxOrderValue: 0 }, 'body.maxOrderValue'],
      [{ name: 'A', price: 1, freeShippingThreshold: -0.01 }, 'body.freeShippingThreshold'],
      [{ name: 'A', price: 1, minDeliveryDays: 366 }, 'body.minDeliveryDays'],
      [{ name: 'A', price: 1, minDeliveryDays: 5, maxDeliveryDays: 4 }, 'body.maxDeliveryDays'],
      [{ name: 'A', price: 1, currency: 'USD' }, 'body.currency'],
      [{ name: 'A', price: 1, isActive: 'maybe' }, 'body.isActive'],
    ];
    for (const [body, path] of cases) {
      const res = await create(m, body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).to.equal(400);
      expect(
        res.json.errors.map((e: { path: string }) => e.path),
        JSON.stringify(body),
      ).to.include(path);
    }
    // The bounds themselves are accepted.
    const edge = await rate(m, {
      name: 'x'.repeat(120),
      price: 1_000_000_000,
      city: 'c'.repeat(100),
      minWeightGrams: 0,
      maxWeightGrams: 10_000_000,
      minDeliveryDays: 0,
      maxDeliveryDays: 365,
    });
    expect(edge.maxWeightGrams).to.equal(10_000_000);
    // PATCH checks the rules on the rate as it would be.
    const r = await rate(m, { name: 'B', price: 1, minWeightGrams: 100, maxWeightGrams: 200 });
    const bad = await call(server, 'PATCH', `/api/v1/shipping-rates/${r.id}`, { headers: m.headers, body: { maxWeightGrams: 100 } });
    expectProblem(bad, 400, 'validation_failed');
    expect(bad.json.errors.map((e: { path: string }) => e.path)).to.deep.equal(['body.maxWeightGrams']);
    expectProblem(
      await call(server, 'PATCH', `/api/v1/shipping-rates/${r.id}`, { headers: m.headers, body: { district: 'Moda' } }),
      400,
      'validation_failed',
    );
    expect((await call(server, 'PATCH', `/api/v1/shipping-rates/${r.id}`, { headers: m.headers, body: {} })).status).to.equal(400);
    expect(
      (await call(server, 'PATCH', `/api/v1/shipping-rates/${r.id}`, { headers: m.headers, body: { storeId: m.storeId } })).status,
    ).to.equal(400);
    expect((await call(server, 'GET', `/api/v1/shipping-rates?storeId=${m.storeId}&limit=201`, { headers: m.headers })).status).to.equal(
      400,
    );
    expect((await call(server, 'GET', `/api/v1/shipping-rates?storeId=${m.storeId}&limit=0`, { headers: m.headers })).status).to.equal(400);
    expectProblem(
      await call(server, 'GET', `/api/v1/shipping-rates?storeId=${m.storeId}&cursor=nope`, { headers: m.headers }),
      400,
      'invalid_cursor',
    );
    expect((await call(server, 'GET', '/api/v1/shipping-rates', { headers: m.headers })).status).to.equal(400);
    const rows = await server.runtime.dataSource.query(
      "SELECT count(*)::int AS n FROM outbox WHERE tenant_id = $1 AND aggregate_type = 'shipping_rate'",
      [m.owner.tenantId],
    );
    expect(rows[0].n).to.equal(2);
  });

  it("answers 404 for another tenant's store and rates, and 401 without a token; API keys need the scope", async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    const r = await rate(a, { name: 'A', price: 5 });
    expectProblem(await call(server, 'GET', `/api/v1/shipping-rates?storeId=${a.storeId}`, { headers: b.headers }), 404, 'store_not_found');
    expectProblem(
      await call(server, 'GET', `/api/v1/shipping-rates/export?storeId=${a.storeId}`, { headers: b.headers }),
      404,
      'store_not_found',
    );
    expectProblem(await create(b, { storeId: a.storeId, name: 'X', price: 1 }), 404, 'store_not_found');
    expectProblem(
      await call(server, 'PATCH', `/api/v1/shipping-rates/${r.id}`, { headers: b.headers, body: { price: 1 } }),
      404,
      'shipping_rate_not_found',
    );
    expectProblem(await call(server, 'DELETE', `/api/v1/shipping-rates/${r.id}`, { headers: b.headers }), 404, 'shipping_rate_not_found');
    expect((await call(server, 'GET', `/api/v1/shipping-rates?storeId=${a.storeId}`)).status).to.equal(401);
    const reader = await apiKey(server, a, ['shipping-rates:read']);
    expect((await call(server, 'GET', `/api/v1/shipping-rates?storeId=${a.storeId}`, { headers: reader })).status).to.equal(200);
    expect((await call(server, 'PATCH', `/api/v1/shipping-rates/${r.id}`, { headers: reader, body: { price: 1 } })).status).to.equal(403);
    const writer = await apiKey(server, a, ['shipping-rates:write']);
    const ok = await call(server, 'PATCH', `/api/v1/shipping-rates/${r.id}`, { headers: writer, body: { price: 1 } });
    expect(ok.status, ok.text).to.equal(200);
    await server.runtime.dataSource.query("UPDATE stores SET status = 'archived' WHERE id = $1", [a.storeId]);
    expectProblem(
      await call(server, 'PATCH', `/api/v1/shipping-rates/${r.id}`, { headers: a.headers, body: { price: 2 } }),
      409,
      'store_archived',
    );
    expectProblem(
      await quote(a.storeId, { items: [{ productId: uuidv7(), quantity: 1 }], address: { city: 'X' } }),
      404,
      'store_not_found',
    );
  });

  it('exports the rates as CSV', async () => {
    const m = await newMerchant();
    const first = await rate(m, {
      name: '=cmd()',
      city: 'Ankara',
      price: 12.5,
      freeShippingThreshold: 100,
      minDeliveryDays: 2,
      maxDeliveryDays: 4,
    });
    const second = await rate(m, { name: 'Fallback, slow', price: 0, isActive: false });
    const res = await call(server, 'GET', `/api/v1/shipping-rates/export?storeId=${m.storeId}`, { headers: m.headers });
    expect(res.status, res.text).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/csv/);
    expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="shipping-rates-${m.storeId}.csv"`);
    expect(res.text.split('\r\n')).to.deep.equal([
      'id,name,destination,city,district,minWeightGrams,maxWeightGrams,minOrderValue,maxOrderValue,price,freeShippingThreshold,currency,minDeliveryDays,maxDeliveryDays,isActive',
      `${first.id},'=cmd(),CITY,Ankara,,,,,,12.5,100,EUR,2,4,true`,
      `${second.id},"Fallback, slow",EVERYWHERE_ELSE,,,,,,,0,,EUR,,,false`,
      '',
    ]);
  });

  it('quotes across weight and order-value bands with free-shipping thresholds, cheapest first', async () => {
    const m = await newMerchant();
    const light = await product(server, m, { price: '20', weight_grams: 400, status: 'PUBLISHED' });
    const heavy = await product(server, m, { price: '150.25', weight_grams: 3000, status: 'PUBLISHED' });
    const small = await rate(m, { name: 'Small parcel', price: 5, maxWeightGrams: 1000, minDeliveryDays: 3, maxDeliveryDays: 5 });
    const large = await rate(m, { name: 'Large parcel', price: 15, minWeightGrams: 1000, maxWeightGrams: 10000 });
    const express = await rate(m, { name: 'Express', price: 9.99, freeShippingThreshold: 300, minDeliveryDays: 1, maxDeliveryDays: 1 });
    const bigOrder = await rate(m, { name: 'Big order courier', price: 2, minOrderValue: 200 });
    await rate(m, { name: 'Off', price: 0, isActive: false });

    // 2 × 400 g = 800 g, value 40: small parcel (5) and express (9.99).
    let res = await quote(m.storeId, { items: [{ productId: light, quantity: 2 }], address: { city: 'Anywhere' } });
    expect(res.status, res.text).to.equal(200);
    expect(res.json).to.deep.include({ storeId: m.storeId, currency: 'EUR', weightGrams: 800, orderValue: 40 });
    expect(res.json.options).to.deep.equal([
      {
        rateId: small.id,
        name: 'Small parcel',
        destination: 'EVERYWHERE_ELSE',
        price: 5,
        ratePrice: 5,
        free: false,
        freeShippingThreshold: null,
        currency: 'EUR',
        minDeliveryDays: 3,
        maxDeliveryDays: 5,
      },
      {
        rateId: express.id,
        name: 'Express',
        destination: 'EVERYWHERE_ELSE',
        price: 9.99,
        ratePrice: 9.99,
        free: false,
        freeShippingThreshold: 300,
        currency: 'EUR',
        minDeliveryDays: 1,
        maxDeliveryDays: 1,
      },
    ]);

    // Exactly 1000 g falls in the next band (max is exclusive).
    const weightless = await product(server, m, { price: '1', status: 'PUBLISHED' });
    res = await quote(m.storeId, { items: [{ productId: weightless, quantity: 1, weightGrams: 1000 }], address: { city: 'x' } });
    expect(res.json.weightGrams).to.equal(1000);
    expect(res.json.options.map((o: { rateId: string }) => o.rateId)).to.deep.equal([express.id, large.id]);
    res = await quote(m.storeId, { items: [{ productId: weightless, quantity: 1, weightGrams: 999 }], address: { city: 'x' } });
    expect(res.json.options.map((o: { rateId: string }) => o.rateId)).to.deep.equal([small.id, express.id]);
    res = await quote(m.storeId, { items: [{ productId: uuidv7(), quantity: 1 }], address: { city: 'x' } });
    expectProblem(res, 400, 'invalid_item');
    expect(res.json.errors.map((e: { path: string }) => e.path)).to.deep.equal(['body.items[0].productId']);

    // 3000 g + 400 g, value 170.25: large (15), express (9.99); not the order-value rate (≥ 200).
    res = await quote(m.storeId, {
      items: [
        { productId: heavy, quantity: 1 },
        { productId: light, quantity: 1 },
      ],
      address: { city: 'x' },
    });
    expect(res.json).to.deep.include({ weightGrams: 3400, orderValue: 170.25 });
    expect(res.json.options.map((o: { rateId: string; price: number }) => [o.rateId, o.price])).to.deep.equal([
      [express.id, 9.99],
      [large.id, 15],
    ]);

    // 2 × 150.25 = 300.5 ≥ 300: express is free; the order-value rate applies (≥ 200).
    res = await quote(m.storeId, { items: [{ productId: heavy, quantity: 2 }], address: { city: 'x' } });
    expect(res.json).to.deep.include({ weightGrams: 6000, orderValue: 300.5 });
    expect(res.json.options.map((o: { rateId: string; price: number; free: boolean }) => [o.rateId, o.price, o.free])).to.deep.equal([
      [express.id, 0, true],
      [bigOrder.id, 2, false],
      [large.id, 15, false],
    ]);

    // orderValue given overrides the catalog total (e.g. after discounts); exactly the threshold ships free.
    res = await quote(m.storeId, { items: [{ productId: light, quantity: 1 }], orderValue: 300, address: { city: 'x' } });
    expect(res.json.orderValue).to.equal(300);
    expect(res.json.options.map((o: { rateId: string; price: number }) => [o.rateId, o.price])).to.deep.equal([
      [express.id, 0],
      [bigOrder.id, 2],
      [small.id, 5],
    ]);
    res = await quote(m.storeId, { items: [{ productId: light, quantity: 1 }], orderValue: 199.9999, address: { city: 'x' } });
    expect(res.json.options.map((o: { rateId: string }) => o.rateId)).to.deep.equal([small.id, express.id]);

    // 21 kg is beyond every weight band but the unbounded ones; express ships free (value 1051.75).
    res = await quote(m.storeId, { items: [{ productId: heavy, quantity: 7 }], address: { city: 'x' } });
    expect(res.json.options.map((o: { rateId: string; price: number }) => [o.rateId, o.price])).to.deep.equal([
      [express.id, 0],
      [bigOrder.id, 2],
    ]);
  });

  it('prefers district rates over city rates over the fallback, matching names case- and accent-insensitively', async () => {
    const m = await newMerchant();
    const p = await product(server, m, { price: '10', weight_grams: 100, status: 'PUBLISHED' });
    const fallback = await rate(m, { name: 'Fallback', price: 30 });
    const city = await rate(m, { name: 'City standard', city: 'İstanbul', price: 20 });
    const cityExpress = await rate(m, { name: 'City express', city: 'istanbul', price: 35, maxDeliveryDays: 1 });
    const district = await rate(m, { name: 'Moda courier', city: 'Istanbul', district: 'Kadıköy', price: 10, maxWeightGrams: 1000 });
    await rate(m, { name: 'Other district', city: 'Istanbul', district: 'Beşiktaş', price: 1 });
    await rate(m, { name: 'Same district name, other city', city: 'Ankara', district: 'Kadıköy', price: 2 });
    await rate(m, { name: 'Inactive district', city: 'Istanbul', district: 'Kadıköy', price: 0, isActive: false });
    const items = [{ productId: p, quantity: 1 }];

    let res = await quote(m.storeId, { items, address: { city: '  ISTANBUL ', district: 'kadikoy' } });
    expect(res.status, res.text).to.equal(200);
    expect(res.json.options.map((o: { rateId: string; destination: string }) => [o.rateId, o.destination])).to.deep.equal([
      [district.id, 'DISTRICT'],
    ]);

    res = await quote(m.storeId, { items, address: { city: 'istanbul', district: 'Üsküdar' } });
    expect(res.json.options.map((o: { rateId: string; destination: string }) => [o.rateId, o.destination])).to.deep.equal([
      [city.id, 'CITY'],
      [cityExpress.id, 'CITY'],
    ]);
    res = await quote(m.storeId, { items, address: { city: 'İSTANBUL' } });
    expect(res.json.options.map((o: { rateId: string }) => o.rateId)).to.deep.equal([city.id, cityExpress.id]);

    res = await quote(m.storeId, { items, address: { city: 'Izmir', district: 'Kadıköy' } });
    expect(res.json.options.map((o: { rateId: string; destination: string }) => [o.rateId, o.destination])).to.deep.equal([
      [fallback.id, 'EVERYWHERE_ELSE'],
    ]);

    // The district rate stops at 1 kg: a heavier cart in Kadıköy gets the city's options.
    res = await quote(m.storeId, { items: [{ productId: p, quantity: 20 }], address: { city: 'Istanbul', district: 'Kadıköy' } });
    expect(res.json.options.map((o: { rateId: string }) => o.rateId)).to.deep.equal([city.id, cityExpress.id]);

    // No fallback and no matching place: no option.
    const other = await newMerchant();
    const q = await product(server, other, { status: 'PUBLISHED' });
    await rate(other, { name: 'Ankara only', city: 'Ankara', price: 5 });
    res = await quote(other.storeId, { items: [{ productId: q, quantity: 1 }], address: { city: 'Izmir' } });
    expect(res.status).to.equal(200);
    expect(res.json.options).to.deep.equal([]);
  });

  it('weighs items from variants, products or the quote, and refuses unpublished or foreign items', async () => {
    const m = await newMerchant();
    const withWeight = await product(server, m, { price: '10', weight_grams: 500, status: 'PUBLISHED' });
    const noWeight = await product(server, m, { price: '4', status: 'PUBLISHED' });
    const draft = await product(server, m, { status: 'DRAFT' });
    const variant = uuidv7();
    const plainVariant = uuidv7();
    await server.runtime.dataSource.query(
      'INSERT INTO product_variants (id, tenant_id, store_id, product_id, price, weight_grams) VALUES ($1, $2, $3, $4, $5, $6), ($7, $2, $3, $4, NULL, NULL)',
      [variant, m.owner.tenantId, m.storeId, withWeight, '12', 800, plainVariant],
    );
    await rate(m, { name: 'Any', price: 1 });
    // variant: 2 × 800 g at 12; plain variant: its product's 500 g and 10; no-weight product: the given 250 g; catalog weight wins over a given one.
    const res = await quote(m.storeId, {
      items: [
        { variantId: variant, quantity: 2 },
        { variantId: plainVariant, quantity: 1 },
        { productId: noWeight, quantity: 2, weightGrams: 250 },
        { productId: withWeight, quantity: 1, weightGrams: 1 },
      ],
      address: { city: 'a' },
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.json).to.deep.include({ weightGrams: 1600 + 500 + 500 + 500, orderValue: 24 + 10 + 8 + 10 });

    const other = await newMerchant();
    const foreign = await product(server, other, { status: 'PUBLISHED' });
    const bad = await quote(m.storeId, {
      items: [
        { productId: draft, quantity: 1 },
        { productId: foreign, quantity: 1 },
        { variantId: uuidv7(), quantity: 1 },
      ],
      address: { city: 'a' },
    });
    expectProblem(bad, 400, 'invalid_item');
    expect(bad.json.errors.map((e: { path: string }) => e.path)).to.deep.equal([
      'body.items[0].productId',
      'body.items[1].productId',
      'body.items[2].variantId',
    ]);

    const invalid: Array<[Record<string, unknown>, string]> = [
      [{ items: [], address: { city: 'a' } }, 'body.items'],
      [{ items: [{ productId: withWeight, variantId: variant, quantity: 1 }], address: { city: 'a' } }, 'body.items[0]'],
      [{ items: [{ quantity: 1 }], address: { city: 'a' } }, 'body.items[0]'],
      [{ items: [{ productId: withWeight, quantity: 0 }], address: { city: 'a' } }, 'body.items[0].quantity'],
      [{ items: [{ productId: withWeight, quantity: 10_001 }], address: { city: 'a' } }, 'body.items[0].quantity'],
      [{ items: [{ productId: withWeight, quantity: 1, weightGrams: -1 }], address: { city: 'a' } }, 'body.items[0].weightGrams'],
      [{ items: Array.from({ length: 101 }, () => ({ productId: withWeight, quantity: 1 })), address: { city: 'a' } }, 'body.items'],
      [{ items: [{ productId: withWeight, quantity: 1 }] }, 'body.address'],
      [{ items: [{ productId: withWeight, quantity: 1 }], address: {} }, 'body.address.city'],
      [{ items: [{ productId: withWeight, quantity: 1 }], address: { city: 'a'.repeat(101) } }, 'body.address.city'],
      [{ items: [{ productId: withWeight, quantity: 1 }], address: { city: 'a' }, orderValue: -1 }, 'body.orderValue'],
      [{ items: [{ productId: withWeight, quantity: 1 }], address: { city: 'a' }, coupon: 'x' }, 'body.coupon'],
    ];
    for (const [body, path] of invalid) {
      const r = await quote(m.storeId, body);
      expect(r.status, `${JSON.stringify(body).slice(0, 200)}: ${r.text}`).to.equal(400);
      expect(
        r.json.errors.map((e: { path: string }) => e.path),
        JSON.stringify(body).slice(0, 200),
      ).to.include(path);
    }
    expectProblem(
      await quote(uuidv7(), { items: [{ productId: withWeight, quantity: 1 }], address: { city: 'a' } }),
      404,
      'store_not_found',
    );
  });

  it('quoteShipping() gives orders the same answer inside a transaction', async () => {
    const m = await newMerchant();
    const p = await product(server, m, { price: '10', weight_grams: 100, status: 'PUBLISHED' });
    const r = await rate(m, { name: 'Only', price: 3.5, freeShippingThreshold: 50 });
    const result = await server.runtime.dataSource.transaction((manager) =>
      quoteShipping(manager, m.storeId, { items: [{ productId: p, quantity: 5 }] }, { city: 'Anywhere', district: 'Centre' }),
    );
    expect(result).to.deep.equal({
      storeId: m.storeId,
      currency: 'EUR',
      weightGrams: 500,
      orderValue: 50,
      options: [
        {
          rateId: r.id,
          name: 'Only',
          destination: 'EVERYWHERE_ELSE',
          price: 0,
          ratePrice: 3.5,
          free: true,
          freeShippingThreshold: 50,
          currency: 'EUR',
          minDeliveryDays: null,
          maxDeliveryDays: null,
        },
      ],
    });
  });
});
