/**
 * A store whose prices visitors may not see leaks no price through any public read: no price field
 * and no price-derived value (discount percentages, bundle totals, price facet stats and buckets, the
 * shipping quote's order value) in any answer, and no way to filter or order by price (search ignores
 * priceMin, priceMax and the price sorts and says so in ignoredParams; the shipping quote never
 * compares catalog prices with value bands or free-shipping thresholds). A signed-in visitor of a
 * SIGNED_IN store sees prices and uses the same parameters normally.
 */
import { expect } from 'chai';
import { uuidv7 } from '../../storage/ids';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { assignCategory, category, collection, merchant, product, variant, type Headers, type Merchant } from '../helpers/fixtures';
import { deliverIndexRows, indexHandler } from '../helpers/indexing';

/** Catalog prices no other number of these answers could equal by chance. */
const PRICES = { brass: 1234.56, brassCompareAt: 1543.21, copper: 2345.67, silver: 3456.78, silverSale: 3001.23, paper: 77.03 };

/** Keys that carry a price or a value computed from one, wherever they appear in a public answer. */
const PRICE_KEYS = new Set([
  'price',
  'compareAtPrice',
  'discountPercent',
  'currency',
  'salePrice',
  'unitPrice',
  'productCurrency',
  'pricing',
  'itemsTotal',
  'bundlePrice',
  'savings',
  'savingsPercent',
  'orderValue',
  'stats',
  'buckets',
]);

/** Every price key found in `value`, with its path. */
function priceKeys(value: unknown, path = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => priceKeys(v, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) => [
    ...(PRICE_KEYS.has(key) ? [`${path}.${key}`] : []),
    ...priceKeys(v, `${path}.${key}`),
  ]);
}

interface Shop {
  m: Merchant;
  brass: string;
  copper: string;
  silver: string;
  brassSlug: string;
  collectionSlug: string;
  campaignSlug: string;
}

describe('hidden prices', function () {
  this.timeout(60_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));

  const db = (sql: string, params: unknown[]): Promise<unknown> => server.runtime.dataSource.query(sql, params);

  async function ok(res: Promise<TestResponse>, status = 200): Promise<TestResponse> {
    const answer = await res;
    expect(answer.status, answer.text).to.equal(status);
    return answer;
  }

  /**
   * A store (`priceVisibility`) with three published lamps in one category (the copper one oldest)
   * and eight newer paper lamps, a related product, a bundle, a collection, a running flash sale (a
   * product and another category), a sponsored listing of the copper lamp, a price facet shown with
   * counted buckets, and shipping rates whose bands and free threshold a catalog value would decide;
   * everything indexed.
   */
  async function shop(priceVisibility: string): Promise<Shop> {
    const m = suite.addMerchant(await merchant(server, { priceVisibility }), { indexed: true });
    const lamps = await category(server, m, { name: 'Lamps' });
    const made = async (title: string, price: number, compareAt: number | null = null, ageDays = 1) => {
      const slug = `${title.toLowerCase().replace(/\s+/g, '-')}-${uuidv7().slice(-8)}`;
      const id = await product(server, m, {
        title,
        slug,
        status: 'PUBLISHED',
        price: String(price),
        compare_at_price: compareAt === null ? null : String(compareAt),
        weight_grams: 1000,
        published_at: new Date(),
        created_at: new Date(Date.now() - ageDays * 86_400_000),
      });
      await variant(server, m, id, { stock: 4 });
      await assignCategory(server, id, lamps);
      return { id, slug };
    };
    const brass = await made('Brass Lamp', PRICES.brass, PRICES.brassCompareAt);
    const copper = await made('Copper Lamp', PRICES.copper, null, 10);
    const silver = await made('Silver Lamp', PRICES.silver);
    const paper: string[] = [];
    for (let i = 1; i <= 8; i += 1) paper.push((await made(`Paper Lamp ${i}`, PRICES.paper, null, 0)).id);
    const candles = await category(server, m, { name: 'Candles' });
    await db(
      'INSERT INTO product_relations (id, tenant_id, store_id, product_id, related_product_id, kind, position) VALUES ($1, $2, $3, $4, $5, $6, 0)',
      [uuidv7(), m.owner.tenantId, m.storeId, brass.id, copper.id, 'RELATED'],
    );
    await ok(
      call(server, 'POST', '/api/v1/bundles', {
        headers: m.headers,
        body: {
          storeId: m.storeId,
          name: 'Pair of lamps',
          pricing: { type: 'FIXED_PRICE', price: 3333.33 },
          items: [
            { productId: brass.id, quantity: 1 },
            { productId: copper.id, quantity: 1 },
          ],
        },
      }),
      201,
    );
    const collectionSlug = `lamps-${uuidv7().slice(-8)}`;
    await collection(server, m, [brass.id, copper.id, silver.id], { slug: collectionSlug });
    const campaignSlug = `lamp-days-${uuidv7().slice(-8)}`;
    await ok(
      call(server, 'POST', '/api/v1/flash-sale-campaigns', {
        headers: m.headers,
        body: {
          storeId: m.storeId,
          name: 'Lamp days',
          slug: campaignSlug,
          status: 'PUBLISHED',
          startsAt: new Date(Date.now() - 3_600_000).toISOString(),
          endsAt: new Date(Date.now() + 3_600_000).toISOString(),
          products: [{ productId: silver.id, salePrice: PRICES.silverSale }],
          categories: [{ categoryId: candles, discountPercent: 17 }],
        },
      }),
      201,
    );
    await ok(
      call(server, 'POST', '/api/v1/merchant/sponsored-listings', {
        headers: m.headers,
        body: { storeId: m.storeId, productId: copper.id, keywords: ['lamp'], costPerClick: 0.5 },
      }),
      201,
    );
    await ok(
      call(server, 'PUT', `/api/v1/storefront/filter-config?storeId=${m.storeId}`, {
        headers: m.headers,
        body: {
          facets: [
            { key: 'category', label: 'Category', display: 'checkbox' },
            { key: 'price', label: 'Price', display: 'checkbox' },
            { key: 'discounted', label: 'On sale', display: 'toggle' },
          ],
          priceBuckets: [{ min: 0, max: 2000 }, { min: 2000, max: 3000 }, { min: 3000 }],
        },
      }),
    );
    // A cart worth 2000 or more would ship free; one worth 3000 or more would also get the express rate.
    for (const rate of [
      { name: 'Standard', price: 9.5, freeShippingThreshold: 2000 },
      { name: 'Express', price: 19.5, minOrderValue: 3000 },
    ])
      await ok(call(server, 'POST', '/api/v1/shipping-rates', { headers: m.headers, body: { storeId: m.storeId, ...rate } }), 201);
    expect(await deliverIndexRows(server, m.owner.tenantId)).to.deep.equal([]);
    await indexHandler(server).indexer.syncProducts([brass.id, copper.id, silver.id, ...paper]);
    return { m, brass: brass.id, copper: copper.id, silver: silver.id, brassSlug: brass.slug, collectionSlug, campaignSlug };
  }

  const search = (s: Shop, query: string, headers: Headers = {}) =>
    ok(call(server, 'GET', `/api/v1/catalog/public/search?storeId=${s.m.storeId}${query ? `&${query}` : ''}`, { headers }));
  const ids = (res: TestResponse): string[] => (res.json.items as Array<{ id: string }>).map((i) => i.id);
  const organic = (res: TestResponse): string[] =>
    (res.json.items as Array<{ id: string; sponsored: boolean }>).filter((i) => !i.sponsored).map((i) => i.id);
  const quote = (s: Shop, body: Record<string, unknown>, headers: Headers = {}) =>
    ok(
      call(server, 'POST', `/api/v1/shipping-rates/public/stores/${s.m.storeId}/quote`, {
        headers,
        body: { address: { city: 'Anywhere' }, ...body },
      }),
    );

  /** Every public read of the shop that carries products, with a label. */
  async function publicReads(s: Shop, headers: Headers = {}): Promise<Array<[string, TestResponse]>> {
    const store = `/api/v1/catalog/public/stores/${s.m.storeId}`;
    const get = (path: string) => ok(call(server, 'GET', path, { headers }));
    return [
      // The eight paper lamps organically, the (oldest) copper lamp in the sponsored slot.
      ['search', await search(s, 'q=lamp&sort=newest&perPage=8', headers)],
      ['search with price filters and sort', await search(s, 'priceMin=1000&priceMax=1300&sort=price_desc', headers)],
      ['suggest', await get(`/api/v1/catalog/public/suggest?storeId=${s.m.storeId}&q=lam`)],
      ['product', await get(`${store}/products/${s.brassSlug}`)],
      ['related', await get(`${store}/products/${s.brass}/related`)],
      ['bundle', await get(`${store}/products/${s.brass}/bundle`)],
      ['collection', await get(`${store}/collections/${s.collectionSlug}`)],
      ['collections', await get(`${store}/collections`)],
      ['categories', await get(`${store}/categories`)],
      ['filter-config', await get(`${store}/filter-config`)],
      ['sitemap', await get(`${store}/sitemap-feed`)],
      ['flash sales', await get(`/api/v1/flash-sale-campaigns/public/stores/${s.m.storeId}/active`)],
      ['flash sale', await get(`/api/v1/flash-sale-campaigns/public/stores/${s.m.storeId}/by-slug/${s.campaignSlug}`)],
    ];
  }

  describe('a store with price visibility HIDDEN', () => {
    let s: Shop;
    before(async () => {
      s = await shop('HIDDEN');
    });

    it('answers no price field and no price-derived value in any public read, signed in or not', async () => {
      for (const headers of [{}, s.m.headers]) {
        const reads = await publicReads(s, headers);
        for (const [label, res] of reads) {
          expect(priceKeys(res.json), label).to.deep.equal([]);
          for (const price of Object.values(PRICES)) expect(res.text, `${label} holds ${price}`).to.not.include(String(price));
          expect(res.text, label).to.not.include('3333.33');
        }
        const answers = Object.fromEntries(reads);
        // What carried the prices is still there, without them.
        expect(answers.search!.json.items).to.have.length(9);
        expect(answers.search!.json.items[0]).to.include({ id: s.copper, sponsored: true });
        expect(answers.search!.json.pricesShown).to.equal(false);
        expect(answers.search!.json.facets.map((f: { key: string }) => f.key)).to.deep.equal(['category', 'discounted']);
        expect(answers.suggest!.json.products.length).to.be.at.least(1);
        expect(answers.bundle!.json.items[0].items).to.have.length(2);
        expect(answers.collection!.json.products).to.have.length(3);
        expect(answers['filter-config']!.json.facets.map((f: { key: string }) => f.key)).to.deep.equal(['category', 'discounted']);
        expect(answers['filter-config']!.json.priceBuckets).to.deep.equal([]);
        const campaign = answers['flash sale']!.json;
        expect(campaign.products.map((p: { productId: string }) => p.productId)).to.deep.equal([s.silver]);
        expect(campaign.categories).to.have.length(1);
      }
    });

    it('ignores priceMin, priceMax and the price sorts, so nothing can be filtered or ordered by price', async () => {
      const plain = await search(s, '');
      expect(plain.json).to.include({ total: 11, sort: 'relevance' });
      expect(plain.json.ignoredParams).to.deep.equal([]);
      // A binary search for the brass lamp's price: every range answers every product.
      for (const range of ['priceMin=1234&priceMax=1235', 'priceMin=1235', 'priceMax=1234', 'priceMin=5000', 'priceMax=0']) {
        const res = await search(s, range);
        expect(res.json.total, range).to.equal(11);
        expect(ids(res), range).to.deep.equal(ids(plain));
        expect(res.json.ignoredParams, range).to.deep.equal(range.split('&').map((p) => p.split('=')[0]));
      }
      // Price sorts (and the percent-off sort) answer the relevance order.
      for (const sort of ['price_asc', 'price_desc', 'discount']) {
        const res = await search(s, `sort=${sort}`);
        expect(res.json.sort, sort).to.equal('relevance');
        expect(ids(res), sort).to.deep.equal(ids(plain));
        expect(res.json.ignoredParams, sort).to.deep.equal(['sort']);
      }
      const both = await search(s, 'q=lamp&priceMax=1500&sort=price_asc');
      expect(both.json.ignoredParams).to.deep.equal(['priceMax', 'sort']);
      expect(organic(both)).to.deep.equal(organic(await search(s, 'q=lamp')));
      // Other sorts and filters still apply.
      expect((await search(s, 'sort=newest')).json.ignoredParams).to.deep.equal([]);
      expect((await search(s, 'discounted=true')).json.total).to.equal(2);
    });

    it('quotes shipping without the catalog prices: no order value, and the same options whatever the cart is worth', async () => {
      const carts = [[{ productId: s.brass, quantity: 1 }], [{ productId: s.brass, quantity: 2 }], [{ productId: s.silver, quantity: 1 }]];
      const quotes = [];
      for (const items of carts) quotes.push((await quote(s, { items: items.map((i) => ({ ...i })) })).json);
      for (const q of quotes) {
        expect(q).to.not.have.any.keys('orderValue');
        expect(q.pricesShown).to.equal(false);
        // Quoted as for an order value of 0: never free by the threshold, no express band.
        expect(q.options.map((o: { name: string; price: number; free: boolean }) => [o.name, o.price, o.free])).to.deep.equal([
          ['Standard', 9.5, false],
        ]);
      }
      expect(quotes[1].weightGrams).to.equal(2000);
      // An order value the client gives is its own number: used and answered.
      const given = (await quote(s, { items: carts[0], orderValue: 3100 })).json;
      expect(given).to.include({ orderValue: 3100, pricesShown: false });
      expect(given.options.map((o: { name: string; free: boolean }) => [o.name, o.free])).to.deep.equal([
        ['Standard', true],
        ['Express', false],
      ]);
    });
  });

  describe('a store with price visibility SIGNED_IN', () => {
    let s: Shop;
    before(async () => {
      s = await shop('SIGNED_IN');
    });

    it('hides prices from anonymous visitors exactly like HIDDEN', async () => {
      for (const [label, res] of await publicReads(s)) expect(priceKeys(res.json), label).to.deep.equal([]);
      expect((await search(s, 'priceMin=1000&priceMax=2000')).json.total).to.equal(11);
      expect((await quote(s, { items: [{ productId: s.brass, quantity: 2 }] })).json).to.not.have.any.keys('orderValue');
    });

    it('shows a signed-in visitor the prices, and applies price filters, sorts and catalog order values', async () => {
      const signedIn = s.m.headers;
      const filtered = await search(s, 'priceMin=1000&priceMax=2000', signedIn);
      expect(filtered.json).to.include({ total: 1, pricesShown: true });
      expect(filtered.json.ignoredParams).to.deep.equal([]);
      expect(filtered.json.items[0]).to.include({ id: s.brass, price: PRICES.brass });
      const sorted = await search(s, 'sort=price_desc', signedIn);
      expect(sorted.json.sort).to.equal('price_desc');
      expect(ids(sorted).slice(0, 3)).to.deep.equal([s.silver, s.copper, s.brass]);
      const facets = (await search(s, '', signedIn)).json.facets as Array<{ key: string; stats?: unknown; buckets?: unknown[] }>;
      expect(facets.find((f) => f.key === 'price')).to.include.keys('stats', 'buckets');
      const reads = Object.fromEntries(await publicReads(s, signedIn));
      expect(reads.product!.json).to.include({ price: PRICES.brass, compareAtPrice: PRICES.brassCompareAt });
      expect(reads['filter-config']!.json.priceBuckets).to.have.length(3);
      expect(reads['flash sale']!.json.categories[0]).to.include({ name: 'Candles', discountPercent: 17 });
      // Two brass lamps are worth 2469.12: free standard shipping, no express.
      const q = (await quote(s, { items: [{ productId: s.brass, quantity: 2 }] }, signedIn)).json;
      expect(q).to.include({ orderValue: 2469.12, pricesShown: true });
      expect(q.options.map((o: { name: string; free: boolean }) => [o.name, o.free])).to.deep.equal([['Standard', true]]);
    });
  });
});
