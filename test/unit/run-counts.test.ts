/**
 * Counts the run step completes itself (search/public-search-run.ts): the exact total of a search
 * matching more products than Meilisearch counts exhaustively (exactTotal), and the price bucket
 * counts summed from the price distribution instead of one query per bucket (runPlan).
 */
import { expect } from 'chai';
import { exactTotal, runPlan, type MeiliRunner } from '../../search/public-search-run';
import { MAX_TOTAL_HITS } from '../../search/index-settings';
import { buildSearchPlan } from '../../search/public-search-request';
import type { QueryResult } from '../../search/facet-snapshot';

describe('exact totals beyond the exhaustive count', () => {
  const plan = buildSearchPlan({ storeId: '01a2188f-59ea-7006-a63f-d20e9517d139', page: 1, perPage: 24, sort: 'newest' }, []);
  const main = (totalHits: number) => ({ hits: [{ id: 'a' }], totalHits });

  it('asks for the exact count once the bound is reached, without sort, fields or hits', async () => {
    const sent: unknown[] = [];
    const run: MeiliRunner = async (queries) => {
      sent.push(...queries);
      return [{ hits: [], totalHits: MAX_TOTAL_HITS, facetDistribution: { status: { PUBLISHED: MAX_TOTAL_HITS + 53_210 } } }];
    };
    const results = await exactTotal(plan, [main(MAX_TOTAL_HITS)], run);
    expect(results![0]).to.deep.include({ totalHits: MAX_TOTAL_HITS + 53_210, hits: [{ id: 'a' }] });
    expect(sent).to.have.length(1);
    expect(sent[0]).to.deep.include({ page: 1, hitsPerPage: 0, facets: ['status'], filter: ['status = "PUBLISHED"'] });
    expect(sent[0]).to.not.have.any.keys('sort', 'attributesToRetrieve');
  });

  it('asks nothing below the bound, and keeps the bounded count when the exact one is missing', async () => {
    let calls = 0;
    const run: MeiliRunner = async () => {
      calls += 1;
      return [{ hits: [] }];
    };
    expect((await exactTotal(plan, [main(MAX_TOTAL_HITS - 1)], run))![0]!.totalHits).to.equal(MAX_TOTAL_HITS - 1);
    expect(calls).to.equal(0);
    expect((await exactTotal(plan, [main(MAX_TOTAL_HITS)], run))![0]!.totalHits).to.equal(MAX_TOTAL_HITS);
    expect(calls).to.equal(1);
    expect(await exactTotal(plan, undefined, run)).to.equal(undefined);
  });
});

describe('price bucket counts', () => {
  const buckets = [
    { min: 100, max: 500 },
    { min: 500, max: 1000 },
    { min: 1000, max: null },
  ];
  const facets = [{ key: 'price', label: 'Price', display: 'range' }];
  const params = { storeId: '01a2188f-59ea-7006-a63f-d20e9517d139', q: 'lamp', page: 1, perPage: 24, sort: 'relevance' as const };

  it('sums them from the price distribution when it holds every match: one request, no bucket queries', async () => {
    const plan = buildSearchPlan(params, facets, { priceBuckets: buckets });
    expect(plan.roles.filter((r) => r.kind === 'priceBucket')).to.have.length(3);
    const requests: unknown[][] = [];
    const run: MeiliRunner = async (queries) => {
      requests.push(queries);
      return [{ hits: [], totalHits: 6, facetDistribution: { price: { '138.99': 2, '499.99': 1, '500': 1, '7690.99': 2 } } }];
    };
    const results = await runPlan(plan, run);
    expect(requests).to.have.length(1);
    expect(requests[0]).to.have.length(1);
    expect(results!.slice(1).map((r) => r.totalHits)).to.deep.equal([3, 1, 2]);
  });

  it('asks the bucket queries when the distribution was cut short', async () => {
    const plan = buildSearchPlan(params, facets, { priceBuckets: buckets });
    const requests: unknown[][] = [];
    const run: MeiliRunner = async (queries) => {
      requests.push(queries);
      return requests.length === 1
        ? [{ hits: [], totalHits: 900, facetDistribution: { price: { '138.99': 200 } } }]
        : queries.map((_, i) => ({ hits: [], totalHits: 100 * (i + 1) }));
    };
    const results = await runPlan(plan, run);
    expect(requests.map((r) => r.length)).to.deep.equal([1, 3]);
    expect(results!.slice(1).map((r) => r.totalHits)).to.deep.equal([100, 200, 300]);
  });

  // Cells of the ladder of nice numbers (search/price-buckets.ts ladderCell): 100 ≤ price < 200 is
  // cell 17, 200–250 cell 18, 250–500 cell 19, 500–1,000 cell 20, 1,000–2,000 cell 21, 5,000–10,000 cell 24.
  it('sums them from the price cells when the bounds are on the ladder: one request even when the prices are too many to list', async () => {
    const plan = buildSearchPlan(params, facets, { priceBuckets: buckets });
    expect(plan.bucketCells).to.equal(true);
    expect(plan.queries[0]!.facets).to.deep.equal(['price', 'priceCell']);
    const requests: unknown[][] = [];
    const run: MeiliRunner = async (queries) => {
      requests.push(queries);
      return [
        {
          hits: [],
          totalHits: 900,
          facetDistribution: { price: { '138.99': 200 }, priceCell: { '17': 150, '18': 50, '19': 200, '20': 300, '21': 120, '24': 80 } },
        },
      ];
    };
    const results = await runPlan(plan, run);
    expect(requests.map((r) => r.length)).to.deep.equal([1]);
    expect(results!.slice(1).map((r) => r.totalHits)).to.deep.equal([400, 300, 200]);
  });

  it('asks the bucket queries when the cells do not hold every match (documents indexed before the cells)', async () => {
    const plan = buildSearchPlan(params, facets, { priceBuckets: buckets });
    const requests: unknown[][] = [];
    const run: MeiliRunner = async (queries) => {
      requests.push(queries);
      return requests.length === 1
        ? [{ hits: [], totalHits: 900, facetDistribution: { price: { '138.99': 200 }, priceCell: { '17': 150 } } }]
        : queries.map((_, i) => ({ hits: [], totalHits: 10 * (i + 1) }));
    };
    const results = await runPlan(plan, run);
    expect(requests.map((r) => r.length)).to.deep.equal([1, 3]);
    expect(results!.slice(1).map((r) => r.totalHits)).to.deep.equal([10, 20, 30]);
  });

  it("does not ask for the cells when a bound is off the ladder (a merchant's 75): a cell would straddle it", async () => {
    const own = [
      { min: 0, max: 75 },
      { min: 75, max: null },
    ];
    const plan = buildSearchPlan(params, facets, { priceBuckets: own });
    expect(plan.bucketCells).to.equal(false);
    expect(plan.queries[0]!.facets).to.deep.equal(['price']);
    const run: MeiliRunner = async (queries) =>
      queries.length === 1
        ? [{ hits: [], totalHits: 900, facetDistribution: { price: { '74.99': 100, '75': 800 } } }]
        : queries.map(() => ({ hits: [], totalHits: 0 }));
    const results = await runPlan(plan, run);
    expect(results!.slice(1).map((r) => r.totalHits)).to.deep.equal([100, 800]);
  });

  it("with a price range chosen, counts the buckets from the price facet's own query, which asks for the cells too", async () => {
    const plan = buildSearchPlan({ ...params, priceMin: 100, priceMax: 500 }, facets, { priceBuckets: buckets });
    const own = plan.roles.findIndex((r) => r.kind === 'facet' && r.group === 'price');
    expect(plan.queries[own]!.facets).to.deep.equal(['price', 'priceCell']);
    expect(plan.queries[0]!.facets ?? []).to.not.include('priceCell');
    const run: MeiliRunner = async (queries) =>
      queries.map((_, i): QueryResult =>
        i === own
          ? { hits: [], totalHits: 10, facetDistribution: { price: {}, priceCell: { '17': 4, '20': 6 } } }
          : { hits: [], totalHits: 4, facetDistribution: {} },
      );
    const results = await runPlan(plan, run);
    expect(plan.roles.flatMap((r, i) => (r.kind === 'priceBucket' ? [results![i]!.totalHits] : []))).to.deep.equal([4, 6, 0]);
  });
});
