/**
 * The price facet's buckets in the public search answer (docs/search.md, "Price buckets"): derived
 * from the store's published prices when the merchant configured none (nice bounds inside the real
 * range, each with products, counts adding up to the total, each filtering to its range), exactly
 * the merchant's when configured, and derived again once the configuration's buckets are emptied.
 */
import { expect } from 'chai';
import { call, type TestServer, type TestResponse } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { merchant, product, variant, type Merchant } from '../helpers/fixtures';
import { deliverIndexRows, indexHandler } from '../helpers/indexing';
import { deriveBuckets, distributionOf, NICE_LADDER } from '../../search/price-buckets';

interface Bucket {
  min: number;
  max: number | null;
  label: string;
  count?: number;
  selected: boolean;
}
interface PriceFacet {
  key: string;
  stats: { min: number; max: number } | null;
  buckets: Bucket[];
  bucketSource: string;
}

/** 40 prices from 138.99 to 7,690.99, evenly in log scale, like the demo shop's catalog. */
const DEMO_PRICES = Array.from({ length: 40 }, (_, i) => Math.round(138.99 * (7690.99 / 138.99) ** (i / 39) * 100) / 100);

describe('public search: price buckets derived from the store, or configured', function () {
  this.timeout(60_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  const newMerchant = async (): Promise<Merchant> => suite.addMerchant(await merchant(server), { indexed: true });

  async function stock(m: Merchant, prices: number[], extra: Array<{ price: number; status: string }> = []): Promise<void> {
    const ids: string[] = [];
    for (const [i, price] of [...prices.map((p) => ({ price: p, status: 'PUBLISHED' })), ...extra].entries()) {
      const id = await product(server, m, { title: `Item ${i}`, price: price.price, status: price.status, published_at: new Date() });
      await variant(server, m, id, { stock: 3 });
      ids.push(id);
    }
    await indexHandler(server).indexer.syncProducts(ids);
  }

  async function search(m: Merchant, query = ''): Promise<TestResponse> {
    const res = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${m.storeId}&perPage=60${query}`);
    expect(res.status, res.text).to.equal(200);
    return res;
  }
  const priceFacet = (res: TestResponse): PriceFacet => (res.json.facets as PriceFacet[]).find((f) => f.key === 'price')!;

  it('derives about five buckets with nice bounds inside the real range, each with products, counts adding up to the total', async () => {
    const m = await newMerchant();
    // A draft far outside the range does not count: only published products shape the buckets.
    await stock(m, DEMO_PRICES, [{ price: 99_999, status: 'DRAFT' }]);
    const res = await search(m);
    const price = priceFacet(res);
    expect(price.bucketSource).to.equal('derived');
    expect(price.stats).to.deep.equal({ min: 138.99, max: 7690.99 });
    const { buckets } = price;
    expect(buckets.length).to.be.within(4, 5);
    expect(buckets[0]!.min).to.be.at.most(138.99).and.at.least(100);
    expect(buckets.at(-1)!.max).to.equal(null);
    for (const [i, b] of buckets.entries()) {
      expect(b.min === 0 || NICE_LADDER.includes(b.min), `${b.min} is a nice bound`).to.equal(true);
      if (b.max !== null) {
        expect(NICE_LADDER.includes(b.max), `${b.max} is a nice bound`).to.equal(true);
        expect(b.max).to.be.greaterThan(138.99).and.at.most(7690.99);
        expect(buckets[i + 1]!.min).to.equal(b.max);
      }
      expect(b.count, b.label).to.be.greaterThan(0);
      expect(b.selected).to.equal(false);
    }
    expect(buckets.reduce((sum, b) => sum + b.count!, 0)).to.equal(res.json.total);
    expect(res.json.total).to.equal(40);
    // The SQL distribution derives exactly what the pure derivation gives for these prices.
    expect(buckets.map(({ min, max, label, count }) => ({ min, max, label, count }))).to.deep.equal(
      deriveBuckets(distributionOf(DEMO_PRICES)),
    );
    expect(buckets.map((b) => b.label)).to.include('1,000–2,500');

    // Choosing a bucket filters the results to its range, and marks it selected.
    const second = buckets[1]!;
    const chosen = await search(m, `&priceMin=${second.min}&priceMax=${second.max}`);
    const prices = (chosen.json.items as Array<{ price: number }>).map((i) => i.price);
    expect(prices).to.have.length(second.count!);
    for (const p of prices) expect(p).to.be.at.least(second.min).and.at.most(second.max!);
    const after = priceFacet(chosen).buckets;
    expect(after.filter((b) => b.selected).map((b) => b.label)).to.deep.equal([second.label]);
  });

  it('counts every bucket exactly in one request, even with more distinct prices than a facet lists', async () => {
    const m = await newMerchant();
    // 230 distinct prices: more than Meilisearch lists for one facet (index-settings MAX_VALUES_PER_FACET).
    const prices = Array.from({ length: 230 }, (_, i) => Math.round(5 * (4000 / 5) ** (i / 229) * 100) / 100);
    expect(new Set(prices).size).to.equal(230);
    await stock(m, prices);
    const client = server.runtime.meiliSearch;
    const original = client.multiSearch.bind(client);
    const bodies: Array<{ queries: unknown[] }> = [];
    client.multiSearch = ((body: { queries: unknown[] }) => {
      bodies.push(body);
      return original(body);
    }) as typeof client.multiSearch;
    server.runtime.services.search!.setOptions({ splitMaxInFlight: 0 });
    try {
      const res = await search(m);
      const { buckets } = priceFacet(res);
      expect(buckets.length).to.be.within(4, 5);
      for (const b of buckets) {
        const inside = prices.filter((p) => p >= b.min && (b.max === null || p < b.max)).length;
        expect(b.count, b.label).to.equal(inside);
      }
      expect(bodies).to.have.length(1);
      expect(bodies[0]!.queries).to.have.length(1);
    } finally {
      client.multiSearch = original;
      server.runtime.services.search!.setOptions({ splitMaxInFlight: server.runtime.config.search.splitMaxInFlight });
    }
  });

  it('a store whose products share one price gets no buckets; an empty store none either', async () => {
    const same = await newMerchant();
    await stock(same, [49.9, 49.9, 49.9]);
    const price = priceFacet(await search(same));
    expect(price.bucketSource).to.equal('derived');
    expect(price.buckets).to.deep.equal([]);
    expect(price.stats).to.deep.equal({ min: 49.9, max: 49.9 });
  });

  it('configured buckets win, exactly as saved; emptying them goes back to derived ones', async () => {
    const m = await newMerchant();
    await stock(m, DEMO_PRICES);
    expect(priceFacet(await search(m)).bucketSource).to.equal('derived');
    const configured = [
      { min: 0, max: 500, label: 'Budget' },
      { min: 500, max: 3000 },
      { min: 3000, max: null },
    ];
    const put = (priceBuckets: unknown[]) =>
      call(server, 'PUT', `/api/v1/storefront/filter-config?storeId=${m.storeId}`, {
        headers: m.headers,
        body: {
          facets: [
            { key: 'category', label: 'Category', display: 'checkbox' },
            { key: 'price', label: 'Price', display: 'range' },
          ],
          priceBuckets,
        },
      });
    const saved = await put(configured);
    expect(saved.status, saved.text).to.equal(200);
    expect(await deliverIndexRows(server, m.owner.tenantId)).to.deep.equal([]);
    server.runtime.services.search!.invalidate(m.storeId);
    const res = await search(m);
    const price = priceFacet(res);
    expect(price.bucketSource).to.equal('configured');
    const below = (lo: number, hi: number | null) => DEMO_PRICES.filter((p) => p >= lo && (hi === null || p < hi)).length;
    expect(price.buckets).to.deep.equal([
      { min: 0, max: 500, label: 'Budget', count: below(0, 500), selected: false },
      { min: 500, max: 3000, label: '500–3,000', count: below(500, 3000), selected: false },
      { min: 3000, max: null, label: '3,000+', count: below(3000, null), selected: false },
    ]);

    const emptied = await put([]);
    expect(emptied.status, emptied.text).to.equal(200);
    expect(await deliverIndexRows(server, m.owner.tenantId)).to.deep.equal([]);
    server.runtime.services.search!.invalidate(m.storeId);
    const again = priceFacet(await search(m));
    expect(again.bucketSource).to.equal('derived');
    expect(again.buckets.map(({ min, max }) => ({ min, max }))).to.deep.equal(
      deriveBuckets(distributionOf(DEMO_PRICES)).map(({ min, max }) => ({ min, max })),
    );
  });
});
