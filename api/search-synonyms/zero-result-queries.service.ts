/**
 * Zero-result and weak-result queries of a store's public search (docs/search.md, "Zero-result and
 * weak-result queries"): every search with a non-empty query that ends with no results is counted
 * once per store and normalised query (table zero_result_queries), every one whose results came only
 * from a looser pass (fewer words, other word forms: the answer's looseMatch) likewise as a weak
 * result (table weak_result_queries), and merchants list each, most frequent first, with what answers
 * each query now (query-labels.ts).
 *
 * - Normalisation (normaliseQuery): Unicode NFKC, lowercase, runs of whitespace collapsed to one
 *   space, trimmed, at most 200 characters (code points). "  Blue   SHIRT " and "blue shirt" are one row.
 * - Counting (ZeroResultRecorder in the api process, recordZeroResults): counts gather in memory and
 *   are written with one upsert per outcome at most every 200 ms; no audit entry and no outbox row (a
 *   shopper's search is not a merchant write). `sample` keeps the last raw query as typed (at most 200
 *   characters).
 * - Readiness: nothing is counted for a store whose search is not ready. The search itself leaves out
 *   a store without an index (search/public-search.ts); the write leaves out a store whose first
 *   indexing is not finished (readyStores: the first time it finds the store ready it stamps
 *   stores.search_ready_at, so later writes read one column).
 * - Cap: a store keeps at most ZERO_RESULT_QUERIES_PER_STORE distinct queries of each outcome (10 000
 *   by default), so anonymous searches cannot grow the tables without bound. A write that adds new
 *   queries to a store over its cap deletes the store's least recently seen queries (then the least
 *   counted) down to it; a query searched again is seen again and stays. Updating a known query never
 *   evicts anything.
 */
import { QueryFailedError, type DataSource, type EntityManager } from 'typeorm';
import type { RequestContext } from '../../storage/request-context';
import { requireStore } from '../../domain/store-access';
import { labelQueries, type QueryLabel } from './query-labels';

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

/** What a counted public search found: nothing, or only loosely related products (a looser pass). */
export type SearchOutcome = 'zero' | 'weak';

/** The table each outcome is counted in (same columns). */
const OUTCOME_TABLE: Record<SearchOutcome, string> = { zero: 'zero_result_queries', weak: 'weak_result_queries' };

/** Counted searches of one store, outcome and normalised query, gathered since the last write. */
export interface ZeroResultCount {
  storeId: string;
  query: string;
  sample: string;
  count: number;
  firstSeenAt: Date;
  lastSeenAt: Date;
  /** Default 'zero'. */
  outcome?: SearchOutcome;
}

/** Counts one public search of `storeId` that found nothing (or, with `outcome` 'weak', only loosely related products), now. */
export async function recordZeroResult(
  db: DataSource | EntityManager,
  storeId: string,
  rawQuery: string,
  storeCap = ZERO_RESULT_STORE_CAP,
  outcome: SearchOutcome = 'zero',
): Promise<void> {
  const query = normaliseQuery(rawQuery);
  if (!query) return;
  const now = new Date();
  await recordZeroResults(
    db,
    [{ storeId, query, sample: truncate(rawQuery, ZERO_RESULT_QUERY_MAX), count: 1, firstSeenAt: now, lastSeenAt: now, outcome }],
    storeCap,
  );
}

/**
 * Of `storeIds`, the stores whose search is ready to be counted: existing stores whose first indexing
 * is finished. A store is ready once stores.search_ready_at is set; until then it is ready (and is
 * stamped, once) when nothing of its first indexing is still to come: a sandbox store's seed is
 * indexed (sandboxes.indexed_at), no product import of the store is queued or running, and no product
 * change of its tenant waits for its first delivery to the indexer (an outbox row of the `index`
 * queue, pending and never tried: rows being delivered or retried after a failure do not hold a
 * store back, so one product Meilisearch refuses never keeps a store from counting).
 * `known`: stores already found ready by this process (sticky, so the database is not asked again).
 */
export async function readyStores(db: DataSource | EntityManager, storeIds: string[], known?: Set<string>): Promise<Set<string>> {
  const ready = new Set(storeIds.filter((id) => known?.has(id)));
  const ask = [...new Set(storeIds.filter((id) => !ready.has(id)))];
  if (ask.length === 0) return ready;
  const rows: Array<{ id: string }> = await db.query(
    `WITH c AS (SELECT id, tenant_id, search_ready_at FROM stores WHERE id = ANY($1::uuid[])),
     stamped AS (
       UPDATE stores s SET search_ready_at = now() FROM c
        WHERE s.id = c.id AND c.search_ready_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM sandboxes x WHERE x.store_id = c.id AND x.indexed_at IS NULL)
          AND NOT EXISTS (SELECT 1 FROM transfer_jobs j
                           WHERE j.store_id = c.id AND j.kind = 'PRODUCT_IMPORT' AND j.state IN ('QUEUED', 'RUNNING'))
          AND NOT EXISTS (SELECT 1 FROM outbox o
                           WHERE o.status = 'pending' AND o.attempts = 0 AND o.queue = 'index' AND o.tenant_id = c.tenant_id
                             AND o.aggregate_type IN ('product', 'product_batch'))
       RETURNING s.id)
     SELECT id FROM c WHERE search_ready_at IS NOT NULL UNION ALL SELECT id FROM stamped`,
    [ask],
  );
  for (const row of rows) {
    ready.add(row.id);
    if (known) {
      // Bounded: forgetting only costs one more question to the database.
      if (known.size >= 100_000) known.clear();
      known.add(row.id);
    }
  }
  return ready;
}

/**
 * Adds counted searches (one entry per store, outcome and normalised query) with one upsert per
 * outcome: count grows by the entry's count, sample and last_seen_at follow the latest search.
 * Entries of a store that no longer exists, or whose search is not ready yet (readyStores), are
 * dropped. Stores that gained a query are then cut back to `storeCap` distinct queries of that
 * outcome (evictZeroResults). The counts are written by then, so a failed eviction goes to
 * `onEvictError` when given (the next write adding a query evicts again) instead of failing the write.
 */
export async function recordZeroResults(
  db: DataSource | EntityManager,
  entries: ZeroResultCount[],
  storeCap = ZERO_RESULT_STORE_CAP,
  onEvictError?: (error: unknown) => void,
  knownReady?: Set<string>,
): Promise<void> {
  if (!entries.length) return;
  const ready = await readyStores(
    db,
    entries.map((e) => e.storeId.toLowerCase()),
    knownReady,
  );
  for (const outcome of ['zero', 'weak'] as const) {
    const batch = entries.filter((e) => (e.outcome ?? 'zero') === outcome && ready.has(e.storeId.toLowerCase()));
    if (batch.length) await upsertOutcomes(db, outcome, batch, storeCap, onEvictError);
  }
}

async function upsertOutcomes(
  db: DataSource | EntityManager,
  outcome: SearchOutcome,
  entries: ZeroResultCount[],
  storeCap: number,
  onEvictError?: (error: unknown) => void,
): Promise<void> {
  const table = OUTCOME_TABLE[outcome];
  // xmax = 0: the row was inserted by this statement (a conflict update sets xmax).
  const written: Array<{ store_id: string; inserted: boolean }> = await db.query(
    `INSERT INTO ${table} (store_id, tenant_id, query, sample, count, first_seen_at, last_seen_at)
     SELECT s.id, s.tenant_id, r.query, r.sample, r.count, r.first_seen_at, r.last_seen_at
       FROM jsonb_to_recordset($1::jsonb) AS r(store_id uuid, query text, sample text, count bigint, first_seen_at timestamptz, last_seen_at timestamptz)
       JOIN stores s ON s.id = r.store_id
     ON CONFLICT (store_id, query) DO UPDATE
       SET count = ${table}.count + EXCLUDED.count,
           sample = CASE WHEN EXCLUDED.last_seen_at >= ${table}.last_seen_at THEN EXCLUDED.sample ELSE ${table}.sample END,
           last_seen_at = GREATEST(${table}.last_seen_at, EXCLUDED.last_seen_at)
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
    await evictZeroResults(db, grown, storeCap, outcome);
  } catch (error) {
    if (!onEvictError) throw error;
    onEvictError(error);
  }
}

/**
 * Deletes, for each store, every query of the outcome beyond the `storeCap` most recently seen ones
 * (ties: the more counted first, then by query). Reads the store's rows in order once, so it costs
 * about the cap in rows; it only runs for stores a write added a query to.
 */
export async function evictZeroResults(
  db: DataSource | EntityManager,
  storeIds: string[],
  storeCap: number,
  outcome: SearchOutcome = 'zero',
): Promise<number> {
  const table = OUTCOME_TABLE[outcome];
  const [, deleted] = (await db.query(
    `DELETE FROM ${table} z
      USING unnest($1::uuid[]) AS s(id)
      CROSS JOIN LATERAL (
        SELECT o.query FROM ${table} o WHERE o.store_id = s.id
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

const pendingKey = (e: Pick<ZeroResultCount, 'storeId' | 'query' | 'outcome'>): string =>
  `${e.outcome ?? 'zero'}\u0000${e.storeId.toLowerCase()}\u0000${e.query}`;

/**
 * The api process's counter of zero-result and weak-result searches: a counted search only adds to a
 * map in memory, and the map is written with one upsert per outcome at most every `flushMs` (the
 * search path holds no database work). A failed write keeps its counts for the next one; what is
 * still unwritten when the process is killed without a shutdown is lost (at most `flushMs` of counts:
 * shoppers' searches, not anybody's data). Stores found ready (readyStores) are remembered, so a
 * write asks about a store's readiness only until it is ready.
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
  private readonly ready = new Set<string>();

  constructor(
    private readonly db: DataSource,
    private readonly onError: (error: unknown) => void,
    private readonly flushMs = 200,
    /** Distinct store, outcome and query triples held at most; beyond, the write happens at once. */
    private readonly maxPending = 5_000,
    /** A row PostgreSQL refused for its content, dropped (called once per dropped row). */
    private readonly onDropped: (error: unknown, entry: ZeroResultCount) => void = (error) => onError(error),
    /** Distinct queries kept per store and outcome (read at every write, so a configuration change applies). */
    private readonly storeCap: () => number = () => ZERO_RESULT_STORE_CAP,
  ) {}

  add(storeId: string, rawQuery: string, at = new Date(), outcome: SearchOutcome = 'zero'): void {
    const query = normaliseQuery(rawQuery);
    if (!query) return;
    const key = pendingKey({ storeId, query, outcome });
    const entry = this.pending.get(key);
    const sample = truncate(rawQuery, ZERO_RESULT_QUERY_MAX);
    if (entry) {
      entry.count += 1;
      entry.sample = sample;
      entry.lastSeenAt = at;
    } else this.pending.set(key, { storeId, query, sample, count: 1, firstSeenAt: at, lastSeenAt: at, outcome });
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
      await recordZeroResults(this.db, batch, this.storeCap(), this.onError, this.ready);
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
      const key = pendingKey(old);
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

export type { AnsweredBy } from './query-labels';

/** One listed query (zero-result or weak-result) with what answers it now (query-labels.ts). */
export interface ZeroResultQueryView extends QueryLabel {
  query: string;
  sample: string;
  count: number;
  firstSeenAt: string;
  lastSeenAt: string;
}

interface Row {
  query: string;
  sample: string;
  count: string;
  first_seen_at: Date;
  last_seen_at: Date;
}

/** The store's ZERO_RESULT_LIST_CAP most frequent (then most recently seen) queries of the outcome, labelled. */
async function listOutcome(ctx: RequestContext, storeId: string, outcome: SearchOutcome): Promise<{ items: ZeroResultQueryView[] }> {
  const store = await requireStore(ctx, storeId);
  const table = OUTCOME_TABLE[outcome];
  const rows: Row[] = await ctx.manager.query(
    `SELECT z.query, z.sample, z.count::text AS count, z.first_seen_at, z.last_seen_at FROM ${table} z
      WHERE z.store_id = $1 AND z.tenant_id = $2 ORDER BY z.count DESC, z.last_seen_at DESC, z.query LIMIT $3`,
    [store.id, store.tenantId, ZERO_RESULT_LIST_CAP],
  );
  if (rows.length === 0) return { items: [] };
  const labels = await labelQueries(
    ctx,
    store.id,
    rows.map((r) => r.query),
  );
  return {
    items: rows.map((row, i) => ({
      query: row.query,
      sample: row.sample,
      count: Number(row.count),
      firstSeenAt: row.first_seen_at.toISOString(),
      lastSeenAt: row.last_seen_at.toISOString(),
      ...labels[i]!,
    })),
  };
}

export const listZeroResultQueries = (ctx: RequestContext, storeId: string): Promise<{ items: ZeroResultQueryView[] }> =>
  listOutcome(ctx, storeId, 'zero');

export const listWeakResultQueries = (ctx: RequestContext, storeId: string): Promise<{ items: ZeroResultQueryView[] }> =>
  listOutcome(ctx, storeId, 'weak');
