/**
 * In-process cache of public search answers (and per-store profiles), per store, bounded by bytes,
 * least recently used out first. Entries also expire after a TTL, the backstop for what no event
 * announces (a sponsored listing reaching its end date) and for an invalidation message missed
 * while Redis was unreachable.
 *
 * Invalidation is per store: `invalidateStore` drops every entry of the store at once (entries are
 * grouped by store, so this costs the number of the store's entries, not a scan of the cache).
 *
 * A value computed while its store was invalidated (a search that asked Meilisearch just before the
 * indexer announced a change, and got its answer just after) must not be kept: it may predate the
 * change. So a computation takes a stamp first (`cacheStamp()`), and `set` with that stamp keeps
 * nothing when the store (or the whole cache) was invalidated since. One clock serves every cache of
 * the process, so a stamp is good for all of them.
 */
interface Entry<V> {
  storeId: string;
  key: string;
  value: V;
  bytes: number;
  expiresAt: number;
}

/** The process's invalidation clock: every invalidation moves it on. */
let clock = 0;

/** A stamp to take before computing a value to cache (see `set`'s `since`). */
export const cacheStamp = (): number => clock;

/** At most this many stores' last invalidations are remembered (the oldest forgotten first, see invalidateStore). */
const MAX_REMEMBERED_STORES = 10_000;

export interface SetOptions {
  /** The time it is now, in ms (tests pass their own). */
  now?: number;
  /** A shorter life than the cache's TTL. */
  ttlMs?: number;
  /** The stamp taken before the value was computed: nothing is kept when its store was invalidated since. */
  since?: number;
}

export interface ResultCacheOptions {
  maxBytes: number;
  ttlMs: number;
}

export class ResultCache<V> {
  /** Insertion order = recency order (a hit re-inserts), so the first key is the least recently used. */
  private readonly entries = new Map<string, Entry<V>>();
  private readonly byStore = new Map<string, Set<string>>();
  private bytes = 0;
  /** The clock at each store's last invalidation, and at the last clear. */
  private readonly invalidatedAt = new Map<string, number>();
  private clearedAt = 0;
  hits = 0;
  misses = 0;

  constructor(private readonly options: ResultCacheOptions) {}

  get size(): number {
    return this.entries.size;
  }

  get usedBytes(): number {
    return this.bytes;
  }

  get(key: string, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) {
      this.misses += 1;
      return undefined;
    }
    if (entry.expiresAt <= now) {
      this.remove(entry);
      this.misses += 1;
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.hits += 1;
    return entry.value;
  }

  set(storeId: string, key: string, value: V, bytes: number, options: SetOptions = {}): void {
    const { now = Date.now(), ttlMs = this.options.ttlMs, since } = options;
    if (bytes > this.options.maxBytes / 4) return;
    if (since !== undefined && (this.clearedAt > since || (this.invalidatedAt.get(storeId) ?? 0) > since)) return;
    const existing = this.entries.get(key);
    if (existing) this.remove(existing);
    const entry: Entry<V> = { storeId, key, value, bytes, expiresAt: now + Math.min(ttlMs, this.options.ttlMs) };
    this.entries.set(key, entry);
    let keys = this.byStore.get(storeId);
    if (!keys) this.byStore.set(storeId, (keys = new Set()));
    keys.add(key);
    this.bytes += bytes;
    for (const oldest of this.entries.values()) {
      if (this.bytes <= this.options.maxBytes) break;
      this.remove(oldest);
    }
  }

  invalidateStore(storeId: string): void {
    this.invalidatedAt.delete(storeId);
    this.invalidatedAt.set(storeId, (clock += 1));
    if (this.invalidatedAt.size > MAX_REMEMBERED_STORES) {
      // The oldest is forgotten as if the whole cache had been cleared then: whatever was computed
      // before it can no longer be told fresh, so it is not kept (only ever a computation still
      // running after that many other stores changed).
      const [oldest, at] = this.invalidatedAt.entries().next().value!;
      this.invalidatedAt.delete(oldest);
      this.clearedAt = Math.max(this.clearedAt, at);
    }
    const keys = this.byStore.get(storeId);
    if (!keys) return;
    for (const key of [...keys]) {
      const entry = this.entries.get(key);
      if (entry) this.remove(entry);
    }
    this.byStore.delete(storeId);
  }

  clear(): void {
    this.clearedAt = clock += 1;
    this.invalidatedAt.clear();
    this.entries.clear();
    this.byStore.clear();
    this.bytes = 0;
  }

  private remove(entry: Entry<V>): void {
    this.entries.delete(entry.key);
    this.bytes -= entry.bytes;
    const keys = this.byStore.get(entry.storeId);
    if (keys) {
      keys.delete(entry.key);
      if (keys.size === 0) this.byStore.delete(entry.storeId);
    }
  }
}
