/**
 * `npm run bench:search -- --nodes 2`: public search throughput with stores on two Meilisearch nodes
 * against the same stores on one, side by side in one run (docs/benchmarks.md, "Several Meilisearch
 * nodes"; docs/scaling.md).
 *
 * 1. Starts the local services with a second Meilisearch (MEILI_NODES_LOCAL=2, one port above).
 * 2. Builds two stores of N/2 published products each, both indexed on the first node.
 * 3. Runs the same distinct-query load (queries of both stores, alternating) against the app with
 *    one node (MEILI_NODES_LOCAL=1), then moves the second store to the second node with
 *    `move-store`'s own code and runs it against the app with both, then once more with one node
 *    after moving it back (so a drift of the machine between the runs shows).
 * Prints one JSON line per run and a summary with the ratios and each node's CPU per search.
 */
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { loadConfig, type Config } from '../../lib/config';
import { createDataSource } from '../../storage/data-source';
import { runMigrations } from '../../storage/migrate';
import { MeiliNodes } from '../../search/meili-nodes';
import { StorePlacements } from '../../search/store-placement';
import { storeIndexUid } from '../../search/index-names';
import { settle } from '../../search/meili-tasks';
import { reindexStore } from '../../indexer/reindex';
import { moveStore } from '../../indexer/move-store';
import { emit, freePort, localMeiliPid, log, round, startServices, stopProcess } from './common';
import { createBenchStore, deleteBenchStore, insertProducts, Rng, type BenchStore } from './search-data';
import { distinctParams, searchPath } from './search-queries';
import { runLoad, type LoadResult } from './load';
import { startApp } from './search-app';

export interface NodesOptions {
  n: number;
  durationS: number;
  connections: number[];
  seed: number;
  keep: boolean;
}

const WARM_SECONDS = 5;

export async function runNodesComparison(options: NodesOptions): Promise<void> {
  const startedAt = Date.now();
  if (process.env.MEILI_URL || process.env.MEILI_NODES)
    throw new Error('--nodes 2 runs the local services with a second Meilisearch; unset MEILI_URL and MEILI_NODES');
  startServices({ MEILI_NODES_LOCAL: '2' });
  const config: Config = loadConfig({ ...process.env, NODE_ENV: 'development', MEILI_NODES_LOCAL: '2' });
  const db = await createDataSource(config, 'commerce-bench-nodes').initialize();
  const nodes = MeiliNodes.fromConfig(config, { adminTimeoutMs: 600_000 });
  const placements = new StorePlacements(db, nodes, pino({ level: 'silent' }));
  const [first, second] = [nodes.main, nodes.all[1]!];
  const rng = new Rng(options.seed);
  const stores: BenchStore[] = [];
  let app: ChildProcess | undefined;
  emit({
    step: 'config',
    mode: 'nodes',
    nodes: nodes.all.map((n) => ({ name: n.name, url: n.url })),
    n: options.n,
    durationS: options.durationS,
    connections: options.connections,
    machine_note: `${os.cpus().length} CPU cores, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join('/')}; both Meilisearch nodes run on this machine and share its cores`,
  });
  try {
    await runMigrations(db);
    for (let i = 0; i < 2; i += 1) {
      const store = await createBenchStore(db, rng);
      stores.push(store);
      log(`store ${i + 1} ${store.storeId}: inserting ${options.n / 2} products`);
      await insertProducts(db, store, rng, Math.floor(options.n / 2), 2_000, () => undefined);
      // Both on the first node to begin with.
      await db.query(
        `INSERT INTO search_placements (store_id, node) VALUES ($1, $2)
         ON CONFLICT (store_id) DO UPDATE SET node = EXCLUDED.node, moving_to = NULL`,
        [store.storeId, first.name],
      );
      const built = await reindexStore(db, placements, store.storeId);
      emit({ step: 'data', store: i + 1, storeId: store.storeId, documents: built.documents, reindex_ms: built.ms });
    }
    await db.query('ANALYZE products; ANALYZE product_variants');

    const pools = stores.map((store) => distinctParams(store, rng, 30_000));
    let at = 0;
    // Alternating stores: half of the searches on each.
    const next = () => ({ method: 'GET' as const, path: searchPath(pools[at % 2]![Math.floor(at++ / 2) % pools[0]!.length]!) });
    const cpuOf = (): Record<string, number> => {
      const pids: Record<string, number> = { loadgen: process.pid, ...(app?.pid ? { app: app.pid } : {}) };
      const one = localMeiliPid(1);
      const two = localMeiliPid(2);
      if (one) pids[`meili_${first.name}`] = one;
      if (two) pids[`meili_${second.name}`] = two;
      return pids;
    };
    const move = async (store: BenchStore, to: string): Promise<void> => {
      const moved = await moveStore(
        { dataSource: db, placements, logger: pino({ level: 'silent' }), announce: async () => undefined },
        store.storeId,
        to,
        { graceMs: 0 },
      );
      emit({ step: 'move', storeId: store.storeId, from: moved.from, to: moved.to, documents: moved.documents, ms: moved.ms });
    };
    const phase = async (label: string, nodeCount: 1 | 2): Promise<Record<number, LoadResult>> => {
      const port = await freePort();
      app = await startApp(port, { MEILI_NODES_LOCAL: String(nodeCount) });
      const url = `http://127.0.0.1:${port}`;
      await runLoad({ url, connections: 4, durationS: Math.min(WARM_SECONDS, options.durationS), next });
      const results: Record<number, LoadResult> = {};
      for (const connections of options.connections) {
        log(`${label}: distinct@${connections}`);
        results[connections] = await runLoad({ url, connections, durationS: options.durationS, cpuOf: cpuOf(), next });
        emit({ step: 'search', phase: label, nodes: nodeCount, connections, ...results[connections] });
      }
      await stopProcess(app);
      app = undefined;
      return results;
    };

    const oneBefore = await phase('one node', 1);
    await move(stores[1]!, second.name);
    const two = await phase('two nodes', 2);
    await move(stores[1]!, first.name);
    const oneAfter = await phase('one node again', 1);

    const compare: Record<string, unknown> = {};
    for (const connections of options.connections) {
      const oneRps = (oneBefore[connections]!.rps + oneAfter[connections]!.rps) / 2;
      compare[`distinct@${connections}`] = {
        one_node_rps: [oneBefore[connections]!.rps, oneAfter[connections]!.rps],
        two_nodes_rps: two[connections]!.rps,
        rps_ratio_two_vs_one: round(two[connections]!.rps / oneRps),
        p50_ms: { one_node: [oneBefore[connections]!.p50, oneAfter[connections]!.p50], two_nodes: two[connections]!.p50 },
        meili_cpu_ms_per_search: {
          one_node: oneBefore[connections]!.cpuMsPerRequest,
          two_nodes: two[connections]!.cpuMsPerRequest,
        },
        errors: oneBefore[connections]!.errors + two[connections]!.errors + oneAfter[connections]!.errors,
      };
    }
    emit({ step: 'summary', mode: 'nodes', n: options.n, ...compare, elapsed_s: Math.round((Date.now() - startedAt) / 1000) });
  } finally {
    if (app) await stopProcess(app);
    if (!options.keep) await cleanup(db, nodes, stores);
    nodes.close();
    await db.destroy();
  }
}

async function cleanup(db: DataSource, nodes: MeiliNodes, stores: BenchStore[]): Promise<void> {
  log('cleaning up');
  for (const store of stores) {
    for (const node of nodes.all)
      await settle(node.admin.deleteIndex(storeIndexUid(store.storeId)), 600_000, ['index_not_found']).catch(() => undefined);
    await deleteBenchStore(db, store).catch((error: unknown) => log(`cleanup failed: ${(error as Error).message}`));
  }
}
