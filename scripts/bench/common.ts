/**
 * What the benchmark scripts share: their output (one JSON object a line on stdout, progress on
 * stderr), rounding, waiting, free ports, the flag loop, starting the project's services, stopping a
 * child process, and Meilisearch alone ingesting a store's documents (the yardstick that both the
 * search and the import benchmark compare our indexing with).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import type { Meilisearch } from 'meilisearch';
import Redis from 'ioredis';
import { PROJECT_ROOT } from '../../lib/config';
import { INDEX_BATCH } from '../../indexer/index-consumer';
import { applyIndexSettings, indexSettings, loadStoreSearchData } from '../../search/index-settings';
import { ProductDocumentBuilder } from '../../search/product-document';
import { settle } from '../../search/meili-tasks';

/** One result record: a JSON object on its own line of stdout. */
export const emit = (record: unknown): void => {
  process.stdout.write(`${JSON.stringify(record)}\n`);
};

/** Progress, on stderr so that stdout stays the records alone. */
export const log = (message: string): void => {
  process.stderr.write(`bench: ${message}\n`);
};

/** `n` to `digits` decimals as `toFixed` rounds; NaN and infinities pass through. */
export const round = (n: number, digits = 2): number => Number(n.toFixed(digits));

/**
 * `x` to `digits` decimals by scaling and `Math.round`. The vision and sandbox benchmarks have always
 * rounded this way; it can differ from `round` at a half, so they keep it and their figures stay
 * comparable with earlier runs.
 */
export const roundScaled = (x: number, digits = 1): number => Math.round(x * 10 ** digits) / 10 ** digits;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A TCP port on 127.0.0.1 that nothing listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * `--name value`, `--name=value`, and the switches in `switches` alone (`--quick`, value '1'), into a
 * map by name. Anything that is not a `--` flag, or a flag without its value, is an error.
 */
export function parseFlags(argv: string[], switches: string[]): Map<string, string> {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new Error(`unexpected argument ${arg}`);
    const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
    if (switches.includes(name)) flags.set(name, inline ?? '1');
    else if (inline !== undefined) flags.set(name, inline);
    else if (argv[i + 1] !== undefined) flags.set(name, argv[(i += 1)]!);
    else throw new Error(`--${name} needs a value`);
  }
  return flags;
}

/**
 * Starts the project-local PostgreSQL, Redis and Meilisearch (a no-op for those already up). What the
 * script prints goes to stderr (fd 2), so that stdout stays the JSON records alone.
 */
export function startServices(env: Record<string, string> = {}): void {
  log('starting services');
  const services = spawnSync('bash', [path.join(PROJECT_ROOT, 'scripts/services'), 'start'], {
    stdio: ['ignore', 2, 'inherit'],
    env: { ...process.env, ...env },
  });
  if (services.status !== 0) throw new Error('scripts/services start failed');
}

/** SIGTERM, then SIGKILL if the process has not exited within 15 s. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(15_000)]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/**
 * Meilisearch alone ingesting the store's published products into `scratchUid`, with the settings
 * our indexer gives the store's index. The documents are built first, untimed, exactly as the
 * indexer builds them (`buildMs`); `ms` times creating the index, sending every batch and waiting for
 * every task, each task for at most `taskTimeoutMs`.
 */
export async function meiliAloneIngest(
  db: DataSource,
  meili: Meilisearch,
  storeId: string,
  scratchUid: string,
  taskTimeoutMs: number,
): Promise<{ ms: number; buildMs: number; documents: number }> {
  const buildStarted = Date.now();
  const builder = new ProductDocumentBuilder(db);
  const batches: string[] = [];
  let documents = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows: Array<{ id: string }> = await db.query(
      `SELECT id FROM products WHERE store_id = $1 AND status = 'PUBLISHED' AND id > $2 ORDER BY id LIMIT $3`,
      [storeId, after, INDEX_BATCH],
    );
    if (rows.length === 0) break;
    after = rows[rows.length - 1]!.id;
    const { documents: docs } = await builder.build(rows.map((r) => r.id));
    batches.push(JSON.stringify(docs));
    documents += docs.length;
    if (rows.length < INDEX_BATCH) break;
  }
  const buildMs = Date.now() - buildStarted;
  const settings = indexSettings(await loadStoreSearchData(db, storeId));
  await settle(meili.deleteIndex(scratchUid), 600_000, ['index_not_found']);

  const started = Date.now();
  await applyIndexSettings(meili, scratchUid, settings, { timeoutMs: 600_000 });
  const tasks = [];
  for (const batch of batches)
    tasks.push(await meili.index(scratchUid).addDocumentsFromString(batch, 'application/json', { primaryKey: 'id' }));
  for (const task of tasks) {
    const done = await meili.tasks.waitForTask(task, { timeout: taskTimeoutMs, interval: 50 });
    if (done.status !== 'succeeded') throw new Error(`Meilisearch task ${done.uid} ${done.status}: ${done.error?.message ?? ''}`);
  }
  return { ms: Date.now() - started, buildMs, documents };
}

/** Waits until the app started as `child` answers /readyz with 200 (60 s at most); stops it and throws otherwise. */
export async function waitUntilReady(child: ChildProcess, port: number): Promise<ChildProcess> {
  const deadline = Date.now() + 60_000;
  let exited = false;
  child.once('exit', () => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error('the app exited while starting (see its output above)');
    try {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      await res.arrayBuffer();
      if (res.status === 200) return child;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  child.kill('SIGTERM');
  throw new Error('the app did not become ready within 60 s');
}

/** Deletes every Redis key under a bench run's own queue prefix (its queues and their bookkeeping). */
export async function clearQueuePrefix(redisUrl: string, queuePrefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    for (let cursor = '0'; ;) {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${queuePrefix}:*`, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      if ((cursor = next) === '0') break;
    }
  } catch (error) {
    log(`queue cleanup failed: ${(error as Error).message}`);
  } finally {
    redis.disconnect();
  }
}

/**
 * The app's api role alone in a process of its own on 127.0.0.1:`port` (production logging at warn,
 * no demo sandbox), with `env` on top of this process's environment; wait for it with waitUntilReady.
 * `entry` runs another build's app/main.js (a baseline); BENCH_APP_NODE_ARGS adds node arguments
 * (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
export function spawnApiProcess(
  port: number,
  env: Record<string, string> = {},
  entry = path.join(__dirname, '../../app/main.js'),
): ChildProcess {
  const extra = (process.env.BENCH_APP_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  return spawn(process.execPath, ['--enable-source-maps', ...extra, entry], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      ROLES: 'api',
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'warn',
      DEMO_SANDBOX: 'false',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

/**
 * The pid of the project-local Meilisearch, or of its n-th node with MEILI_NODES_LOCAL (undefined
 * when MEILI_URL points elsewhere or the pid file cannot be read): whose CPU time a bench reports.
 */
export function localMeiliPid(n = 1): number | undefined {
  if (process.env.MEILI_URL) return undefined;
  try {
    const file = n === 1 ? 'meilisearch.pid' : `meilisearch-${n}.pid`;
    const pid = Number(readFileSync(path.join(PROJECT_ROOT, '.data/run', file), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
