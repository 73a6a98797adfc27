/**
 * The count cache (search/count-cache.ts): queries that ask for no products are answered from the
 * cache the second time, products are always asked, a store's change drops its counts only, and
 * nothing is kept or read while the cache is not live.
 */
import { expect } from 'chai';
import { withCountCache } from '../../search/count-cache';
import { ResultCache } from '../../search/result-cache';
import type { MeiliRunner } from '../../search/public-search-run';
import type { MeiliQuery } from '../../search/public-search-request';
import type { QueryResult } from '../../search/facet-snapshot';

const INDEX_A = 'store_01a2188f59ea7006a63fd20e9517d139';
const INDEX_B = 'store_01a2188f59ea7006a63fd20e9517d140';

const query = (fields: Partial<MeiliQuery>): MeiliQuery => ({
  indexUid: INDEX_A,
  q: '',
  filter: ['status = "PUBLISHED"'],
  matchingStrategy: 'all',
  ...fields,
});
const catalogueCount = query({ page: 1, hitsPerPage: 0 });
const brandCounts = query({ page: 1, hitsPerPage: 0, facets: ['brandId'], filter: ['status = "PUBLISHED"', 'inStock = true'] });
const readingCount = query({ q: 'shirt ', limit: 0 });
const page = query({ q: 'shirt', page: 1, hitsPerPage: 24, facets: ['brandId'] });

/** A stand-in for Meilisearch that answers each query with a running number, and records what it was sent. */
function countingRunner(): { run: MeiliRunner; sent: MeiliQuery[][]; missing: { index: boolean } } {
  const sent: MeiliQuery[][] = [];
  const missing = { index: false };
  let answered = 0;
  const run: MeiliRunner = async (queries) => {
    sent.push(queries);
    if (missing.index) return undefined;
    return queries.map((q): QueryResult => {
      answered += 1;
      return { hits: q.limit === 0 || q.hitsPerPage === 0 ? [] : [{ id: `p${answered}` }], totalHits: answered, facetDistribution: {} };
    });
  };
  return { run, sent, missing };
}

describe('count cache: answers to queries asking for no products', () => {
  it('answers a repeated count from the cache and sends only what is not cached, in order', async () => {
    const { run, sent } = countingRunner();
    const cache = new ResultCache<QueryResult>({ maxBytes: 1 << 20, ttlMs: 60_000 });
    const cached = withCountCache(run, cache, () => true);

    const first = await cached([page, catalogueCount, brandCounts]);
    expect(first!.map((r) => r.totalHits)).to.deep.equal([1, 2, 3]);
    const second = await cached([page, catalogueCount, readingCount, brandCounts]);
    // The page is asked again (it holds products); the two counts come from the first answer.
    expect(sent[1]).to.deep.equal([page, readingCount]);
    expect(second!.map((r) => r.totalHits)).to.deep.equal([4, 2, 5, 3]);
    expect(second![1]).to.equal(first![1]);
  });

  it('sends nothing when every query is cached', async () => {
    const { run, sent } = countingRunner();
    const cached = withCountCache(run, new ResultCache<QueryResult>({ maxBytes: 1 << 20, ttlMs: 60_000 }), () => true);
    await cached([catalogueCount, readingCount]);
    const again = await cached([readingCount, catalogueCount]);
    expect(sent).to.have.length(1);
    expect(again!.map((r) => r.totalHits)).to.deep.equal([2, 1]);
  });

  it('keys a count by everything it asks: other filters, words or facets are other questions', async () => {
    const { run, sent } = countingRunner();
    const cached = withCountCache(run, new ResultCache<QueryResult>({ maxBytes: 1 << 20, ttlMs: 60_000 }), () => true);
    await cached([catalogueCount]);
    const others = [
      query({ page: 1, hitsPerPage: 0, filter: ['status = "PUBLISHED"', 'brandId = "b1"'] }),
      query({ page: 1, hitsPerPage: 0, q: 'shirt' }),
      query({ page: 1, hitsPerPage: 0, facets: ['brandId'] }),
      { ...catalogueCount, indexUid: INDEX_B },
    ];
    await cached(others);
    expect(sent[1]).to.deep.equal(others);
  });

  it("drops a store's counts when its index changes, and keeps the other stores'", async () => {
    const { run, sent } = countingRunner();
    const cache = new ResultCache<QueryResult>({ maxBytes: 1 << 20, ttlMs: 60_000 });
    const cached = withCountCache(run, cache, () => true);
    const otherStore = { ...catalogueCount, indexUid: INDEX_B };
    await cached([catalogueCount, otherStore]);
    cache.invalidateStore(INDEX_A);
    await cached([catalogueCount, otherStore]);
    expect(sent[1]).to.deep.equal([catalogueCount]);
  });

  it("keeps no count whose store's index changed while it was being asked", async () => {
    const cache = new ResultCache<QueryResult>({ maxBytes: 1 << 20, ttlMs: 60_000 });
    let answer: (() => void) | undefined;
    const slow: MeiliRunner = (queries) =>
      new Promise((resolve) => (answer = () => resolve(queries.map(() => ({ hits: [], totalHits: 1 })))));
    const cached = withCountCache(slow, cache, () => true);
    const asked = cached([catalogueCount]);
    cache.invalidateStore(INDEX_A);
    answer!();
    expect((await asked)![0]!.totalHits).to.equal(1);
    expect(cache.size).to.equal(0);
  });

  it('neither reads nor keeps counts while the cache is not live', async () => {
    const { run, sent } = countingRunner();
    const cache = new ResultCache<QueryResult>({ maxBytes: 1 << 20, ttlMs: 60_000 });
    let live = false;
    const cached = withCountCache(run, cache, () => live);
    await cached([catalogueCount]);
    expect(cache.size).to.equal(0);
    live = true;
    await cached([catalogueCount]);
    live = false;
    await cached([catalogueCount]);
    expect(sent).to.have.length(3);
  });

  it('keeps nothing when the store has no index yet', async () => {
    const { run, missing } = countingRunner();
    const cache = new ResultCache<QueryResult>({ maxBytes: 1 << 20, ttlMs: 60_000 });
    missing.index = true;
    expect(await withCountCache(run, cache, () => true)([catalogueCount, page])).to.equal(undefined);
    expect(cache.size).to.equal(0);
  });
});
