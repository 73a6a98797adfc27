/**
 * A search matching more products than Meilisearch counts exhaustively (MAX_TOTAL_HITS) answers the
 * exact total from the distribution of `status` (search/public-search-run.ts exactTotal).
 */
import { expect } from 'chai';
import { exactTotal, type MeiliRunner } from '../../search/public-search-run';
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
