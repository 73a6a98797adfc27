/**
 * GET /catalog/public/search and /suggest against the real services: a small catalog written into
 * PostgreSQL and indexed by the real indexer, then searched through the API with every parameter.
 */
import { expect } from 'chai';
import { uuidv7 } from '../../storage/ids';
import { call, type TestServer, type TestResponse } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem } from '../helpers/accounts';
import { assignCategory, brand as brandRow, category, merchant, product, variant, type Merchant } from '../helpers/fixtures';
import { deliverIndexRows, indexHandler, pendingIndexRows } from '../helpers/indexing';
import { splitCommas } from '../../api/http/validation';
import { withinOneEdit } from '../../search/suggest';
import { ResultCache } from '../../search/result-cache';
import { eventually, sleep } from '../helpers/wait';

interface Item {
  id: string;
  title: string;
  price?: number;
  sponsored: boolean;
  brand: { id: string; name: string } | null;
}

interface FacetValue {
  value: string;
  label: string;
  count: number;
  selected: boolean;
}

describe('public search and suggest', function () {
  this.timeout(60_000);
  let server: TestServer;
  let shop: Merchant;
  let other: Merchant;
  const ids: Record<string, string> = {};
  const cat: Record<string, string> = {};
  const brand: Record<string, string> = {};
  const suite = apiSuite((started) => (server = started));
  /** A merchant whose outbox rows and index the suite cleans up at the end. */
  const newMerchant = async (): Promise<Merchant> => suite.addMerchant(await merchant(server), { indexed: true });

  const db = (sql: string, params: unknown[] = []): Promise<any> => server.runtime.dataSource.query(sql, params);
  const engine = () => server.runtime.services.search!;
  /** Records the multi-search bodies the engine sends until `restore()`; splitting is off meanwhile (one request per pass). */
  function watchMultiSearch(): { bodies: Array<{ queries: Array<Record<string, unknown>> }>; restore(): void } {
    const client = server.runtime.meiliSearch;
    const original = client.multiSearch.bind(client);
    const bodies: Array<{ queries: Array<Record<string, unknown>> }> = [];
    client.multiSearch = ((body: { queries: Array<Record<string, unknown>> }) => {
      bodies.push(body);
      return original(body);
    }) as typeof client.multiSearch;
    engine().setOptions({ splitMaxInFlight: 0 });
    return {
      bodies,
      restore() {
        client.multiSearch = original;
        engine().setOptions({ splitMaxInFlight: server.runtime.config.search.splitMaxInFlight });
      },
    };
  }

  interface Spec {
    title: string;
    price: number;
    compareAt?: number;
    brand?: string;
    category?: string;
    options?: Array<Record<string, string>>;
    stock?: number;
    rating?: number;
    reviews?: number;
    sales?: number;
    views?: number;
    attrs?: Record<string, string>;
    type?: string;
    status?: string;
    ageDays?: number;
  }

  /** A product of `spec` (published unless said, with one variant per option set, in a category when given); answers its id. */
  async function addProduct(m: Merchant, spec: Spec): Promise<string> {
    const id = await product(server, m, {
      title: spec.title,
      type: spec.type ?? 'PHYSICAL',
      status: spec.status ?? 'PUBLISHED',
      price: spec.price,
      compare_at_price: spec.compareAt ?? null,
      brand_id: spec.brand ?? null,
      attributes: JSON.stringify(spec.attrs ?? {}),
      rating: spec.rating ?? 0,
      review_count: spec.reviews ?? 0,
      sales_count: spec.sales ?? 0,
      view_count: spec.views ?? 0,
      published_at: new Date(),
      created_at: new Date(Date.now() - (spec.ageDays ?? 0) * 86_400_000),
    });
    for (const [position, options] of (spec.options ?? [{}]).entries())
      await variant(server, m, id, { options: JSON.stringify(options), stock: spec.stock ?? 5, position });
    if (spec.category) await assignCategory(server, id, spec.category);
    return id;
  }

  const search = (query: string): Promise<TestResponse> =>
    call(server, 'GET', `/api/v1/catalog/public/search?storeId=${shop.storeId}${query ? `&${query}` : ''}`);
  const titles = (res: TestResponse): string[] => (res.json.items as Item[]).map((i) => i.title);
  const facet = (res: TestResponse, key: string): FacetValue[] =>
    (res.json.facets as Array<{ key: string; values: FacetValue[] }>).find((f) => f.key === key)!.values;
  const countOf = (values: FacetValue[], label: string): number | undefined => values.find((v) => v.label === label)?.count;

  async function ok(query: string): Promise<TestResponse> {
    const res = await search(query);
    expect(res.status, res.text).to.equal(200);
    return res;
  }

  before(async () => {
    shop = await newMerchant();
    other = await newMerchant();
    cat.apparel = await category(server, shop, { name: 'Apparel' });
    cat.shirts = await category(server, shop, { name: 'Shirts', parent_id: cat.apparel });
    cat.shoes = await category(server, shop, { name: 'Shoes' });
    cat.kitchen = await category(server, shop, { name: 'Kitchen' });
    brand.northwind = await brandRow(server, shop, { name: 'Northwind' });
    brand.contoso = await brandRow(server, shop, { name: 'Contoso' });
    brand.fabrikam = await brandRow(server, shop, { name: 'Fabrikam' });
    ids.linen = await addProduct(shop, {
      title: 'Linen Shirt',
      price: 40,
      compareAt: 50,
      brand: brand.northwind,
      category: cat.shirts,
      options: [
        { size: 'M', colour: 'White' },
        { size: 'L', colour: 'White' },
      ],
      rating: 4.5,
      reviews: 10,
      sales: 5,
      views: 100,
      attrs: { material: 'linen' },
      ageDays: 5,
    });
    ids.oxford = await addProduct(shop, {
      title: 'Oxford Shirt',
      price: 60,
      brand: brand.contoso,
      category: cat.shirts,
      options: [{ size: 'S', colour: 'Blue' }],
      stock: 0,
      rating: 3.2,
      reviews: 30,
      sales: 50,
      views: 10,
      ageDays: 4,
    });
    ids.running = await addProduct(shop, {
      title: 'Running Shoe',
      price: 120,
      compareAt: 200,
      brand: brand.fabrikam,
      category: cat.shoes,
      options: [{ size: '42' }],
      rating: 4.9,
      reviews: 3,
      sales: 20,
      views: 500,
      ageDays: 3,
    });
    ids.trail = await addProduct(shop, {
      title: 'Trail Shoe Northwind Edition',
      price: 90,
      brand: brand.northwind,
      category: cat.shoes,
      options: [{ size: '43', colour: 'Black' }],
      rating: 2,
      sales: 1,
      views: 5,
      ageDays: 2,
    });
    ids.knife = await addProduct(shop, {
      title: 'Chef Knife',
      price: 30,
      brand: brand.contoso,
      category: cat.kitchen,
      rating: 4,
      reviews: 50,
      sales: 100,
      views: 50,
      attrs: { material: 'steel' },
      ageDays: 1,
    });
    ids.gift = await addProduct(shop, { title: 'Gift Card', price: 25, type: 'GIFT_CARD', ageDays: 0 });
    ids.battery = await addProduct(shop, { title: 'Battery Pack', price: 15, category: cat.kitchen, ageDays: 6 });
    ids.draft = await addProduct(shop, { title: 'Secret Linen Shirt', price: 10, status: 'DRAFT' });
    ids.elsewhere = await addProduct(other, { title: 'Linen Shirt Elsewhere', price: 5 });
    const handler = indexHandler(server);
    await handler.indexer.syncProducts(Object.values(ids));
  });

  describe('parameters', () => {
    it('applies the defaults page=1, perPage=24, sort=relevance and answers the documented shape', async () => {
      const res = await ok('');
      expect(res.json).to.include({
        page: 1,
        perPage: 24,
        total: 7,
        totalPages: 1,
        sort: 'relevance',
        looseMatch: false,
        pricesShown: true,
      });
      expect(res.json.matching).to.deep.equal({ strategy: 'strict', q: null, dropped: [], changed: [], partialMatches: 0 });
      expect(res.json.items).to.have.length(7);
      const item = (res.json.items as Item[]).find((i) => i.id === ids.linen)!;
      expect(item).to.deep.include({
        title: 'Linen Shirt',
        type: 'PHYSICAL',
        price: 40,
        compareAtPrice: 50,
        discountPercent: 20,
        discounted: true,
        inStock: true,
        rating: 4.5,
        reviewCount: 10,
        currency: 'EUR',
        sponsored: false,
      });
      expect(item.brand).to.deep.equal({ id: brand.northwind, name: 'Northwind' });
      expect(res.json.facets.map((f: { key: string }) => f.key)).to.deep.equal([
        'category',
        'brand',
        'price',
        'rating',
        'inStock',
        'discounted',
      ]);
    });

    const bad: Array<[string, string]> = [
      ['storeId missing', 'q=a'],
      ['storeId not a UUID', 'storeId=nope'],
      ['page 0', 'page=0'],
      ['page 101', 'page=101'],
      ['page not an integer', 'page=1.5'],
      ['perPage 0', 'perPage=0'],
      ['perPage 61', 'perPage=61'],
      ['sort unknown', 'sort=cheapest'],
      ['type unknown', 'type=FOOD'],
      ['categoryId not a UUID', 'categoryId=abc'],
      ['brandId not a UUID', 'brandId=abc'],
      ['vendorId not a UUID', 'vendorId=abc'],
      ['categoryIds item not a UUID', 'categoryIds=abc'],
      ['priceMin below 0', 'priceMin=-1'],
      ['priceMax above 1000000000', 'priceMax=1000000000.5'],
      ['minRating above 5', 'minRating=5.1'],
      ['minRating below 0', 'minRating=-0.1'],
      ['inStock not a boolean', 'inStock=maybe'],
      ['discounted not a boolean', 'discounted=2'],
      ['options item of 2 characters', 'options=ab'],
      ['attrs item of 181 characters', `attrs=${'a'.repeat(181)}`],
      ['q of 201 characters', `q=${'a'.repeat(201)}`],
      ['locale in capitals', 'locale=EN'],
      ['locale of one letter', 'locale=e'],
      ['locale with an empty region', 'locale=en-'],
      ['locale region of 1 character', 'locale=en-a'],
      ['locale region of 9 characters', 'locale=en-abcdefghi'],
      ['unknown parameter', 'colour=red'],
    ];
    for (const [what, query] of bad) {
      it(`answers 400 for ${what}`, async () => {
        const res = await call(
          server,
          'GET',
          `/api/v1/catalog/public/search?${query.startsWith('storeId') || what === 'storeId missing' ? query : `storeId=${shop.storeId}&${query}`}`,
        );
        expectProblem(res, 400, 'validation_failed');
      });
    }

    it('accepts the bounds themselves', async () => {
      for (const query of [
        'page=100',
        'perPage=60',
        'perPage=1',
        'priceMin=0',
        'priceMax=1000000000',
        'minRating=5',
        'minRating=0',
        `q=${'a'.repeat(200)}`,
        'locale=en',
        'locale=pt-BR',
        'locale=zh-Hant',
        'locale=en-1234567',
        `options=${'a'.repeat(180)}`,
        'options=abc',
      ]) {
        const res = await search(query);
        expect(res.status, `${query}: ${res.text}`).to.equal(200);
      }
    });

    it('limits arrays: 40 categoryIds and brandIds, 60 ids, 40 options and attrs', async () => {
      const uuids = (n: number): string => Array.from({ length: n }, () => uuidv7()).join(',');
      expect((await search(`categoryIds=${uuids(40)}`)).status).to.equal(200);
      expectProblem(await search(`categoryIds=${uuids(41)}`), 400, 'validation_failed');
      expect((await search(`brandIds=${uuids(40)}`)).status).to.equal(200);
      expectProblem(await search(`brandIds=${uuids(41)}`), 400, 'validation_failed');
      expect((await search(`ids=${uuids(60)}`)).status).to.equal(200);
      expectProblem(await search(`ids=${uuids(61)}`), 400, 'validation_failed');
      const pairs = (n: number): string => Array.from({ length: n }, (_, i) => `options=size:${i}`).join('&');
      expect((await search(pairs(40))).status).to.equal(200);
      expectProblem(await search(pairs(41)), 400, 'validation_failed');
      expectProblem(await search(Array.from({ length: 41 }, (_, i) => `attrs=a:${i}`).join('&')), 400, 'validation_failed');
    });

    it('accepts arrays as repeated parameters and as comma-separated values', async () => {
      const repeated = await ok(`brandIds=${brand.northwind}&brandIds=${brand.fabrikam}`);
      const commas = await ok(`brandIds=${brand.northwind},${brand.fabrikam}`);
      expect(titles(repeated).sort()).to.deep.equal(['Linen Shirt', 'Running Shoe', 'Trail Shoe Northwind Edition']);
      expect(titles(commas).sort()).to.deep.equal(titles(repeated).sort());
      expect(titles(await ok(`ids=${ids.knife},${ids.gift}`)).sort()).to.deep.equal(['Chef Knife', 'Gift Card']);
      expect(titles(await ok('options=size:M,size:S')).sort()).to.deep.equal(['Linen Shirt', 'Oxford Shirt']);
      expect(splitCommas('a\\,b,c\\\\,d')).to.deep.equal(['a,b', 'c\\', 'd']);
    });

    it('answers 404 for a store that does not exist or is archived', async () => {
      expectProblem(await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${uuidv7()}`), 404, 'store_not_found');
      const archived = await merchant(server);
      await db("UPDATE stores SET status = 'archived', archived_at = now() WHERE id = $1", [archived.storeId]);
      expectProblem(await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${archived.storeId}`), 404, 'store_not_found');
      expectProblem(await call(server, 'GET', `/api/v1/catalog/public/suggest?storeId=${archived.storeId}&q=a`), 404, 'store_not_found');
    });

    it('answers an empty page for a store with nothing published yet', async () => {
      const empty = await merchant(server);
      const res = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${empty.storeId}&q=shirt`);
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.include({ total: 0, totalPages: 0 });
      expect(res.json.items).to.deep.equal([]);
    });
  });

  describe('isolation', () => {
    it("never shows another store's products or unpublished ones", async () => {
      const res = await ok('q=linen');
      expect(titles(res)).to.deep.equal(['Linen Shirt']);
      const all = await ok('perPage=60');
      expect((all.json.items as Item[]).map((i) => i.id)).to.not.include.members([ids.draft, ids.elsewhere]);
      expect(titles(await ok(`ids=${ids.elsewhere},${ids.draft}`))).to.deep.equal([]);
    });
  });

  describe('sorts', () => {
    const order = async (sort: string): Promise<string[]> => titles(await ok(`sort=${sort}`));
    it('price_asc and price_desc', async () => {
      expect(await order('price_asc')).to.deep.equal([
        'Battery Pack',
        'Gift Card',
        'Chef Knife',
        'Linen Shirt',
        'Oxford Shirt',
        'Trail Shoe Northwind Edition',
        'Running Shoe',
      ]);
      expect(await order('price_desc')).to.deep.equal([
        'Running Shoe',
        'Trail Shoe Northwind Edition',
        'Oxford Shirt',
        'Linen Shirt',
        'Chef Knife',
        'Gift Card',
        'Battery Pack',
      ]);
    });
    it('newest', async () => {
      expect(await order('newest')).to.deep.equal([
        'Gift Card',
        'Chef Knife',
        'Trail Shoe Northwind Edition',
        'Running Shoe',
        'Oxford Shirt',
        'Linen Shirt',
        'Battery Pack',
      ]);
    });
    it('discount', async () => {
      expect((await order('discount')).slice(0, 2)).to.deep.equal(['Running Shoe', 'Linen Shirt']);
    });
    it('most_reviewed, rating, best_selling, most_viewed', async () => {
      expect((await order('most_reviewed')).slice(0, 4)).to.deep.equal(['Chef Knife', 'Oxford Shirt', 'Linen Shirt', 'Running Shoe']);
      expect((await order('rating')).slice(0, 5)).to.deep.equal([
        'Running Shoe',
        'Linen Shirt',
        'Chef Knife',
        'Oxford Shirt',
        'Trail Shoe Northwind Edition',
      ]);
      expect((await order('best_selling')).slice(0, 5)).to.deep.equal([
        'Chef Knife',
        'Oxford Shirt',
        'Running Shoe',
        'Linen Shirt',
        'Trail Shoe Northwind Edition',
      ]);
      expect((await order('most_viewed')).slice(0, 5)).to.deep.equal([
        'Running Shoe',
        'Linen Shirt',
        'Chef Knife',
        'Oxford Shirt',
        'Trail Shoe Northwind Edition',
      ]);
    });
    it('relevance with a query, and a sort that orders the matches strictly', async () => {
      expect(titles(await ok('q=shoe&sort=price_asc'))).to.deep.equal(['Trail Shoe Northwind Edition', 'Running Shoe']);
      expect(titles(await ok('q=shoe&sort=price_desc'))).to.deep.equal(['Running Shoe', 'Trail Shoe Northwind Edition']);
    });
    it('pages through the results', async () => {
      const first = await ok('sort=price_asc&perPage=3&page=1');
      const third = await ok('sort=price_asc&perPage=3&page=3');
      expect(first.json).to.include({ total: 7, totalPages: 3 });
      expect(titles(first)).to.deep.equal(['Battery Pack', 'Gift Card', 'Chef Knife']);
      expect(titles(third)).to.deep.equal(['Running Shoe']);
      expect(titles(await ok('sort=price_asc&perPage=3&page=4'))).to.deep.equal([]);
    });
  });

  describe('filters', () => {
    it('categoryId takes the whole subtree; type, brandId, ids', async () => {
      expect(titles(await ok(`categoryId=${cat.apparel}`)).sort()).to.deep.equal(['Linen Shirt', 'Oxford Shirt']);
      expect(titles(await ok('type=GIFT_CARD'))).to.deep.equal(['Gift Card']);
      expect(titles(await ok(`brandId=${brand.contoso}`)).sort()).to.deep.equal(['Chef Knife', 'Oxford Shirt']);
    });
    it('price range (inclusive), minRating, inStock, discounted', async () => {
      expect(titles(await ok('priceMin=30&priceMax=60&sort=price_asc'))).to.deep.equal(['Chef Knife', 'Linen Shirt', 'Oxford Shirt']);
      expect(titles(await ok('minRating=4.5&sort=rating'))).to.deep.equal(['Running Shoe', 'Linen Shirt']);
      expect(titles(await ok('inStock=false'))).to.deep.equal(['Oxford Shirt']);
      expect(titles(await ok('discounted=true&sort=discount'))).to.deep.equal(['Running Shoe', 'Linen Shirt']);
    });
    it('options and attrs as name:value pairs (OR within a name, AND across names) and as bare values', async () => {
      expect(titles(await ok('options=colour:White'))).to.deep.equal(['Linen Shirt']);
      expect(titles(await ok('options=size:M&options=colour:Blue'))).to.deep.equal([]);
      expect(titles(await ok('options=size:42&options=size:43')).sort()).to.deep.equal(['Running Shoe', 'Trail Shoe Northwind Edition']);
      expect(titles(await ok('attrs=material:steel'))).to.deep.equal(['Chef Knife']);
      expect(titles(await ok('attrs=linen'))).to.deep.equal(['Linen Shirt']);
      expect(titles(await ok('options=Black'))).to.deep.equal(['Trail Shoe Northwind Edition']);
    });
  });

  describe('facets', () => {
    it('counts every facet value over the results', async () => {
      const res = await ok('');
      expect(countOf(facet(res, 'brand'), 'Northwind')).to.equal(2);
      expect(countOf(facet(res, 'brand'), 'Contoso')).to.equal(2);
      expect(countOf(facet(res, 'category'), 'Apparel')).to.equal(2);
      expect(countOf(facet(res, 'category'), 'Shirts')).to.equal(2);
      expect(countOf(facet(res, 'inStock'), 'No')).to.equal(1);
      expect(facet(res, 'rating').map((v) => [v.value, v.count])).to.deep.equal([
        ['4', 3],
        ['3', 4],
        ['2', 5],
        ['1', 5],
      ]);
      const price = (res.json.facets as Array<{ key: string; stats: unknown; buckets: unknown[] }>).find((f) => f.key === 'price')!;
      expect(price.stats).to.deep.equal({ min: 15, max: 120 });
      // No buckets configured: derived from the store's prices (test/api/price-buckets.test.ts), each counted.
      expect(price.buckets.length).to.be.within(2, 5);
      expect(price.buckets.reduce((sum: number, b) => sum + (b as { count: number }).count, 0)).to.equal(res.json.total);
    });

    it("are disjunctive: a facet's counts ignore its own selection but apply the others", async () => {
      const res = await ok(`brandIds=${brand.northwind}`);
      expect(titles(res).sort()).to.deep.equal(['Linen Shirt', 'Trail Shoe Northwind Edition']);
      const brands = facet(res, 'brand');
      expect(countOf(brands, 'Contoso')).to.equal(2);
      expect(countOf(brands, 'Fabrikam')).to.equal(1);
      expect(brands.find((v) => v.label === 'Northwind')).to.include({ count: 2, selected: true });
      // Other facets follow the brand selection.
      expect(countOf(facet(res, 'category'), 'Kitchen')).to.equal(undefined);
      expect(countOf(facet(res, 'category'), 'Shoes')).to.equal(1);

      const both = await ok(`brandIds=${brand.northwind}&categoryIds=${cat.shoes}`);
      expect(titles(both)).to.deep.equal(['Trail Shoe Northwind Edition']);
      expect(countOf(facet(both, 'brand'), 'Fabrikam')).to.equal(1);
      expect(countOf(facet(both, 'brand'), 'Contoso')).to.equal(undefined);
      expect(countOf(facet(both, 'category'), 'Shirts')).to.equal(1);

      const price = await ok('priceMax=50');
      const stats = (price.json.facets as Array<{ key: string; stats: unknown }>).find((f) => f.key === 'price')!.stats;
      expect(stats).to.deep.equal({ min: 15, max: 120 });
    });

    it('reads only the hits for another page or sort of a search it answered, and answers exactly as a full search', async () => {
      const watch = watchMultiSearch();
      const { bodies } = watch;
      const base = `brandIds=${brand.northwind}&brandIds=${brand.contoso}&perPage=1`;
      try {
        const fresh = async (query: string): Promise<TestResponse> => {
          engine().invalidate(shop.storeId);
          return ok(query);
        };
        const expected = {
          page2: await fresh(`${base}&page=2`),
          byPrice: await fresh(`${base}&sort=price_desc`),
          loose: await fresh('q=linen%20shirt%20xylophone&page=2&perPage=1'),
        };
        engine().invalidate(shop.storeId);
        await ok(base);
        await ok('q=linen%20shirt%20xylophone&perPage=1');
        bodies.length = 0;
        const page2 = await ok(`${base}&page=2`);
        const byPrice = await ok(`${base}&sort=price_desc`);
        const loose = await ok('q=linen%20shirt%20xylophone&page=2&perPage=1');
        expect(page2.json).to.deep.equal(expected.page2.json);
        expect(byPrice.json).to.deep.equal(expected.byPrice.json);
        expect(loose.json).to.deep.equal(expected.loose.json);
        expect(loose.json.matching.strategy).to.equal('fewer_words');
        // One request each, asking for the page alone: no facets, no counts, no strict pass again for the loose one.
        expect(bodies).to.have.length(3);
        for (const body of bodies) {
          expect(body.queries.every((query) => query.facets === undefined && query.hitsPerPage === undefined)).to.equal(true);
        }
        expect(bodies[2]!.queries[0]).to.include({ q: 'linen shirt ', matchingStrategy: 'all', offset: 1, limit: 1 });
      } finally {
        watch.restore();
      }
    });

    it('gives the same answer whether a lone search splits its Meilisearch requests or not', async () => {
      const watch = watchMultiSearch();
      const query = `q=shoe&brandIds=${brand.northwind}&categoryIds=${cat.shoes}&inStock=true`;
      try {
        engine().invalidate(shop.storeId);
        const whole = await ok(query);
        expect(watch.bodies).to.have.length(1);
        watch.bodies.length = 0;
        engine().setOptions({ splitMaxInFlight: 1 });
        engine().invalidate(shop.storeId);
        const split = await ok(query);
        expect(watch.bodies).to.have.length(2);
        expect(split.json).to.deep.equal(whole.json);
        expect(titles(split)).to.deep.equal(['Trail Shoe Northwind Edition']);
      } finally {
        watch.restore();
      }
    });

    it('shows the option and attribute facets a store configures, with counts per value', async () => {
      const m = await newMerchant();
      const put = await call(server, 'PUT', `/api/v1/storefront/filter-config?storeId=${m.storeId}`, {
        headers: m.headers,
        body: {
          facets: [
            { key: 'option:size', label: 'Size', display: 'checkbox' },
            { key: 'attr:material', label: 'Material', display: 'checkbox' },
            { key: 'price', label: 'Price', display: 'checkbox' },
          ],
          priceBuckets: [
            { min: 0, max: 50 },
            { min: 50, max: null },
          ],
        },
      });
      expect(put.status, put.text).to.equal(200);
      const a = await addProduct(m, { title: 'Tee', price: 20, options: [{ size: 'S' }, { size: 'M' }], attrs: { material: 'cotton' } });
      const b = await addProduct(m, { title: 'Hoodie', price: 70, options: [{ size: 'M' }], attrs: { material: 'wool' } });
      await indexHandler(server).indexer.syncProducts([a, b]);
      const res = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${m.storeId}&options=size:S`);
      expect(res.status, res.text).to.equal(200);
      expect(titles(res)).to.deep.equal(['Tee']);
      expect(facet(res, 'option:size').map((v) => [v.value, v.count, v.selected])).to.deep.equal([
        ['size:M', 2, false],
        ['size:S', 1, true],
      ]);
      expect(facet(res, 'attr:material').map((v) => [v.label, v.count])).to.deep.equal([['cotton', 1]]);
      const price = (res.json.facets as Array<{ key: string; buckets: Array<{ count: number }> }>).find((f) => f.key === 'price')!;
      expect(price.buckets.map((bucket) => bucket.count)).to.deep.equal([1, 0]);
    });
  });

  describe('relevance', () => {
    it('finds a product despite a typo', async () => {
      expect(titles(await ok('q=runing'))).to.deep.equal(['Running Shoe']);
      expect(titles(await ok('q=chef knif'))).to.deep.equal(['Chef Knife']);
    });
    it("ranks a brand's products first for a query naming the brand", async () => {
      const res = await ok('q=northwind');
      expect(titles(res).sort()).to.deep.equal(['Linen Shirt', 'Trail Shoe Northwind Edition']);
    });
    it('ranks an exact title match first', async () => {
      const m = await newMerchant();
      const long = await addProduct(m, { title: 'Classic Tee Shirt Deluxe Organic', price: 10, sales: 100 });
      const exact = await addProduct(m, { title: 'Classic Tee', price: 10 });
      await indexHandler(server).indexer.syncProducts([long, exact]);
      const res = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${m.storeId}&q=classic%20tee`);
      expect(titles(res)).to.deep.equal(['Classic Tee', 'Classic Tee Shirt Deluxe Organic']);
    });
    it('finds the singular from a plural, saying the match was loose', async () => {
      const res = await ok('q=batteries');
      expect(titles(res)).to.deep.equal(['Battery Pack']);
      expect(res.json.looseMatch).to.equal(true);
      expect(res.json.matching).to.deep.equal({
        strategy: 'word_forms',
        q: 'battery',
        dropped: [],
        changed: [{ from: 'batteries', to: 'battery' }],
        partialMatches: 0,
      });
      expect(res.json.items[0].fullMatch).to.equal(false);
    });
    it('falls back to fewer words when every word cannot match, naming the word it dropped', async () => {
      const res = await ok('q=linen%20shirt%20xylophone');
      expect(titles(res)[0]).to.equal('Linen Shirt');
      expect(res.json.looseMatch).to.equal(true);
      expect(res.json.matching).to.include({ strategy: 'fewer_words', q: 'linen shirt' });
      expect(res.json.matching.dropped).to.deep.equal(['xylophone']);
      const strict = await ok('q=linen%20shirt');
      expect(strict.json.looseMatch).to.equal(false);
      // One product has both words; the first page is filled with those that have one of them, after it.
      const flags = strict.json.items.map((item: { fullMatch: boolean }) => item.fullMatch);
      expect(titles(strict)[0]).to.equal('Linen Shirt');
      expect(flags).to.deep.equal([true, ...flags.slice(1).map(() => false)]);
      expect(flags.length).to.be.greaterThan(1);
      expect(strict.json.matching).to.deep.equal({
        strategy: 'strict',
        q: 'linen shirt',
        dropped: [],
        changed: [],
        partialMatches: flags.length - 1,
      });
      expect(strict.json.total).to.equal(flags.length);
      // Sorted by price, or on a later page, only the full matches are listed.
      const byPrice = await ok('q=linen%20shirt&sort=price_asc');
      expect(titles(byPrice)).to.deep.equal(['Linen Shirt']);
      expect(byPrice.json.matching.partialMatches).to.equal(0);
    });
    it('asks for every looser reading in one request and runs in full only the one that answers', async () => {
      const watch = watchMultiSearch();
      try {
        // The filters alone match nothing (the draft is never shown), as the strict request counts:
        // no looser reading can help, none is asked.
        const none = await ok(`q=batteries&ids=${ids.draft}`);
        expect(none.json).to.include({ total: 0, looseMatch: false });
        expect(watch.bodies).to.have.length(1);
        expect(watch.bodies[0]!.queries.at(-1)).to.include({ q: '', hitsPerPage: 0 });
        // The battery is in the kitchen category: the plural still finds it loosely.
        watch.bodies.length = 0;
        const found = await ok(`q=batteries&categoryId=${cat.kitchen}`);
        expect(titles(found)).to.deep.equal(['Battery Pack']);
        expect(found.json.matching).to.include({ strategy: 'word_forms', q: 'battery' });
        expect(watch.bodies).to.have.length(3);
        // The readings: all words required, none matched as a prefix, no facets, no exhaustive count;
        // nothing matched every word, so each is only counted (no products asked).
        for (const query of watch.bodies[1]!.queries) {
          expect(query).to.include({ matchingStrategy: 'all', limit: 0 });
          expect(query.q).to.match(/ $/);
          expect(query.facets).to.equal(undefined);
          expect(query.hitsPerPage).to.equal(undefined);
        }
        // The reading that answers runs in full: its page, facets and exact total.
        expect(watch.bodies[2]!.queries[0]).to.include({ q: 'battery ', page: 1, hitsPerPage: 24 });
        // Without filters the readings' request counts the catalogue itself (a reading finding most of it is too broad).
        watch.bodies.length = 0;
        engine().invalidate(shop.storeId);
        await ok('q=linen%20shirt%20xylophone');
        expect(watch.bodies[1]!.queries.at(-1)).to.include({ q: '', hitsPerPage: 0 });
      } finally {
        watch.restore();
      }
    });
    it('answers zero results when nothing matches even loosely', async () => {
      const res = await ok('q=qwxzvbnm');
      expect(res.json).to.include({ total: 0, looseMatch: false });
    });
  });

  describe('locale', () => {
    it('shows the translated title for the requested locale', async () => {
      await db(`UPDATE products SET translations = '{"de": {"title": "Leinenhemd"}}' WHERE id = $1`, [ids.linen]);
      await indexHandler(server).indexer.syncProducts([ids.linen]);
      const res = await ok('q=leinenhemd&locale=de');
      expect(titles(res)).to.deep.equal(['Leinenhemd']);
      expect(titles(await ok(`ids=${ids.linen}`))).to.deep.equal(['Linen Shirt']);
    });
  });

  describe('cache', () => {
    it('serves repeats from the cache and drops them when the store index changes', async () => {
      const engine = server.runtime.services.search!;
      await eventually(() => engine.cacheLive, 'the invalidation listener to connect');
      const query = `q=knife&perPage=7`;
      await ok(query);
      const hits = engine.answers.hits;
      const cached = await ok(query);
      expect(engine.answers.hits).to.equal(hits + 1);
      expect(titles(cached)).to.deep.equal(['Chef Knife']);

      const patch = await call(server, 'PUT', `/api/v1/catalog/products/${ids.knife}`, {
        headers: shop.headers,
        body: { type: 'PHYSICAL', title: 'Santoku Knife', price: 30, brandId: brand.contoso, categoryIds: [cat.kitchen] },
      });
      expect(patch.status, patch.text).to.equal(200);
      expect(await deliverIndexRows(server, shop.owner.tenantId)).to.deep.equal([]);
      expect(await pendingIndexRows(server, shop.owner.tenantId)).to.equal(0);
      await eventually(async () => titles(await ok(query))[0] === 'Santoku Knife', 'the updated title to be searchable');
    });

    it('asks a count that depends on the filters alone once for different searches, and again once the store changes', async () => {
      const engine = server.runtime.services.search!;
      await eventually(() => engine.cacheLive, 'the invalidation listener to connect');
      const m = await newMerchant();
      const acme = await brandRow(server, m, { name: 'Acme' });
      const globex = await brandRow(server, m, { name: 'Globex' });
      const lamp = await addProduct(m, { title: 'Desk Lamp', price: 20, brand: acme });
      const chair = await addProduct(m, { title: 'Desk Chair', price: 80, brand: globex });
      await indexHandler(server).indexer.syncProducts([lamp, chair]);
      const browse = async (query: string): Promise<TestResponse> => {
        const res = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${m.storeId}&${query}`);
        expect(res.status, res.text).to.equal(200);
        return res;
      };
      // The brand group's own counts: every published product, whichever brand is selected.
      const brandCounts = (body: { queries: Array<Record<string, unknown>> }): number =>
        body.queries.filter((q) => q.hitsPerPage === 0 && q.q === '' && String(q.facets) === 'brandId').length;
      const watch = watchMultiSearch();
      try {
        const first = await browse(`brandIds=${acme}`);
        expect(watch.bodies.map(brandCounts)).to.deep.equal([1]);
        expect([countOf(facet(first, 'brand'), 'Acme'), countOf(facet(first, 'brand'), 'Globex')]).to.deep.equal([1, 1]);
        watch.bodies.length = 0;
        const second = await browse(`brandIds=${globex}`);
        expect(watch.bodies.map(brandCounts)).to.deep.equal([0]);
        expect(titles(second)).to.deep.equal(['Desk Chair']);
        expect([countOf(facet(second, 'brand'), 'Acme'), countOf(facet(second, 'brand'), 'Globex')]).to.deep.equal([1, 1]);

        const moved = await call(server, 'PUT', `/api/v1/catalog/products/${chair}`, {
          headers: m.headers,
          body: { type: 'PHYSICAL', title: 'Desk Chair', price: 80, brandId: acme, categoryIds: [] },
        });
        expect(moved.status, moved.text).to.equal(200);
        expect(await deliverIndexRows(server, m.owner.tenantId)).to.deep.equal([]);
        await eventually(
          async () => countOf(facet(await browse(`brandIds=${globex}&perPage=5`), 'brand'), 'Acme') === 2,
          'new brand counts',
        );
        expect(brandCounts(watch.bodies.at(-1)!)).to.equal(1);
      } finally {
        watch.restore();
      }
    });

    it('keeps no answer of a search during which the store changed', async () => {
      const engine = server.runtime.services.search!;
      await eventually(() => engine.cacheLive, 'the invalidation listener to connect');
      const client = server.runtime.meiliSearch;
      const original = client.multiSearch.bind(client);
      // The store changes after Meilisearch answered, before the answer is kept.
      client.multiSearch = (async (body: { queries: unknown[] }) => {
        const answer = await original(body);
        engine.invalidate(shop.storeId);
        return answer;
      }) as typeof client.multiSearch;
      const query = `q=knife&perPage=5&sort=price_asc`;
      try {
        await ok(query);
      } finally {
        client.multiSearch = original;
      }
      const hits = engine.answers.hits;
      await ok(query);
      expect(engine.answers.hits, 'the answer computed across the change was not kept').to.equal(hits);
      await ok(query);
      expect(engine.answers.hits, 'an answer computed after it is').to.equal(hits + 1);
    });

    it('bounds the cache by bytes, evicting the least recently used, and expires entries', () => {
      const cache = new ResultCache<string>({ maxBytes: 1000, ttlMs: 50 });
      cache.set('s1', 'a', 'A', 200, { now: 0 });
      cache.set('s1', 'b', 'B', 200, { now: 0 });
      cache.set('s2', 'c', 'C', 200, { now: 0 });
      expect(cache.get('a', 1)).to.equal('A');
      cache.set('s2', 'd', 'D', 200, { now: 0 });
      cache.set('s2', 'e', 'E', 200, { now: 0 });
      cache.set('s2', 'f', 'F', 200, { now: 0 });
      expect(cache.get('b', 1)).to.equal(undefined);
      expect(cache.get('a', 1)).to.equal('A');
      expect(cache.usedBytes).to.be.at.most(1000);
      cache.invalidateStore('s2');
      expect([cache.get('c', 1), cache.get('d', 1)]).to.deep.equal([undefined, undefined]);
      expect(cache.get('a', 100)).to.equal(undefined);
    });
  });

  describe('zero results and price visibility', () => {
    it('counts every search with a query that finds nothing, cached or not', async () => {
      const count = async (): Promise<number | undefined> =>
        (await db('SELECT count::int AS n FROM zero_result_queries WHERE store_id = $1 AND query = $2', [shop.storeId, 'zorblax thing']))[0]
          ?.n;
      expect(await count()).to.equal(undefined);
      await ok('q=Zorblax%20%20Thing');
      await eventually(async () => (await count()) === 1, 'the zero-result query to be counted');
      await ok('q=zorblax%20thing');
      await eventually(async () => (await count()) === 2, 'the repeat (served from the cache) to be counted');
      const rows = async (): Promise<number> =>
        (await db('SELECT count(*)::int AS n FROM zero_result_queries WHERE store_id = $1', [shop.storeId]))[0].n;
      const before = await rows();
      await ok('q=linen');
      await ok('');
      await ok('inStock=false&discounted=true');
      // Counting happens after the answer: time passes to show that none of these is counted.
      await sleep(100);
      expect(await rows()).to.equal(before);
    });

    it('leaves prices and the price facet out for visitors the store hides them from', async () => {
      const m = await newMerchant();
      const product = await addProduct(m, { title: 'Brass Lamp', price: 99 });
      await indexHandler(server).indexer.syncProducts([product]);
      const get = (headers: Record<string, string> = {}): Promise<TestResponse> =>
        call(server, 'GET', `/api/v1/catalog/public/search?storeId=${m.storeId}&q=lamp`, { headers });
      const suggestPrice = async (headers: Record<string, string> = {}): Promise<unknown> =>
        (await call(server, 'GET', `/api/v1/catalog/public/suggest?storeId=${m.storeId}&q=lamp`, { headers })).json.products[0].price;
      const shown = await get();
      expect(shown.json.pricesShown).to.equal(true);
      expect(shown.json.items[0]).to.include({ price: 99, currency: 'EUR' });

      const setVisibility = async (priceVisibility: string): Promise<void> => {
        const res = await call(server, 'PATCH', `/api/v1/organization/stores/${m.storeId}`, {
          headers: m.headers,
          body: { priceVisibility },
        });
        expect(res.status, res.text).to.equal(200);
        expect(await deliverIndexRows(server, m.owner.tenantId)).to.deep.equal([]);
      };
      await setVisibility('HIDDEN');
      await eventually(async () => (await get()).json.pricesShown === false, 'the hidden prices to reach search');
      const hidden = await get();
      expect(hidden.json.items[0]).to.not.have.any.keys('price', 'compareAtPrice', 'discountPercent', 'currency');
      expect(hidden.json.facets.map((f: { key: string }) => f.key)).to.not.include('price');
      expect(await suggestPrice()).to.equal(undefined);
      expect((await get(m.headers)).json.pricesShown).to.equal(false);

      await setVisibility('SIGNED_IN');
      await eventually(async () => (await get(m.headers)).json.pricesShown === true, 'signed-in visitors to see prices');
      expect((await get(m.headers)).json.items[0].price).to.equal(99);
      expect(await suggestPrice(m.headers)).to.equal(99);
      expect((await get()).json.items[0].price).to.equal(undefined);
      expect((await get({ Authorization: 'Bearer not-a-token' })).json.pricesShown).to.equal(false);
    });
  });

  describe('sponsored slots', () => {
    it('shows matching active listings in marked slots of the first page, within the documented share, never against the filters', async () => {
      const m = await newMerchant();
      const products: string[] = [];
      for (let i = 1; i <= 10; i += 1) products.push(await addProduct(m, { title: `Lamp ${i}`, price: i * 10 }));
      await indexHandler(server).indexer.syncProducts(products);
      const listing = await call(server, 'POST', '/api/v1/merchant/sponsored-listings', {
        headers: m.headers,
        body: { storeId: m.storeId, productId: products[9], keywords: ['lamp'], costPerClick: 0.5 },
      });
      expect(listing.status, listing.text).to.equal(201);
      const get = (query: string): Promise<TestResponse> =>
        call(server, 'GET', `/api/v1/catalog/public/search?storeId=${m.storeId}&${query}`);

      const page = await get('q=lamp&sort=price_asc&perPage=8');
      expect(page.status, page.text).to.equal(200);
      const items = page.json.items as Array<Item & { sponsoredListingId?: string }>;
      expect(items).to.have.length(9);
      expect(items[0]).to.deep.include({ id: products[9], sponsored: true, sponsoredListingId: listing.json.id });
      expect(items.slice(1).map((i) => i.title)).to.deep.equal([
        'Lamp 1',
        'Lamp 2',
        'Lamp 3',
        'Lamp 4',
        'Lamp 5',
        'Lamp 6',
        'Lamp 7',
        'Lamp 8',
      ]);
      expect(items.filter((i) => i.sponsored)).to.have.length(1);
      expect(page.json.total).to.equal(10);

      // Not on later pages, not where the filters exclude the product, not beside its own organic result,
      // not for a query its keywords do not match, and no slot on a page of fewer than 8.
      expect(((await get('q=lamp&sort=price_asc&perPage=8&page=2')).json.items as Item[]).some((i) => i.sponsored)).to.equal(false);
      expect(((await get('q=lamp&sort=price_asc&perPage=8&priceMax=90')).json.items as Item[]).some((i) => i.sponsored)).to.equal(false);
      expect(((await get('q=lamp&sort=price_desc&perPage=8')).json.items as Item[]).filter((i) => i.id === products[9])).to.have.length(1);
      expect(((await get('sort=price_asc&perPage=8')).json.items as Item[]).some((i) => i.sponsored)).to.equal(false);
      expect(((await get('q=lamp&sort=price_asc&perPage=7')).json.items as Item[]).some((i) => i.sponsored)).to.equal(false);
    });
  });

  describe('suggest', () => {
    const suggest = (query: string): Promise<TestResponse> =>
      call(server, 'GET', `/api/v1/catalog/public/suggest?storeId=${shop.storeId}&${query}`);
    it('validates q (1 to 200 characters, required) and limit (1 to 12)', async () => {
      expectProblem(await suggest('limit=3'), 400, 'validation_failed');
      expectProblem(await suggest('q='), 400, 'validation_failed');
      expectProblem(await suggest(`q=${'a'.repeat(201)}`), 400, 'validation_failed');
      expectProblem(await suggest('q=a&limit=0'), 400, 'validation_failed');
      expectProblem(await suggest('q=a&limit=13'), 400, 'validation_failed');
      expectProblem(await suggest('q=a&locale=english'), 400, 'validation_failed');
      expect((await suggest(`q=${'a'.repeat(200)}&limit=12`)).status).to.equal(200);
      expectProblem(await call(server, 'GET', `/api/v1/catalog/public/suggest?storeId=${uuidv7()}&q=a`), 404, 'store_not_found');
    });
    it('suggests products by prefix and despite typos, plus matching categories and brands', async () => {
      const res = await suggest('q=shi');
      expect(res.status, res.text).to.equal(200);
      expect(res.json.products.map((p: { title: string }) => p.title).sort()).to.deep.equal(['Linen Shirt', 'Oxford Shirt']);
      expect(res.json.categories.map((c: { name: string }) => c.name)).to.deep.equal(['Shirts']);
      const typo = await suggest('q=northwnd');
      expect(typo.json.brands.map((b: { name: string }) => b.name)).to.deep.equal(['Northwind']);
      expect(typo.json.products.length).to.be.greaterThan(0);
      const limited = await suggest('q=s&limit=1');
      expect(limited.json.products).to.have.length(1);
      expect(res.json.products.map((p: { title: string }) => p.title)).to.not.include('Secret Linen Shirt');
      expect(withinOneEdit('northwind', 'northwnd')).to.equal(true);
      expect(withinOneEdit('northwind', 'nortwhind')).to.equal(true);
      expect(withinOneEdit('northwind', 'southwind')).to.equal(false);
    });
  });
});
