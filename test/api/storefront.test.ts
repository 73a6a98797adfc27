/**
 * Public storefront reads from PostgreSQL: no token, only the store in the path, only published
 * products and active categories, brands, collections and bundles.
 */
import { expect } from 'chai';
import { uuidv7 } from '../../storage/ids';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem } from '../helpers/accounts';
import { brand, category, collection, merchant, product, uniqueSlug, variant, type Merchant } from '../helpers/fixtures';
import { relayHeaders } from '../../api/http/client-relay';

describe('storefront public reads', () => {
  let server: TestServer;
  apiSuite((started) => (server = started));

  const db = (sql: string, params: unknown[]): Promise<unknown> => server.runtime.dataSource.query(sql, params);
  const get = (path: string) => call(server, 'GET', `/api/v1/catalog/public/stores/${path}`);

  const LOGO = 'https://cdn.example.test/l.png';

  /** A product (published unless said, 80 EUR) with one variant holding `stock` (3 unless given; none when null); answers its id and slug. */
  async function listedProduct(
    m: Merchant,
    o: { status?: string; price?: string; compareAt?: string | null; slug?: string; stock?: number | null; type?: string } = {},
  ): Promise<{ id: string; slug: string }> {
    const slug = o.slug ?? uniqueSlug('p');
    const id = await product(server, m, {
      title: `Product ${slug}`,
      slug,
      type: o.type ?? 'PHYSICAL',
      status: o.status ?? 'PUBLISHED',
      price: o.price ?? '80',
      compare_at_price: o.compareAt ?? null,
    });
    if (o.stock !== null) await variant(server, m, id, { price: null, stock: o.stock ?? 3 });
    return { id, slug };
  }

  async function relate(m: Merchant, productId: string, relatedId: string, kind: string, position: number): Promise<void> {
    await db(
      'INSERT INTO product_relations (id, tenant_id, store_id, product_id, related_product_id, kind, position) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [uuidv7(), m.owner.tenantId, m.storeId, productId, relatedId, kind, position],
    );
  }

  describe('store checks', () => {
    it('answers 404 store_not_found for an unknown or archived store, without a token', async () => {
      expectProblem(await get(`${uuidv7()}/categories`), 404, 'store_not_found');
      const m = await merchant(server);
      expect((await get(`${m.storeId}/brands`)).status).to.equal(200);
      await db(`UPDATE stores SET status = 'archived' WHERE id = $1`, [m.storeId]);
      for (const path of [
        'categories',
        'brands',
        'collections',
        'filter-config',
        'sitemap-feed',
        'brands/x',
        'categories/x',
        'collections/x',
        'products/x',
      ]) {
        expectProblem(await get(`${m.storeId}/${path}`), 404, 'store_not_found');
      }
      expectProblem(
        await call(server, 'POST', `/api/v1/catalog/public/stores/${m.storeId}/products/${uuidv7()}/view`),
        404,
        'store_not_found',
      );
    });

    it('rejects a store id that is not a UUID', async () => {
      expect((await get('not-a-uuid/brands')).status).to.equal(400);
    });
  });

  describe('categories', () => {
    it('returns the active tree, hides inactive subtrees, and gives breadcrumbs', async () => {
      const m = await merchant(server);
      const root = await category(server, m, { name: 'APPAREL', slug: 'apparel' });
      const men = await category(server, m, { name: 'MEN', slug: 'men', parent_id: root });
      await category(server, m, { name: 'SHIRTS', slug: 'shirts', parent_id: men });
      const hidden = await category(server, m, { name: 'HIDDEN', slug: 'hidden', parent_id: root, is_active: false, position: 1 });
      await category(server, m, { name: 'UNDER-HIDDEN', slug: 'under-hidden', parent_id: hidden });
      await category(server, m, { name: 'HOME', slug: 'home', position: 1 });
      const res = await get(`${m.storeId}/categories`);
      expect(res.status, res.text).to.equal(200);
      expect(res.json.items.map((c: { slug: string }) => c.slug)).to.deep.equal(['apparel', 'home']);
      const apparel = res.json.items[0];
      expect(apparel).to.include({ id: root, name: 'APPAREL', description: null, imageUrl: null });
      expect(apparel.children.map((c: { slug: string }) => c.slug)).to.deep.equal(['men']);
      expect(apparel.children[0].children[0]).to.deep.include({ slug: 'shirts', children: [] });

      const one = await get(`${m.storeId}/categories/SHIRTS`);
      expect(one.status, one.text).to.equal(200);
      expect(one.json.ancestors.map((a: { slug: string }) => a.slug)).to.deep.equal(['apparel', 'men']);
      expect((await get(`${m.storeId}/categories/men`)).json.children.map((c: { slug: string }) => c.slug)).to.deep.equal(['shirts']);
      expectProblem(await get(`${m.storeId}/categories/hidden`), 404, 'category_not_found');
      expectProblem(await get(`${m.storeId}/categories/under-hidden`), 404, 'category_not_found');
      expectProblem(await get(`${m.storeId}/categories/nope`), 404, 'category_not_found');

      const other = await merchant(server);
      await category(server, other, { name: 'ONLY-OTHER', slug: 'only-other' });
      expectProblem(await get(`${m.storeId}/categories/only-other`), 404, 'category_not_found');
      expect((await get(`${other.storeId}/categories`)).json.items.map((c: { slug: string }) => c.slug)).to.deep.equal(['only-other']);
    });
  });

  describe('brands', () => {
    it('lists active brands and reads one by slug', async () => {
      const m = await merchant(server);
      const id = await brand(server, m, { name: 'acme', slug: 'acme', logo_url: LOGO });
      await brand(server, m, { name: 'retired', slug: 'retired', is_active: false, logo_url: LOGO });
      const res = await get(`${m.storeId}/brands`);
      expect(res.status, res.text).to.equal(200);
      expect(res.json.items).to.deep.equal([
        { id, name: 'acme', slug: 'acme', description: null, logoUrl: 'https://cdn.example.test/l.png', websiteUrl: null },
      ]);
      expect((await get(`${m.storeId}/brands/ACME`)).json).to.include({ id });
      expectProblem(await get(`${m.storeId}/brands/retired`), 404, 'brand_not_found');
      expectProblem(await get(`${m.storeId}/brands/unknown`), 404, 'brand_not_found');
      const other = await merchant(server);
      await brand(server, other, { name: 'theirs', slug: 'theirs', logo_url: LOGO });
      expectProblem(await get(`${m.storeId}/brands/theirs`), 404, 'brand_not_found');
    });
  });

  describe('filter-config', () => {
    it('returns the default, then the saved configuration with enabled facets only', async () => {
      const m = await merchant(server);
      const first = await get(`${m.storeId}/filter-config`);
      expect(first.status, first.text).to.equal(200);
      expect(first.json.facets.map((f: { key: string }) => f.key)).to.include.members(['brand', 'price']);
      const saved = await call(server, 'PUT', `/api/v1/storefront/filter-config?storeId=${m.storeId}`, {
        headers: m.headers,
        body: {
          facets: [
            { key: 'price', label: 'Price', display: 'range', enabled: true },
            { key: 'brand', label: 'Brand', display: 'checkbox', enabled: false },
          ],
          priceBuckets: [{ min: 0, max: null }],
        },
      });
      expect(saved.status, saved.text).to.equal(200);
      const res = await get(`${m.storeId}/filter-config`);
      expect(res.json.facets).to.deep.equal([{ key: 'price', label: 'Price', display: 'range', position: 0, enabled: true }]);
      expect(res.json.priceBuckets).to.deep.equal([{ min: 0, max: null }]);
    });
  });

  describe('products', () => {
    it('shows the price the pricing engine gives visitors: a running rule lowers it, the regular price becomes the compare-at price', async () => {
      const m = await merchant(server);
      const p = await listedProduct(m, { price: '80' });
      const rule = await call(server, 'POST', '/api/v1/pricing/rules', {
        headers: m.headers,
        body: { storeId: m.storeId, name: 'Ten off', type: 'PERCENT', value: 10 },
      });
      expect(rule.status, rule.text).to.equal(201);
      const res = await get(`${m.storeId}/products/${p.slug}`);
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.include({ price: 72, compareAtPrice: 80, discountPercent: 10, badge: null });
      expect(res.json.variants[0]).to.include({ price: 72, compareAtPrice: 80 });
    });

    it('reads a published product with public fields only; drafts, archived, unknown and other stores answer 404', async () => {
      const m = await merchant(server);
      const p = await listedProduct(m, { price: '75', compareAt: '100' });
      const res = await get(`${m.storeId}/products/${p.slug.toUpperCase()}`);
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.include({
        id: p.id,
        slug: p.slug,
        price: 75,
        compareAtPrice: 100,
        discountPercent: 25,
        currency: 'EUR',
        inStock: true,
      });
      expect(res.json.variants).to.have.length(1);
      expect(res.json.variants[0]).to.include({ price: 75, inStock: true });
      expect(res.json.variants[0]).to.not.have.property('stock');
      expect(res.json).to.not.have.any.keys('tenantId', 'storeId', 'status', 'viewCount', 'salesCount');
      const draft = await listedProduct(m, { status: 'DRAFT' });
      const archived = await listedProduct(m, { status: 'ARCHIVED' });
      expectProblem(await get(`${m.storeId}/products/${draft.slug}`), 404, 'product_not_found');
      expectProblem(await get(`${m.storeId}/products/${archived.slug}`), 404, 'product_not_found');
      expectProblem(await get(`${m.storeId}/products/unknown`), 404, 'product_not_found');
      const other = await merchant(server);
      const theirs = await listedProduct(other);
      expectProblem(await get(`${m.storeId}/products/${theirs.slug}`), 404, 'product_not_found');
    });

    it('counts a view with one UPDATE, without audit or outbox rows', async () => {
      const m = await merchant(server);
      const p = await listedProduct(m);
      // Two clients (one view per client and product counts; see public-limits.test.ts).
      const clients = [relayHeaders(server.runtime.config.appSecret, '198.51.100.21'), {}];
      const view = (storeId: string, productId: string) =>
        call(server, 'POST', `/api/v1/catalog/public/stores/${storeId}/products/${productId}/view`, { headers: clients.shift() ?? {} });
      expect((await view(m.storeId, p.id)).status).to.equal(204);
      expect((await view(m.storeId, p.id)).status).to.equal(204);
      const [row] = (await db('SELECT view_count FROM products WHERE id = $1', [p.id])) as Array<{ view_count: string }>;
      expect(Number(row!.view_count)).to.equal(2);
      const [outbox] = (await db('SELECT count(*)::int AS n FROM outbox WHERE aggregate_id = $1', [p.id])) as Array<{ n: number }>;
      const [audit] = (await db('SELECT count(*)::int AS n FROM audit_log WHERE resource_id = $1', [p.id])) as Array<{ n: number }>;
      expect(outbox!.n).to.equal(0);
      expect(audit!.n).to.equal(0);
      const draft = await listedProduct(m, { status: 'DRAFT' });
      expectProblem(await view(m.storeId, draft.id), 404, 'product_not_found');
      expectProblem(await view(m.storeId, uuidv7()), 404, 'product_not_found');
      const other = await merchant(server);
      expectProblem(await view(other.storeId, p.id), 404, 'product_not_found');
      const [after] = (await db('SELECT view_count FROM products WHERE id = $1', [p.id])) as Array<{ view_count: string }>;
      expect(Number(after!.view_count)).to.equal(2);
    });

    it('lists published related products, RELATED then UPSELL then CROSS_SELL, with limit bounds', async () => {
      const m = await merchant(server);
      const base = await listedProduct(m);
      const cross = await listedProduct(m);
      const up = await listedProduct(m);
      const rel2 = await listedProduct(m);
      const rel1 = await listedProduct(m, { stock: 0 });
      const draft = await listedProduct(m, { status: 'DRAFT' });
      await relate(m, base.id, cross.id, 'CROSS_SELL', 0);
      await relate(m, base.id, up.id, 'UPSELL', 0);
      await relate(m, base.id, rel2.id, 'RELATED', 1);
      await relate(m, base.id, rel1.id, 'RELATED', 0);
      await relate(m, base.id, draft.id, 'RELATED', 2);
      const res = await get(`${m.storeId}/products/${base.id}/related`);
      expect(res.status, res.text).to.equal(200);
      expect(res.json.items.map((i: { id: string }) => i.id)).to.deep.equal([rel1.id, rel2.id, up.id, cross.id]);
      expect(res.json.items[0]).to.include({ kind: 'RELATED', inStock: false });
      expect((await get(`${m.storeId}/products/${base.id}/related?limit=2`)).json.items.map((i: { id: string }) => i.id)).to.deep.equal([
        rel1.id,
        rel2.id,
      ]);
      expect((await get(`${m.storeId}/products/${base.id}/related?limit=0`)).status).to.equal(400);
      expect((await get(`${m.storeId}/products/${base.id}/related?limit=101`)).status).to.equal(400);
      expect((await get(`${m.storeId}/products/${base.id}/related?limit=100`)).status).to.equal(200);
      expectProblem(await get(`${m.storeId}/products/${draft.id}/related`), 404, 'product_not_found');
      const other = await merchant(server);
      expectProblem(await get(`${other.storeId}/products/${base.id}/related`), 404, 'product_not_found');
    });

    it('returns the active bundles of a product with computed prices, 404 when none', async () => {
      const m = await merchant(server);
      const a = await listedProduct(m, { price: '10' });
      const b = await listedProduct(m, { price: '30' });
      const lonely = await listedProduct(m);
      expectProblem(await get(`${m.storeId}/products/${a.id}/bundle`), 404, 'bundle_not_found');
      const created = await call(server, 'POST', '/api/v1/bundles', {
        headers: m.headers,
        body: {
          storeId: m.storeId,
          name: 'Pair',
          pricing: { type: 'PERCENT_OFF', percentOff: 10 },
          items: [
            { productId: a.id, quantity: 1 },
            { productId: b.id, quantity: 1 },
          ],
        },
      });
      expect(created.status, created.text).to.equal(201);
      const res = await get(`${m.storeId}/products/${a.id}/bundle`);
      expect(res.status, res.text).to.equal(200);
      expect(res.json.items).to.have.length(1);
      expect(res.json.items[0]).to.include({ id: created.json.id, itemsTotal: 40, bundlePrice: 36, savings: 4 });
      expect(res.json.items[0]).to.not.have.any.keys('storeId', 'isActive', 'createdAt');
      expectProblem(await get(`${m.storeId}/products/${lonely.id}/bundle`), 404, 'bundle_not_found');
      await db(`UPDATE products SET status = 'DRAFT' WHERE id = $1`, [b.id]);
      expectProblem(await get(`${m.storeId}/products/${a.id}/bundle`), 404, 'bundle_not_found');
      await db(`UPDATE products SET status = 'PUBLISHED' WHERE id = $1`, [b.id]);
      expect((await get(`${m.storeId}/products/${a.id}/bundle`)).status).to.equal(200);
      await db('UPDATE bundles SET is_active = false WHERE id = $1', [created.json.id]);
      expectProblem(await get(`${m.storeId}/products/${a.id}/bundle`), 404, 'bundle_not_found');
      const other = await merchant(server);
      expectProblem(await get(`${other.storeId}/products/${a.id}/bundle`), 404, 'product_not_found');
    });
  });

  describe('collections', () => {
    it('lists active collections and reads one with its published products in order', async () => {
      const m = await merchant(server);
      const p1 = await listedProduct(m, { price: '5' });
      const p2 = await listedProduct(m);
      const draft = await listedProduct(m, { status: 'DRAFT' });
      await collection(server, m, [p2.id, draft.id, p1.id], { name: 'summer', slug: 'summer' });
      await collection(server, m, [p1.id], { name: 'winter', slug: 'winter', is_active: false });
      const list = await get(`${m.storeId}/collections`);
      expect(list.status, list.text).to.equal(200);
      expect(list.json.items.map((c: { slug: string }) => c.slug)).to.deep.equal(['summer']);
      const one = await get(`${m.storeId}/collections/summer`);
      expect(one.status, one.text).to.equal(200);
      expect(one.json.products.map((p: { id: string }) => p.id)).to.deep.equal([p2.id, p1.id]);
      expect(one.json.products[1]).to.include({ price: 5, compareAtPrice: null, discountPercent: 0, imageUrl: null, inStock: true });
      expectProblem(await get(`${m.storeId}/collections/winter`), 404, 'collection_not_found');
      expectProblem(await get(`${m.storeId}/collections/unknown`), 404, 'collection_not_found');
      const other = await merchant(server);
      await collection(server, other, [], { name: 'theirs', slug: 'theirs' });
      expectProblem(await get(`${m.storeId}/collections/theirs`), 404, 'collection_not_found');
    });
  });

  describe('sitemap feed', () => {
    it('pages published products by id with cursor and limit bounds', async () => {
      const m = await merchant(server);
      const published = [];
      for (let i = 0; i < 5; i++) published.push(await listedProduct(m, { stock: null }));
      await listedProduct(m, { status: 'DRAFT', stock: null });
      await listedProduct(m, { status: 'ARCHIVED', stock: null });
      const other = await merchant(server);
      await listedProduct(other, { stock: null });
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await get(`${m.storeId}/sitemap-feed?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.status, res.text).to.equal(200);
        seen.push(...res.json.items.map((i: { slug: string; updatedAt: string }) => i.slug));
        for (const item of res.json.items) expect(new Date(item.updatedAt).toISOString()).to.equal(item.updatedAt);
        cursor = res.json.nextCursor;
        pages++;
      } while (cursor);
      expect(pages).to.equal(3);
      expect(seen).to.deep.equal(published.map((p) => p.slug));
      const all = await get(`${m.storeId}/sitemap-feed`);
      expect(all.json).to.deep.include({ nextCursor: null });
      expect(all.json.items).to.have.length(5);
      expect((await get(`${m.storeId}/sitemap-feed?limit=0`)).status).to.equal(400);
      expect((await get(`${m.storeId}/sitemap-feed?limit=1001`)).status).to.equal(400);
      expect((await get(`${m.storeId}/sitemap-feed?limit=1000`)).status).to.equal(200);
      expectProblem(await get(`${m.storeId}/sitemap-feed?cursor=not-a-uuid`), 400, 'invalid_cursor');
    });
  });
});
