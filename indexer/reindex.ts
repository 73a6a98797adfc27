/**
 * `npm run reindex [-- --store <id>]`: rebuilds stores' indexes from PostgreSQL without downtime.
 * For each store: builds `store_<id>_tmp` (settings first, then every published product in batches),
 * waits for Meilisearch, swaps it with the live index (searches switch atomically) and deletes the old
 * one. Products changed while the copy was built are synced again after the swap. Prints one JSON line
 * per store.
 */
import pino from 'pino';
import type { DataSource, QueryRunner } from 'typeorm';
import type { EnqueuedTask, Meilisearch } from 'meilisearch';
import { loadConfigOrExit } from '../lib/config';
import { createDataSource } from '../storage/data-source';
import { storeIndexUid, tmpIndexUid } from '../search/index-names';
import { applyIndexSettings, indexSettings, loadStoreSearchData } from '../search/index-settings';
import { ProductDocumentBuilder } from '../search/product-document';
import { StoreIndexer, INDEX_BATCH } from './index-consumer';
import { MeiliTaskError, settle } from '../search/meili-tasks';
import { asStoreNodes, StorePlacements, type StoreNodes } from '../search/store-placement';
import { MeiliNodes } from '../search/meili-nodes';

export interface ReindexResult {
  storeId: string;
  index: string;
  documents: number;
  resynced: number;
  ms: number;
}

export interface ReindexOptions {
  batchSize?: number;
  /** Per Meilisearch task. */
  taskTimeoutMs?: number;
}

/** The advisory lock (hashtext of this key) held while a store's index is rebuilt or moved: one process at a time. */
export const indexRebuildLockKey = (storeId: string): string => `search-documents:${storeId}`;

/**
 * Runs `work` holding the store's rebuild lock on a session of its own (released with the session if
 * the process dies); answers `{ locked: false }` without running it when another process holds it.
 */
export async function withIndexRebuildLock<T>(
  dataSource: DataSource,
  storeId: string,
  work: (session: QueryRunner) => Promise<T>,
): Promise<{ locked: false } | { locked: true; result: T }> {
  const session = dataSource.createQueryRunner();
  await session.connect();
  try {
    const [{ locked }] = (await session.query('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [
      indexRebuildLockKey(storeId),
    ])) as Array<{
      locked: boolean;
    }>;
    if (!locked) return { locked: false };
    try {
      return { locked: true, result: await work(session) };
    } finally {
      await session.query('SELECT pg_advisory_unlock(hashtext($1))', [indexRebuildLockKey(storeId)]);
    }
  } finally {
    await session.release();
  }
}

/**
 * Writes the store's settings and every published product into index `uid` on `meili`, in batches
 * enqueued without waiting, then waits for all of them; answers the number of documents.
 */
export async function buildStoreIndex(
  dataSource: DataSource,
  meili: Meilisearch,
  storeId: string,
  uid: string,
  options: { batchSize: number; timeoutMs: number },
): Promise<number> {
  const settings = indexSettings(await loadStoreSearchData(dataSource, storeId));
  await applyIndexSettings(meili, uid, settings, { timeoutMs: options.timeoutMs });
  const builder = new ProductDocumentBuilder(dataSource);
  const enqueued: EnqueuedTask[] = [];
  let documents = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows: Array<{ id: string }> = await dataSource.query(
      `SELECT id FROM products WHERE store_id = $1 AND status = 'PUBLISHED' AND id > $2 ORDER BY id LIMIT $3`,
      [storeId, after, options.batchSize],
    );
    if (rows.length === 0) break;
    after = rows[rows.length - 1]!.id;
    const { documents: docs } = await builder.build(rows.map((r) => r.id));
    if (docs.length > 0) {
      // Enqueued without waiting (Meilisearch batches consecutive additions); all are awaited below.
      enqueued.push(await meili.index(uid).addDocuments(docs, { primaryKey: 'id' }));
      documents += docs.length;
    }
    if (rows.length < options.batchSize) break;
  }
  // One task at a time (they run in order, so the later ones are mostly done by then): few polls.
  for (const task of enqueued) {
    const done = await meili.tasks.waitForTask(task, { timeout: options.timeoutMs, interval: 50 });
    if (done.status !== 'succeeded') throw new MeiliTaskError(done);
  }
  return documents;
}

export async function reindexStore(
  dataSource: DataSource,
  nodes: Meilisearch | StoreNodes,
  storeId: string,
  options: ReindexOptions = {},
): Promise<ReindexResult> {
  const started = Date.now();
  const batchSize = options.batchSize ?? INDEX_BATCH;
  const timeout = options.taskTimeoutMs ?? 600_000;
  // The node holding the store's index now: built, swapped and resynced there.
  const meili = await asStoreNodes(nodes).adminFor(storeId);
  const clock: Array<{ since: Date }> = await dataSource.query("SELECT now() - interval '1 second' AS since");
  const since = clock[0]!.since;
  const live = storeIndexUid(storeId);
  const tmp = tmpIndexUid(storeId);
  // A leftover of an interrupted run.
  await settle(meili.deleteIndex(tmp), timeout, ['index_not_found']);
  const documents = await buildStoreIndex(dataSource, meili, storeId, tmp, { batchSize, timeoutMs: timeout });

  // The live index must exist for a swap; an empty one is created (with settings) on the first run.
  await applyIndexSettings(meili, live, indexSettings(await loadStoreSearchData(dataSource, storeId)), { timeoutMs: timeout });
  await settle(meili.swapIndexes([{ indexes: [live, tmp], rename: false }]), timeout);
  await settle(meili.deleteIndex(tmp), timeout, ['index_not_found']);

  // Changes committed while the copy was built may have been indexed into the old index only.
  const changed: Array<{ id: string }> = await dataSource.query(
    'SELECT id FROM products WHERE store_id = $1 AND updated_at >= $2 ORDER BY id',
    [storeId, since],
  );
  const indexer = new StoreIndexer({ dataSource, meili, logger: pino({ level: 'silent' }), batchSize, taskTimeoutMs: timeout });
  await indexer.syncProducts(
    changed.map((r) => r.id),
    [storeId],
  );
  return { storeId, index: live, documents, resynced: changed.length, ms: Date.now() - started };
}

export async function reindexStores(
  dataSource: DataSource,
  meili: Meilisearch | StoreNodes,
  storeIds: string[] | undefined,
  onResult: (result: ReindexResult) => void,
  options: ReindexOptions = {},
): Promise<ReindexResult[]> {
  const ids = storeIds ?? ((await dataSource.query('SELECT id FROM stores ORDER BY id')) as Array<{ id: string }>).map((r) => r.id);
  const results: ReindexResult[] = [];
  for (const id of ids) {
    const result = await reindexStore(dataSource, meili, id, options);
    onResult(result);
    results.push(result);
  }
  return results;
}

function parseArgs(argv: string[]): { stores?: string[] } {
  const stores: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '--store' && argv[i + 1]) stores.push(argv[(i += 1)]!.toLowerCase());
    else if (arg.startsWith('--store=')) stores.push(arg.slice('--store='.length).toLowerCase());
    else throw new Error(`unknown argument ${arg} (usage: reindex [--store <id>])`);
  }
  return stores.length > 0 ? { stores } : {};
}

async function main(): Promise<void> {
  const { stores } = parseArgs(process.argv.slice(2));
  const config = loadConfigOrExit();
  const dataSource = await createDataSource(config, 'commerce-reindex').initialize();
  try {
    const nodes = MeiliNodes.fromConfig(config, { adminTimeoutMs: 60_000 });
    const meili = new StorePlacements(dataSource, nodes, pino({ level: 'silent' }));
    if (stores) {
      const known: Array<{ id: string }> = await dataSource.query('SELECT id FROM stores WHERE id::text = ANY($1::text[])', [stores]);
      const missing = stores.filter((id) => !known.some((k) => k.id === id));
      if (missing.length > 0) throw new Error(`unknown store ${missing.join(', ')}`);
    }
    await reindexStores(dataSource, meili, stores, (result) => process.stdout.write(`${JSON.stringify(result)}\n`));
  } finally {
    await dataSource.destroy();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`reindex failed: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
