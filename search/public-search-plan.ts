/**
 * Public search, step 2 of 5: plan (search/public-search.ts wires the steps; docs/search.md,
 * "Public search pipeline").
 *
 * Takes the parsed search (public-search-parse.ts), the store's profile and the facet snapshot of
 * the same words and filters if one is cached; hands on everything the run step may send: the
 * hits-only request completing a snapshot, the strict attempt, and the looser attempts
 * (loose-query.ts; planned only when the run asks, after the strict attempt found nothing) with
 * their full plans and count-only probes, plus the sponsored candidates and slots the assemble step
 * fills. Each attempt's Meilisearch queries come
 * from public-search-request.ts. Next: public-search-run.ts.
 */
import { hitsRequest, type FacetSnapshot } from './facet-snapshot';
import { looseAttempts, type LooseAttempt, type LooseStrategy } from './loose-query';
import type { ParsedSearch } from './public-search-parse';
import { buildSearchPlan, type MatchingStrategy, type MeiliQuery, type SearchPlan } from './public-search-request';
import { sponsoredFor, type StoreProfile } from './store-profile';

/** How the results were matched: strictly, or by a looser rewrite of the query (then `q` is what matched). */
export interface Matching {
  strategy: 'strict' | LooseStrategy;
  q: string | null;
}

export interface SponsoredCandidate {
  listingId: string;
  productId: string;
}

/** A looser form of the words, planned. */
export interface LooseAttemptPlan {
  attempt: LooseAttempt;
  /** The full plan (facets, counts, sponsored candidates) with the looser words. */
  plan: SearchPlan;
  /** One query that only asks whether the looser words find anything (limit 1, no facets). */
  probe: MeiliQuery;
}

export interface SearchAttempts {
  /** Another page or sort of a search answered before: only its hits are read (absent: no usable snapshot). */
  fromSnapshot?: {
    plan: SearchPlan;
    snapshot: FacetSnapshot;
    request: { queries: MeiliQuery[]; roles: number[] };
    matching: Matching;
  };
  /**
   * Every word required, with a count of what the filters alone match (see RequestOptions.filtersOnlyCount).
   * Planned when the run asks: a search completed from a snapshot never needs it.
   */
  strict: () => SearchPlan;
  strictMatching: Matching;
  /**
   * Tried in order when the strict attempt finds nothing (none without words). Planned only when
   * asked: most searches find something strictly, and a plan per looser form would be wasted work.
   */
  loose: () => LooseAttemptPlan[];
  /** Sponsored slots of this page (first page only) and the candidates for them, in priority order. */
  sponsored: { slots: number; candidates: SponsoredCandidate[] };
}

/** One sponsored slot per started eight organic results of the first page (so 3 on a page of 24). */
export const SPONSORED_SHARE = 8;
export const sponsoredSlots = (perPage: number): number => Math.floor(perPage / SPONSORED_SHARE);

export function planSearch(parsed: ParsedSearch, profile: StoreProfile, snapshot: FacetSnapshot | undefined): SearchAttempts {
  const { params, pricesShown } = parsed;
  const facets = profile.facets.filter((f) => pricesShown || f.key !== 'price');
  const slots = params.page === 1 ? sponsoredSlots(params.perPage) : 0;
  const candidates = slots > 0 ? sponsoredFor(profile, params.q ?? '', slots + params.perPage) : [];
  const sponsoredIds = candidates.map((c) => c.productId);
  const strictMatching: Matching = { strategy: 'strict', q: params.q?.trim() || null };
  const planFor = (attempt: { q: string; matchingStrategy: MatchingStrategy }): SearchPlan =>
    buildSearchPlan(params, facets, {
      priceBuckets: profile.priceBuckets,
      sponsoredIds,
      q: attempt.q,
      matchingStrategy: attempt.matchingStrategy,
    });

  let fromSnapshot: SearchAttempts['fromSnapshot'];
  if (snapshot) {
    const { attempt } = snapshot;
    const plan = attempt
      ? planFor(attempt)
      : buildSearchPlan(params, facets, { priceBuckets: profile.priceBuckets, sponsoredIds, filtersOnlyCount: true });
    const request = hitsRequest(plan, snapshot, params.page, params.perPage);
    if (request)
      fromSnapshot = { plan, snapshot, request, matching: attempt ? { strategy: attempt.strategy, q: attempt.q } : strictMatching };
  }

  const q = params.q?.trim() ?? '';
  return {
    fromSnapshot,
    strict: () => buildSearchPlan(params, facets, { priceBuckets: profile.priceBuckets, sponsoredIds, filtersOnlyCount: true }),
    strictMatching,
    loose: () => (q ? looseAttempts(q) : []).map((attempt) => ({ attempt, plan: planFor(attempt), probe: probeFor(parsed, attempt) })),
    sponsored: { slots, candidates },
  };
}

/** The main query of the looser words alone (no facets, no sort, no page): limit 1, ids only. */
function probeFor(parsed: ParsedSearch, attempt: LooseAttempt): MeiliQuery {
  const {
    page: _page,
    hitsPerPage: _hitsPerPage,
    sort: _sort,
    attributesToRetrieve: _fields,
    ...query
  } = buildSearchPlan(parsed.params, [], { q: attempt.q, matchingStrategy: attempt.matchingStrategy }).queries[0]!;
  return { ...query, limit: 1, attributesToRetrieve: ['id'] };
}
