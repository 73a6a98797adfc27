/**
 * Zero-result queries of a store's public search: every search with a non-empty query that ends with
 * no results is counted once per store and normalised query (table zero_result_queries), and merchants
 * list them, most frequent first, with whether each one finds published products now.
 *
 * - Normalisation (normaliseQuery): Unicode NFKC, lowercase, runs of whitespace collapsed to one
 *   space, trimmed, at most 200 characters (code points). "  Blue   SHIRT " and "blue shirt" are one row.
 * - Counting (ZeroResultRecorder in the api process, recordZeroResults): counts gather in memory and
 *   are written with one upsert at most every 200 ms; no audit entry and no outbox row (a shopper's search is not
 *   a merchant write). `sample` keeps the last raw query as typed (at most 200 characters).
 * - Cap: a store keeps at most ZERO_RESULT_QUERIES_PER_STORE distinct queries (10 000 by default), so
 *   anonymous searches cannot grow the table without bound. A write that adds new queries to a store
 *   over its cap deletes the store's least recently seen queries (then the least counted) down to it;
 *   a query searched again is seen again and stays. Updating a known query never evicts anything.
 * - answeredNow: one Meilisearch multi-search over the store's index for all listed queries (limit 1
 *   each, filter `status = "PUBLISHED"`, matching strategy `frequency`, as the loosest pass of the
 *   public search, which drops the most common words when every word cannot match). A store without an
 *   index answers false for every query; when Meilisearch cannot be reached, answeredNow and
 *   answeredBy are null.
 * - answeredBy: for an answered query, SYNONYM when an active synonym rule of the store was created or
 *   updated after the query was last seen and one of the query's words is one of the rule's terms (its
 *   input or a term, or a word of a multi-word term); otherwise PRODUCT (a product was added, published
 *   or changed since). null when not answered (or unknown).
 */
import { QueryFailedError, type DataSource, type EntityManager } from 'typeorm';
import { servicesOf, type RequestContext } from '../../storage/request-context';
import { requireStore } from '../../domain/store-access';
import { MeiliResponseError } from '../../search/search-transport';
import { storeIndexUid } from '../../search/index-names';

export const ZERO_RESULT_QUERY_MAX = 200;
/** How many queries the list answers (the most frequent ones). */
export const ZERO_RESULT_LIST_CAP = 100;
/** Distinct queries kept per store unless configured (ZERO_RESULT_QUERIES_PER_STORE). */
export const ZERO_RESULT_STORE_CAP = 10_000;

const truncate = (value: string, max: number): string => {
  const chars = Array.from(value);
  return chars.length > max ? chars.slice(0, max).join('') : value;
};

export function normaliseQuery(q: string): string {
  return truncate(q.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim(), ZERO_RESULT_QUERY_MAX).trim();
}

/** Zero-result searches of one store and normalised query, gathered since the last write. */
export interface ZeroResultCount {
  storeId: string;
  query: string;
  sample: string;
  count: number;
  firstSeenAt: Date;
  lastSeenAt: Date;
}

/** Counts one public search of `storeId` that found nothing, now. Empty normalised queries are ignored. */
export async function recordZeroResult(
  db: DataSource | EntityManager,
  storeId: string,
  rawQuery: string,
  storeCap = ZERO_RESULT_STORE_CAP,
): Promise<void> {
  const query = normaliseQuery(rawQuery);
  if (!query) return;
  const now = new Date();
  await recordZeroResults(
    db,
    [{ storeId, query, sample: truncate(rawQuery, ZERO_RESULT_QUERY_MAX), count: 1, firstSeenAt: now, lastSeenAt: now }],
    storeCap,
  );
}

/**
 * Adds counted zero-result searches (one entry per store and normalised query) with one upsert:
 * count grows by the entry's count, sample and last_seen_at follow the latest search. Entries of a
 * store that no longer exists are dropped. Stores that gained a query are then cut back to
 * `storeCap` distinct queries (evictZeroResults). The counts are written by then, so a failed
 * eviction goes to `onEvictError` when given (the next write adding a query evicts again) instead
 * of failing the write.
 */
export async function recordZeroResults(
  db: DataSource | EntityManager,
  entries: ZeroResultCount[],
  storeCap = ZERO_RESULT_STORE_CAP,
  onEvictError?: (error: unknown) => void,
): Promise<void> {
  if (!entries.length) return;
  // xmax = 0: the row was inserted by this statement (a conflict update sets xmax).
  const written: Array<{ store_id: string; inserted: boolean }> = await db.query(
    `INSERT INTO zero_result_queries (store_id, tenant_id, query, sample, count, first_seen_at, last_seen_at)
     SELECT s.id, s.tenant_id, r.query, r.sample, r.count, r.first_seen_at, r.last_seen_at
       FROM jsonb_to_recordset($1::jsonb) AS r(store_id uuid, query text, sample text, count bigint, first_seen_at timestamptz, last_seen_at timestamptz)
       JOIN stores s ON s.id = r.store_id
     ON CONFLICT (store_id, query) DO UPDATE
       SET count = zero_result_queries.count + EXCLUDED.count,
           sample = CASE WHEN EXCLUDED.last_seen_at >= zero_result_queries.last_seen_at THEN EXCLUDED.sample ELSE zero_result_queries.sample END,
           last_seen_at = GREATEST(zero_result_queries.last_seen_at, EXCLUDED.last_seen_at)
     RETURNING store_id, (xmax = 0) AS inserted`,
    [
      JSON.stringify(
        entries.map((e) => ({
          store_id: e.storeId,
          query: e.query,
          sample: e.sample,
          count: e.count,
          first_seen_at: e.firstSeenAt.toISOString(),
          last_seen_at: e.lastSeenAt.toISOString(),
        })),
      ),
    ],
  );
  const grown = [...new Set(written.filter((row) => row.inserted).map((row) => row.store_id))];
  if (!grown.length) return;
  try {
    await evictZeroResults(db, grown, storeCap);
  } catch (error) {
    if (!onEvictError) throw error;
    onEvictError(error);
  }
}

/**
 * Deletes, for each store, every zero-result query beyond the `storeCap` most recently seen ones
 * (ties: the more counted first, then by query). Reads the store's rows in order once, so it costs
 * about the cap in rows; it only runs for stores a write added a query to.
 */
export async function evictZeroResults(db: DataSource | EntityManager, storeIds: string[], storeCap: number): Promise<number> {
  const [, deleted] = (await db.query(
    `DELETE FROM zero_result_queries z
      USING unnest($1::uuid[]) AS s(id)
      CROSS JOIN LATERAL (
        SELECT o.query FROM zero_result_queries o WHERE o.store_id = s.id
         ORDER BY o.last_seen_at DESC, o.count DESC, o.query OFFSET $2
      ) AS old
      WHERE z.store_id = s.id AND z.query = old.query`,
    [storeIds, storeCap],
  )) as [unknown, number];
  return deleted;
}

/**
 * True when PostgreSQL refused the write for what a row holds (SQLSTATE class 22, data exception:
 * a NUL or an unpaired surrogate in a query, say) rather than for the state of the database or the
 * connection; writing the same row again can never succeed.
 */
export function isRefusedContent(error: unknown): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const code = (error.driverError as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code.startsWith('22');
}

/**
 * The api process's counter of zero-result searches: a search that finds nothing only adds to a map
 * in memory, and the map is written with one upsert at most every `flushMs` (the search path holds
 * no database work). A failed write keeps its counts for the next one; what is still unwritten when
 * the process is killed without a shutdown is lost (at most `flushMs` of counts: shoppers' searches,
 * not anybody's data).
 *
 * One row that PostgreSQL refuses for its content never holds back the others: a batch refused for
 * its content is split in halves and each half written on its own, down to the single rows, so the
 * rows it cannot write are found (in about log2(batch) writes each), dropped and passed to `onDropped`
 * once, and every other row is written. Any other failure keeps the rows for the next write.
 */
export class ZeroResultRecorder {
  private pending = new Map<string, ZeroResultCount>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;

  constructor(
    private readonly db: DataSource,
    private readonly onError: (error: unknown) => void,
    private readonly flushMs = 200,
    /** Distinct store and query pairs held at most; beyond, the write happens at once. */
    private readonly maxPending = 5_000,
    /** A row PostgreSQL refused for its content, dropped (called once per dropped row). */
    private readonly onDropped: (error: unknown, entry: ZeroResultCount) => void = (error) => onError(error),
    /** Distinct queries kept per store (read at every write, so a configuration change applies). */
    private readonly storeCap: () => number = () => ZERO_RESULT_STORE_CAP,
  ) {}

  add(storeId: string, rawQuery: string, at = new Date()): void {
    const query = normaliseQuery(rawQuery);
    if (!query) return;
    const key = `${storeId.toLowerCase()}\u0000${query}`;
    const entry = this.pending.get(key);
    const sample = truncate(rawQuery, ZERO_RESULT_QUERY_MAX);
    if (entry) {
      entry.count += 1;
      entry.sample = sample;
      entry.lastSeenAt = at;
    } else this.pending.set(key, { storeId, query, sample, count: 1, firstSeenAt: at, lastSeenAt: at });
    if (this.pending.size >= this.maxPending) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.flushMs);
  }

  /** Writes what is pending (waiting for a write in progress first). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.writing) await this.writing;
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.writing = this.write(batch).finally(() => (this.writing = undefined));
    await this.writing;
  }

  /** Writes `batch`, bisecting a batch refused for its content; keeps the rows of any other failure. */
  private async write(batch: ZeroResultCount[]): Promise<void> {
    try {
      await recordZeroResults(this.db, batch, this.storeCap(), this.onError);
    } catch (error) {
      if (!isRefusedContent(error)) {
        this.onError(error);
        this.keep(batch);
        return;
      }
      if (batch.length === 1) {
        this.onDropped(error, batch[0]!);
        return;
      }
      const half = Math.ceil(batch.length / 2);
      await this.write(batch.slice(0, half));
      await this.write(batch.slice(half));
    }
  }

  /** Keeps unwritten counts for the next write, merged with what arrived meanwhile. */
  private keep(batch: ZeroResultCount[]): void {
    for (const old of batch) {
      const key = `${old.storeId.toLowerCase()}\u0000${old.query}`;
      const newer = this.pending.get(key);
      if (newer) this.pending.set(key, { ...newer, count: newer.count + old.count, firstSeenAt: old.firstSeenAt });
      else if (this.pending.size < this.maxPending) this.pending.set(key, old);
    }
    this.timer ??= setTimeout(() => void this.flush(), Math.max(this.flushMs, 1_000));
  }

  /** Stops the timer and writes what is pending. */
  async close(): Promise<void> {
    await this.flush();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

export type AnsweredBy = 'SYNONYM' | 'PRODUCT';

export interface ZeroResultQueryView {
  query: string;
  sample: string;
  count: number;
  firstSeenAt: string;
  lastSeenAt: string;
  answeredNow: boolean | null;
  answeredBy: AnsweredBy | null;
}

interface Row {
  query: string;
  sample: string;
  count: string;
  first_seen_at: Date;
  last_seen_at: Date;
}

/** Words of a query or a synonym term, as compared: NFKC, lowercase, split on anything but letters and digits. */
const words = (text: string): string[] =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/** Per query: whether it finds a published product now; null for all when Meilisearch cannot answer. */
async function answeredNow(ctx: RequestContext, storeId: string, queries: string[]): Promise<boolean[] | null> {
  if (queries.length === 0) return [];
  const indexUid = storeIndexUid(storeId);
  try {
    // The process's search-only connection (the storefront search's, with its derived key).
    const response = await servicesOf(ctx).meiliSearch.multiSearch<{ hits: unknown[] }>({
      queries: queries.map((q) => ({
        indexUid,
        q,
        limit: 1,
        filter: 'status = "PUBLISHED"',
        attributesToRetrieve: ['id'],
        matchingStrategy: 'frequency',
      })),
    });
    return response.results.map((result) => result.hits.length > 0);
  } catch (error) {
    if (error instanceof MeiliResponseError && error.code === 'index_not_found') return queries.map(() => false);
    servicesOf(ctx).logger.warn({ err: error, storeId }, 'zero-result queries: Meilisearch could not say which queries are answered');
    return null;
  }
}

export async function listZeroResultQueries(ctx: RequestContext, storeId: string): Promise<{ items: ZeroResultQueryView[] }> {
  const store = await requireStore(ctx, storeId);
  const rows: Row[] = await ctx.manager.query(
    `SELECT z.query, z.sample, z.count::text AS count, z.first_seen_at, z.last_seen_at FROM zero_result_queries z
      WHERE z.store_id = $1 AND z.tenant_id = $2 ORDER BY z.count DESC, z.last_seen_at DESC, z.query LIMIT $3`,
    [store.id, store.tenantId, ZERO_RESULT_LIST_CAP],
  );
  if (rows.length === 0) return { items: [] };
  const [answered, rules] = await Promise.all([
    answeredNow(
      ctx,
      store.id,
      rows.map((r) => r.query),
    ),
    ctx.manager.query('SELECT input, terms, updated_at FROM search_synonyms WHERE store_id = $1 AND tenant_id = $2 AND is_active', [
      store.id,
      store.tenantId,
    ]) as Promise<Array<{ input: string | null; terms: string[]; updated_at: Date }>>,
  ]);
  const ruleWords = rules.map((rule) => ({
    changedAt: rule.updated_at.getTime(),
    words: new Set([rule.input ?? '', ...rule.terms].flatMap(words)),
  }));
  const bySynonym = (row: Row): boolean => {
    const queryWords = words(row.query);
    const lastSeen = row.last_seen_at.getTime();
    return ruleWords.some((rule) => rule.changedAt > lastSeen && queryWords.some((word) => rule.words.has(word)));
  };
  return {
    items: rows.map((row, i) => {
      const now = answered === null ? null : answered[i]!;
      return {
        query: row.query,
        sample: row.sample,
        count: Number(row.count),
        firstSeenAt: row.first_seen_at.toISOString(),
        lastSeenAt: row.last_seen_at.toISOString(),
        answeredNow: now,
        answeredBy: now ? (bySynonym(row) ? 'SYNONYM' : 'PRODUCT') : null,
      };
    }),
  };
}
