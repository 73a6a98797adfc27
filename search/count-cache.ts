/**
 * The answers to queries that ask Meilisearch for no products (counts and facet distributions),
 * kept per store so that the next search asking the same question does not ask it again
 * (docs/search.md, "Requests to Meilisearch per search").
 *
 * A search's count queries often depend on its filters alone: what the filters allow (the
 * catalogue count), and the disjunctive counts of a selected facet group when the search has no
 * words (a category page's brand counts with its colour selected). Shoppers who search different
 * words under the same filters, or browse the same category pages, ask those again and again; the
 * whole-answer cache and the facet snapshots cannot help, since the words, page or sort differ.
 * A query is kept under its exact text (index, words, filters, facets: everything its answer depends
 * on), in a cache of its own, dropped with the store's answers the moment the indexer announces a
 * change of the store (and not kept when that happened while it was being asked), and after the same TTL.
 */
import type { QueryResult } from './facet-snapshot';
import type { MeiliQuery } from './public-search-request';
import { jsonLength } from './public-search-cache';
import type { MeiliRunner } from './public-search-run';
import { cacheStamp, type ResultCache } from './result-cache';

/** A query whose answer holds no products: its totals and facets only. */
export const asksNoProducts = (query: MeiliQuery): boolean => query.hitsPerPage === 0 || query.limit === 0;

/**
 * `run`, answering the queries that ask for no products from `cache` while `live()` (else as `run`
 * alone); the others, and those not cached yet, are sent together in one request (none when every
 * query is cached), and the new counts are kept. The cache is grouped by index uid.
 */
export function withCountCache(run: MeiliRunner, cache: ResultCache<QueryResult>, live: () => boolean): MeiliRunner {
  return async (queries) => {
    if (!live()) return run(queries);
    const results = new Array<QueryResult>(queries.length);
    const keys = new Array<string | undefined>(queries.length);
    const missing: number[] = [];
    for (let i = 0; i < queries.length; i += 1) {
      const query = queries[i]!;
      const key = asksNoProducts(query) ? JSON.stringify(query) : undefined;
      const cached = key === undefined ? undefined : cache.get(key);
      if (cached) results[i] = cached;
      else {
        keys[i] = key;
        missing.push(i);
      }
    }
    if (missing.length === 0) return results;
    const since = cacheStamp();
    const sent = await run(missing.length === queries.length ? queries : missing.map((i) => queries[i]!));
    if (!sent) return undefined;
    missing.forEach((at, k) => {
      const result = sent[k]!;
      results[at] = result;
      const key = keys[at];
      // Kept as it came: the pipeline only reads results (the facet snapshots keep them the same way).
      if (key !== undefined && live())
        cache.set(queries[at]!.indexUid, key, result, key.length * 2 + jsonLength(result) * 2 + 200, { since });
    });
    return results;
  };
}
