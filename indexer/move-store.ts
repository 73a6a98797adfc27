/**
 * `npm run move-store -- --store <id> --to <node>`: moves a store's index to another Meilisearch
 * node while the store keeps selling and searching (docs/scaling.md, "Moving a store"):
 *
 * 1. the placement row says `moving_to` (reads and writes still go to the current node);
 * 2. the index is built on the target from PostgreSQL (settings, then every published product);
 * 3. the `index` outbox rows of the store's tenant written since the build began are replayed
 *    against the target, pass after pass, until a pass finds few (the indexer meanwhile keeps the
 *    current node's index up to date);
 * 4. the placement switches to the target in one UPDATE, and every process is told at once (store
 *    change message) or sees it within PLACEMENT_TTL_MS;
 * 5. after that grace, the rows written since the last pass are replayed again (changes the indexer
 *    wrote to the old node under a placement it still had cached), the target is compared with
 *    PostgreSQL (documents of products no longer published are deleted, missing ones written);
 * 6. the old node's index is dropped.
 *
 * A replay re-reads current state, like the indexer, so replaying a row twice or late changes
 * nothing. A failure before the switch leaves the store where it was (the half-built copy is
 * dropped); one after it leaves the store on the target, and running the command again with the
 * old node as the target is always possible. One rebuild or move of a store runs at a time (the
 * advisory lock the document upgrade also takes).
 */
import { Command, InvalidArgumentError } from 'commander';
import pino, { type Logger } from 'pino';
import Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import { loadConfigOrExit } from '../lib/config';
import { createDataSource } from '../storage/data-source';
import { isUuid } from '../storage/ids';
import { MeiliNodes, type MeiliNode } from '../search/meili-nodes';
import { PLACEMENT_TTL_MS, StorePlacements } from '../search/store-placement';
import { storeIndexUid, tmpIndexUid } from '../search/index-names';
import { settle } from '../search/meili-tasks';
import { invalidationChannel, storeChangePublisher } from '../search/invalidation';
import type { OutboxDelivery } from '../storage/outbox';
import { createIndexHandler, INDEX_BATCH, type StoreIndexer } from './index-consumer';
import { buildStoreIndex, withIndexRebuildLock } from './reindex';

/**
 * How far before a pass's start the next pass looks back: an outbox row carries its transaction's
 * start time, so a transaction that began before a pass and committed after it is still replayed
 * when it took less than this.
 */
const REPLAY_MARGIN_MS = 60_000;
/** Catch-up passes before the switch stop once a pass replays fewer aggregates than this… */
const QUIET_PASS = 50;
/** …or after this many passes (the passes after the switch catch up the rest). */
const MAX_PASSES = 5;
/** Deliveries replayed at once (product deliveries share the indexer's batched writes). */
const REPLAY_CONCURRENCY = 256;

export class MoveRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MoveRefusedError';
  }
}

export interface MoveResult {
  storeId: string;
  from: string;
  to: string;
  /** Documents written by the build. */
  documents: number;
  /** Aggregates replayed from the outbox, before and after the switch. */
  replayed: { beforeSwitch: number; afterSwitch: number; passes: number };
  /** What the comparison with PostgreSQL corrected on the target. */
  reconciled: { deleted: number; written: number };
  ms: number;
}

export interface MoveDeps {
  dataSource: DataSource;
  placements: StorePlacements;
  /** Tells every process the store changed (drops cached answers and placements). */
  announce: (storeIds: Iterable<string>) => Promise<void>;
  logger: Logger;
}

export interface MoveOptions {
  batchSize?: number;
  taskTimeoutMs?: number;
  /** Wait after the switch before the last replay and the drop (default: the placement cache's lifetime + 1 s). */
  graceMs?: number;
  /** Called as each step starts (the command prints them). */
  onStep?: (step: string) => void;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function moveStore(deps: MoveDeps, storeId: string, to: string, options: MoveOptions = {}): Promise<MoveResult> {
  const started = Date.now();
  const { dataSource, placements } = deps;
  const id = storeId.toLowerCase();
  if (!isUuid(id)) throw new MoveRefusedError(`${storeId} is not a store id`);
  const target = placements.nodes.get(to);
  if (!target) throw new MoveRefusedError(`unknown node ${to}; the nodes are ${placements.nodes.all.map((n) => n.name).join(', ')}`);
  const [store]: Array<{ tenant_id: string }> = await dataSource.query('SELECT tenant_id FROM stores WHERE id = $1', [id]);
  if (!store) throw new MoveRefusedError(`store ${storeId} does not exist`);

  const held = await withIndexRebuildLock(dataSource, id, () =>
    moveLocked(deps, { id, tenantId: store.tenant_id }, target, options, started),
  );
  if (!held.locked) throw new MoveRefusedError(`the index of store ${id} is being rebuilt or moved by another process; try again later`);
  return held.result;
}

async function moveLocked(
  deps: MoveDeps,
  store: { id: string; tenantId: string },
  target: MeiliNode,
  options: MoveOptions,
  started: number,
): Promise<MoveResult> {
  const { dataSource, placements } = deps;
  const step = options.onStep ?? (() => undefined);
  const batchSize = options.batchSize ?? INDEX_BATCH;
  const timeoutMs = options.taskTimeoutMs ?? 600_000;
  const uid = storeIndexUid(store.id);

  placements.forget(store.id);
  const source = await placements.nodeOf(store.id);
  if (source === target) throw new MoveRefusedError(`store ${store.id} is already on ${target.name}`);
  await dataSource.query('UPDATE search_placements SET moving_to = $2 WHERE store_id = $1', [store.id, target.name]);

  // Writes meant for the store go to the target; other stores of the tenant (a replayed brand or
  // category reaches them too) to their own nodes.
  const toTarget = {
    adminFor: async (storeId: string) => (storeId.toLowerCase() === store.id ? target.admin : placements.adminFor(storeId)),
  };
  const handler = createIndexHandler({ dataSource, meili: toTarget, logger: deps.logger, batchSize, taskTimeoutMs: timeoutMs });
  const replay = (since: Date) => replayOutbox(dataSource, store.tenantId, since, handler);

  let switched = false;
  try {
    let since = await dbNowMinus(dataSource, REPLAY_MARGIN_MS);
    step(`building the index on ${target.name}`);
    // A leftover of an interrupted move (the target does not serve this store, so nothing reads it).
    await settle(target.admin.deleteIndex(uid), timeoutMs, ['index_not_found']);
    const documents = await buildStoreIndex(dataSource, target.admin, store.id, uid, { batchSize, timeoutMs });

    let beforeSwitch = 0;
    let passes = 0;
    for (;;) {
      passes += 1;
      step(`catching up on ${target.name} (pass ${passes})`);
      const pass = await replay(since);
      beforeSwitch += pass.aggregates;
      since = pass.next;
      if (pass.aggregates < QUIET_PASS || passes >= MAX_PASSES) break;
    }

    step(`switching the store to ${target.name}`);
    const switchedRows: Array<{ store_id: string }> = await dataSource.query(
      `WITH switched AS (
         UPDATE search_placements SET node = $2, moving_to = NULL, version = version + 1, moved_at = now()
          WHERE store_id = $1 AND node = $3 RETURNING store_id)
       SELECT store_id FROM switched`,
      [store.id, target.name, source.name],
    );
    if (switchedRows.length !== 1)
      throw new MoveRefusedError(`the placement of store ${store.id} changed during the move; nothing was switched`);
    switched = true;
    placements.forget(store.id);
    await deps.announce([store.id]);

    step('waiting for every process to see the switch');
    await sleep(options.graceMs ?? PLACEMENT_TTL_MS + 1_000);
    step(`catching up on ${target.name} after the switch`);
    const after = await replay(since);
    step('comparing the index with PostgreSQL');
    // The replays' own indexer: it writes the store's documents to the target.
    const reconciled = await reconcile(dataSource, target, store.id, handler.indexer, timeoutMs);
    await deps.announce([store.id]);

    step(`dropping the index on ${source.name}`);
    await settle(source.admin.deleteIndex(uid), timeoutMs, ['index_not_found']);
    await settle(source.admin.deleteIndex(tmpIndexUid(store.id)), timeoutMs, ['index_not_found']);
    return {
      storeId: store.id,
      from: source.name,
      to: target.name,
      documents,
      replayed: { beforeSwitch, afterSwitch: after.aggregates, passes },
      reconciled,
      ms: Date.now() - started,
    };
  } catch (error) {
    if (!switched) {
      await dataSource.query('UPDATE search_placements SET moving_to = NULL WHERE store_id = $1', [store.id]).catch(() => undefined);
      await settle(target.admin.deleteIndex(uid), timeoutMs, ['index_not_found']).catch(() => undefined);
    }
    throw error;
  }
}

async function dbNowMinus(dataSource: DataSource, ms: number): Promise<Date> {
  const [row]: Array<{ at: Date }> = await dataSource.query('SELECT now() - make_interval(secs => $1::float8 / 1000) AS at', [ms]);
  return row!.at;
}

interface ReplayRow {
  aggregate_type: string;
  aggregate_id: string;
  messages: Array<{ id: string; topic: string; payload: unknown }>;
}

/**
 * Hands the tenant's `index` outbox rows written since `since` (done or not) to the index handler,
 * one delivery per aggregate. The lower id bound keeps the scan to the outbox's recent rows.
 */
async function replayOutbox(
  dataSource: DataSource,
  tenantId: string,
  since: Date,
  handler: (delivery: OutboxDelivery<'index'>) => Promise<void>,
): Promise<{ aggregates: number; next: Date }> {
  const next = await dbNowMinus(dataSource, REPLAY_MARGIN_MS);
  const rows: ReplayRow[] = await dataSource.query(
    `WITH low AS (
       SELECT COALESCE((SELECT id FROM outbox WHERE created_at < $2::timestamptz - interval '1 minute' ORDER BY id DESC LIMIT 1), 0) AS id)
     SELECT o.aggregate_type, o.aggregate_id,
            json_agg(json_build_object('id', o.id::text, 'topic', o.topic, 'payload', o.payload) ORDER BY o.id) AS messages
       FROM outbox o, low
      WHERE o.id > low.id AND o.queue = 'index' AND o.tenant_id = $1 AND o.created_at >= $2
      GROUP BY 1, 2
      ORDER BY min(o.id)`,
    [tenantId, since],
  );
  for (let i = 0; i < rows.length; i += REPLAY_CONCURRENCY) {
    await Promise.all(
      rows.slice(i, i + REPLAY_CONCURRENCY).map((row) =>
        handler({
          queue: 'index',
          aggregateType: row.aggregate_type,
          aggregateId: row.aggregate_id,
          tenantId,
          messages: row.messages,
        } as OutboxDelivery<'index'>),
      ),
    );
  }
  return { aggregates: rows.length, next };
}

/** Makes the target's documents the store's published products: deletes the others, writes the missing. */
async function reconcile(
  dataSource: DataSource,
  target: MeiliNode,
  storeId: string,
  indexer: StoreIndexer,
  timeoutMs: number,
): Promise<{ deleted: number; written: number }> {
  const index = target.admin.index(storeIndexUid(storeId));
  const indexed = new Set<string>();
  for (let offset = 0; ; offset += INDEX_BATCH) {
    const page = await index.getDocuments<{ id: string }>({ fields: ['id'], limit: INDEX_BATCH, offset });
    for (const doc of page.results) indexed.add(doc.id);
    if (page.results.length < INDEX_BATCH) break;
  }
  const rows: Array<{ id: string }> = await dataSource.query("SELECT id FROM products WHERE store_id = $1 AND status = 'PUBLISHED'", [
    storeId,
  ]);
  const published = new Set(rows.map((r) => r.id));
  const extra = [...indexed].filter((id) => !published.has(id));
  const missing = [...published].filter((id) => !indexed.has(id));
  if (extra.length > 0) await settle(index.deleteDocuments(extra), timeoutMs);
  if (missing.length > 0) await indexer.syncProducts(missing, [storeId]);
  return { deleted: extra.length, written: missing.length };
}

async function main(): Promise<void> {
  const program = new Command('move-store')
    .description("Moves a store's search index to another Meilisearch node with no downtime (docs/scaling.md)")
    .option('--store <id>', 'the store to move', (value: string) => {
      if (!isUuid(value)) throw new InvalidArgumentError('a store id (UUID)');
      return value.toLowerCase();
    })
    .option('--to <node>', 'the node to move it to (a name of MEILI_NODES)')
    .option('--list', 'list the nodes with their stores and documents instead')
    .showHelpAfterError();
  program.parse(process.argv);
  const opts = program.opts<{ store?: string; to?: string; list?: boolean }>();
  if (!opts.list && (!opts.store || !opts.to)) program.error('give --store <id> and --to <node>, or --list');

  const config = loadConfigOrExit();
  const logger = pino({ level: 'silent' });
  const dataSource = await createDataSource(config, 'commerce-move-store').initialize();
  const nodes = MeiliNodes.fromConfig(config, { adminTimeoutMs: 60_000 });
  const placements = new StorePlacements(dataSource, nodes, logger);
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on('error', () => undefined);
  try {
    if (opts.list) {
      for (const line of await listNodes(dataSource, nodes)) process.stdout.write(`${JSON.stringify(line)}\n`);
      return;
    }
    const result = await moveStore(
      { dataSource, placements, logger, announce: storeChangePublisher(redis, invalidationChannel(config.queuePrefix), logger) },
      opts.store!,
      opts.to!,
      { onStep: (step) => process.stderr.write(`move-store: ${step}\n`) },
    );
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    redis.disconnect();
    nodes.close();
    await dataSource.destroy();
  }
}

/** Each node with the stores placed on it and the documents it holds. */
async function listNodes(dataSource: DataSource, nodes: MeiliNodes): Promise<Array<Record<string, unknown>>> {
  const placed: Array<{ node: string; stores: number; moving: number }> = await dataSource.query(
    'SELECT node, count(*)::int AS stores, count(moving_to)::int AS moving FROM search_placements GROUP BY node',
  );
  return Promise.all(
    nodes.all.map(async (node) => {
      const row = placed.find((p) => p.node === node.name);
      const stats = await node.admin.getStats().catch((error: Error) => error);
      return {
        node: node.name,
        url: node.url,
        stores: row?.stores ?? 0,
        movingAway: row?.moving ?? 0,
        ...(stats instanceof Error
          ? { reachable: false, error: stats.message }
          : {
              reachable: true,
              indexes: Object.keys(stats.indexes).length,
              documents: Object.values(stats.indexes).reduce((s, i) => s + i.numberOfDocuments, 0),
            }),
      };
    }),
  );
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`move-store failed: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
