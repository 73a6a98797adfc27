/**
 * Price visibility: the store setting (enum, default, audit and store event), the public operation
 * for anonymous visitors and for valid, invalid, expired and revoked bearer tokens, and the public
 * PG-backed reads (product, related, bundle, collection) leaving every price field out when the
 * visitor may not see prices, store by store.
 */
import { expect } from 'chai';
import { uuidv7 } from '../../storage/ids';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { auditRows, bearer, expectProblem, signUp } from '../helpers/accounts';
import { merchant, product, uniqueSlug, variant, type Headers, type Merchant } from '../helpers/fixtures';
import { signAccessToken } from '../../api/auth/access-tokens';

describe('price visibility', function () {
  this.timeout(60_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));

  const db = <T = unknown>(sql: string, params: unknown[]): Promise<T> => server.runtime.dataSource.query(sql, params);

  const newMerchant = async (storeBody: Record<string, unknown> = {}): Promise<Merchant> =>
    suite.addMerchant(await merchant(server, storeBody));

  const setVisibility = (m: Merchant, priceVisibility: unknown) =>
    call(server, 'PATCH', `/api/v1/organization/stores/${m.storeId}`, { headers: m.headers, body: { priceVisibility } });
  const visibility = (storeId: string, headers: Headers = {}) =>
    call(server, 'GET', `/api/v1/catalog/public/stores/${storeId}/price-visibility`, { headers });
  const get = (path: string, headers: Headers = {}) => call(server, 'GET', `/api/v1/catalog/public/stores/${path}`, { headers });

  /** A published product at `price` (and `compareAt`) with one variant at the same prices; answers its id and slug. */
  async function pricedProduct(m: Merchant, price: string, compareAt: string | null = null): Promise<{ id: string; slug: string }> {
    const slug = uniqueSlug('p');
    const id = await product(server, m, { title: `Product ${slug}`, slug, status: 'PUBLISHED', price, compare_at_price: compareAt });
    await variant(server, m, id, { price, compare_at_price: compareAt, stock: 4 });
    return { id, slug };
  }

  /** A store with a product, a related product, a bundle of both and a collection of both. */
  async function catalog(
    m: Merchant,
  ): Promise<{ base: { id: string; slug: string }; other: { id: string; slug: string }; collectionSlug: string }> {
    const base = await pricedProduct(m, '20', '25');
    const other = await pricedProduct(m, '30');
    await db(
      'INSERT INTO product_relations (id, tenant_id, store_id, product_id, related_product_id, kind, position) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [uuidv7(), m.owner.tenantId, m.storeId, base.id, other.id, 'RELATED', 0],
    );
    const bundle = await call(server, 'POST', '/api/v1/bundles', {
      headers: m.headers,
      body: {
        storeId: m.storeId,
        name: 'Pair',
        pricing: { type: 'FIXED_PRICE', price: 45 },
        items: [
          { productId: base.id, quantity: 1 },
          { productId: other.id, quantity: 1 },
        ],
      },
    });
    expect(bundle.status, bundle.text).to.equal(201);
    const collectionId = uuidv7();
    const collectionSlug = `c-${collectionId.slice(-12)}`;
    await db('INSERT INTO collections (id, tenant_id, store_id, name, slug, is_active) VALUES ($1, $2, $3, $4, $5, true)', [
      collectionId,
      m.owner.tenantId,
      m.storeId,
      'Picks',
      collectionSlug,
    ]);
    for (const [position, productId] of [base.id, other.id].entries())
      await db('INSERT INTO collection_items (collection_id, product_id, position) VALUES ($1, $2, $3)', [
        collectionId,
        productId,
        position,
      ]);
    return { base, other, collectionSlug };
  }

  const PRODUCT_PRICE_KEYS = ['price', 'compareAtPrice', 'discountPercent', 'currency'];
  const CARD_PRICE_KEYS = ['price', 'compareAtPrice', 'discountPercent'];
  const BUNDLE_PRICE_KEYS = ['pricing', 'currency', 'itemsTotal', 'bundlePrice', 'savings', 'savingsPercent'];

  /** Reads the four price-carrying public reads with `headers` and checks that prices are all shown or all absent. */
  async function expectPrices(m: Merchant, c: Awaited<ReturnType<typeof catalog>>, headers: Headers, shown: boolean): Promise<void> {
    const productRes = await get(`${m.storeId}/products/${c.base.slug}`, headers);
    expect(productRes.status, productRes.text).to.equal(200);
    const related = await get(`${m.storeId}/products/${c.base.id}/related`, headers);
    expect(related.status, related.text).to.equal(200);
    const bundle = await get(`${m.storeId}/products/${c.base.id}/bundle`, headers);
    expect(bundle.status, bundle.text).to.equal(200);
    const collection = await get(`${m.storeId}/collections/${c.collectionSlug}`, headers);
    expect(collection.status, collection.text).to.equal(200);
    const variant = productRes.json.variants[0];
    const bundleItem = bundle.json.items[0];
    if (shown) {
      expect(productRes.json).to.include({ price: 20, compareAtPrice: 25, discountPercent: 20, currency: 'EUR' });
      expect(variant).to.include({ price: 20, compareAtPrice: 25 });
      expect(related.json.items[0]).to.include({ id: c.other.id, price: 30, compareAtPrice: null, discountPercent: 0 });
      expect(bundleItem).to.include({ currency: 'EUR', itemsTotal: 50, bundlePrice: 45, savings: 5, savingsPercent: 10 });
      expect(bundleItem.pricing).to.deep.equal({ type: 'FIXED_PRICE', price: 45 });
      expect(bundleItem.items[0]).to.include({ unitPrice: 20, productCurrency: 'EUR' });
      expect(collection.json.products.map((p: Record<string, unknown>) => p.price)).to.deep.equal([20, 30]);
      expect(collection.json.products[0]).to.include({ compareAtPrice: 25, discountPercent: 20 });
      return;
    }
    expect(productRes.json).to.not.have.any.keys(...PRODUCT_PRICE_KEYS);
    expect(productRes.json).to.include({ id: c.base.id, slug: c.base.slug, inStock: true });
    expect(variant).to.not.have.any.keys('price', 'compareAtPrice');
    expect(variant).to.include({ inStock: true });
    expect(related.json.items).to.have.length(1);
    expect(related.json.items[0]).to.not.have.any.keys(...CARD_PRICE_KEYS);
    expect(related.json.items[0]).to.include({ id: c.other.id, kind: 'RELATED', inStock: true });
    expect(bundleItem).to.not.have.any.keys(...BUNDLE_PRICE_KEYS);
    expect(bundleItem).to.include({ name: 'Pair' });
    expect(bundleItem.items).to.have.length(2);
    for (const item of bundleItem.items) {
      expect(item).to.not.have.any.keys('unitPrice', 'productCurrency');
      expect(item).to.include.keys('productId', 'quantity', 'productTitle');
    }
    expect(collection.json.products.map((p: { id: string }) => p.id)).to.deep.equal([c.base.id, c.other.id]);
    for (const p of collection.json.products) expect(p).to.not.have.any.keys(...CARD_PRICE_KEYS);
  }

  describe('store setting', () => {
    it('defaults to EVERYONE, accepts the three values on create and update, refuses anything else', async () => {
      const m = await newMerchant();
      const [fresh] = await db<Array<{ price_visibility: string }>>('SELECT price_visibility FROM stores WHERE id = $1', [m.storeId]);
      expect(fresh!.price_visibility).to.equal('EVERYONE');
      expect((await visibility(m.storeId)).json.priceVisibility).to.equal('EVERYONE');
      for (const value of ['SIGNED_IN', 'HIDDEN', 'EVERYONE']) {
        const res = await setVisibility(m, value);
        expect(res.status, res.text).to.equal(200);
        expect(res.json.priceVisibility).to.equal(value);
      }
      for (const value of ['hidden', 'Everyone', '', 'NOBODY', null, 1, true, ['HIDDEN']]) {
        const res = await setVisibility(m, value);
        expectProblem(res, 400, 'validation_failed');
        expect(JSON.stringify(res.json.errors)).to.contain('priceVisibility');
      }
      const created = await call(server, 'POST', '/api/v1/organization/stores', {
        headers: m.headers,
        body: { name: 'Hidden Shop', priceVisibility: 'HIDDEN' },
      });
      expect(created.status, created.text).to.equal(201);
      expect(created.json.priceVisibility).to.equal('HIDDEN');
      expectProblem(
        await call(server, 'POST', '/api/v1/organization/stores', {
          headers: m.headers,
          body: { name: 'Bad Shop', priceVisibility: 'SOMETIMES' },
        }),
        400,
        'validation_failed',
      );
      const [row] = await db<Array<{ price_visibility: string }>>('SELECT price_visibility FROM stores WHERE id = $1', [created.json.id]);
      expect(row!.price_visibility).to.equal('HIDDEN');
      let failed = false;
      await db("UPDATE stores SET price_visibility = 'SOMETIMES' WHERE id = $1", [created.json.id]).catch(() => (failed = true));
      expect(failed, 'the CHECK constraint refuses unknown values').to.equal(true);
    });

    it('audits a change and writes one store event on the index queue; a no-op writes nothing', async () => {
      const m = await newMerchant();
      const outbox = () =>
        db<Array<{ topic: string; queue: string; aggregate_type: string; aggregate_id: string }>>(
          "SELECT topic, queue, aggregate_type, aggregate_id FROM outbox WHERE tenant_id = $1 AND aggregate_type = 'store' ORDER BY id",
          [m.owner.tenantId],
        );
      const before = (await auditRows(server, m.owner.tenantId)).length;
      expect(await outbox()).to.deep.equal([]);
      expect((await setVisibility(m, 'SIGNED_IN')).status).to.equal(200);
      const audits = await auditRows(server, m.owner.tenantId);
      expect(audits).to.have.length(before + 1);
      expect(audits[audits.length - 1]).to.deep.include({
        action: 'store.update',
        resource_type: 'store',
        resource_id: m.storeId,
        before: { priceVisibility: 'EVERYONE' },
        after: { priceVisibility: 'SIGNED_IN' },
      });
      expect(await outbox()).to.deep.equal([{ topic: 'store.updated', queue: 'index', aggregate_type: 'store', aggregate_id: m.storeId }]);
      expect((await setVisibility(m, 'SIGNED_IN')).status).to.equal(200);
      expect(await auditRows(server, m.owner.tenantId)).to.have.length(before + 1);
      expect(await outbox()).to.have.length(1);
      // A change search does not read (the name) is audited without a store event.
      expect(
        (await call(server, 'PATCH', `/api/v1/organization/stores/${m.storeId}`, { headers: m.headers, body: { name: 'Renamed' } })).status,
      ).to.equal(200);
      expect(await auditRows(server, m.owner.tenantId)).to.have.length(before + 2);
      expect(await outbox()).to.have.length(1);
    });

    it('only the tenant changes its store: another tenant gets 404', async () => {
      const m = await newMerchant();
      const stranger = await newMerchant();
      expectProblem(
        await call(server, 'PATCH', `/api/v1/organization/stores/${m.storeId}`, {
          headers: stranger.headers,
          body: { priceVisibility: 'HIDDEN' },
        }),
        404,
        'store_not_found',
      );
      expect((await visibility(m.storeId)).json.priceVisibility).to.equal('EVERYONE');
    });
  });

  describe('GET /catalog/public/stores/{storeId}/price-visibility', () => {
    it('answers the setting and whether this request sees prices, for anonymous, valid and invalid tokens', async () => {
      const m = await newMerchant();
      const shopper = await signUp(server);
      suite.addTenant(shopper.tenantId);
      const expired = await signAccessToken(
        server.runtime.config.appSecret,
        { sub: shopper.userId, sid: shopper.sessionId, tid: shopper.tenantId },
        60,
        Date.now() - 3_600_000,
      );
      const forged = await signAccessToken(
        'not-the-app-secret-at-all-0123456789',
        { sub: shopper.userId, sid: shopper.sessionId, tid: shopper.tenantId },
        600,
      );
      const cases: Array<[label: string, headers: Headers, signedIn: boolean]> = [
        ['anonymous', {}, false],
        ['valid bearer of another tenant', bearer(shopper.accessToken), true],
        ['valid bearer of the store owner', m.headers, true],
        ['garbage bearer', { Authorization: 'Bearer not-a-jwt' }, false],
        ['expired bearer', bearer(expired), false],
        ['forged bearer', bearer(forged), false],
        ['malformed header', { Authorization: 'Basic dXNlcjpwYXNz' }, false],
        ['API key shaped bearer', { Authorization: 'Bearer sk_abc_def' }, false],
      ];
      for (const setting of ['EVERYONE', 'SIGNED_IN', 'HIDDEN'] as const) {
        expect((await setVisibility(m, setting)).status).to.equal(200);
        for (const [label, headers, signedIn] of cases) {
          const res = await visibility(m.storeId, headers);
          expect(res.status, `${setting} / ${label}: ${res.text}`).to.equal(200);
          const shown = setting === 'EVERYONE' || (setting === 'SIGNED_IN' && signedIn);
          expect(res.json, `${setting} / ${label}`).to.deep.equal({
            storeId: m.storeId,
            priceVisibility: setting,
            pricesShown: shown,
            open: true,
          });
        }
      }
    });

    it('treats a token of a revoked session as not signed in', async () => {
      const m = await newMerchant({ priceVisibility: 'SIGNED_IN' });
      const shopper = await signUp(server);
      suite.addTenant(shopper.tenantId);
      expect((await visibility(m.storeId, bearer(shopper.accessToken))).json.pricesShown).to.equal(true);
      await db('UPDATE sessions SET revoked_at = now() WHERE id = $1', [shopper.sessionId]);
      const res = await visibility(m.storeId, bearer(shopper.accessToken));
      expect(res.status).to.equal(200);
      expect(res.json.pricesShown).to.equal(false);
    });

    it('answers 404 store_not_found for an unknown or archived store and 400 for a malformed id, with or without a token', async () => {
      const m = await newMerchant();
      expectProblem(await visibility(uuidv7()), 404, 'store_not_found');
      expectProblem(await visibility(uuidv7(), m.headers), 404, 'store_not_found');
      expectProblem(await visibility('not-a-uuid'), 400, 'validation_failed');
      await db(`UPDATE stores SET status = 'archived' WHERE id = $1`, [m.storeId]);
      expectProblem(await visibility(m.storeId), 404, 'store_not_found');
      expectProblem(await visibility(m.storeId, { Authorization: 'Bearer nonsense' }), 404, 'store_not_found');
    });
  });

  describe('public reads', () => {
    it('show prices to everyone by default and leave every price field out when HIDDEN', async () => {
      const m = await newMerchant();
      const c = await catalog(m);
      await expectPrices(m, c, {}, true);
      expect((await setVisibility(m, 'HIDDEN')).status).to.equal(200);
      await expectPrices(m, c, {}, false);
      await expectPrices(m, c, m.headers, false);
      expect((await setVisibility(m, 'EVERYONE')).status).to.equal(200);
      await expectPrices(m, c, {}, true);
    });

    it('show prices under SIGNED_IN only to requests with a valid access token', async () => {
      const m = await newMerchant({ priceVisibility: 'SIGNED_IN' });
      const c = await catalog(m);
      const shopper = await signUp(server);
      suite.addTenant(shopper.tenantId);
      await expectPrices(m, c, {}, false);
      await expectPrices(m, c, { Authorization: 'Bearer not-a-jwt' }, false);
      await expectPrices(m, c, bearer(shopper.accessToken), true);
      // Reads without prices are unaffected by a bad token.
      expect((await get(`${m.storeId}/categories`, { Authorization: 'Bearer not-a-jwt' })).status).to.equal(200);
      expect((await get(`${m.storeId}/sitemap-feed`, { Authorization: 'Bearer not-a-jwt' })).status).to.equal(200);
    });

    it("one store's setting does not touch another store's reads", async () => {
      const hidden = await newMerchant({ priceVisibility: 'HIDDEN' });
      const open = await newMerchant();
      const hiddenCatalog = await catalog(hidden);
      const openCatalog = await catalog(open);
      await expectPrices(hidden, hiddenCatalog, {}, false);
      await expectPrices(open, openCatalog, {}, true);
      expect((await visibility(open.storeId)).json).to.deep.equal({
        storeId: open.storeId,
        priceVisibility: 'EVERYONE',
        pricesShown: true,
        open: true,
      });
      expect((await visibility(hidden.storeId)).json).to.deep.equal({
        storeId: hidden.storeId,
        priceVisibility: 'HIDDEN',
        pricesShown: false,
        open: true,
      });
      // The hidden store's products are not reachable through the open store either.
      expectProblem(await get(`${open.storeId}/products/${hiddenCatalog.base.slug}`), 404, 'product_not_found');
    });
  });
});
