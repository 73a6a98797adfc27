/**
 * Bundles: list, by product, get, create, update, delete and compute — validation bounds, unknown ids
 * and another tenant's store or bundle (404), API keys bound to their store, duplicate slugs (409),
 * invalid products and variants (400), exact prices for both pricing rules including rounding, and
 * exactly one audit entry and one outbox row per change (none for reads, refusals and no-ops).
 * Products and variants are written with SQL so these tests do not depend on the product operations.
 */
import { expect } from 'chai';
import { uuidv7 } from '../../storage/ids';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { auditRows, expectProblem } from '../helpers/accounts';
import { apiKey, merchant, product, store, variant, type Headers, type Merchant } from '../helpers/fixtures';
import { divideHalfUp, formatUnits, rescale, toUnits } from '../../domain/money';

describe('bundles', () => {
  let server: TestServer;
  apiSuite((started) => (server = started));

  const create = (h: Headers, body: Record<string, unknown>) => call(server, 'POST', '/api/v1/bundles', { headers: h, body });
  const list = (h: Headers, storeId: string) => call(server, 'GET', `/api/v1/bundles?storeId=${storeId}`, { headers: h });
  const get = (h: Headers, id: string) => call(server, 'GET', `/api/v1/bundles/${id}`, { headers: h });
  const byProduct = (h: Headers, productId: string) => call(server, 'GET', `/api/v1/bundles/by-product/${productId}`, { headers: h });
  const patch = (h: Headers, id: string, body: Record<string, unknown>) =>
    call(server, 'PATCH', `/api/v1/bundles/${id}`, { headers: h, body });
  const remove = (h: Headers, id: string) => call(server, 'DELETE', `/api/v1/bundles/${id}`, { headers: h });
  const compute = (h: Headers, body: Record<string, unknown>) => call(server, 'POST', '/api/v1/bundles/compute', { headers: h, body });

  async function bundle(m: Merchant, body: Record<string, unknown>): Promise<Record<string, any>> {
    const res = await create(m.headers, {
      storeId: m.storeId,
      name: `Bundle ${uuidv7().slice(-6)}`,
      pricing: { type: 'PERCENT_OFF', percentOff: 10 },
      ...body,
    });
    expect(res.status, res.text).to.equal(201);
    return res.json;
  }

  /** Outbox rows and audit entries written for a resource. */
  async function writes(id: string): Promise<{
    outbox: Array<{ topic: string; queue: string; aggregate_type: string }>;
    audit: Array<{ action: string; before: any; after: any }>;
  }> {
    const outbox = await server.runtime.dataSource.query(
      'SELECT topic, queue, aggregate_type FROM outbox WHERE aggregate_id = $1 ORDER BY id',
      [id],
    );
    const audit = await server.runtime.dataSource.query('SELECT action, before, after FROM audit_log WHERE resource_id = $1 ORDER BY id', [
      id,
    ]);
    return { outbox, audit };
  }

  async function bundleCount(storeId: string): Promise<number> {
    const [row] = await server.runtime.dataSource.query('SELECT count(*)::int AS n FROM bundles WHERE store_id = $1', [storeId]);
    return row.n;
  }

  function expectFieldErrors(res: TestResponse, paths: string[], code = 'validation_failed'): void {
    expectProblem(res, 400, code);
    const got = (res.json.errors as Array<{ path: string }>).map((e) => e.path);
    for (const path of paths) expect(got, res.text).to.include(path);
  }

  describe('POST /bundles', () => {
    it('creates a bundle (201) with its priced items, one audit entry and one outbox row', async () => {
      const m = await merchant(server);
      const shirt = await product(server, m, { price: '9.99', title: 'Shirt' });
      const socks = await product(server, m, { price: '4.5000', title: 'Socks' });
      const large = await variant(server, m, socks, { price: '5.2500', sku: 'SOCKS-L' });
      const seller = await product(server, m, { price: '20', type: 'BUNDLE', title: 'Shirt and socks' });
      const res = await create(m.headers, {
        storeId: m.storeId,
        name: 'Shirt & Socks',
        productId: seller,
        pricing: { type: 'FIXED_PRICE', price: 19.5 },
        items: [
          { productId: shirt, quantity: 1 },
          { productId: socks, variantId: large, quantity: 2 },
        ],
      });
      expect(res.status, res.text).to.equal(201);
      expect(res.json).to.include({
        name: 'Shirt & Socks',
        slug: 'shirt-socks',
        productId: seller,
        storeId: m.storeId,
        isActive: true,
        currency: 'EUR',
      });
      expect(res.json.pricing).to.deep.equal({ type: 'FIXED_PRICE', price: 19.5 });
      expect(res.json.items).to.deep.equal([
        {
          productId: shirt,
          variantId: null,
          quantity: 1,
          position: 0,
          productTitle: 'Shirt',
          productCurrency: 'EUR',
          variantSku: null,
          unitPrice: 9.99,
        },
        {
          productId: socks,
          variantId: large,
          quantity: 2,
          position: 1,
          productTitle: 'Socks',
          productCurrency: 'EUR',
          variantSku: 'SOCKS-L',
          unitPrice: 5.25,
        },
      ]);
      // 9.99 + 2 × 5.25 = 20.49; savings 0.99 = 4.83%.
      expect(res.json).to.include({ itemsTotal: 20.49, bundlePrice: 19.5, savings: 0.99, savingsPercent: 4.83 });
      const got = await get(m.headers, res.json.id);
      expect(got.status, got.text).to.equal(200);
      expect(got.json).to.deep.equal(res.json);

      const w = await writes(res.json.id);
      expect(w.outbox).to.deep.equal([{ topic: 'bundle.created', queue: 'index', aggregate_type: 'bundle' }]);
      expect(w.audit).to.have.length(1);
      expect(w.audit[0]).to.deep.include({ action: 'bundle.create', before: null });
      expect(w.audit[0]!.after).to.deep.include({
        storeId: m.storeId,
        name: 'Shirt & Socks',
        pricing: { type: 'FIXED_PRICE', price: 19.5 },
      });
      const actors = (await auditRows(server, m.owner.tenantId)).filter((a) => a.resource_id === res.json.id);
      expect(actors[0]).to.include({ actor_type: 'user', actor_id: m.owner.userId, resource_type: 'bundle' });
    });

    it('derives free slugs from the name and refuses a taken slug (409) case-insensitively', async () => {
      const m = await merchant(server);
      const p = await product(server, m, { price: '1' });
      const items = [{ productId: p, quantity: 1 }];
      expect((await bundle(m, { name: 'Summer Set!', items })).slug).to.equal('summer-set');
      expect((await bundle(m, { name: 'summer set', items })).slug).to.equal('summer-set-2');
      expect((await bundle(m, { name: '***', items })).slug).to.equal('bundle');
      const before = await bundleCount(m.storeId);
      const dup = await create(m.headers, {
        storeId: m.storeId,
        name: 'X',
        slug: 'summer-set',
        pricing: { type: 'PERCENT_OFF', percentOff: 5 },
        items,
      });
      expectProblem(dup, 409, 'slug_taken');
      expect(dup.json.errors).to.deep.equal([{ path: 'body.slug', message: 'slug is already taken in the store' }]);
      expect(await bundleCount(m.storeId)).to.equal(before);
      // Another store of the tenant has slugs of its own.
      const other = await store(server, m);
      const p2 = await product(server, m, { price: '1', store_id: other });
      const res = await create(m.headers, {
        storeId: other,
        name: 'Summer set',
        pricing: { type: 'PERCENT_OFF', percentOff: 5 },
        items: [{ productId: p2, quantity: 1 }],
      });
      expect(res.status, res.text).to.equal(201);
      expect(res.json.slug).to.equal('summer-set');
    });

    it('validates bounds with field paths (400) and writes nothing', async () => {
      const m = await merchant(server);
      const p = await product(server, m, { price: '1' });
      const base = {
        storeId: m.storeId,
        name: 'B',
        pricing: { type: 'PERCENT_OFF', percentOff: 10 },
        items: [{ productId: p, quantity: 1 }],
      };
      expectFieldErrors(await create(m.headers, { ...base, name: '' }), ['body.name']);
      expectFieldErrors(await create(m.headers, { ...base, name: 'x'.repeat(201) }), ['body.name']);
      expectFieldErrors(await create(m.headers, { ...base, slug: 'Bad Slug' }), ['body.slug']);
      expectFieldErrors(await create(m.headers, { ...base, items: [] }), ['body.items']);
      expectFieldErrors(
        await create(m.headers, { ...base, items: Array.from({ length: 51 }, () => ({ productId: uuidv7(), quantity: 1 })) }),
        ['body.items'],
      );
      expectFieldErrors(await create(m.headers, { ...base, items: [{ productId: p, quantity: 0 }] }), ['body.items[0].quantity']);
      expectFieldErrors(await create(m.headers, { ...base, items: [{ productId: p, quantity: 1001 }] }), ['body.items[0].quantity']);
      expectFieldErrors(await create(m.headers, { ...base, items: [{ productId: p, quantity: 1.5 }] }), ['body.items[0].quantity']);
      expectFieldErrors(
        await create(m.headers, {
          ...base,
          items: [
            { productId: p, quantity: 1 },
            { productId: p, quantity: 2 },
          ],
        }),
        ['body.items[1]'],
      );
      expectFieldErrors(await create(m.headers, { ...base, items: [{ productId: 'nope', quantity: 1 }] }), ['body.items[0].productId']);
      expectFieldErrors(await create(m.headers, { ...base, pricing: { type: 'PERCENT_OFF', percentOff: 0 } }), ['body.pricing.percentOff']);
      expectFieldErrors(await create(m.headers, { ...base, pricing: { type: 'PERCENT_OFF', percentOff: 100 } }), [
        'body.pricing.percentOff',
      ]);
      expectFieldErrors(await create(m.headers, { ...base, pricing: { type: 'PERCENT_OFF' } }), ['body.pricing.percentOff']);
      expectFieldErrors(await create(m.headers, { ...base, pricing: { type: 'PERCENT_OFF', percentOff: 10, price: 5 } }), [
        'body.pricing.price',
      ]);
      expectFieldErrors(await create(m.headers, { ...base, pricing: { type: 'FIXED_PRICE' } }), ['body.pricing.price']);
      expectFieldErrors(await create(m.headers, { ...base, pricing: { type: 'FIXED_PRICE', price: -1 } }), ['body.pricing.price']);
      expectFieldErrors(await create(m.headers, { ...base, pricing: { type: 'FIXED_PRICE', price: 1_000_000_001 } }), [
        'body.pricing.price',
      ]);
      expectFieldErrors(await create(m.headers, { ...base, pricing: { type: 'BOGO' } }), ['body.pricing.type']);
      expectFieldErrors(await create(m.headers, { ...base, colour: 'red' }), ['body.colour']);
      expectFieldErrors(await create(m.headers, { name: 'B', pricing: base.pricing, items: base.items }), ['body.storeId']);
      expect(await bundleCount(m.storeId)).to.equal(0);
    });

    it('refuses products and variants that are not of the store or not of their product (400)', async () => {
      const m = await merchant(server);
      const p = await product(server, m, { price: '1' });
      const q = await product(server, m, { price: '2' });
      const qVariant = await variant(server, m, q, { price: null });
      const otherStore = await store(server, m);
      const elsewhere = await product(server, m, { price: '1', store_id: otherStore });
      const stranger = await merchant(server);
      const foreign = await product(server, stranger, { price: '1' });
      const base = { storeId: m.storeId, name: 'B', pricing: { type: 'PERCENT_OFF', percentOff: 10 } };
      for (const productId of [uuidv7(), elsewhere, foreign]) {
        const res = await create(m.headers, {
          ...base,
          items: [
            { productId: p, quantity: 1 },
            { productId, quantity: 1 },
          ],
        });
        expectFieldErrors(res, ['body.items[1].productId'], 'invalid_product');
      }
      const wrongVariant = await create(m.headers, { ...base, items: [{ productId: p, variantId: qVariant, quantity: 1 }] });
      expectFieldErrors(wrongVariant, ['body.items[0].variantId'], 'invalid_variant');
      const unknownVariant = await create(m.headers, { ...base, items: [{ productId: q, variantId: uuidv7(), quantity: 1 }] });
      expectFieldErrors(unknownVariant, ['body.items[0].variantId'], 'invalid_variant');
      // The selling product must be a BUNDLE product of the store, not an item, and sell one bundle only.
      const notBundle = await create(m.headers, { ...base, productId: p, items: [{ productId: q, quantity: 1 }] });
      expectFieldErrors(notBundle, ['body.productId'], 'invalid_product');
      const seller = await product(server, m, { price: '5', type: 'BUNDLE' });
      const selfItem = await create(m.headers, { ...base, productId: seller, items: [{ productId: seller, quantity: 1 }] });
      expectFieldErrors(selfItem, ['body.items[0].productId'], 'invalid_product');
      await bundle(m, { productId: seller, items: [{ productId: p, quantity: 1 }] });
      expectProblem(
        await create(m.headers, { ...base, productId: seller, items: [{ productId: q, quantity: 1 }] }),
        409,
        'product_has_bundle',
      );
      expect(await bundleCount(m.storeId)).to.equal(1);
    });

    it("answers 404 for another tenant's store and for an API key's other store; checks scopes", async () => {
      const m = await merchant(server);
      const stranger = await merchant(server);
      const p = await product(server, stranger, { price: '1' });
      const body = {
        storeId: stranger.storeId,
        name: 'B',
        pricing: { type: 'PERCENT_OFF', percentOff: 10 },
        items: [{ productId: p, quantity: 1 }],
      };
      expectProblem(await create(m.headers, body), 404, 'store_not_found');
      const other = await store(server, m);
      const key = await apiKey(server, m, ['bundles:write', 'bundles:read']);
      expectProblem(await create(key, { ...body, storeId: other }), 404, 'store_not_found');
      const own = await product(server, m, { price: '1' });
      const made = await create(key, { ...body, storeId: m.storeId, items: [{ productId: own, quantity: 1 }] });
      expect(made.status, made.text).to.equal(201);
      const readOnly = await apiKey(server, m, ['bundles:read']);
      expectProblem(
        await create(readOnly, { ...body, storeId: m.storeId, items: [{ productId: own, quantity: 1 }] }),
        403,
        'insufficient_scope',
      );
      expect((await writes(made.json.id)).audit).to.have.length(1);
    });
  });

  describe('GET /bundles and GET /bundles/by-product/{productId}', () => {
    it("lists the store's bundles by name and finds those containing or sold as a product", async () => {
      const m = await merchant(server);
      const a = await product(server, m, { price: '1' });
      const b = await product(server, m, { price: '2' });
      const bv = await variant(server, m, b, { price: '3' });
      const seller = await product(server, m, { price: '3', type: 'BUNDLE' });
      const zeta = await bundle(m, { name: 'Zeta', items: [{ productId: a, quantity: 1 }] });
      const alpha = await bundle(m, { name: 'alpha', productId: seller, items: [{ productId: b, variantId: bv, quantity: 3 }] });
      const mid = await bundle(m, {
        name: 'Mid',
        items: [
          { productId: a, quantity: 2 },
          { productId: b, quantity: 1 },
        ],
      });
      const res = await list(m.headers, m.storeId);
      expect(res.status, res.text).to.equal(200);
      expect(Object.keys(res.json)).to.deep.equal(['items']);
      expect(res.json.items.map((x: any) => x.name)).to.deep.equal(['alpha', 'Mid', 'Zeta']);
      expect(res.json.items[0]).to.deep.equal({
        id: alpha.id,
        storeId: m.storeId,
        productId: seller,
        name: 'alpha',
        slug: 'alpha',
        pricing: { type: 'PERCENT_OFF', percentOff: 10 },
        isActive: true,
        items: [{ productId: b, variantId: bv, quantity: 3, position: 0 }],
        createdAt: alpha.createdAt,
        updatedAt: alpha.updatedAt,
      });
      const ofA = await byProduct(m.headers, a);
      expect(ofA.status, ofA.text).to.equal(200);
      expect(ofA.json.items.map((x: any) => x.id)).to.deep.equal([mid.id, zeta.id]);
      expect((await byProduct(m.headers, b)).json.items.map((x: any) => x.id)).to.deep.equal([alpha.id, mid.id]);
      expect((await byProduct(m.headers, seller)).json.items.map((x: any) => x.id)).to.deep.equal([alpha.id]);
      expect((await byProduct(m.headers, await product(server, m, { price: '1' }))).json.items).to.deep.equal([]);
      expect((await list(m.headers, await store(server, m))).json.items).to.deep.equal([]);
    });

    it("answers 404 for unknown products and another tenant's store or product, and 400 for malformed ids", async () => {
      const m = await merchant(server);
      const stranger = await merchant(server);
      const theirs = await product(server, stranger, { price: '1' });
      expectProblem(await list(m.headers, stranger.storeId), 404, 'store_not_found');
      expectProblem(await byProduct(m.headers, theirs), 404, 'product_not_found');
      expectProblem(await byProduct(m.headers, uuidv7()), 404, 'product_not_found');
      expectFieldErrors(await byProduct(m.headers, 'nope'), ['params.productId']);
      expectFieldErrors(await call(server, 'GET', '/api/v1/bundles', { headers: m.headers }), ['query.storeId']);
      const other = await store(server, m);
      const otherProduct = await product(server, m, { price: '1', store_id: other });
      const key = await apiKey(server, m, ['bundles:read']);
      expectProblem(await list(key, other), 404, 'store_not_found');
      expectProblem(await byProduct(key, otherProduct), 404, 'product_not_found');
      expect((await list(key, m.storeId)).status).to.equal(200);
      expectProblem(await call(server, 'GET', `/api/v1/bundles?storeId=${m.storeId}`), 401, 'unauthorized');
    });
  });

  describe('GET /bundles/{id}', () => {
    it('prices one bundle: percent off rounded half up, savings and savingsPercent', async () => {
      const m = await merchant(server);
      const p = await product(server, m, { price: '9.99' });
      const res = await bundle(m, { pricing: { type: 'PERCENT_OFF', percentOff: 15 }, items: [{ productId: p, quantity: 3 }] });
      // 29.97 × 0.85 = 25.4745 → 25.47; savings 4.50 = 15.02% of 29.97 (15.0150… → 15.02).
      expect(res).to.include({ itemsTotal: 29.97, bundlePrice: 25.47, savings: 4.5, savingsPercent: 15.02, currency: 'EUR' });
      const fixedAbove = await bundle(m, { pricing: { type: 'FIXED_PRICE', price: 40 }, items: [{ productId: p, quantity: 3 }] });
      expect(fixedAbove).to.include({ itemsTotal: 29.97, bundlePrice: 40, savings: -10.03, savingsPercent: -33.47 });
      const free = await product(server, m, { price: '0' });
      expect(await bundle(m, { pricing: { type: 'FIXED_PRICE', price: 0 }, items: [{ productId: free, quantity: 1 }] })).to.include({
        itemsTotal: 0,
        bundlePrice: 0,
        savings: 0,
        savingsPercent: 0,
      });
    });

    it('shows null totals when an item is priced in another currency', async () => {
      const m = await merchant(server);
      const eur = await product(server, m, { price: '1' });
      const usd = await product(server, m, { price: '1', currency: 'USD' });
      const res = await bundle(m, {
        items: [
          { productId: eur, quantity: 1 },
          { productId: usd, quantity: 1 },
        ],
      });
      expect(res).to.include({ currency: 'EUR', itemsTotal: null, bundlePrice: null, savings: null, savingsPercent: null });
      expect(res.items[1]).to.include({ productCurrency: 'USD', unitPrice: 1 });
    });

    it("answers 404 for unknown ids, another tenant's bundle and an API key's other store", async () => {
      const m = await merchant(server);
      const stranger = await merchant(server);
      const theirs = await bundle(stranger, { items: [{ productId: await product(server, stranger, { price: '1' }), quantity: 1 }] });
      expectProblem(await get(m.headers, theirs.id), 404, 'bundle_not_found');
      expectProblem(await get(m.headers, uuidv7()), 404, 'bundle_not_found');
      expectFieldErrors(await get(m.headers, 'nope'), ['params.id']);
      const other = await store(server, m);
      const elsewhere = await bundle(
        { ...m, storeId: other },
        { items: [{ productId: await product(server, m, { price: '1', store_id: other }), quantity: 1 }] },
      );
      const key = await apiKey(server, m, ['bundles:read']);
      expectProblem(await get(key, elsewhere.id), 404, 'bundle_not_found');
      expect((await get(m.headers, elsewhere.id)).status).to.equal(200);
    });
  });

  describe('PATCH /bundles/{id}', () => {
    it('changes the fields given, replaces items, and writes one audit entry and one outbox row per change', async () => {
      const m = await merchant(server);
      const a = await product(server, m, { price: '10' });
      const b = await product(server, m, { price: '2.5' });
      const made = await bundle(m, { name: 'Starter', items: [{ productId: a, quantity: 1 }] });
      const res = await patch(m.headers, made.id, {
        name: 'Starter Kit',
        pricing: { type: 'FIXED_PRICE', price: 11 },
        items: [
          { productId: b, quantity: 2 },
          { productId: a, quantity: 1 },
        ],
        isActive: false,
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.include({
        name: 'Starter Kit',
        slug: 'starter',
        isActive: false,
        itemsTotal: 15,
        bundlePrice: 11,
        savings: 4,
        savingsPercent: 26.67,
      });
      expect(res.json.pricing).to.deep.equal({ type: 'FIXED_PRICE', price: 11 });
      expect(res.json.items.map((i: any) => [i.productId, i.quantity, i.position])).to.deep.equal([
        [b, 2, 0],
        [a, 1, 1],
      ]);
      expect((await get(m.headers, made.id)).json).to.deep.equal(res.json);
      const w = await writes(made.id);
      expect(w.outbox.map((o) => o.topic)).to.deep.equal(['bundle.created', 'bundle.updated']);
      expect(w.audit.map((x) => x.action)).to.deep.equal(['bundle.create', 'bundle.update']);
      expect(w.audit[1]!.before).to.deep.equal({
        name: 'Starter',
        isActive: true,
        pricing: { type: 'PERCENT_OFF', percentOff: 10 },
        items: [{ productId: a, variantId: null, quantity: 1 }],
      });
      expect(w.audit[1]!.after).to.deep.include({ name: 'Starter Kit', isActive: false });

      // The same values again change nothing and write nothing.
      const same = await patch(m.headers, made.id, {
        name: 'Starter Kit',
        items: [
          { productId: b, quantity: 2 },
          { productId: a, quantity: 1 },
        ],
      });
      expect(same.status, same.text).to.equal(200);
      expect(same.json.updatedAt).to.equal(res.json.updatedAt);
      expect((await writes(made.id)).outbox).to.have.length(2);

      // Switching back to percent off, and setting / clearing the selling product.
      const seller = await product(server, m, { price: '1', type: 'BUNDLE' });
      const again = await patch(m.headers, made.id, { pricing: { type: 'PERCENT_OFF', percentOff: 12.5 }, productId: seller });
      expect(again.json).to.include({ productId: seller, bundlePrice: 13.13 }); // 15 × 0.875 = 13.125 → 13.13
      expect((await patch(m.headers, made.id, { productId: null })).json.productId).to.equal(null);
      expect((await writes(made.id)).audit).to.have.length(4);
    });

    it('refuses bad input, taken slugs, invalid items, unknown and foreign bundles', async () => {
      const m = await merchant(server);
      const a = await product(server, m, { price: '1' });
      const first = await bundle(m, { name: 'First', items: [{ productId: a, quantity: 1 }] });
      const second = await bundle(m, { name: 'Second', items: [{ productId: a, quantity: 1 }] });
      expectFieldErrors(await patch(m.headers, second.id, {}), ['body']);
      expectFieldErrors(await patch(m.headers, second.id, { storeId: m.storeId }), ['body.storeId']);
      expectFieldErrors(await patch(m.headers, second.id, { items: [] }), ['body.items']);
      expectFieldErrors(await patch(m.headers, second.id, { pricing: { type: 'FIXED_PRICE', percentOff: 5 } }), ['body.pricing.price']);
      expectProblem(await patch(m.headers, second.id, { slug: 'first' }), 409, 'slug_taken');
      expectFieldErrors(
        await patch(m.headers, second.id, { items: [{ productId: uuidv7(), quantity: 1 }] }),
        ['body.items[0].productId'],
        'invalid_product',
      );
      expectFieldErrors(
        await patch(m.headers, second.id, { items: [{ productId: a, variantId: uuidv7(), quantity: 1 }] }),
        ['body.items[0].variantId'],
        'invalid_variant',
      );
      const seller = await product(server, m, { price: '1', type: 'BUNDLE' });
      await patch(m.headers, first.id, { productId: seller });
      expectProblem(await patch(m.headers, second.id, { productId: seller }), 409, 'product_has_bundle');
      expectFieldErrors(await patch(m.headers, second.id, { productId: a }), ['body.productId'], 'invalid_product');
      expect((await writes(second.id)).audit).to.have.length(1);
      expectProblem(await patch(m.headers, uuidv7(), { name: 'X' }), 404, 'bundle_not_found');
      const stranger = await merchant(server);
      expectProblem(await patch(stranger.headers, second.id, { name: 'X' }), 404, 'bundle_not_found');
      expect((await get(m.headers, second.id)).json.name).to.equal('Second');
    });
  });

  describe('DELETE /bundles/{id}', () => {
    it('deletes the bundle and its lines (204) with one audit entry and one outbox row; the products stay', async () => {
      const m = await merchant(server);
      const a = await product(server, m, { price: '1' });
      const made = await bundle(m, { items: [{ productId: a, quantity: 1 }] });
      const stranger = await merchant(server);
      expectProblem(await remove(stranger.headers, made.id), 404, 'bundle_not_found');
      const res = await remove(m.headers, made.id);
      expect(res.status, res.text).to.equal(204);
      expectProblem(await get(m.headers, made.id), 404, 'bundle_not_found');
      expectProblem(await remove(m.headers, made.id), 404, 'bundle_not_found');
      const [{ n }] = await server.runtime.dataSource.query('SELECT count(*)::int AS n FROM bundle_items WHERE bundle_id = $1', [made.id]);
      expect(n).to.equal(0);
      const [{ p }] = await server.runtime.dataSource.query('SELECT count(*)::int AS p FROM products WHERE id = $1', [a]);
      expect(p).to.equal(1);
      const w = await writes(made.id);
      expect(w.outbox.map((o) => o.topic)).to.deep.equal(['bundle.created', 'bundle.deleted']);
      expect(w.audit.map((x) => x.action)).to.deep.equal(['bundle.create', 'bundle.delete']);
      expect(w.audit[1]!.before).to.include({ storeId: m.storeId, name: made.name });
    });

    it('drops the lines of a deleted product from its bundles', async () => {
      const m = await merchant(server);
      const a = await product(server, m, { price: '1' });
      const b = await product(server, m, { price: '2' });
      const made = await bundle(m, {
        items: [
          { productId: a, quantity: 1 },
          { productId: b, quantity: 1 },
        ],
      });
      await server.runtime.dataSource.query('DELETE FROM products WHERE id = $1', [a]);
      const res = await get(m.headers, made.id);
      expect(res.json.items.map((i: any) => i.productId)).to.deep.equal([b]);
    });
  });

  describe('POST /bundles/compute', () => {
    it('computes a percent-off bundle exactly, with quantity overrides and a count', async () => {
      const m = await merchant(server);
      const shirt = await product(server, m, { price: '9.99' });
      const socks = await product(server, m, { price: '3.3333' });
      const red = await variant(server, m, socks, { price: null });
      const made = await bundle(m, { pricing: { type: 'PERCENT_OFF', percentOff: 15 }, items: [{ productId: shirt, quantity: 3 }] });
      const res = await compute(m.headers, { bundleId: made.id });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.deep.equal({
        currency: 'EUR',
        count: 1,
        lines: [{ productId: shirt, variantId: null, quantity: 3, unitPrice: 9.99, lineTotal: 29.97 }],
        itemsTotal: 29.97,
        bundlePrice: 25.47,
        discount: 4.5,
        total: 25.47,
      });

      const two = await patch(m.headers, made.id, {
        items: [
          { productId: shirt, quantity: 3 },
          { productId: socks, variantId: red, quantity: 1 },
        ],
      });
      expect(two.status, two.text).to.equal(200);
      // Variant without its own price: the product's 3.3333. Line 3.3333 × 2 × 3 = 19.9998 → 20.00.
      const res2 = await compute(m.headers, {
        bundleId: made.id,
        quantities: [{ productId: socks, variantId: red, quantity: 2 }],
        count: 3,
      });
      expect(res2.status, res2.text).to.equal(200);
      expect(res2.json.lines).to.deep.equal([
        { productId: shirt, variantId: null, quantity: 9, unitPrice: 9.99, lineTotal: 89.91 },
        { productId: socks, variantId: red, quantity: 6, unitPrice: 3.3333, lineTotal: 20 },
      ]);
      // 109.91 × 0.85 = 93.4235 → 93.42.
      expect(res2.json).to.include({ count: 3, itemsTotal: 109.91, bundlePrice: 93.42, discount: 16.49, total: 93.42 });
      // A half cent rounds up: 0.10 at 15% off = 0.085 → 0.09.
      const dime = await product(server, m, { price: '0.10' });
      const small = await bundle(m, { pricing: { type: 'PERCENT_OFF', percentOff: 15 }, items: [{ productId: dime, quantity: 1 }] });
      expect((await compute(m.headers, { bundleId: small.id })).json).to.include({
        itemsTotal: 0.1,
        bundlePrice: 0.09,
        discount: 0.01,
        total: 0.09,
      });
      // Reads write nothing.
      expect((await writes(made.id)).outbox).to.have.length(2);
    });

    it('computes a fixed-price bundle: the price per bundle times count', async () => {
      const m = await merchant(server);
      const a = await product(server, m, { price: '12.34' });
      const b = await product(server, m, { price: '7.005' });
      const made = await bundle(m, {
        pricing: { type: 'FIXED_PRICE', price: 15.555 },
        items: [
          { productId: a, quantity: 1 },
          { productId: b, quantity: 1 },
        ],
      });
      const res = await compute(m.headers, { bundleId: made.id, count: 2 });
      expect(res.status, res.text).to.equal(200);
      // Lines: 24.68 and 14.01; fixed 15.555 × 2 = 31.11.
      expect(res.json).to.deep.equal({
        currency: 'EUR',
        count: 2,
        lines: [
          { productId: a, variantId: null, quantity: 2, unitPrice: 12.34, lineTotal: 24.68 },
          { productId: b, variantId: null, quantity: 2, unitPrice: 7.005, lineTotal: 14.01 },
        ],
        itemsTotal: 38.69,
        bundlePrice: 31.11,
        discount: 7.58,
        total: 31.11,
      });
      // One bundle: 15.555 → 15.56 (half up).
      expect((await compute(m.headers, { bundleId: made.id })).json).to.include({ itemsTotal: 19.35, bundlePrice: 15.56, discount: 3.79 });
    });

    it('refuses bad input, lines not in the bundle, mixed currencies, unknown and foreign bundles', async () => {
      const m = await merchant(server);
      const a = await product(server, m, { price: '1' });
      const made = await bundle(m, { items: [{ productId: a, quantity: 1 }] });
      expectFieldErrors(await compute(m.headers, {}), ['body.bundleId']);
      expectFieldErrors(await compute(m.headers, { bundleId: made.id, count: 0 }), ['body.count']);
      expectFieldErrors(await compute(m.headers, { bundleId: made.id, count: 101 }), ['body.count']);
      expectFieldErrors(await compute(m.headers, { bundleId: made.id, quantities: [{ productId: a, quantity: 0 }] }), [
        'body.quantities[0].quantity',
      ]);
      expectFieldErrors(
        await compute(m.headers, {
          bundleId: made.id,
          quantities: [
            { productId: a, quantity: 1 },
            { productId: a, quantity: 2 },
          ],
        }),
        ['body.quantities[1]'],
      );
      expectFieldErrors(
        await compute(m.headers, { bundleId: made.id, quantities: [{ productId: uuidv7(), quantity: 1 }] }),
        ['body.quantities[0]'],
        'item_not_in_bundle',
      );
      expectProblem(await compute(m.headers, { bundleId: uuidv7() }), 404, 'bundle_not_found');
      const stranger = await merchant(server);
      expectProblem(await compute(stranger.headers, { bundleId: made.id }), 404, 'bundle_not_found');
      const usd = await product(server, m, { price: '1', currency: 'USD' });
      const mixed = await bundle(m, {
        items: [
          { productId: a, quantity: 1 },
          { productId: usd, quantity: 1 },
        ],
      });
      expectProblem(await compute(m.headers, { bundleId: mixed.id }), 409, 'mixed_currency');
    });
  });

  describe('exact money arithmetic', () => {
    it('parses decimals into units, rounds half away from zero and formats without trailing zeros', () => {
      expect(toUnits('9.9900')).to.equal(99_900n);
      expect(toUnits('12')).to.equal(120_000n);
      expect(toUnits(19.5)).to.equal(195_000n);
      expect(toUnits(0.1)).to.equal(1_000n);
      expect(toUnits('-0.0001')).to.equal(-1n);
      expect(toUnits('12.5', 2)).to.equal(1_250n);
      expect(() => toUnits('1.00001')).to.throw(/decimals/);
      expect(() => toUnits('abc')).to.throw(/decimal/);
      expect(divideHalfUp(5n, 10n)).to.equal(1n);
      expect(divideHalfUp(4n, 10n)).to.equal(0n);
      expect(divideHalfUp(-5n, 10n)).to.equal(-1n);
      expect(divideHalfUp(-4n, 10n)).to.equal(0n);
      expect(rescale(254_745n, 4, 2)).to.equal(2_547n);
      expect(rescale(255n, 2, 4)).to.equal(25_500n);
      expect(formatUnits(2_547n, 2)).to.equal('25.47');
      expect(formatUnits(450n, 2)).to.equal('4.5');
      expect(formatUnits(5n, 2)).to.equal('0.05');
      expect(formatUnits(-1_003n, 2)).to.equal('-10.03');
      expect(formatUnits(0n, 4)).to.equal('0');
    });
  });
});
