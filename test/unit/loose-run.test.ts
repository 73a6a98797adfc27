/**
 * What the run step asks Meilisearch for the looser readings of a query (search/public-search-run.ts),
 * against a small in-memory stand-in that matches whole title words: counts alone when nothing
 * matched every word, pages only for the readings that can fill a page, the next readings' pages
 * riding with the full run of the reading that answers, and the answers those requests lead to.
 */
import { expect } from 'chai';
import { runSearch, type MeiliRunner } from '../../search/public-search-run';
import { planSearch } from '../../search/public-search-plan';
import { parseSearch } from '../../search/public-search-parse';
import type { PublicSearchParams } from '../../search/public-search-request';
import type { StoreProfile } from '../../search/store-profile';
import type { QueryResult } from '../../search/facet-snapshot';

const STORE = '01a2188f-59ea-7006-a63f-d20e9517d139';
type Query = Record<string, unknown>;

/** Products whose titles hold every word of a query (quotes and the trailing space ignored), in catalogue order. */
function catalogueRunner(titles: string[]): { run: MeiliRunner; requests: Query[][] } {
  const docs = titles.map((title, i) => ({ id: `p${i + 1}`, title, words: title.toLowerCase().split(/\s+/) }));
  const requests: Query[][] = [];
  const answer = (query: Query): QueryResult => {
    const words = String(query.q).replace(/"/g, '').trim().split(/\s+/).filter(Boolean);
    const matches = docs.filter((doc) => words.every((w) => doc.words.includes(w)));
    const hits = matches.map(({ id, title }) => ({ id, title }));
    if (query.limit !== undefined) return { hits: hits.slice(0, query.limit as number), estimatedTotalHits: matches.length };
    const perPage = query.hitsPerPage as number;
    const from = ((query.page as number) - 1) * perPage;
    return { hits: hits.slice(from, from + perPage), totalHits: matches.length, facetDistribution: {} };
  };
  return {
    requests,
    run: async (queries) => {
      requests.push(queries as unknown as Query[]);
      return (queries as unknown as Query[]).map(answer);
    },
  };
}

const profile = { id: STORE, facets: [], priceBuckets: [], sponsored: [] } as unknown as StoreProfile;
const search = (titles: string[], q: string, perPage = 24): { ran: ReturnType<typeof runSearch>; requests: Query[][] } => {
  const { run, requests } = catalogueRunner(titles);
  const params: PublicSearchParams = { storeId: STORE, q, page: 1, perPage, sort: 'relevance' };
  return { ran: runSearch(planSearch(parseSearch(params, true), profile, undefined), run), requests };
};
const ids = (hits: QueryResult['hits']): unknown[] => hits.map((hit) => hit.id);

describe('looser readings: what the run step asks', () => {
  // "red cotton shirt": dropping "red" or "cotton" keeps as much of the query (the product word
  // "shirt" weighs most); dropping "shirt" keeps less.
  const catalogue = ['cotton shirt', 'cotton shirt', 'red shirt', 'red shirt', 'red shirt', 'red cotton scarf', 'blue linen dress'];

  it('counts the readings alone when nothing matches every word, then runs the best in full with the pages that fill it', async () => {
    const { ran, requests } = search(catalogue, 'red cotton shirt');
    const result = await ran;
    expect(requests).to.have.length(3);
    const [, counts, full] = requests;
    // The readings, best first, counted: no products, order or fields asked; then the catalogue.
    expect(counts!.map((q) => q.q)).to.deep.equal(['cotton shirt ', '"red" shirt ', '"red" cotton ', '']);
    for (const query of counts!.slice(0, 3)) {
      expect(query).to.include({ limit: 0, matchingStrategy: 'all' });
      expect(query).to.not.have.any.keys('sort', 'attributesToRetrieve', 'facets', 'page', 'hitsPerPage');
    }
    // "red shirt" finds more than "cotton shirt" (equal scores): it answers, in full; it finds less
    // than a page, so the next readings' first pages come in the same request.
    expect(full![0]).to.include({ q: '"red" shirt ', page: 1, hitsPerPage: 24 });
    expect(full!.slice(1).map((q) => [q.q, q.limit])).to.deep.equal([
      ['cotton shirt ', 24],
      ['"red" cotton ', 24],
    ]);
    expect(result.matching).to.deep.include({ strategy: 'fewer_words', q: 'red shirt', dropped: ['cotton'], partialMatches: 3 });
    expect(ids(result.results![0]!.hits)).to.deep.equal(['p3', 'p4', 'p5']);
    expect(ids(result.partial)).to.deep.equal(['p1', 'p2', 'p6']);
  });

  it('asks no pages with the full run when the reading that answers fills the page alone', async () => {
    const { ran, requests } = search(catalogue, 'red cotton shirt', 2);
    const result = await ran;
    expect(requests).to.have.length(3);
    expect(requests[2]!).to.have.length(1);
    expect(ids(result.results![0]!.hits)).to.deep.equal(['p3', 'p4']);
    expect(result.partial).to.deep.equal([]);
  });

  it('asks the pages of the next readings only up to the first that finds a page alone', async () => {
    // "red cotton shirts": the singular "red cotton shirt" answers (one product, less than a page of
    // 3); "red shirt" finds a page alone, so "cotton shirt" and "red cotton" after it cannot add to it.
    const titles = ['red cotton shirt', 'red shirt', 'red shirt', 'red shirt', 'red shirt', 'cotton shirt', 'red cotton scarf'];
    const { ran, requests } = search(titles, 'red cotton shirts', 3);
    const result = await ran;
    expect(requests).to.have.length(3);
    expect(result.matching).to.deep.include({ strategy: 'word_forms', q: 'red cotton shirt' });
    expect(requests[2]!.map((q) => [q.q, q.limit])).to.deep.equal([
      ['"red" cotton shirt ', undefined],
      ['"red" shirt ', 3],
    ]);
    expect(ids(result.results![0]!.hits)).to.deep.equal(['p1']);
    expect(ids(result.partial)).to.deep.equal(['p2', 'p3']);
  });

  it('asks nothing more when no reading finds anything', async () => {
    const { ran, requests } = search(catalogue, 'green wool shirtx');
    const result = await ran;
    expect(requests).to.have.length(2);
    expect(result.matching.strategy).to.equal('strict');
    expect(result.results![0]!.totalHits).to.equal(0);
  });

  describe('a first page with fewer full matches than it holds', () => {
    const withFull = ['red cotton shirt', ...catalogue];

    it('asks pages of the best-kept readings and counts of the others, then pages of those only while places are left', async () => {
      const { ran, requests } = search(withFull, 'red cotton shirt');
      const result = await ran;
      expect(requests).to.have.length(3);
      const probes = requests[1]!;
      expect(probes.map((q) => [q.q, q.limit])).to.deep.equal([
        ['cotton shirt ', 24],
        ['"red" shirt ', 24],
        ['"red" cotton ', 0],
        ['', undefined],
      ]);
      expect(requests[2]!.map((q) => [q.q, q.limit])).to.deep.equal([['"red" cotton ', 24]]);
      // The full match first, then "red shirt" (finds more), "cotton shirt", "red cotton".
      expect(ids(result.results![0]!.hits)).to.deep.equal(['p1']);
      expect(ids(result.partial)).to.deep.equal(['p4', 'p5', 'p6', 'p2', 'p3', 'p7']);
      expect(result.matching).to.deep.include({ strategy: 'strict', partialMatches: 6 });
    });

    it('sends no third request when the best-kept readings fill the page', async () => {
      const { ran, requests } = search(withFull, 'red cotton shirt', 4);
      const result = await ran;
      expect(requests).to.have.length(2);
      expect(ids(result.partial)).to.deep.equal(['p4', 'p5', 'p6']);
    });
  });
});
