/**
 * In-process cache of public search answers (and per-store profiles), per store, bounded by bytes,
 * least recently used out first. Entries also expire after a TTL, the backstop for what no event
 * announces (a sponsored listing reaching its end date) and for an invalidation message missed
 * while Redis was unreachable.
 *
 * Invalidation is per store: `invalidateStore` drops every entry of the store at once (entries are
 * grouped by store, so this costs the number of the store's entries, not a scan of the cache).
 */
interface Entry<V> {
  storeId: string;
  key: string;
  value: V;
  bytes: number;
  expiresAt: number;
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

  set(storeId: string, key: string, value: V, bytes: number, now = Date.now(), ttlMs = this.options.ttlMs): void {
    if (bytes > this.options.maxBytes / 4) return;
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
    const keys = this.byStore.get(storeId);
    if (!keys) return;
    for (const key of [...keys]) {
      const entry = this.entries.get(key);
      if (entry) this.remove(entry);
    }
    this.byStore.delete(storeId);
  }

  clear(): void {
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
