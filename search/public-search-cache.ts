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
  /** The cache stamp taken when the search began: nothing is kept if its store changed since (result-cache.ts). */
  since: number;
}

/** Rough size in bytes of a serialised answer, for the cache's bound. */
export const rawBytes = (raw: RawJson): number => raw.json.length * 2 + 200;

/** Rough size in bytes of a snapshot, for the cache's bound (measured without serialising its facet counts). */
export const snapshotBytes = (snapshot: FacetSnapshot): number => jsonLength(snapshot) * 2 + 200;

/** Decimal digits of a whole number below 1e15 (enough for counts), else the length of its text. */
const numberLength = (n: number): number => {
  if (!Number.isInteger(n) || n < 0 || n >= 1e15) return String(n).length;
  let digits = 1;
  for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) digits += 1;
  return digits;
};

/**
 * The length of `JSON.stringify(value)` for plain data whose strings need no escapes (ids, names,
 * option pairs; an escaped character counts as one), without building the text: the snapshot's
 * facet counts can hold thousands of entries, and its size is needed on every cached search.
 */
export function jsonLength(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'number':
      return Number.isFinite(value) ? numberLength(value) : 4;
    case 'boolean':
      return value ? 4 : 5;
    case 'object': {
      if (value === null) return 4;
      if (Array.isArray(value)) {
        let length = 2 + Math.max(0, value.length - 1);
        for (const item of value) length += item === undefined || typeof item === 'function' ? 4 : jsonLength(item);
        return length;
      }
      let length = 2;
      let fields = 0;
      const keys = Object.keys(value);
      for (let i = 0; i < keys.length; i += 1) {
        const key = keys[i]!;
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
        length += key.length + 3 + jsonLength(item);
        fields += 1;
      }
      return length + Math.max(0, fields - 1);
    }
    default:
      return 0;
  }
}

export function cacheSearch(caches: SearchCaches, storeId: string, parsed: ParsedSearch, assembled: AssembledSearch): RawJson {
  const { answer, snapshot } = assembled;
  if (caches.live && snapshot)
    caches.snapshots.set(storeId, parsed.snapshotKey, snapshot, snapshotBytes(snapshot), { since: caches.since });
  // The facts travel with the cached answer: a repeat served from the cache is counted like the first.
  const raw = new RawJson(JSON.stringify(answer), answer.total, { looseMatch: answer.looseMatch, indexed: assembled.indexed });
  if (caches.live) caches.answers.set(storeId, parsed.cacheKey, raw, rawBytes(raw), { since: caches.since });
  return raw;
}
