/**
 * Flash-sale campaigns: merchant CRUD and archive with audit and outbox rows, every DTO bound, tenant
 * isolation, the public reads (active list, by slug, price visibility), precedence against pricing
 * rules, stock caps, and the search index following a campaign's start and end through the pricing
 * scheduler (effective price, compareAtPrice, discounted, the discount sort and the FLASH_SALE badge).
 */
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { auditRows, expectProblem } from '../helpers/accounts';
import { assignCategory, category, merchant, product, type Merchant } from '../helpers/fixtures';
import { deliverIndexRows, indexHandler } from '../helpers/indexing';
import { uuidv7 } from '../../storage/ids';
import { storeIndexUid } from '../../search/index-names';
import { runPricingSchedulerPass } from '../../api/pricing/reprice';
import { priceLines } from '../../domain/pricing-engine';
import { recordFlashSaleSales } from '../../api/flash-sales/flash-sales.stock';
import { inTransaction, systemContext } from '../../storage/request-context';
import { repriced, writeCalls } from './pricing.helpers';
import { eventually, sleepUntil } from '../helpers/wait';

const BASE = '/api/v1/flash-sale-campaigns';
const PUBLIC = '/api/v1/flash-sale-campaigns/public/stores';

describe('flash sale campaigns', function () {
  this.timeout(60_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  const db = (sql: string, params: unknown[] = []): Promise<any[]> => server.runtime.dataSource.query(sql, params);

  const newMerchant = async (): Promise<Merchant> => suite.addMerchant(await merchant(server));

  const hour = 3_600_000;
  const iso = (offsetMs: number): string => new Date(Date.now() + offsetMs).toISOString();
  const {
    create,
    created: campaign,
    patch,
  } = writeCalls(
    () => server,
    BASE,
    () => ({ name: 'Flash Friday', startsAt: iso(-hour), endsAt: iso(hour) }),
  );
  const unitPrice = async (m: Merchant, productId: string, quantity = 1): Promise<Record<string, any>> => {
    const res = await call(server, 'POST', '/api/v1/pricing/compute', {
      headers: m.headers,
      body: { storeId: m.storeId, items: [{ productId, quantity }] },
    });
    expect(res.status, res.text).to.equal(200);
    return res.json.items[0];
  };

  describe('merchant operations', () => {
    it('creates (DRAFT by default, slug from the name), gets, lists, updates and archives with one audit entry and one outbox row per write', async () => {
      const m = await newMerchant();
      const a = await product(server, m, { price: '20', status: 'PUBLISHED' });
      const b = await product(server, m, { price: '40', status: 'PUBLISHED' });
      const cat = await category(server, m, { name: 'Shoes' });
      const created = await create(m, {
        name: 'Flash Friday!',
        description: 'Two hours only',
        products: [
          { productId: a, salePrice: 15, stockCap: 10 },
          { productId: b, discountPercent: 25 },
        ],
        categories: [{ categoryId: cat, discountPercent: 10 }],
      });
      expect(created.status, created.text).to.equal(201);
      const c = created.json;
      expect(c).to.deep.include({
        storeId: m.storeId,
        name: 'Flash Friday!',
        slug: 'flash-friday',
        description: 'Two hours only',
        status: 'DRAFT',
        phase: 'RUNNING',
        live: false,
        archivedAt: null,
      });
      expect(c.products).to.deep.equal([
        { productId: a, salePrice: 15, discountPercent: null, stockCap: 10, soldCount: 0, remaining: 10, soldOut: false },
        { productId: b, salePrice: null, discountPercent: 25, stockCap: null, soldCount: 0, remaining: null, soldOut: false },
      ]);
      expect(c.categories).to.deep.equal([{ categoryId: cat, discountPercent: 10 }]);
      // A draft changes no price and queues nothing for the index.
      expect((await unitPrice(m, a)).unitPrice).to.equal(20);
      expect(await repriced(server, m)).to.have.length(0);
      expect((await campaign(m, { name: 'Flash Friday' })).slug).to.equal('flash-friday-2');

      const got = await call(server, 'GET', `${BASE}/${c.id}`, { headers: m.headers });
      expect(got.status).to.equal(200);
      expect(got.json).to.deep.equal({ ...c, phase: got.json.phase });

      const published = await patch(m, c.id, { status: 'PUBLISHED' });
      expect(published.status, published.text).to.equal(200);
      expect(published.json).to.include({ status: 'PUBLISHED', live: true });
      expect((await repriced(server, m)).map((r) => r.aggregate_id).sort()).to.deep.equal([a, b].sort());
      expect((await unitPrice(m, a)).unitPrice).to.equal(15);
      expect((await patch(m, c.id, { status: 'PUBLISHED' })).status).to.equal(200);

      const list = await call(server, 'GET', `${BASE}?storeId=${m.storeId}&status=PUBLISHED`, { headers: m.headers });
      expect(list.json.items.map((i: { id: string }) => i.id)).to.deep.equal([c.id]);
      expect((await call(server, 'GET', `${BASE}?storeId=${m.storeId}&limit=1`, { headers: m.headers })).json.nextCursor).to.be.a('string');

      const archived = await call(server, 'DELETE', `${BASE}/${c.id}`, { headers: m.headers });
      expect(archived.status, archived.text).to.equal(200);
      expect(archived.json).to.include({ id: c.id, status: 'ARCHIVED', live: false });
      expect(archived.json.archivedAt).to.be.a('string');
      expect((await unitPrice(m, a)).unitPrice).to.equal(20);
      const again = await call(server, 'DELETE', `${BASE}/${c.id}`, { headers: m.headers });
      expect(again.status).to.equal(200);
      expect(again.json.archivedAt).to.equal(archived.json.archivedAt);
      expectProblem(await patch(m, c.id, { name: 'Back' }), 409, 'flash_sale_archived');

      const audit = (await auditRows(server, m.owner.tenantId)).filter((r) => r.resource_id === c.id);
      expect(audit.map((r) => r.action)).to.deep.equal([
        'flash_sale_campaign.create',
        'flash_sale_campaign.update',
        'flash_sale_campaign.archive',
      ]);
      const events = await db('SELECT topic FROM outbox WHERE tenant_id = $1 AND aggregate_id = $2 ORDER BY id', [m.owner.tenantId, c.id]);
      expect(events.map((e) => e.topic)).to.deep.equal([
        'flash_sale_campaign.created',
        'flash_sale_campaign.updated',
        'flash_sale_campaign.archived',
      ]);
    });

    it('replaces product and category lists on update, keeping the sold count of products that stay; slugs are unique per store', async () => {
      const m = await newMerchant();
      const a = await product(server, m, { status: 'PUBLISHED' });
      const b = await product(server, m, { status: 'PUBLISHED' });
      const c = await campaign(m, { slug: 'deal', products: [{ productId: a, salePrice: 5, stockCap: 5 }] });
      await db('UPDATE flash_sale_items SET sold_count = 3 WHERE campaign_id = $1', [c.id]);
      const res = await patch(m, c.id, {
        products: [
          { productId: b, discountPercent: 50 },
          { productId: a, salePrice: 6, stockCap: 5 },
        ],
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.json.products.map((p: Record<string, unknown>) => [p.productId, p.soldCount, p.remaining])).to.deep.equal([
        [b, 0, null],
        [a, 3, 2],
      ]);
      expectProblem(await create(m, { slug: 'deal' }), 409, 'slug_taken');
      const other = await campaign(m, { slug: 'other' });
      expectProblem(await patch(m, other.id, { slug: 'deal' }), 409, 'slug_taken');
      expect((await patch(m, other.id, { slug: 'other-2' })).json.slug).to.equal('other-2');
      const second = await newMerchant();
      expect((await campaign(second, { slug: 'deal' })).slug).to.equal('deal');
    });

    it('rejects every out-of-bounds field with 400', async () => {
      const m = await newMerchant();
      const p = await product(server, m, { status: 'PUBLISHED' });
      const many = (n: number, make: (i: number) => unknown): unknown[] => Array.from({ length: n }, (_, i) => make(i));
      const bad: Array<Record<string, unknown>> = [
        { name: '' },
        { name: 'x'.repeat(121) },
        { slug: 'Not A Slug' },
        { slug: 'x'.repeat(121) },
        { description: 'x'.repeat(2001) },
        { status: 'ARCHIVED' },
        { startsAt: undefined },
        { endsAt: 'later' },
        { startsAt: iso(2 * hour), endsAt: iso(hour) },
        { startsAt: iso(-2 * hour), endsAt: iso(-hour) },
        { products: [{ productId: p }] },
        { products: [{ productId: p, salePrice: 5, discountPercent: 5 }] },
        { products: [{ productId: p, salePrice: -1 }] },
        { products: [{ productId: p, salePrice: 1.00001 }] },
        { products: [{ productId: p, salePrice: 1_000_000_001 }] },
        { products: [{ productId: p, discountPercent: 0 }] },
        { products: [{ productId: p, discountPercent: 100.01 }] },
        { products: [{ productId: p, discountPercent: 10.005 }] },
        { products: [{ productId: p, salePrice: 5, stockCap: 0 }] },
        { products: [{ productId: p, salePrice: 5, stockCap: 1_000_001 }] },
        {
          products: [
            { productId: p, salePrice: 5 },
            { productId: p, salePrice: 6 },
          ],
        },
        { products: many(501, () => ({ productId: uuidv7(), salePrice: 1 })) },
        { products: [{ productId: 'x', salePrice: 1 }] },
        { categories: [{ categoryId: uuidv7() }] },
        { categories: many(101, () => ({ categoryId: uuidv7(), discountPercent: 5 })) },
        { categories: [{ categoryId: uuidv7(), discountPercent: 5, salePrice: 3 }] },
        { unknown: 1 },
      ];
      for (const body of bad) expectProblem(await create(m, body), 400, 'validation_failed');
      expect(
        (
          await create(m, {
            products: [{ productId: p, discountPercent: 100, stockCap: 1_000_000 }],
            description: 'x'.repeat(2000),
            name: 'x'.repeat(120),
          })
        ).status,
      ).to.equal(201);
      const c = await campaign(m, {});
      expectProblem(await patch(m, c.id, {}), 400, 'validation_failed');
      expectProblem(await patch(m, c.id, { endsAt: iso(-2 * hour) }), 400, 'validation_failed');
      expectProblem(await patch(m, c.id, { status: 'ARCHIVED' }), 400, 'validation_failed');
      expectProblem(
        await call(server, 'GET', `${BASE}?storeId=${m.storeId}&status=OPEN`, { headers: m.headers }),
        400,
        'validation_failed',
      );
      expectProblem(await call(server, 'GET', `${BASE}?storeId=${m.storeId}&limit=201`, { headers: m.headers }), 400, 'validation_failed');
      expectProblem(await call(server, 'GET', BASE, { headers: m.headers }), 400, 'validation_failed');
    });

    it('keeps tenants apart: another tenant’s store, campaigns, products and categories answer 404', async () => {
      const m = await newMerchant();
      const other = await newMerchant();
      const c = await campaign(m, {});
      expectProblem(await call(server, 'GET', `${BASE}/${c.id}`, { headers: other.headers }), 404, 'flash_sale_not_found');
      expectProblem(await patch(m, c.id, { name: 'x' }, other.headers), 404, 'flash_sale_not_found');
      expectProblem(await call(server, 'DELETE', `${BASE}/${c.id}`, { headers: other.headers }), 404, 'flash_sale_not_found');
      expectProblem(await call(server, 'GET', `${BASE}?storeId=${m.storeId}`, { headers: other.headers }), 404, 'store_not_found');
      expectProblem(await create(m, {}, other.headers), 404, 'store_not_found');
      expectProblem(
        await create(m, { products: [{ productId: await product(server, other, { status: 'PUBLISHED' }), salePrice: 1 }] }),
        404,
        'product_not_found',
      );
      expectProblem(
        await create(m, { categories: [{ categoryId: await category(server, other, { name: 'X' }), discountPercent: 5 }] }),
        404,
        'category_not_found',
      );
      expectProblem(await call(server, 'GET', `${BASE}/${uuidv7()}`, { headers: m.headers }), 404, 'flash_sale_not_found');
    });
  });

  describe('public reads', () => {
    it('lists running published campaigns with their products and sale prices, and reads upcoming or running ones by slug', async () => {
      const m = await newMerchant();
      const a = await product(server, m, { price: '20', title: 'Lamp', status: 'PUBLISHED' });
      const b = await product(server, m, { price: '40', status: 'PUBLISHED' });
      const draftProduct = await product(server, m, { price: '10', status: 'DRAFT' });
      const cat = await category(server, m, { name: 'Lights' });
      const running = await campaign(m, {
        name: 'Now',
        status: 'PUBLISHED',
        products: [
          { productId: a, salePrice: 15, stockCap: 4 },
          { productId: b, discountPercent: 12.5 },
          { productId: draftProduct, salePrice: 1 },
        ],
        categories: [{ categoryId: cat, discountPercent: 5 }],
      });
      const upcoming = await campaign(m, {
        name: 'Soon',
        status: 'PUBLISHED',
        startsAt: iso(hour),
        endsAt: iso(2 * hour),
        products: [{ productId: b, salePrice: 30 }],
      });
      const draft = await campaign(m, { name: 'Draft' });
      const archived = await campaign(m, { name: 'Gone', status: 'PUBLISHED' });
      await call(server, 'DELETE', `${BASE}/${archived.id}`, { headers: m.headers });

      const active = await call(server, 'GET', `${PUBLIC}/${m.storeId}/active`);
      expect(active.status, active.text).to.equal(200);
      expect(active.json.items.map((c: { id: string }) => c.id)).to.deep.equal([running.id]);
      const item = active.json.items[0];
      expect(item).to.include({ name: 'Now', slug: 'now', phase: 'RUNNING' });
      expect(item.products).to.deep.equal([
        {
          productId: a,
          slug: item.products[0].slug,
          title: 'Lamp',
          imageUrl: null,
          currency: 'EUR',
          price: 20,
          salePrice: 15,
          discountPercent: 25,
          stockCap: 4,
          remaining: 4,
          soldOut: false,
        },
        {
          productId: b,
          slug: item.products[1].slug,
          title: 'A product',
          imageUrl: null,
          currency: 'EUR',
          price: 40,
          salePrice: 35,
          discountPercent: 13,
          stockCap: null,
          remaining: null,
          soldOut: false,
        },
      ]);
      expect(item.categories).to.deep.equal([{ categoryId: cat, name: 'Lights', slug: item.categories[0].slug, discountPercent: 5 }]);

      const soon = await call(server, 'GET', `${PUBLIC}/${m.storeId}/by-slug/SOON`);
      expect(soon.status, soon.text).to.equal(200);
      expect(soon.json).to.include({ id: upcoming.id, phase: 'UPCOMING' });
      expect(soon.json.products[0]).to.include({ price: 40, salePrice: 30 });
      expect((await call(server, 'GET', `${PUBLIC}/${m.storeId}/by-slug/NOW`)).json.id).to.equal(running.id);
      expectProblem(await call(server, 'GET', `${PUBLIC}/${m.storeId}/by-slug/${draft.slug}`), 404, 'flash_sale_not_found');
      expectProblem(await call(server, 'GET', `${PUBLIC}/${m.storeId}/by-slug/${archived.slug}`), 404, 'flash_sale_not_found');
      expectProblem(await call(server, 'GET', `${PUBLIC}/${m.storeId}/by-slug/nope`), 404, 'flash_sale_not_found');
      // Answers go through the store's public-read cache: a write to a campaign drops them in this process at once; a
      // change made behind the API's back is not seen until the store's change is announced (search/invalidation.ts).
      await eventually(() => server.runtime.services.search!.cacheLive, 'the public-read cache to listen for store changes');
      expect((await call(server, 'GET', `${PUBLIC}/${m.storeId}/active`)).json.items[0].name).to.equal('Now');
      await db(`UPDATE flash_sale_campaigns SET name = 'Renamed' WHERE id = $1`, [running.id]);
      expect((await call(server, 'GET', `${PUBLIC}/${m.storeId}/active`)).json.items[0].name).to.equal('Now');
      expect((await patch(m, running.id, { name: 'Right now' })).status).to.equal(200);
      expect((await call(server, 'GET', `${PUBLIC}/${m.storeId}/active`)).json.items[0].name).to.equal('Right now');
      expect((await call(server, 'GET', `${PUBLIC}/${m.storeId}/by-slug/now`)).json.name).to.equal('Right now');
      await db(
        `UPDATE flash_sale_campaigns SET starts_at = now() - interval '2 hours', ends_at = now() - interval '1 hour' WHERE id = $1`,
        [running.id],
      );
      expect((await call(server, 'GET', `${PUBLIC}/${m.storeId}/by-slug/now`)).status).to.equal(200);
      // What the indexer announces (here straight through the runtime) reaches every api process's cache over Redis.
      await server.runtime.publishStoreChanges([m.storeId]);
      await eventually(
        async () => (await call(server, 'GET', `${PUBLIC}/${m.storeId}/by-slug/now`)).status === 404,
        'the announced change to drop the cached campaign',
      );
      expectProblem(await call(server, 'GET', `${PUBLIC}/${m.storeId}/by-slug/now`), 404, 'flash_sale_not_found');
      expect((await call(server, 'GET', `${PUBLIC}/${m.storeId}/active`)).json.items).to.deep.equal([]);
      expectProblem(await call(server, 'GET', `${PUBLIC}/${uuidv7()}/active`), 404, 'store_not_found');
      expectProblem(await call(server, 'GET', `${PUBLIC}/not-a-uuid/active`), 400, 'validation_failed');

      // Prices are left out for visitors the store hides them from.
      await db(`UPDATE flash_sale_campaigns SET starts_at = now() - interval '1 hour', ends_at = now() + interval '1 hour' WHERE id = $1`, [
        running.id,
      ]);
      await db(`UPDATE stores SET price_visibility = 'HIDDEN' WHERE id = $1`, [m.storeId]);
      server.runtime.services.search!.invalidate(m.storeId);
      const hidden = (await call(server, 'GET', `${PUBLIC}/${m.storeId}/active`)).json.items[0].products[0];
      expect(hidden).to.not.have.any.keys('price', 'salePrice', 'discountPercent', 'currency');
      expect(hidden).to.include({ productId: a, soldOut: false });
    });

    it('keeps a cached answer no longer than until a published campaign of the store starts or ends', async () => {
      const m = await newMerchant();
      const a = await product(server, m, { price: '20', status: 'PUBLISHED' });
      await eventually(() => server.runtime.services.search!.cacheLive, 'the public-read cache to listen for store changes');
      // Well inside the cache's own lifetime (5 s), so only the start itself can end the cached "nothing running".
      const startsAt = new Date(Date.now() + 1_500);
      const soon = await campaign(m, {
        name: 'Any second',
        status: 'PUBLISHED',
        startsAt: startsAt.toISOString(),
        endsAt: iso(hour),
        products: [{ productId: a, salePrice: 15 }],
      });
      expect((await call(server, 'GET', `${PUBLIC}/${m.storeId}/active`)).json.items).to.deep.equal([]);
      expect((await call(server, 'GET', `${PUBLIC}/${m.storeId}/by-slug/any-second`)).json).to.include({ phase: 'UPCOMING' });
      await sleepUntil(startsAt);
      expect((await call(server, 'GET', `${PUBLIC}/${m.storeId}/active`)).json.items.map((c: { id: string }) => c.id)).to.deep.equal([
        soon.id,
      ]);
      expect((await call(server, 'GET', `${PUBLIC}/${m.storeId}/by-slug/any-second`)).json).to.include({ phase: 'RUNNING' });
    });
  });

  describe('pricing', () => {
    it('the lower of the flash price and the rule price wins; rules never stack on a flash price; categories reach their subtree', async () => {
      const m = await newMerchant();
      const parent = await category(server, m, { name: 'Home' });
      const child = await category(server, m, { name: 'Lamps', parent_id: parent });
      const a = await product(server, m, { price: '100', status: 'PUBLISHED' });
      const b = await product(server, m, { price: '100', status: 'PUBLISHED' });
      await assignCategory(server, b, child);
      const c = await campaign(m, {
        status: 'PUBLISHED',
        products: [{ productId: a, salePrice: 80 }],
        categories: [{ categoryId: parent, discountPercent: 10 }],
      });
      await call(server, 'POST', '/api/v1/pricing/rules', {
        headers: m.headers,
        body: { storeId: m.storeId, name: 'Stack', type: 'PERCENT', value: 5, stackable: true },
      });
      let line = await unitPrice(m, a);
      expect(line.unitPrice).to.equal(80);
      expect(line.applied).to.deep.equal([
        { kind: 'FLASH_SALE', id: c.id, name: 'Flash Friday', type: 'SALE_PRICE', value: 80, amount: 20 },
      ]);
      expect(line.flashSale).to.include({ campaignId: c.id, kind: 'PRODUCT', stockCap: null });
      expect((await unitPrice(m, b)).unitPrice).to.equal(90);
      // A rule that beats the flash price wins, alone.
      const big = await call(server, 'POST', '/api/v1/pricing/rules', {
        headers: m.headers,
        body: { storeId: m.storeId, name: 'Big', type: 'PERCENT', value: 30 },
      });
      line = await unitPrice(m, a);
      expect(line.unitPrice).to.equal(70);
      expect(line.applied.map((x: { id: string }) => x.id)).to.deep.equal([big.json.id]);
      expect(line.flashSale).to.equal(null);
    });

    it('stock caps: the flash price holds while sold + quantity ≤ cap; orders record sales and the one that reaches the cap re-indexes the product', async () => {
      const m = await newMerchant();
      const p = await product(server, m, { price: '50', status: 'PUBLISHED' });
      const c = await campaign(m, { status: 'PUBLISHED', products: [{ productId: p, salePrice: 30, stockCap: 3 }] });
      expect((await unitPrice(m, p, 3)).unitPrice).to.equal(30);
      expect((await unitPrice(m, p, 4)).unitPrice).to.equal(50);
      const ctx = { ...systemContext(server.runtime.dataSource, 'test', m.owner.tenantId) };
      const sell = (quantity: number): Promise<void> =>
        inTransaction(ctx, async (tx) => {
          const cart = await priceLines(tx.manager, m.storeId, [{ productId: p, quantity }]);
          await recordFlashSaleSales(tx, cart.lines);
        });
      const before = (await repriced(server, m)).length;
      await sell(2);
      expect((await unitPrice(m, p, 2)).unitPrice).to.equal(50);
      expect((await unitPrice(m, p, 1)).unitPrice).to.equal(30);
      expect((await repriced(server, m)).length).to.equal(before);
      // A line priced before another order took the last unit is refused.
      const stale = await priceLines(server.runtime.dataSource, m.storeId, [{ productId: p, quantity: 1 }]);
      await sell(1);
      expect((await repriced(server, m)).slice(before).map((r) => r.payload)).to.deep.equal([
        { flashSaleCampaignId: c.id, change: 'sold_out' },
      ]);
      const soldOut = await inTransaction(ctx, (tx) => recordFlashSaleSales(tx, stale.lines)).catch(
        (error: { code?: string }) => error.code,
      );
      expect(soldOut).to.equal('flash_sale_sold_out');
      expect((await unitPrice(m, p, 1)).unitPrice).to.equal(50);
      const got = await call(server, 'GET', `${BASE}/${c.id}`, { headers: m.headers });
      expect(got.json.products[0]).to.include({ soldCount: 3, remaining: 0, soldOut: true });
    });
  });

  describe('search index', () => {
    it('follows a flash sale’s start and end on time: price, compareAtPrice, discounted, the discount sort and the badge', async () => {
      const m = await newMerchant();
      suite.addIndexedStore(m.storeId);
      const onSale = await product(server, m, { price: '80', title: 'Brass lamp', status: 'PUBLISHED' });
      const other = await product(server, m, { price: '60', compare_at_price: '66', title: 'Iron lamp', status: 'PUBLISHED' });
      await indexHandler(server).indexer.syncProducts([onSale, other]);
      const search = async (): Promise<Array<Record<string, any>>> => {
        const res = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${m.storeId}&sort=discount`);
        expect(res.status, res.text).to.equal(200);
        return res.json.items;
      };
      const doc = (): Promise<Record<string, any>> => server.runtime.meiliAdmin.index(storeIndexUid(m.storeId)).getDocument(onSale);

      const before = await search();
      expect(before.map((i) => i.id)).to.deep.equal([other, onSale]);
      expect(before[1]).to.include({ price: 80, compareAtPrice: null, discounted: false });

      await runPricingSchedulerPass(server.runtime.dataSource, new Date(), 0);
      const startsAt = new Date(Date.now() + 1_500);
      const endsAt = new Date(startsAt.getTime() + 2_000);
      const c = await campaign(m, {
        status: 'PUBLISHED',
        startsAt: startsAt.toISOString(),
        endsAt: endsAt.toISOString(),
        products: [{ productId: onSale, salePrice: 60 }],
      });
      expect(await deliverIndexRows(server, m.owner.tenantId)).to.deep.equal([]);
      expect(await doc()).to.include({ price: 80, discounted: false, badge: null });

      // The scheduler passes run at the real time: the boundaries must have passed.
      await sleepUntil(startsAt);
      expect((await runPricingSchedulerPass(server.runtime.dataSource, new Date(), 0)).campaigns).to.be.at.least(1);
      expect(await deliverIndexRows(server, m.owner.tenantId)).to.deep.equal([]);
      expect(await doc()).to.include({
        price: 60,
        compareAtPrice: 80,
        discountPercent: 25,
        discounted: true,
        badge: 'FLASH_SALE',
        flashSaleId: c.id,
        flashSaleEndsAt: Math.floor(endsAt.getTime() / 1000),
      });
      await eventually(async () => (await search())[0]?.id === onSale, 'the sale to lead the discount sort', 4_000);
      expect((await search())[0]).to.include({ price: 60, compareAtPrice: 80, discountPercent: 25, discounted: true });

      await sleepUntil(endsAt);
      await runPricingSchedulerPass(server.runtime.dataSource, new Date(), 0);
      expect(await deliverIndexRows(server, m.owner.tenantId)).to.deep.equal([]);
      expect(await doc()).to.include({
        price: 80,
        compareAtPrice: null,
        discountPercent: 0,
        discounted: false,
        badge: null,
        flashSaleId: null,
      });
      await eventually(async () => (await search())[0]?.id === other, 'the sale to leave the discount sort', 4_000);
      expect((await search())[1]).to.include({ price: 80, discounted: false });
    });
  });
});
