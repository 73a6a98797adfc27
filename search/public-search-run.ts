/**
 * Public search, step 3 of 5: run (search/public-search.ts wires the steps; docs/search.md,
 * "Public search pipeline").
 *
 * Takes the planned attempts (public-search-plan.ts) and a way to send queries to Meilisearch
 * (meiliRunner); sends them in order: the hits-only request of a snapshot, else the strict attempt;
 * when the strict attempt finds less than a page, one more request asks about every looser reading
 * of the words (loose-query.ts):
 * - some matched every word: the first page of each reading keeping most of the query, the count of
 *   the others (their pages follow only when places are left); the full matches stay first, and a
 *   first page in relevance order is filled with the best partial matches after them;
 * - nothing matched every word: each reading's count alone (no products: the cheapest question);
 *   the best reading that finds something answers (its plan is run in full: facets, counts, paging),
 *   and when it finds less than a page, the next readings' first products come in the same request
 *   to fill it.
 * So a search costs one request when a page matches strictly, two or three when it is filled, three
 * when only a looser reading answers. Hands on the plan that answered, its results in plan order, the
 * partial matches that fill the page, how the words matched and, for a full run, the reading to
 * remember in the next snapshot. Next: public-search-assemble.ts.
 */
import type { Logger } from 'pino';
import { ServiceUnavailableError } from '../lib/errors';
import { calmLog } from '../lib/calm-log';
import { assembleResults, type FacetSnapshot, type QueryResult } from './facet-snapshot';
import type { LooseReading } from './loose-query';
import { matchingOf, type Matching, type SearchAttempts } from './public-search-plan';
import { PRICE_CELL, type MeiliQuery, type SearchPlan } from './public-search-request';
import { bucketCountsFromCells } from './price-buckets';
import { MAX_TOTAL_HITS } from './index-settings';
import { MeiliResponseError, type SearchTransport } from './search-transport';

/** Sends queries as one multi-search; their results in query order, undefined when the store has no index yet. */
export type MeiliRunner = (queries: MeiliQuery[]) => Promise<QueryResult[] | undefined>;

export interface SearchRun {
  /** The plan whose results these are (the snapshot's, the strict or the winning looser one). */
  plan: SearchPlan;
  /** Undefined when the store has no index yet (nothing published). */
  results: QueryResult[] | undefined;
  matching: Matching;
  /** Products matching only some of the words, after the page's full matches (first page in relevance order). */
  partial: QueryResult['hits'];
  /** Present for a full run (not completed from a snapshot): the looser reading that answered, if any. */
  full?: { attempt: FacetSnapshot['attempt'] };
}

export const isIndexMissing = (error: unknown): boolean => error instanceof MeiliResponseError && error.code === 'index_not_found';

/**
 * The multi-search runner. `split()` says whether this run may send the main query and its count
 * queries as two concurrent requests (SearchEngineOptions.splitMaxInFlight).
 */
export function meiliRunner(client: SearchTransport, logger: Logger, split: () => boolean): MeiliRunner {
  return async (queries) => {
    try {
      if (!(queries.length > 1 && split())) return (await client.multiSearch<QueryResult>({ queries })).results;
      const [main, counts] = await Promise.all([
        client.multiSearch<QueryResult>({ queries: queries.slice(0, 1) }),
        client.multiSearch<QueryResult>({ queries: queries.slice(1) }),
      ]);
      return [...main.results, ...counts.results];
    } catch (error) {
      if (isIndexMissing(error)) return undefined;
      calmLog(logger).warn('search', error, {}, 'search: Meilisearch request failed');
      throw new ServiceUnavailableError('Search is temporarily unavailable; try again shortly.', 2);
    }
  };
}

const found = (result: QueryResult): number => result.estimatedTotalHits ?? result.totalHits ?? result.hits.length;

export async function runSearch(attempts: SearchAttempts, run: MeiliRunner): Promise<SearchRun> {
  // Another page or sort of a search answered before: its counts are known, only the hits are read.
  const fromSnapshot = attempts.fromSnapshot;
  if (fromSnapshot) {
    const { plan, snapshot, request, matching } = fromSnapshot;
    const fetched = request.queries.length ? await run(request.queries) : [];
    if (fetched)
      return { plan, results: assembleResults(plan, snapshot, { roles: request.roles, results: fetched }), matching, partial: [] };
  }

  const strict = attempts.strict();
  const results = await exactTotal(strict, await runPlan(strict, run), run);
  const main = results?.[0];
  const strictAnswer = (partial: QueryResult['hits'] = []): SearchRun => ({
    plan: strict,
    results,
    matching: { ...attempts.strictMatching, partialMatches: partial.length },
    partial,
    full: { attempt: undefined },
  });
  const strictFound = main?.totalHits ?? 0;
  const perPage = main ? (strict.queries[0]!.hitsPerPage ?? 0) : 0;
  if (!main || strictFound >= perPage) return strictAnswer();
  // What the filters alone allow, when the strict attempt counted it: nothing looser can find more.
  const counted = results![strict.roles.findIndex((r) => r.kind === 'catalogue')]?.totalHits;
  if (counted !== undefined && counted <= strictFound) return strictAnswer();
  const loose = attempts.loose();
  if ((strictFound > 0 && !loose.fills) || loose.readings.length === 0) return strictAnswer();
  // With the readings, what the filters alone allow when the strict attempt did not count it.
  const withCatalogue = (queries: MeiliQuery[]): MeiliQuery[] =>
    counted === undefined && loose.catalogue ? [...queries, loose.catalogue] : queries;
  const rank = (probed: QueryResult[]): Answering[] => {
    const catalogue = counted ?? probed[loose.readings.length]?.totalHits;
    return answeringReadings(loose.readings, probed, catalogue);
  };

  if (strictFound > 0) {
    // The readings keeping most of the query (the first ones: readings come best first) ask a whole
    // page each: the full matches contain every reading's words, so they may come first among a
    // reading's products and take places the partial ones would fill. The others are only counted,
    // and asked for their products in one more request only when places are left.
    const top = loose.readings[0]!.score;
    const probed = await run(withCatalogue(loose.readings.map((r) => (r.score === top ? loose.pageOf(r) : loose.countOf(r)))));
    if (!probed) return strictAnswer();
    const answering = rank(probed);
    let partial = partialMatches(main.hits, answering, perPage);
    const unread = pageFillers(
      answering.filter((r) => r.reading.score !== top),
      perPage,
    );
    if (main.hits.length + partial.length < perPage && unread.length) {
      const pages = await run(unread.map((r) => loose.pageOf(r.reading)));
      if (pages) {
        unread.forEach((r, k) => (r.result = pages[k]!));
        partial = partialMatches(main.hits, answering, perPage);
      }
    }
    return strictAnswer(partial);
  }

  // Nothing matched every word: the readings are counted, and the best one that finds something
  // answers, in full. When it finds less than a page, the next readings' first products come with
  // its full run to fill the page.
  const countedReadings = await run(withCatalogue(loose.readings.map(loose.countOf)));
  const answering = countedReadings ? rank(countedReadings) : [];
  const best = answering[0];
  if (!best) return strictAnswer();
  const plan = loose.planFor(best.reading);
  const fillers = loose.fills && found(best.result) < perPage ? pageFillers(answering.slice(1), perPage) : [];
  const bestResults = await exactTotal(
    plan,
    await runPlan(
      plan,
      run,
      fillers.map((r) => loose.pageOf(r.reading)),
    ),
    run,
  );
  const bestMain = bestResults?.[0];
  if (!bestResults || !bestMain) return strictAnswer();
  const filled = fillers.map((r, k) => ({ ...r, result: bestResults[plan.queries.length + k]! }));
  const partial = partialMatches(bestMain.hits, filled, perPage);
  const attempt = { strategy: best.reading.strategy, q: best.reading.q, dropped: best.reading.dropped, changed: best.reading.changed };
  return { plan, results: bestResults, matching: matchingOf(undefined, attempt, partial.length), partial, full: { attempt } };
}

interface Answering {
  reading: LooseReading;
  result: QueryResult;
}

/**
 * The readings whose pages can still add to a page, in order: up to the first that finds a page of
 * products alone (the page is full by the end of it, whatever the others find).
 */
function pageFillers(readings: Answering[], perPage: number): Answering[] {
  const full = readings.findIndex((r) => found(r.result) >= perPage);
  return full < 0 ? readings : readings.slice(0, full + 1);
}

/**
 * The readings that found something, best first: the readings keeping most of the query; among
 * equals, the one finding more products (the more common reading of the words). A reading with words
 * left out that finds most of what the filters allow says nothing about the query ("yoga care" →
 * every product with care instructions).
 */
function answeringReadings(readings: LooseReading[], probed: QueryResult[], catalogue: number | undefined): Answering[] {
  return readings
    .map((reading, i) => ({ reading, result: probed[i]! }))
    .filter((r) => found(r.result) > 0 && !tooBroad(r.reading, found(r.result), catalogue))
    .sort((a, b) => b.reading.score - a.reading.score || found(b.result) - found(a.result));
}

/** A reading is too broad when it drops words and finds more than this share of a catalogue of at least BROAD_MIN_CATALOGUE products. */
export const BROAD_SHARE = 0.5;
const BROAD_MIN_CATALOGUE = 10;
const tooBroad = (reading: LooseReading, matches: number, catalogue: number | undefined): boolean =>
  reading.dropped.length > 0 && catalogue !== undefined && catalogue >= BROAD_MIN_CATALOGUE && matches > catalogue * BROAD_SHARE;

/**
 * A plan's results in plan order. The price bucket counts are not asked for when a distribution that
 * comes with the facets anyway holds every matching product: the price cells' (at most 49 values,
 * asked where the buckets' bounds allow: plan.bucketCells), else the prices' (complete up to
 * MAX_VALUES_PER_FACET distinct prices) — each bucket's count is then summed from it; only
 * otherwise (an index whose documents predate the cells, a merchant's own bounds over many prices)
 * do the bucket count queries follow, in a second request. `extra` queries ride along in the first
 * request; their results follow the plan's.
 */
export async function runPlan(plan: SearchPlan, run: MeiliRunner, extra: MeiliQuery[] = []): Promise<QueryResult[] | undefined> {
  const buckets = plan.roles.flatMap((role, i) => (role.kind === 'priceBucket' ? [i] : []));
  if (buckets.length === 0) return run(extra.length ? [...plan.queries, ...extra] : plan.queries);
  const others = plan.roles.flatMap((role, i) => (role.kind === 'priceBucket' ? [] : [i]));
  const sent = await run([...others.map((i) => plan.queries[i]!), ...extra]);
  if (!sent) return undefined;
  const results: QueryResult[] = new Array<QueryResult>(plan.queries.length);
  others.forEach((at, k) => (results[at] = sent[k]!));
  extra.forEach((_, k) => (results[plan.queries.length + k] = sent[others.length + k]!));
  const counts = bucketCountsFromDistribution(plan, results);
  if (counts) {
    buckets.forEach((at, k) => (results[at] = { hits: [], totalHits: counts[k]! }));
    return results;
  }
  const counted = await run(buckets.map((i) => plan.queries[i]!));
  if (!counted) return undefined;
  buckets.forEach((at, k) => (results[at] = counted[k]!));
  return results;
}

/**
 * Each price bucket's count from the price distribution the bucket counts would filter by (the
 * price group's own count query when a price range is selected, else the main query), or undefined
 * when that distribution does not hold every match.
 */
function bucketCountsFromDistribution(plan: SearchPlan, results: QueryResult[]): number[] | undefined {
  const group = plan.groups.get('price');
  const buckets = plan.priceBuckets;
  if (!group || !buckets) return undefined;
  const own = plan.roles.findIndex((r) => r.kind === 'facet' && r.group === 'price');
  const source = results[own >= 0 ? own : 0];
  if (source && (source.totalHits ?? 0) === 0) return buckets.map(() => 0);
  const cells = plan.bucketCells ? source?.facetDistribution?.[PRICE_CELL] : undefined;
  if (cells && sumOf(cells) === source!.totalHits) return bucketCountsFromCells(buckets, cells);
  const distribution = source?.facetDistribution?.[group.attribute];
  if (!source || !distribution) return undefined;
  const counts = buckets.map(() => 0);
  let seen = 0;
  for (const [value, count] of Object.entries(distribution)) {
    seen += count;
    const price = Number(value);
    const at = buckets.findIndex((b) => price >= b.min && (b.max === null || price < b.max));
    if (at >= 0) counts[at]! += count;
  }
  return seen === source.totalHits ? counts : undefined;
}

const sumOf = (counts: Record<string, number>): number => {
  let sum = 0;
  for (const value in counts) sum += counts[value]!;
  return sum;
};

/**
 * Meilisearch counts matches exhaustively only up to the index's `maxTotalHits` (MAX_TOTAL_HITS,
 * enough for page 100 of 60). A search reaching that bound (an empty or broad search of a large
 * store) asks once more for the exact count: the distribution of `status`, which every matching
 * document has (the filter keeps published ones) and which Meilisearch counts over all of them.
 */
export async function exactTotal(
  plan: SearchPlan,
  results: QueryResult[] | undefined,
  run: MeiliRunner,
): Promise<QueryResult[] | undefined> {
  const main = results?.[0];
  if (!results || !main || (main.totalHits ?? 0) < MAX_TOTAL_HITS) return results;
  const { sort: _sort, attributesToRetrieve: _fields, ...query } = plan.queries[0]!;
  const counted = await run([{ ...query, page: 1, hitsPerPage: 0, facets: ['status'] }]);
  const exact = counted?.[0]?.facetDistribution?.status?.PUBLISHED;
  return exact === undefined ? results : [{ ...main, totalHits: Math.max(exact, main.totalHits ?? 0) }, ...results.slice(1)];
}

/**
 * The products of the looser readings (best reading first, each in its own relevance order) that are
 * not already on the page, up to a page in all.
 */
function partialMatches(
  onPage: QueryResult['hits'],
  readings: Array<{ reading: LooseReading; result: QueryResult }>,
  perPage: number,
): QueryResult['hits'] {
  const seen = new Set(onPage.map((hit) => hit.id));
  const partial: QueryResult['hits'] = [];
  for (const { result } of readings)
    for (const hit of result.hits) {
      if (seen.size >= perPage) return partial;
      if (seen.has(hit.id)) continue;
      seen.add(hit.id);
      partial.push(hit);
    }
  return partial;
}
