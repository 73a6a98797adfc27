/**
 * Counts the run step completes itself (search/public-search-run.ts): the exact total of a search
 * matching more products than Meilisearch counts exhaustively (exactTotal), and the price bucket
 * counts summed from the price distribution instead of one query per bucket (runPlan).
 */
import { expect } from 'chai';
import { exactTotal, runPlan, type MeiliRunner } from '../../search/public-search-run';
import { MAX_TOTAL_HITS } from '../../search/index-settings';
import { buildSearchPlan } from '../../search/public-search-request';

describe('exact totals beyond the exhaustive count', () => {
  const plan = buildSearchPlan({ storeId: '01a2188f-59ea-7006-a63f-d20e9517d139', page: 1, perPage: 24, sort: 'newest' }, []);
  const main = (totalHits: number) => ({ hits: [{ id: 'a' }], totalHits });

  it('asks for the exact count once the bound is reached, without sort, fields or hits', async () => {
    const sent: unknown[] = [];
    const run: MeiliRunner = async (queries) => {
      sent.push(...queries);
      return [{ hits: [], totalHits: MAX_TOTAL_HITS, facetDistribution: { status: { PUBLISHED: 53_210 } } }];
    };
    const results = await exactTotal(plan, [main(MAX_TOTAL_HITS)], run);
    expect(results![0]).to.deep.include({ totalHits: 53_210, hits: [{ id: 'a' }] });
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
    expect((await exactTotal(plan, [main(9_999)], run))![0]!.totalHits).to.equal(9_999);
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
});
