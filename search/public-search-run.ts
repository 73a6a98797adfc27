/**
 * Public search, step 3 of 5: run (search/public-search.ts wires the steps; docs/search.md,
 * "Public search pipeline").
 *
 * Takes the planned attempts (public-search-plan.ts) and a way to send queries to Meilisearch
 * (meiliRunner); sends them in order and stops at the first that answers: the hits-only request
 * of a snapshot, else the strict attempt, else (strict found nothing, but the filters alone do)
 * the looser attempts. Hands on the plan that answered, its results in plan order, how the words
 * matched and, for a full run, the looser attempt to remember in the next snapshot. Next:
 * public-search-assemble.ts.
 */
import type { Logger } from 'pino';
import { ServiceUnavailableError } from '../lib/errors';
import { calmLog } from '../lib/calm-log';
import { assembleResults, type FacetSnapshot, type QueryResult } from './facet-snapshot';
import type { LooseAttemptPlan, Matching, SearchAttempts } from './public-search-plan';
import type { MeiliQuery, SearchPlan } from './public-search-request';
import { MeiliResponseError, type SearchTransport } from './search-transport';

/** Sends queries as one multi-search; their results in query order, undefined when the store has no index yet. */
export type MeiliRunner = (queries: MeiliQuery[]) => Promise<QueryResult[] | undefined>;

export interface SearchRun {
  /** The plan whose results these are (the snapshot's, the strict or the winning looser one). */
  plan: SearchPlan;
  /** Undefined when the store has no index yet (nothing published). */
  results: QueryResult[] | undefined;
  matching: Matching;
  /** Present for a full run (not completed from a snapshot): the looser attempt that answered, if any. */
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

export async function runSearch(attempts: SearchAttempts, run: MeiliRunner): Promise<SearchRun> {
  // Another page or sort of a search answered before: its counts are known, only the hits are read.
  const fromSnapshot = attempts.fromSnapshot;
  if (fromSnapshot) {
    const { plan, snapshot, request, matching } = fromSnapshot;
    const fetched = request.queries.length ? await run(request.queries) : [];
    if (fetched) return { plan, results: assembleResults(plan, snapshot, { roles: request.roles, results: fetched }), matching };
  }

  const strict = attempts.strict();
  const results = await run(strict.queries);
  const filtersOnly = strict.roles.findIndex((r) => r.kind === 'filtersOnly');
  // Looser words cannot help where the filters alone match nothing.
  const filtersMatch = filtersOnly < 0 || (results?.[filtersOnly]?.totalHits ?? 0) > 0;
  const loose = results && filtersMatch && (results[0]!.totalHits ?? 0) === 0 ? attempts.loose() : [];
  const winner = loose.length > 0 ? await runLoose(loose, run) : undefined;
  if (winner) {
    const { attempt } = winner.loose;
    return {
      plan: winner.loose.plan,
      results: winner.results,
      matching: { strategy: attempt.strategy, q: attempt.q },
      full: { attempt: { strategy: attempt.strategy, q: attempt.q, matchingStrategy: attempt.matchingStrategy } },
    };
  }
  return { plan: strict, results, matching: attempts.strictMatching, full: { attempt: undefined } };
}

/** The first looser attempt that finds something, with its full results. */
async function runLoose(
  loose: LooseAttemptPlan[],
  run: MeiliRunner,
): Promise<{ loose: LooseAttemptPlan; results: QueryResult[] | undefined } | undefined> {
  if (loose.length === 1) {
    // A single looser form is run in full at once: a probe first would only add a request.
    const results = await run(loose[0]!.plan.queries);
    return (results?.[0]?.totalHits ?? 0) > 0 ? { loose: loose[0]!, results } : undefined;
  }
  // One request counts every looser form (count only, no facets); the first that finds something
  // is then run in full. So a query that finds nothing costs one request more, not one per form.
  const counted = await run(loose.map((l) => l.probe));
  const winner = loose.find((_, i) => (counted?.[i]?.hits.length ?? 0) > 0);
  return winner && { loose: winner, results: await run(winner.plan.queries) };
}
