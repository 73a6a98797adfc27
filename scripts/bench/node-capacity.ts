/**
 * `npm run bench:node-capacity`: what one Meilisearch node holds and serves on this machine, for
 * docs/scaling.md: disk and memory per product document, indexing rate, search CPU per request (so
 * searches per second per core), and what many small stores (one index each) cost it.
 *
 * 1. A bench store of N products (the search bench's data) is built in PostgreSQL and its documents
 *    ingested into a scratch index on the node (Meilisearch alone, as bench:search times it).
 * 2. The public search's own Meilisearch requests (meiliRequestFor, distinct queries) are sent to
 *    that index straight, at 1 and 16 connections, with the node's CPU time per request.
 * 3. S small indexes of 50 of those documents each are created (a store each), then searched at
 *    random at 1 connection, and the big index is searched again beside them.
 * Everything it made is removed at the end. Options: --products (100000), --stores (200),
 * --duration seconds per load run (5), --seed.
 */
import os from 'node:os';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { Meilisearch } from 'meilisearch';
import { loadConfig } from '../../lib/config';
import { createDataSource } from '../../storage/data-source';
import { runMigrations } from '../../storage/migrate';
import { createAdminClient, ensureSearchKey } from '../../search/meili';
import { settle } from '../../search/meili-tasks';
import { meiliRequestFor, type PublicSearchParams } from '../../search/public-search-request';
import { emit, localMeiliPid, log, meiliAloneIngest, parseFlags, round, startServices } from './common';
import { BENCH_PRICE_BUCKETS, createBenchStore, deleteBenchStore, insertProducts, Rng } from './search-data';
import { distinctParams } from './search-queries';
import { runLoad } from './load';

const SMALL_STORE_DOCUMENTS = 50;

async function databaseBytes(meili: Meilisearch): Promise<number> {
  return (await meili.getStats()).databaseSize;
}

function rssMb(pid: number | undefined): number | null {
  if (!pid) return null;
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? round(Number(match[1]) / 1024, 1) : null;
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), []);
  for (const name of flags.keys())
    if (!['products', 'stores', 'duration', 'seed'].includes(name)) throw new Error(`unknown option --${name}`);
  const products = Number(flags.get('products') ?? 100_000);
  const storeCount = Number(flags.get('stores') ?? 200);
  const durationS = Number(flags.get('duration') ?? 5);
  const rng = new Rng(Number(flags.get('seed') ?? 20261127));
  startServices();
  const config = loadConfig({ ...process.env, NODE_ENV: 'development' });
  const db = await createDataSource(config, 'commerce-bench-capacity').initialize();
  const meili = createAdminClient(config, 600_000);
  const pid = localMeiliPid();
  const run = randomBytes(4).toString('hex');
  const bigUid = `capacity_${run}_big`;
  const smallUids = Array.from({ length: storeCount }, (_, i) => `capacity_${run}_s${i}`);
  emit({
    step: 'config',
    products,
    stores: storeCount,
    durationS,
    machine_note: `${os.cpus().length} CPU cores, load ${os.loadavg()[0]!.toFixed(2)}`,
  });
  await runMigrations(db);
  const store = await createBenchStore(db, rng);
  try {
    log(`building ${products} products`);
    await insertProducts(db, store, rng, products, 2_000, () => undefined);
    const emptyBytes = await databaseBytes(meili);
    const rssBefore = rssMb(pid);
    const ingest = await meiliAloneIngest(db, meili, store.storeId, bigUid, 1_800_000);
    const bigBytes = (await databaseBytes(meili)) - emptyBytes;
    emit({
      step: 'ingest',
      documents: ingest.documents,
      ms: ingest.ms,
      documents_per_s: round(ingest.documents / (ingest.ms / 1000), 0),
      disk_mb: round(bigBytes / 1048576, 1),
      disk_bytes_per_document: round(bigBytes / ingest.documents, 0),
      rss_mb_before: rssBefore,
      rss_mb_after: rssMb(pid),
    });

    const key = await ensureSearchKey(meili, config.meiliMasterKey);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const queries = distinctParams(store, rng, 40_000);
    let at = 0;
    const bodyFor = (p: PublicSearchParams, uid: string): string => {
      const request = meiliRequestFor(p, store.facetKeys, BENCH_PRICE_BUCKETS) as { queries: Array<{ indexUid: string }> };
      for (const query of request.queries) query.indexUid = uid;
      return JSON.stringify(request);
    };
    const cpuOf = pid ? { meilisearch: pid } : undefined;
    const big = () => ({ method: 'POST' as const, path: '/multi-search', body: bodyFor(queries[at++ % queries.length]!, bigUid) });
    await runLoad({ url: config.meiliUrl, connections: 4, durationS: 3, headers, next: big });
    for (const connections of [1, 16]) {
      const result = await runLoad({ url: config.meiliUrl, connections, durationS, headers, cpuOf, next: big });
      const cpu = result.cpuMsPerRequest?.meilisearch;
      emit({ step: 'search', index: 'big', connections, ...result, searches_per_core_second: cpu ? round(1000 / cpu, 0) : null });
    }

    log(`creating ${storeCount} small indexes`);
    const sample = (await meili.index(bigUid).getDocuments({ limit: SMALL_STORE_DOCUMENTS })).results;
    const settings = await meili.index(bigUid).getSettings();
    const beforeSmall = await databaseBytes(meili);
    const started = Date.now();
    const tasks = [];
    for (const uid of smallUids) {
      tasks.push(await meili.index(uid).updateSettings(settings));
      tasks.push(await meili.index(uid).addDocuments(sample, { primaryKey: 'id' }));
    }
    for (const task of tasks) await meili.tasks.waitForTask(task, { timeout: 1_800_000, interval: 100 });
    const smallBytes = (await databaseBytes(meili)) - beforeSmall;
    emit({
      step: 'small_stores',
      stores: storeCount,
      documents_each: sample.length,
      ms: Date.now() - started,
      disk_mb_per_store: round(smallBytes / storeCount / 1048576, 2),
      rss_mb: rssMb(pid),
    });
    const small = () => ({
      method: 'POST' as const,
      path: '/multi-search',
      body: bodyFor(queries[at++ % queries.length]!, smallUids[Math.floor(rng.next() * smallUids.length)]!),
    });
    emit({
      step: 'search',
      index: `random of ${storeCount} small`,
      connections: 1,
      ...(await runLoad({ url: config.meiliUrl, connections: 1, durationS, headers, cpuOf, next: small })),
    });
    emit({
      step: 'search',
      index: 'big, beside the small ones',
      connections: 1,
      ...(await runLoad({ url: config.meiliUrl, connections: 1, durationS, headers, cpuOf, next: big })),
    });
  } finally {
    log('cleaning up');
    for (const uid of [bigUid, ...smallUids]) await settle(meili.deleteIndex(uid), 600_000, ['index_not_found']).catch(() => undefined);
    await deleteBenchStore(db, store).catch(() => undefined);
    await db.destroy();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench:node-capacity failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
