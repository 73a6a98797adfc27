/**
 * Public search, step 5 of 5: cache (search/public-search.ts wires the steps; docs/search.md,
 * "Public search pipeline").
 *
 * Takes the parsed search (its keys, public-search-parse.ts) and the assembled answer with its
 * snapshot (public-search-assemble.ts); hands back the answer serialised, having kept it, and the
 * snapshot, in the engine's caches while they are live (the engine reads them before planning:
 * answers by `cacheKey`, snapshots by `snapshotKey`).
 */
import { RawJson } from '../lib/raw-json';
import type { FacetSnapshot } from './facet-snapshot';
import type { AssembledSearch } from './public-search-assemble';
import type { ParsedSearch } from './public-search-parse';
import type { ResultCache } from './result-cache';

export interface SearchCaches {
  answers: ResultCache<RawJson>;
  snapshots: ResultCache<FacetSnapshot>;
  /** False while invalidation messages cannot be received: nothing is put in the caches then. */
  live: boolean;
}

/** Rough size in bytes of a serialised answer, for the cache's bound. */
export const rawBytes = (raw: RawJson): number => raw.json.length * 2 + 200;

/** Rough size in bytes of a snapshot, for the cache's bound. */
export const snapshotBytes = (snapshot: FacetSnapshot): number => JSON.stringify(snapshot).length * 2 + 200;

export function cacheSearch(caches: SearchCaches, storeId: string, parsed: ParsedSearch, assembled: AssembledSearch): RawJson {
  const { answer, snapshot } = assembled;
  if (caches.live && snapshot) caches.snapshots.set(storeId, parsed.snapshotKey, snapshot, snapshotBytes(snapshot));
  // The facts travel with the cached answer: a repeat served from the cache is counted like the first.
  const raw = new RawJson(JSON.stringify(answer), answer.total, { looseMatch: answer.looseMatch, indexed: assembled.indexed });
  if (caches.live) caches.answers.set(storeId, parsed.cacheKey, raw, rawBytes(raw));
  return raw;
}
