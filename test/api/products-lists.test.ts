/**
 * Product lists: the whole list 100 at a time, the filtered and sorted page (offset and cursor), the admin
 * search, and the stock value per category — with tenant isolation and the right products for each
 * filter and sort.
 */
import { expect } from 'chai';
import { uuidv7 } from '../../storage/ids';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem } from '../helpers/accounts';
import { brand, category, createProduct, merchant, product, type Merchant } from '../helpers/fixtures';

describe('products (merchant lists)', () => {
  let server: TestServer;
  apiSuite((started) => (server = started));

  const list = (m: Merchant, path: string, query: Record<string, string | number | boolean | string[]> = {}) => {
    const params = new URLSearchParams({ storeId: m.storeId });
    for (const [key, value] of Object.entries(query)) {
      for (const item of Array.isArray(value) ? value : [value]) params.append(key, String(item));
    }
    return call(server, 'GET', `/api/v1/catalog/products${path}?${params.toString()}`, { headers: m.headers });
  };

  /** A store with five products of known prices, stock, categories, brands and states. */
  async function catalog(): Promise<{ m: Merchant; ids: Record<string, string>; brandId: string; categoryId: string; vendorId: string }> {
    const m = await merchant(server);
    const brandId = await brand(server, m);
    const categoryId = await category(server, m, { name: 'Shoes' });
    const vendorId = uuidv7();
    const ids: Record<string, string> = {};
    ids.alpha = (
      await createProduct(server, m, {
        title: 'Alpha Runner',
        price: 50,
        brandId,
        categoryIds: [categoryId],
        variants: [{ sku: 'ALP_1', barcode: '111', stock: 3 }],
      })
    ).id;
    ids.bravo = (
      await createProduct(server, m, {
        title: 'bravo 100% wool',
        type: 'DIGITAL',
        price: 5.25,
        vendorId,
        variants: [{ sku: 'BRV-1', stock: 0 }],
      })
    ).id;
    ids.charlie = (
      await createProduct(server, m, {
        title: 'Charlie Boot',
        price: 120,
        status: 'PUBLISHED',
        categoryIds: [categoryId],
        variants: [
          { sku: 'CHL-1', stock: 10 },
          { sku: 'CHL-2', stock: 1 },
        ],
      })
    ).id;
    ids.delta = (await createProduct(server, m, { title: 'Delta Sandal', price: 20, brandId })).id;
    ids.echo = (
      await createProduct(server, m, { title: 'Echo_Slipper', price: 20, status: 'ARCHIVED', variants: [{ barcode: '555', stock: 2 }] })
    ).id;
    return { m, ids, brandId, categoryId, vendorId };
  }

  const idsOf = (res: { json: any }): string[] => res.json.items.map((item: any) => item.id);

  describe('GET /catalog/products', () => {
    it('lists the newest products of the store as summaries; 404 for another tenant', async () => {
      const { m, ids } = await catalog();
      const res = await list(m, '');
      expect(res.status, res.text).to.equal(200);
      expect(idsOf(res)).to.deep.equal([ids.echo, ids.delta, ids.charlie, ids.bravo, ids.alpha]);
      const charlie = res.json.items[2];
      expect(charlie).to.include({ title: 'Charlie Boot', status: 'PUBLISHED', price: 120, stock: 11, inStock: true, discountPercent: 0 });
      expect(res.json.items[1]).to.include({ stock: 0, inStock: false, imageUrl: null });
      const other = await merchant(server);
      expectProblem(
        await call(server, 'GET', `/api/v1/catalog/products?storeId=${m.storeId}`, { headers: other.headers }),
        404,
        'store_not_found',
      );
      expectProblem(await call(server, 'GET', '/api/v1/catalog/products', { headers: m.headers }), 400, 'validation_failed');
    });

    it('never cuts a large store short: 100 at a time with total and a nextCursor that reaches every product', async () => {
      const m = await merchant(server);
      const made = new Set<string>();
      // Rows straight into the table (the list reads rows; 230 API creates would only slow the test).
      for (let i = 0; i < 230; i += 1) made.add(await product(server, m, { created_at: new Date(Date.UTC(2026, 0, 1) + (i % 7) * 1000) }));
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await list(m, '', cursor ? { cursor } : {});
        expect(res.status, res.text).to.equal(200);
        expect(res.json.total).to.equal(230);
        expect(res.json.items.length).to.be.at.most(100);
        seen.push(...idsOf(res));
        cursor = res.json.nextCursor;
        pages += 1;
      } while (cursor && pages < 10);
      expect(pages).to.equal(3);
      expect(seen).to.have.length(230);
      expect(new Set(seen)).to.deep.equal(made);
      // Newest first across the pages (ties on the same instant break on id).
      const firstPage = await list(m, '');
      expect(firstPage.json.items[0].createdAt >= firstPage.json.items[99].createdAt).to.equal(true);
      expectProblem(await list(m, '', { cursor: 'not-a-cursor' }), 400, 'invalid_cursor');
    });
  });

  describe('GET /catalog/products/page', () => {
    it('filters by status, type, brand, category, ids, price, barcode, dates and search', async () => {
      const { m, ids, brandId, categoryId } = await catalog();
      const expectIds = async (query: Record<string, any>, expected: string[]) => {
        const res = await list(m, '/page', { sortBy: 'name', sortDir: 'asc', ...query });
        expect(res.status, res.text).to.equal(200);
        expect(idsOf(res), JSON.stringify(query)).to.deep.equal(expected);
        expect(res.json.total).to.equal(expected.length);
      };
      await expectIds({}, [ids.alpha, ids.bravo, ids.charlie, ids.delta, ids.echo]);
      await expectIds({ status: 'PUBLISHED' }, [ids.charlie]);
      await expectIds({ status: 'DRAFT' }, [ids.alpha, ids.bravo, ids.delta]);
      await expectIds({ type: 'DIGITAL' }, [ids.bravo]);
      await expectIds({ brandId }, [ids.alpha, ids.delta]);
      await expectIds({ categoryId }, [ids.alpha, ids.charlie]);
      await expectIds({ ids: [ids.bravo, ids.echo, uuidv7()] }, [ids.bravo, ids.echo]);
      await expectIds({ ids: `${ids.alpha},${ids.delta}` }, [ids.alpha, ids.delta]);
      await expectIds({ priceMin: 20, priceMax: 50 }, [ids.alpha, ids.delta, ids.echo]);
      await expectIds({ priceMin: 5.25, priceMax: 5.25 }, [ids.bravo]);
      await expectIds({ hasBarcode: true }, [ids.alpha, ids.echo]);
      await expectIds({ hasBarcode: false }, [ids.bravo, ids.charlie, ids.delta]);
      await expectIds({ search: 'BOOT' }, [ids.charlie]);
      await expectIds({ search: 'chl-2' }, [ids.charlie]);
      await expectIds({ search: '100%' }, [ids.bravo]);
      await expectIds({ search: '%' }, [ids.bravo]);
      await expectIds({ search: '_' }, [ids.alpha, ids.echo]);
      await expectIds({ createdFrom: new Date(Date.now() + 60_000).toISOString() }, []);
      await expectIds({ createdTo: new Date(Date.now() + 60_000).toISOString(), status: 'ARCHIVED' }, [ids.echo]);
    });

    it('sorts by every key in both directions', async () => {
      const { m, ids } = await catalog();
      const order = async (sortBy: string, sortDir: string) => idsOf(await list(m, '/page', { sortBy, sortDir }));
      expect(await order('createdAt', 'asc')).to.deep.equal([ids.alpha, ids.bravo, ids.charlie, ids.delta, ids.echo]);
      expect(await order('createdAt', 'desc')).to.deep.equal([ids.echo, ids.delta, ids.charlie, ids.bravo, ids.alpha]);
      expect(await order('name', 'desc')).to.deep.equal([ids.echo, ids.delta, ids.charlie, ids.bravo, ids.alpha]);
      // Equal prices (delta, echo) break ties on id.
      expect(await order('price', 'asc')).to.deep.equal([ids.bravo, ids.delta, ids.echo, ids.alpha, ids.charlie]);
      expect(await order('price', 'desc')).to.deep.equal([ids.charlie, ids.alpha, ids.echo, ids.delta, ids.bravo]);
      expect(await order('stock', 'desc')).to.deep.equal([ids.charlie, ids.alpha, ids.echo, ids.delta, ids.bravo]);
      await call(server, 'PUT', `/api/v1/catalog/products/${ids.bravo}`, {
        headers: m.headers,
        body: { title: 'bravo 100% wool', type: 'DIGITAL', price: 5.25 },
      });
      expect((await order('updatedAt', 'desc'))[0]).to.equal(ids.bravo);
    });

    it('pages by page number and by cursor, with the same results', async () => {
      const { m, ids } = await catalog();
      const first = await list(m, '/page', { sortBy: 'price', sortDir: 'asc', limit: 2 });
      expect(first.json).to.include({ page: 1, limit: 2, total: 5 });
      expect(idsOf(first)).to.deep.equal([ids.bravo, ids.delta]);
      expect(first.json.nextCursor).to.be.a('string');
      const second = await list(m, '/page', { sortBy: 'price', sortDir: 'asc', limit: 2, cursor: first.json.nextCursor });
      expect(idsOf(second)).to.deep.equal([ids.echo, ids.alpha]);
      const third = await list(m, '/page', { sortBy: 'price', sortDir: 'asc', limit: 2, cursor: second.json.nextCursor });
      expect(idsOf(third)).to.deep.equal([ids.charlie]);
      expect(third.json.nextCursor).to.equal(null);
      const byPage = await list(m, '/page', { sortBy: 'price', sortDir: 'asc', limit: 2, page: 2 });
      expect(idsOf(byPage)).to.deep.equal([ids.echo, ids.alpha]);
      expect(byPage.json.page).to.equal(2);
      expectProblem(
        await list(m, '/page', { sortBy: 'name', sortDir: 'asc', limit: 2, cursor: first.json.nextCursor }),
        400,
        'invalid_cursor',
      );
      expectProblem(await list(m, '/page', { cursor: 'garbage' }), 400, 'invalid_cursor');
    });

    it('validates its parameters', async () => {
      const { m } = await catalog();
      const bad = await list(m, '/page', { priceMin: 10, priceMax: 5 });
      expectProblem(bad, 400, 'invalid_range');
      expect(bad.json.errors[0].path).to.equal('query.priceMin');
      for (const query of [
        { limit: 0 },
        { limit: 101 },
        { page: 1001 },
        { sortBy: 'title' },
        { sortDir: 'up' },
        { status: 'ACTIVE' },
        { hasBarcode: 'maybe' },
        { brandId: 'x' },
        { priceMin: -1 },
        { unknown: 1 },
      ]) {
        expectProblem(await list(m, '/page', query as Record<string, any>), 400, 'validation_failed');
      }
      const other = await merchant(server);
      expectProblem(
        await call(server, 'GET', `/api/v1/catalog/products/page?storeId=${m.storeId}`, { headers: other.headers }),
        404,
        'store_not_found',
      );
    });
  });

  describe('GET /catalog/products/search', () => {
    it('searches every status with the filters, vendorId included, paged', async () => {
      const { m, ids, vendorId } = await catalog();
      const res = await list(m, '/search', { search: 'a', sortBy: 'name', sortDir: 'asc', limit: 2, page: 2 });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.include({ page: 2, limit: 2, total: 4 });
      expect(res.json).to.not.have.property('nextCursor');
      expect(idsOf(res)).to.deep.equal([ids.charlie, ids.delta]);
      expect(idsOf(await list(m, '/search', { vendorId }))).to.deep.equal([ids.bravo]);
      expect(idsOf(await list(m, '/search', { status: 'ARCHIVED' }))).to.deep.equal([ids.echo]);
      expectProblem(await list(m, '/search', { cursor: 'x' }), 400, 'validation_failed');
      expectProblem(await list(m, '/search', { priceMin: 3, priceMax: 2 }), 400, 'invalid_range');
      const other = await merchant(server);
      expectProblem(
        await call(server, 'GET', `/api/v1/catalog/products/search?storeId=${m.storeId}`, { headers: other.headers }),
        404,
        'store_not_found',
      );
    });
  });

  describe('GET /catalog/products/category-value', () => {
    it('counts products and sums (variant price or product price) × stock per category exactly', async () => {
      const m = await merchant(server);
      const shoes = await category(server, m, { name: 'Shoes' });
      const hats = await category(server, m, { name: 'Hats' });
      const empty = await category(server, m, { name: 'Empty' });
      await createProduct(server, m, { price: 0.1, categoryIds: [shoes], variants: [{ stock: 3 }, { price: 0.2, stock: 7 }] });
      await createProduct(server, m, { price: 19.9999, categoryIds: [shoes, hats], variants: [{ stock: 1 }] });
      await createProduct(server, m, { price: 1000, categoryIds: [hats] });
      const other = await merchant(server);
      await category(server, other, { name: 'Foreign' });
      const res = await list(m, '/category-value');
      expect(res.status, res.text).to.equal(200);
      expect(res.json.items).to.deep.equal([
        { categoryId: empty, name: 'Empty', productCount: 0, stockValue: '0.00' },
        { categoryId: hats, name: 'Hats', productCount: 2, stockValue: '20.00' },
        // 0.1 × 3 + 0.2 × 7 + 19.9999 × 1 = 21.6999 → 21.70
        { categoryId: shoes, name: 'Shoes', productCount: 2, stockValue: '21.70' },
      ]);
      expectProblem(
        await call(server, 'GET', `/api/v1/catalog/products/category-value?storeId=${m.storeId}`, { headers: other.headers }),
        404,
        'store_not_found',
      );
    });
  });
});
