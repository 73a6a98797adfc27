/**
 * Public search, step 2 of 5: plan (search/public-search.ts wires the steps; docs/search.md,
 * "Public search pipeline").
 *
 * Takes the parsed search (public-search-parse.ts), the store's profile and the facet snapshot of
 * the same words and filters if one is cached; hands on everything the run step may send: the
 * hits-only request completing a snapshot, the strict attempt (every word), and the looser readings
 * of the words (loose-query.ts; planned only when the run asks, after the strict attempt found less
 * than a page) as one request, with the plan to run in full for the reading chosen, plus the
 * sponsored candidates and slots the assemble step fills. Each attempt's Meilisearch queries come
 * from public-search-request.ts. Next: public-search-run.ts.
 */
import { hitsRequest, type FacetSnapshot } from './facet-snapshot';
import { looseReadings, type LooseReading, type LooseStrategy } from './loose-query';
import type { ParsedSearch } from './public-search-parse';
import { buildSearchPlan, looseWords, type MeiliQuery, type SearchPlan } from './public-search-request';
import { sponsoredFor, type StoreProfile } from './store-profile';

/**
 * How the results were matched: strictly (every word), or by a looser reading of the words (then `q`
 * is what matched, `dropped` the query's words it leaves out and `changed` the words it looks for in
 * another form). `partialMatches` counts the products after the full matches of a first page that
 * contain only some of the words (the page is filled with them when fewer than a page matches).
 */
export interface Matching {
  strategy: 'strict' | LooseStrategy;
  q: string | null;
  dropped: string[];
  changed: Array<{ from: string; to: string }>;
  partialMatches: number;
}

export interface SponsoredCandidate {
  listingId: string;
  productId: string;
}

/** The looser readings of the words, planned. */
export interface LoosePlan {
  readings: LooseReading[];
  /**
   * A reading's first page of products (result fields, no facets, no exhaustive count): what fills a
   * first page after fewer full matches than it holds, or after the reading that answers.
   */
  pageOf: (reading: LooseReading) => MeiliQuery;
  /**
   * How many products a reading finds, and nothing else: with no products asked, Meilisearch neither
   * ranks nor reads any (about a third of a page probe's cost), and its estimated total is the count
   * of every match (the same as an exhaustive count on every reading measured). Enough to choose the
   * reading that answers.
   */
  countOf: (reading: LooseReading) => MeiliQuery;
  /**
   * How many products the filters alone allow (no words), asked with the probes when the strict
   * attempt did not count it: a reading finding most of them is too broad to stand for the query.
   */
  catalogue?: MeiliQuery;
  /** The full plan (facets, counts, sponsored candidates) of a reading, when it answers alone. */
  planFor: (reading: LooseReading) => SearchPlan;
  /** Whether the first page may be filled with partial matches after fewer than a page of full ones. */
  fills: boolean;
}

export interface SearchAttempts {
  /** Another page or sort of a search answered before: only its hits are read (absent: no usable snapshot). */
  fromSnapshot?: {
    plan: SearchPlan;
    snapshot: FacetSnapshot;
    request: { queries: MeiliQuery[]; roles: number[] };
    matching: Matching;
  };
  /** Every word required. Planned when the run asks: a search completed from a snapshot never needs it. */
  strict: () => SearchPlan;
  strictMatching: Matching;
  /**
   * The looser readings, asked for when the strict attempt finds less than a page (none without
   * words). Planned only when asked: most searches find enough strictly.
   */
  loose: () => LoosePlan;
  /** Sponsored slots of this page (first page only) and the candidates for them, in priority order. */
  sponsored: { slots: number; candidates: SponsoredCandidate[] };
}

/** One sponsored slot per started eight organic results of the first page (so 3 on a page of 24). */
export const SPONSORED_SHARE = 8;
export const sponsoredSlots = (perPage: number): number => Math.floor(perPage / SPONSORED_SHARE);

/** The matching of a strict answer, or of the looser reading `reading`. */
export function matchingOf(
  q: string | undefined,
  reading?: Pick<LooseReading, 'strategy' | 'q' | 'dropped' | 'changed'>,
  partialMatches = 0,
): Matching {
  if (!reading) return { strategy: 'strict', q: q?.trim() || null, dropped: [], changed: [], partialMatches };
  return { strategy: reading.strategy, q: reading.q, dropped: reading.dropped, changed: reading.changed, partialMatches };
}

/**
 * Whether a first page with fewer full matches than `perPage` is filled with partial ones: only in
 * relevance order (a shopper who sorts by price wants the matching products in that order, not
 * weaker ones after them) and only on the first page (the later pages of a search keep the total of
 * its full matches).
 */
const fillsPage = (parsed: ParsedSearch): boolean => parsed.params.page === 1 && parsed.params.sort === 'relevance';

export function planSearch(parsed: ParsedSearch, profile: StoreProfile, snapshot: FacetSnapshot | undefined): SearchAttempts {
  const { params, pricesShown } = parsed;
  const facets = profile.facets.filter((f) => pricesShown || f.key !== 'price');
  const slots = params.page === 1 ? sponsoredSlots(params.perPage) : 0;
  const candidates = slots > 0 ? sponsoredFor(profile, params.q ?? '', slots + params.perPage) : [];
  const sponsoredIds = candidates.map((c) => c.productId);
  const q = params.q?.trim() ?? '';
  const strictMatching = matchingOf(q);
  const plan = (words?: string): SearchPlan =>
    buildSearchPlan(params, facets, { priceBuckets: profile.priceBuckets, sponsoredIds, ...(words === undefined ? {} : { q: words }) });

  let strictPlan: SearchPlan | undefined;
  const strict = (): SearchPlan =>
    (strictPlan ??= buildSearchPlan(params, facets, { priceBuckets: profile.priceBuckets, sponsoredIds, catalogueCount: true }));

  let fromSnapshot: SearchAttempts['fromSnapshot'];
  // A first page in relevance order that had fewer full matches than a page is filled again, so it
  // does not come from the snapshot (which keeps counts, not the partial matches).
  const refill = q !== '' && fillsPage(parsed) && snapshot !== undefined && snapshot.total < params.perPage;
  if (snapshot && !refill) {
    const { attempt } = snapshot;
    const answered = plan(attempt?.q);
    const request = hitsRequest(answered, snapshot, params.page, params.perPage);
    if (request) fromSnapshot = { plan: answered, snapshot, request, matching: attempt ? matchingOf(q, attempt) : strictMatching };
  }

  return {
    fromSnapshot,
    strict,
    strictMatching,
    loose: () => {
      const readings = q ? looseReadings(q) : [];
      // The strict plan's main query (built already: the readings are asked after it ran).
      const main = readings.length ? strict().queries[0]! : undefined;
      return {
        readings,
        pageOf: (reading) => probeFor(main!, reading, params.perPage),
        countOf: (reading) => countFor(main!, reading),
        ...(main ? { catalogue: catalogueFor(main) } : {}),
        planFor: (reading) => plan(reading.q),
        fills: fillsPage(parsed),
      };
    },
    sponsored: { slots, candidates },
  };
}

/** The main query without words: a count of what its filters allow. */
function catalogueFor(main: MeiliQuery): MeiliQuery {
  const { facets: _facets, sort: _sort, attributesToRetrieve: _fields, ...query } = main;
  return { ...query, q: '', page: 1, hitsPerPage: 0 };
}

/** The main query with a reading's words, counting its products only (its filters, no order, no fields, no products). */
function countFor(main: MeiliQuery, reading: LooseReading): MeiliQuery {
  const { page: _page, hitsPerPage: _hitsPerPage, facets: _facets, sort: _sort, attributesToRetrieve: _fields, ...query } = main;
  return { ...query, q: looseWords(reading.q), limit: 0 };
}

/** The main query with a reading's words: its first `limit` products with their result fields, no facets, no count. */
function probeFor(main: MeiliQuery, reading: LooseReading, limit: number): MeiliQuery {
  const { page: _page, hitsPerPage: _hitsPerPage, facets: _facets, ...query } = main;
  return { ...query, q: looseWords(reading.q), limit };
}
