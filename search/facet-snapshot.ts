/**
 * What a search's answer owes to its words and filters alone, kept so that the next page, another
 * sort or another page size of the same search asks Meilisearch for its hits only.
 *
 * The total, the facet counts (the main query's distribution and stats, the disjunctive counts of
 * selected groups, the price buckets) and how the words matched (strictly, or which looser form
 * answered) depend on the store, the locale, the words and the filters, never on page, perPage or
 * sort. A shopper who pages through results or re-sorts them repeats exactly those, so the search
 * engine keeps this snapshot per store next to its whole answers (same size bound, same TTL, dropped
 * with them when the store's index changes) and, on a hit, sends one query without facets that
 * reads just the page (offset/limit: no exhaustive count, the total is known), plus the sponsored
 * candidates on a first page.
 *
 * A leaf of the public search pipeline (docs/search.md, "Public search pipeline"): the plan step
 * reads a snapshot (hitsRequest), the run step completes its results from it (assembleResults), the
 * assemble step takes a new one (takeSnapshot); its key is made by the parse step (snapshotKey).
 */
import type { LooseReading } from './loose-query';
import type { MeiliQuery, QueryRole, SearchPlan } from './public-search-request';

export interface QueryResult {
  hits: Array<Record<string, unknown>>;
  totalHits?: number;
  /** Probes (limit, no page) count roughly; a count probe (limit 0) counts every match. */
  estimatedTotalHits?: number;
  facetDistribution?: Record<string, Record<string, number>>;
  facetStats?: Record<string, { min: number; max: number }>;
}

export interface FacetSnapshot {
  /** The looser reading that answered, or undefined for the strict pass. */
  attempt?: Pick<LooseReading, 'strategy' | 'q' | 'dropped' | 'changed'>;
  total: number;
  /** The main query's facets and stats. */
  main: Pick<QueryResult, 'facetDistribution' | 'facetStats'>;
  /** Results of the count queries by role key (`facet:<group>`, `priceBucket:<n>`, `catalogue`). */
  counts: Record<string, QueryResult>;
}

const roleKey = (role: QueryRole): string =>
  role.kind === 'facet' ? `facet:${role.group}` : role.kind === 'priceBucket' ? `priceBucket:${role.bucket}` : role.kind;

/** The snapshot of an answered plan (its results in plan order). */
export function takeSnapshot(plan: SearchPlan, results: QueryResult[], attempt: FacetSnapshot['attempt']): FacetSnapshot {
  const counts: Record<string, QueryResult> = {};
  plan.roles.forEach((role, i) => {
    if (role.kind === 'facet' || role.kind === 'priceBucket' || role.kind === 'catalogue')
      counts[roleKey(role)] = {
        hits: [],
        totalHits: results[i]!.totalHits,
        facetDistribution: results[i]!.facetDistribution,
        facetStats: results[i]!.facetStats,
      };
  });
  const main = results[0]!;
  return { attempt, total: main.totalHits ?? 0, main: { facetDistribution: main.facetDistribution, facetStats: main.facetStats }, counts };
}

/**
 * The queries that complete `plan` from `snapshot`: the page of the main query (no facets,
 * offset/limit) and the sponsored candidates. None when the snapshot says nothing matches; undefined
 * when the snapshot lacks a count the plan needs (then the plan runs in full).
 */
export function hitsRequest(
  plan: SearchPlan,
  snapshot: FacetSnapshot,
  page: number,
  perPage: number,
): { queries: MeiliQuery[]; roles: number[] } | undefined {
  const queries: MeiliQuery[] = [];
  const roles: number[] = [];
  for (let i = 0; i < plan.roles.length; i += 1) {
    const role = plan.roles[i]!;
    if (role.kind === 'main' || role.kind === 'sponsored') {
      if (snapshot.total === 0) continue;
      const { facets: _facets, page: _page, hitsPerPage: _hitsPerPage, ...query } = plan.queries[i]!;
      queries.push(
        role.kind === 'main'
          ? { ...query, offset: (page - 1) * perPage, limit: perPage }
          : { ...query, limit: plan.queries[i]!.hitsPerPage ?? 0 },
      );
      roles.push(i);
    } else if (!snapshot.counts[roleKey(role)]) return undefined;
  }
  return { queries, roles };
}

/** The plan's results in plan order: fetched hits where `hitsRequest` asked for them, the snapshot's counts elsewhere. */
export function assembleResults(
  plan: SearchPlan,
  snapshot: FacetSnapshot,
  fetched: { roles: number[]; results: QueryResult[] },
): QueryResult[] {
  return plan.roles.map((role, i) => {
    const at = fetched.roles.indexOf(i);
    const hits = at >= 0 ? (fetched.results[at]?.hits ?? []) : [];
    if (role.kind === 'main') return { hits, totalHits: snapshot.total, ...snapshot.main };
    if (role.kind === 'sponsored') return { hits, totalHits: hits.length };
    return snapshot.counts[roleKey(role)]!;
  });
}
