/**
 * `npm run bench:import [-- --quick] [-- --products N] [-- --keep]`: the product import benchmark
 * (docs/benchmarks.md, "Import").
 *
 * 1. Builds a fresh tenant + store (brands, categories with attributes, tags, an API key) and writes
 *    a CSV of N products (default 100000; 1 to 3 variants each, so about 2 rows per product) in the
 *    import layout to a temporary file (untimed).
 * 2. Starts the app as three processes (ROLES=api, ROLES=relay,indexer, ROLES=jobs), streams the file to
 *    POST /api/v1/bulk-import/products/async with the store's API key, follows the job's progress
 *    until it completes, and waits until every product is in the store's Meilisearch index.
 * 3. Times Meilisearch alone ingesting the same documents (built as the indexer builds them) into a
 *    scratch index with the same settings.
 * Prints one JSON object per line: the config, the import (rows per second, time to searchable), the
 * peak RSS (VmHWM) of each process, Meilisearch alone, and a summary with the targets (searchable
 * within 3x Meilisearch alone; API process under 500 MB). --quick: 2500 products (about 5000 rows).
 * --import-only: stop when the import job completes (import rate and peak RSS only).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { loadConfig, PROJECT_ROOT, type Config } from '../../lib/config';
import { createDataSource } from '../../storage/data-source';
import { runMigrations } from '../../storage/migrate';
import { createAdminClient } from '../../search/meili';
import { storeIndexUid } from '../../search/index-names';
import { settle } from '../../search/meili-tasks';
import { toCsv } from '../../api/http/csv';
import {
  emit,
  freePort,
  localMeiliPid,
  log,
  meiliAloneIngest,
  parseFlags,
  round,
  sleep,
  startServices,
  stopProcess,
  clearQueuePrefix,
} from './common';
import { commandCpuMs, processCpuMs } from './load';
import { COLOURS, MATERIALS, ORIGINS, SIZES, createBenchStore, deleteBenchStore, Rng, ADJECTIVES, type BenchStore } from './search-data';

interface Options {
  products: number;
  /** Stop once the import job completed (no wait for search, no Meilisearch-alone run): the import rate and the RSS only. */
  importOnly: boolean;
  quick: boolean;
  keep: boolean;
  seed: number;
}

function parseOptions(argv: string[], env: NodeJS.ProcessEnv): Options {
  const flags = parseFlags(argv, ['quick', 'keep', 'import-only']);
  const quick = flags.has('quick') || env.QUICK === '1';
  const products = Number(flags.get('products') ?? env.PRODUCTS ?? (quick ? 2_500 : 100_000));
  if (!Number.isInteger(products) || products < 1) throw new Error('--products must be a positive integer');
  return {
    products,
    quick,
    importOnly: flags.has('import-only') || env.IMPORT_ONLY === '1',
    keep: flags.has('keep') || env.KEEP === '1',
    seed: Number(flags.get('seed') ?? env.SEED ?? 7),
  };
}

/** Writes the CSV of `count` products to `file`; returns the row count and the byte size. */
async function writeCsv(
  file: string,
  db: DataSource,
  store: BenchStore,
  rng: Rng,
  count: number,
): Promise<{ rows: number; bytes: number }> {
  const leaves: Array<{ slug: string; name: string }> = await db.query(
    'SELECT slug, name FROM categories WHERE store_id = $1 AND parent_id IS NOT NULL',
    [store.storeId],
  );
  const nounOf = new Map(store.categories.filter((c) => c.parentId).map((c) => [c.name, c.noun ?? c.name.toLowerCase()]));
  const columns = [
    'handle',
    'title',
    'description',
    'status',
    'price',
    'compareAtPrice',
    'brand',
    'categories',
    'tags',
    'attributes',
    'images',
    'sku',
    'option1Name',
    'option1Value',
    'option2Name',
    'option2Value',
    'stock',
  ].map((header) => ({
    header,
    value: (row: Record<string, unknown>) => row[header],
  }));
  const out = fs.createWriteStream(file);
  const write = (text: string): Promise<void> =>
    new Promise((resolve) => (out.write(text) ? resolve() : out.once('drain', () => resolve())));
  await write(toCsv([], columns));
  let rows = 0;
  for (let start = 0; start < count; start += 1_000) {
    const records: Array<Record<string, unknown>> = [];
    for (let i = start; i < Math.min(count, start + 1_000); i += 1) {
      const leaf = rng.pick(leaves);
      const noun = nounOf.get(leaf.name) ?? 'item';
      const colour = rng.pick(COLOURS);
      const material = rng.pick(MATERIALS);
      const cents = rng.int(500, 50_000);
      const price = (cents / 100).toFixed(2);
      const handle = `bench-${i}`;
      const variants = rng.int(1, 3);
      const sizes = rng.sample(SIZES, variants);
      sizes.forEach((size, v) => {
        const row: Record<string, unknown> = {
          handle,
          sku: `B${i}-${v}`,
          option1Name: 'Size',
          option1Value: size,
          option2Name: 'Colour',
          option2Value: colour,
          stock: rng.int(0, 40),
        };
        if (v === 0) {
          Object.assign(row, {
            title: `${rng.pick(ADJECTIVES)} ${colour} ${material} ${noun} ${i}`,
            description: `<p>A ${material} ${noun} in ${colour}, made in ${rng.pick(ORIGINS)}.</p>`,
            status: 'PUBLISHED',
            price,
            compareAtPrice: rng.chance(0.3) ? ((cents * 1.25) / 100).toFixed(2) : null,
            brand: rng.pick(store.brands).name,
            categories: leaf.slug,
            tags: rng
              .sample(store.tags, rng.int(0, 2))
              .map((t) => t.name)
              .join('|'),
            attributes: JSON.stringify({ material, origin: rng.pick(ORIGINS) }),
            images: `https://img.example.test/${handle}.jpg`,
          });
        }
        records.push(row);
      });
    }
    rows += records.length;
    await write(toCsv(records, columns, { header: false }));
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  return { rows, bytes: fs.statSync(file).size };
}

/** The job's progress; a failed poll is logged with its cause and tried again (five times in a row at most). */
async function readProgress<T>(url: string, headers: Record<string, string>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return (await (await fetch(url, { headers })).json()) as T;
    } catch (error) {
      if (attempt >= 5) throw error;
      log(`progress poll failed (${String((error as Error).cause ?? error)}); trying again`);
      await sleep(500);
    }
  }
}

interface Proc {
  role: string;
  child: ChildProcess;
}

async function startRole(role: string, port: number, env: NodeJS.ProcessEnv): Promise<Proc> {
  // BENCH_APP_NODE_ARGS: extra node flags for the app processes (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile them).
  const nodeArgs = (process.env.BENCH_APP_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, ['--enable-source-maps', ...nodeArgs, path.join(PROJECT_ROOT, 'dist/app/main.js')], {
    cwd: PROJECT_ROOT,
    env: { ...env, ROLES: role, HOST: '127.0.0.1', PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let started = false;
  let exited = false;
  child.once('exit', (code, signal) => {
    exited = true;
    log(`the ${role} process exited (code ${code}, signal ${signal})`);
  });
  child.stdout!.on('data', (data: Buffer) => {
    const text = data.toString('utf8');
    if (text.includes('"msg":"started"')) started = true;
    for (const line of text.split('\n')) if (/"level":(4|5|6)\d/.test(line)) process.stderr.write(`${role}: ${line}\n`);
  });
  const deadline = Date.now() + 60_000;
  while (!started) {
    if (exited) throw new Error(`the ${role} process exited while starting`);
    if (Date.now() > deadline) throw new Error(`the ${role} process did not start within 60 s`);
    await sleep(100);
  }
  return { role, child };
}

/** Peak resident set size (VmHWM) of a process, in MB. */
function peakRssMb(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? round(Number(match[1]) / 1024, 1) : null;
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2), process.env);
  startServices();
  const config: Config = loadConfig({ ...process.env, NODE_ENV: 'development' });
  const db = await createDataSource(config, 'commerce-bench-import').initialize();
  const meili = createAdminClient(config, 600_000);
  const rng = new Rng(options.seed);
  const file = path.join(os.tmpdir(), `bench-import-${randomBytes(6).toString('hex')}.csv`);
  const scratchUid = `bench_scratch_${randomBytes(6).toString('hex')}`;
  // The app processes use queues of their own, removed at the end (a run stopped early leaves no backlog behind).
  const queuePrefix = `bench-import-${randomBytes(4).toString('hex')}`;
  const procs: Proc[] = [];
  let store: BenchStore | undefined;
  emit({
    step: 'config',
    products: options.products,
    quick: options.quick,
    seed: options.seed,
    startedAt: new Date().toISOString(),
    machine_note: `${os.cpus().length} CPU cores, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(
        '/',
      )} at start; the bench, the three app processes, PostgreSQL, Redis and Meilisearch share this machine, so absolute figures are indicative and the ratio is what counts`,
  });
  const cleanup = async (): Promise<void> => {
    for (const proc of procs.splice(0)) await stopProcess(proc.child);
    fs.rmSync(file, { force: true });
    await clearQueuePrefix(config.redisUrl, queuePrefix);
    await settle(meili.deleteIndex(scratchUid), 600_000, ['index_not_found']).catch(() => undefined);
    if (store && !options.keep) {
      log('cleaning up');
      await settle(meili.deleteIndex(storeIndexUid(store.storeId)), 600_000, ['index_not_found']).catch(() => undefined);
      await db
        .query("UPDATE outbox SET status = 'done', done_at = now() WHERE tenant_id = $1 AND status <> 'done'", [store.tenantId])
        .catch(() => undefined);
      await deleteBenchStore(db, store).catch((error: unknown) => log(`cleanup failed: ${(error as Error).message}`));
    }
    await db.destroy();
  };
  process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));
  try {
    await runMigrations(db);
    store = await createBenchStore(db, rng);
    log(`writing a CSV of ${options.products} products`);
    const csv = await writeCsv(file, db, store, rng, options.products);
    emit({ step: 'csv', products: options.products, rows: csv.rows, bytes: csv.bytes });

    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'production',
      APP_SECRET: process.env.APP_SECRET ?? randomBytes(32).toString('hex'),
      QUEUE_PREFIX: queuePrefix,
      BODY_LIMIT_CSV: process.env.BODY_LIMIT_CSV ?? `${Math.max(64, Math.ceil(csv.bytes / 1_048_576) + 8)}mb`,
    };
    for (const role of ['relay,indexer', 'jobs', 'api']) procs.push(await startRole(role, port, env));
    const base = `http://127.0.0.1:${port}/api/v1`;
    const headers = { 'X-API-Key': store.apiKey };

    // CPU seconds each process spends from the upload until everything is searchable (where /proc can be read).
    const meiliPid = localMeiliPid();
    const cpuNow = (): Record<string, number> => ({
      ...Object.fromEntries(procs.map((p) => [p.role, p.child.pid ? (processCpuMs(p.child.pid) ?? 0) : 0])),
      ...(meiliPid ? { meilisearch: processCpuMs(meiliPid) ?? 0 } : {}),
      ...(process.env.DATABASE_URL ? {} : { postgres: commandCpuMs('postgres') }),
    });
    log('uploading');
    const cpuAtStart = cpuNow();
    const started = Date.now();
    const upload = await fetch(`${base}/bulk-import/products/async?storeId=${store.storeId}`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'text/csv', 'Content-Length': String(csv.bytes) },
      body: Readable.toWeb(fs.createReadStream(file)) as unknown as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    const job = (await upload.json()) as { id: string };
    if (upload.status !== 202) throw new Error(`the async import answered ${upload.status}: ${JSON.stringify(job)}`);
    const acceptedMs = Date.now() - started;
    interface Progress {
      state?: string;
      failure?: string | null;
      rows: { read: number };
      products?: Record<string, number>;
      errorsTotal?: number;
    }
    let progress: Progress = { rows: { read: 0 } };
    let lastLog = 0;
    for (;;) {
      progress = await readProgress<Progress>(`${base}/bulk-import/jobs/${job.id}`, headers);
      if (progress.state === 'COMPLETED' || progress.state === 'FAILED') break;
      if (Date.now() - lastLog > 10_000) {
        lastLog = Date.now();
        log(`import ${progress.state}: ${progress.rows?.read ?? 0}/${csv.rows} rows`);
      }
      await sleep(250);
    }
    const importedMs = Date.now() - started;
    if (progress.state !== 'COMPLETED') throw new Error(`the import failed: ${progress.failure}`);
    if (options.importOnly) {
      const rss = Object.fromEntries(procs.map((p) => [p.role, peakRssMb(p.child.pid)]));
      emit({
        step: 'import',
        importOnly: true,
        jobId: job.id,
        acceptedMs,
        importMs: importedMs,
        rowsPerSecond: round((csv.rows / importedMs) * 1000, 1),
        productsPerSecond: round((options.products / importedMs) * 1000, 1),
        products: progress.products,
        rowsRead: progress.rows.read,
        rowErrors: progress.errorsTotal,
        peakRssMb: rss,
      });
      return;
    }
    const index = meili.index(storeIndexUid(store.storeId));
    for (lastLog = 0; ;) {
      const stats = await index.getStats().catch(() => ({ numberOfDocuments: 0, isIndexing: true }));
      if (stats.numberOfDocuments >= options.products && !stats.isIndexing) break;
      if (Date.now() - lastLog > 10_000) {
        lastLog = Date.now();
        log(`searchable: ${stats.numberOfDocuments}/${options.products}`);
      }
      await sleep(250);
    }
    const searchableMs = Date.now() - started;
    const cpuAtEnd = cpuNow();
    const cpuSeconds = Object.fromEntries(
      Object.entries(cpuAtEnd).map(([name, ms]) => [name, round((ms - (cpuAtStart[name] ?? 0)) / 1000, 1)]),
    );
    const rss = Object.fromEntries(procs.map((p) => [p.role, peakRssMb(p.child.pid)]));
    emit({
      step: 'import',
      jobId: job.id,
      acceptedMs,
      importMs: importedMs,
      rowsPerSecond: round((csv.rows / importedMs) * 1000, 1),
      productsPerSecond: round((options.products / importedMs) * 1000, 1),
      searchableMs,
      products: progress.products,
      rowsRead: progress.rows.read,
      rowErrors: progress.errorsTotal,
      peakRssMb: rss,
      cpuSeconds,
    });
    for (const proc of procs.splice(0)) await stopProcess(proc.child);

    log('Meilisearch alone');
    const meiliCpuBefore = meiliPid ? processCpuMs(meiliPid) : undefined;
    const alone = await meiliAloneIngest(db, meili, store.storeId, scratchUid, 3_600_000);
    const meiliCpuAfter = meiliPid ? processCpuMs(meiliPid) : undefined;
    const aloneCpu =
      meiliCpuBefore !== undefined && meiliCpuAfter !== undefined
        ? { meilisearchCpuSeconds: round((meiliCpuAfter - meiliCpuBefore) / 1000, 1) }
        : {};
    emit({
      step: 'meilisearch_alone',
      ms: alone.ms,
      documents: alone.documents,
      docsPerSecond: round((alone.documents / alone.ms) * 1000, 1),
      ...aloneCpu,
    });
    const ratio = searchableMs / alone.ms;
    emit({
      step: 'summary',
      products: options.products,
      rows: csv.rows,
      rowsPerSecond: round((csv.rows / importedMs) * 1000, 1),
      searchableS: round(searchableMs / 1000, 1),
      meilisearchAloneS: round(alone.ms / 1000, 1),
      ratio: round(ratio, 2),
      peakRssMb: rss,
      checks: {
        searchableWithin3xMeilisearch: { value: round(ratio, 2), target: '<= 3', pass: ratio <= 3 },
        apiRssUnder500Mb: { value: rss.api, target: '< 500', pass: rss.api === null ? null : rss.api < 500 },
      },
    });
  } finally {
    await cleanup();
  }
}

main().catch((error: unknown) => {
  log(`failed: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
});
