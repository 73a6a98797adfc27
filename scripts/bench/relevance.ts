/**
 * `npm run bench:relevance -- --data <file>`: the search relevance benchmark (docs/benchmarks.md, "Relevance").
 *
 * 1. Reads a labelled product-search CSV (/work/shared/relevance/README.md: id, query, product_title,
 *    product_description, median_relevance, …); the path comes from --data or RELEVANCE_DATA, the data
 *    never lives in the repository.
 * 2. Creates a fresh tenant + store and imports one published product per `id` through the product
 *    import (POST /bulk-import/products/async, the job the merchants' imports run), in an app process
 *    it starts itself (ROLES=api,relay,indexer,jobs, from the same build folder as this script), and
 *    waits until every product is in the store's index. With --store <id> (a store kept by an earlier
 *    --keep run) the import is skipped: the store is reindexed with the current code instead
 *    (indexer/reindex.ts reindexStore, which re-applies the index settings), and the time it took is printed.
 * 3. Sends every distinct query to GET /catalog/public/search (perPage 10, relevance order) over HTTP at
 *    one connection, once to warm up and once measured, with the app's answer cache off
 *    (SEARCH_CACHE_SIZE=0), and scores the first ten results: nDCG@10, precision@1, zero-result queries,
 *    latency p50/p95 of the measured pass.
 * 4. Scores a plain BM25 over the same products in this process (scripts/bench/relevance-scoring.ts)
 *    and prints both side by side with the ratios (ours / BM25), then the queries that lose most
 *    against BM25 (--losers N, 15): what to look at to improve matching.
 * Prints one JSON object per line, then a summary. Options: --data, --keep, --store, --queries
 * <substring>, --losers N, --json-out <file>. BENCH_APP_NODE_ARGS and BENCH_LOG_LEVEL as for bench:search.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
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
import { reindexStore } from '../../indexer/reindex';
import { emit, freePort, log, parseFlags, round, sleep, startServices, stopProcess, waitUntilReady, clearQueuePrefix } from './common';
import { percentile } from './load';
import { createBenchStore, deleteBenchStore, Rng } from './search-data';
import { handleOf, readRelevanceData, writeImportCsv, type RelevanceData } from './relevance-data';
import { Bm25Index, mean, ndcgAt, precisionAt1 } from './relevance-scoring';

const KNOWN = ['data', 'keep', 'store', 'queries', 'losers', 'json-out'];

interface Options {
  data: string;
  keep: boolean;
  store?: string;
  queries?: string;
  losers: number;
  jsonOut?: string;
}

/** A mistake in the command line: printed as its message alone, exit status 2. */
class UsageError extends Error {}

const USAGE =
  'usage: npm run bench:relevance -- --data <labelled.csv> [--keep] [--store <storeId>] [--queries <substring>] [--losers N] [--json-out <file>]';

export function parseOptions(argv: string[], env: NodeJS.ProcessEnv): Options {
  try {
    return readOptions(argv, env);
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
}

function readOptions(argv: string[], env: NodeJS.ProcessEnv): Options {
  const flags = parseFlags(argv, ['keep']);
  for (const name of flags.keys())
    if (!KNOWN.includes(name)) throw new Error(`unknown option --${name} (known: ${KNOWN.map((k) => `--${k}`).join(' ')})`);
  const data = flags.get('data') ?? env.RELEVANCE_DATA;
  if (!data) throw new Error('give the labelled CSV: --data <file> (or RELEVANCE_DATA); see docs/benchmarks.md, "Relevance"');
  if (!fs.existsSync(data)) throw new Error(`--data ${data}: no such file`);
  const losers = Number(flags.get('losers') ?? 15);
  if (!Number.isInteger(losers) || losers < 0) throw new Error(`--losers must be a whole number, got ${flags.get('losers')}`);
  const store = flags.get('store');
  if (store !== undefined && !/^[0-9a-f-]{36}$/i.test(store)) throw new Error(`--store must be a store id (a UUID), got ${store}`);
  return {
    data,
    keep: flags.has('keep') || env.KEEP === '1',
    store,
    queries: flags.get('queries'),
    losers,
    jsonOut: flags.get('json-out'),
  };
}

// ---- the app ------------------------------------------------------------------------------------

/** The app entry of the build this script belongs to (dist/scripts/bench → dist/app/main.js), not whatever dist/ holds now. */
const APP_MAIN = path.join(__dirname, '..', '..', 'app', 'main.js');

async function startApp(port: number, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const extra = (process.env.BENCH_APP_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const child = spawn(process.execPath, ['--enable-source-maps', ...extra, APP_MAIN], {
    cwd: PROJECT_ROOT,
    env: {
      ...env,
      ROLES: 'api,relay,indexer,jobs',
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return waitUntilReady(child, port);
}

// ---- the import ----------------------------------------------------------------------------------

interface ImportResult {
  jobId: string;
  importMs: number;
  searchableMs: number;
  products: Record<string, number> | undefined;
  rowErrors: number;
  errors: Array<{ row: number; column: string | null; message: string }>;
}

async function importProducts(
  base: string,
  storeId: string,
  apiKey: string,
  file: string,
  bytes: number,
  expected: number,
  db: DataSource,
  meili: ReturnType<typeof createAdminClient>,
): Promise<ImportResult> {
  const headers = { 'X-API-Key': apiKey };
  const started = Date.now();
  const upload = await fetch(`${base}/api/v1/bulk-import/products/async?storeId=${storeId}`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'text/csv', 'Content-Length': String(bytes) },
    body: Readable.toWeb(fs.createReadStream(file)) as unknown as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  const job = (await upload.json()) as { id: string };
  if (upload.status !== 202) throw new Error(`the async import answered ${upload.status}: ${JSON.stringify(job)}`);
  interface Progress {
    state?: string;
    failure?: string | null;
    rows?: { read: number };
    products?: Record<string, number>;
    errors?: ImportResult['errors'];
    errorsTotal?: number;
  }
  let progress: Progress = {};
  let lastLog = Date.now();
  for (;;) {
    const res = await fetch(`${base}/api/v1/bulk-import/jobs/${job.id}`, { headers });
    progress = (await res.json()) as Progress;
    if (progress.state === 'COMPLETED' || progress.state === 'FAILED') break;
    if (Date.now() - lastLog > 10_000) {
      lastLog = Date.now();
      log(`import ${progress.state}: ${progress.rows?.read ?? 0}/${expected} rows`);
    }
    await sleep(250);
  }
  const importMs = Date.now() - started;
  if (progress.state !== 'COMPLETED') throw new Error(`the import failed: ${progress.failure}`);
  const published = await publishedCount(db, storeId);
  const index = meili.index(storeIndexUid(storeId));
  for (lastLog = Date.now(); ;) {
    const stats = await index.getStats().catch(() => ({ numberOfDocuments: 0, isIndexing: true }));
    if (stats.numberOfDocuments >= published && !stats.isIndexing) break;
    if (Date.now() - lastLog > 10_000) {
      lastLog = Date.now();
      log(`searchable: ${stats.numberOfDocuments}/${published}`);
    }
    if (Date.now() - started > 30 * 60_000)
      throw new Error(`only ${stats.numberOfDocuments} of ${published} products searchable after 30 minutes`);
    await sleep(250);
  }
  return {
    jobId: job.id,
    importMs,
    searchableMs: Date.now() - started,
    products: progress.products,
    rowErrors: progress.errorsTotal ?? 0,
    errors: (progress.errors ?? []).slice(0, 10),
  };
}

async function publishedCount(db: DataSource, storeId: string): Promise<number> {
  const rows: Array<{ n: string }> = await db.query(`SELECT count(*) AS n FROM products WHERE store_id = $1 AND status = 'PUBLISHED'`, [
    storeId,
  ]);
  return Number(rows[0]!.n);
}

// ---- the searches --------------------------------------------------------------------------------

interface Answer {
  items?: Array<{ id: string; slug: string; title: string }>;
  total?: number;
  looseMatch?: boolean;
  matching?: { strategy: string; q: string | null };
}

interface QueryOutcome {
  query: string;
  ms: number;
  status: number;
  total: number;
  /** CSV ids of the first ten results (null: a product not from the data set). */
  ids: Array<string | null>;
  titles: string[];
  looseMatch: boolean | null;
  matching: Answer['matching'] | null;
}

async function searchOnce(base: string, storeId: string, query: string, idOfSlug: Map<string, string>): Promise<QueryOutcome> {
  const url = `${base}/api/v1/catalog/public/search?${new URLSearchParams({ storeId, q: query, perPage: '10' }).toString()}`;
  const started = performance.now();
  const res = await fetch(url);
  const text = await res.text();
  const ms = performance.now() - started;
  if (res.status !== 200) return { query, ms, status: res.status, total: 0, ids: [], titles: [], looseMatch: null, matching: null };
  const body = JSON.parse(text) as Answer;
  const items = (body.items ?? []).slice(0, 10);
  return {
    query,
    ms,
    status: res.status,
    total: body.total ?? items.length,
    ids: items.map((item) => idOfSlug.get(item.slug) ?? null),
    titles: items.map((item) => item.title),
    looseMatch: body.looseMatch ?? null,
    matching: body.matching ?? null,
  };
}

// ---- scoring -------------------------------------------------------------------------------------

interface Scored {
  query: string;
  judged: number;
  ours: { ndcg10: number; p1: number; zero: boolean; ranked: Array<number | undefined> };
  bm25: { ndcg10: number; p1: number; zero: boolean; ids: string[]; ranked: Array<number | undefined> };
  outcome: QueryOutcome;
}

function score(data: RelevanceData, bm25: Bm25Index, outcome: QueryOutcome): Scored {
  const judgments = data.judgments.get(outcome.query)!;
  const labels = [...judgments.values()];
  const labelOf = (id: string | null): number | undefined => (id === null ? undefined : judgments.get(id));
  const ranked = outcome.ids.map(labelOf);
  const bm25Ids = bm25.search(outcome.query, 10).map((hit) => hit.id);
  const bm25Ranked = bm25Ids.map(labelOf);
  return {
    query: outcome.query,
    judged: labels.length,
    ours: { ndcg10: ndcgAt(ranked, labels, 10), p1: precisionAt1(ranked, labels), zero: outcome.ids.length === 0, ranked },
    bm25: {
      ndcg10: ndcgAt(bm25Ranked, labels, 10),
      p1: precisionAt1(bm25Ranked, labels),
      zero: bm25Ids.length === 0,
      ids: bm25Ids,
      ranked: bm25Ranked,
    },
    outcome,
  };
}

const ratio = (ours: number, base: number): number | null => (base === 0 ? null : round(ours / base, 3));

/** The checked-out commit, with `-dirty` when tracked files differ from it (null outside a git checkout). */
function gitCommit(): string | null {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: PROJECT_ROOT, encoding: 'utf8' });
  if (head.status !== 0) return null;
  const dirty = spawnSync('git', ['diff', '--quiet', 'HEAD'], { cwd: PROJECT_ROOT }).status === 1;
  return `${head.stdout.trim()}${dirty ? '-dirty' : ''}`;
}

// ---- main ---------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2), process.env);
  const startedAt = new Date();
  log(`reading ${options.data}`);
  const data = await readRelevanceData(options.data);
  const filter = options.queries?.toLowerCase();
  const queries = filter === undefined ? data.queries : data.queries.filter((q) => q.toLowerCase().includes(filter));
  if (queries.length === 0) throw new Error(`no query contains "${options.queries}"`);
  const idOfSlug = new Map(data.products.map((p) => [handleOf(p.id), p.id]));

  startServices();
  const config: Config = loadConfig({ ...process.env, NODE_ENV: 'development' });
  const db = await createDataSource(config, 'commerce-bench-relevance').initialize();
  const meili = createAdminClient(config, 600_000);
  const file = path.join(os.tmpdir(), `bench-relevance-${randomBytes(6).toString('hex')}.csv`);
  const queuePrefix = `bench-relevance-${randomBytes(4).toString('hex')}`;
  let app: ChildProcess | undefined;
  let created: { tenantId: string; storeId: string } | undefined;
  const commit = gitCommit();

  emit({
    step: 'config',
    data: options.data,
    rows: data.rows,
    products: data.products.length,
    queries: queries.length,
    queriesFilter: options.queries ?? null,
    store: options.store ?? 'new',
    keep: options.keep,
    build: path.relative(PROJECT_ROOT, path.join(__dirname, '..', '..')) || '.',
    commit,
    startedAt: startedAt.toISOString(),
    machine_note: `${os.cpus().length} CPU cores, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(
        '/',
      )} at start; latency is indicative (the bench, the app, PostgreSQL, Redis and Meilisearch share this machine), relevance figures are exact`,
  });

  let cleaning: Promise<void> | undefined;
  const cleanup = (): Promise<void> =>
    (cleaning ??= (async () => {
      if (app) await stopProcess(app);
      fs.rmSync(file, { force: true });
      await clearQueuePrefix(config.redisUrl, queuePrefix);
      // A store this run created goes unless --keep; a reused store (--store) always stays.
      if (created && !options.keep) {
        log('cleaning up');
        await settle(meili.deleteIndex(storeIndexUid(created.storeId)), 600_000, ['index_not_found']).catch(() => undefined);
        await db
          .query("UPDATE outbox SET status = 'done', done_at = now() WHERE tenant_id = $1 AND status <> 'done'", [created.tenantId])
          .catch(() => undefined);
        await deleteBenchStore(db, created).catch((error: unknown) => log(`cleanup failed: ${(error as Error).message}`));
      }
      await db.destroy();
    })());
  const interrupted = (): void => {
    log('interrupted');
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  let storeId: string;
  const summary: Record<string, unknown> = {};
  try {
    await runMigrations(db);
    const port = await freePort();
    const bytes = writeImportCsv(file, data.products);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'production',
      APP_SECRET: process.env.APP_SECRET ?? randomBytes(32).toString('hex'),
      QUEUE_PREFIX: queuePrefix,
      BODY_LIMIT_CSV: process.env.BODY_LIMIT_CSV ?? `${Math.max(64, Math.ceil(bytes / 1_048_576) + 8)}mb`,
      // Every search reaches Meilisearch: no answer (or facet snapshot) is served from the app's cache.
      SEARCH_CACHE_SIZE: '0',
      // All searches come from one address: the per-client limit stays on but never refuses.
      SEARCH_PUBLIC_REQUESTS_PER_MINUTE: process.env.SEARCH_PUBLIC_REQUESTS_PER_MINUTE ?? '1000000000',
    };
    const base = `http://127.0.0.1:${port}`;

    if (options.store) {
      // 2'. A kept store: reindex it with this build's code (settings re-applied), no import.
      storeId = options.store;
      const rows: Array<{ id: string }> = await db.query('SELECT id FROM stores WHERE id = $1', [storeId]);
      if (rows.length === 0) throw new Error(`--store ${storeId}: no such store (was it kept with --keep?)`);
      const published = await publishedCount(db, storeId);
      const slugs: Array<{ n: string }> = await db.query(
        `SELECT count(*) AS n FROM products WHERE store_id = $1 AND status = 'PUBLISHED' AND slug = ANY($2::text[])`,
        [storeId, [...idOfSlug.keys()]],
      );
      const fromData = Number(slugs[0]!.n);
      if (fromData < data.products.length)
        log(`warning: the store holds ${fromData} of the ${data.products.length} products of ${options.data}`);
      log(`reindexing store ${storeId} (${published} products) with the current code`);
      const reindex = await reindexStore(db, meili, storeId);
      emit({ step: 'reindex', storeId, products: published, fromData, documents: reindex.documents, reindex_ms: reindex.ms });
      summary.reindex = { documents: reindex.documents, reindex_ms: reindex.ms };
      log(`starting the app on port ${port}`);
      app = await startApp(port, env);
    } else {
      // 2. A fresh store, filled through the product import.
      const store = await createBenchStore(db, new Rng(1));
      created = store;
      storeId = store.storeId;
      emit({ step: 'csv', storeId, products: data.products.length, bytes });
      log(`starting the app on port ${port}`);
      app = await startApp(port, env);
      log(`importing ${data.products.length} products into store ${storeId}`);
      const imported = await importProducts(base, storeId, store.apiKey, file, bytes, data.products.length, db, meili);
      emit({ step: 'import', storeId, ...imported });
      summary.import = {
        importMs: imported.importMs,
        searchableMs: imported.searchableMs,
        products: imported.products,
        rowErrors: imported.rowErrors,
      };
    }

    // 3. Our search: a warm-up pass, then the measured pass (both uncached: SEARCH_CACHE_SIZE=0).
    const probe = await searchOnce(base, storeId, queries[0]!, idOfSlug);
    if (probe.status !== 200) throw new Error(`the public search answered ${probe.status}`);
    log(`warm-up pass (${queries.length} queries)`);
    for (const query of queries) await searchOnce(base, storeId, query, idOfSlug);
    log('measured pass');
    const outcomes: QueryOutcome[] = [];
    for (const query of queries) outcomes.push(await searchOnce(base, storeId, query, idOfSlug));
    const failed = outcomes.filter((o) => o.status !== 200);
    if (failed.length > 0)
      throw new Error(`${failed.length} searches answered non-200 (first: ${failed[0]!.status} for "${failed[0]!.query}")`);
    const latencies = outcomes.map((o) => o.ms).sort((a, b) => a - b);
    const latency = {
      requests: latencies.length,
      p50_ms: round(percentile(latencies, 50), 2),
      p95_ms: round(percentile(latencies, 95), 2),
      max_ms: round(latencies[latencies.length - 1]!, 2),
      cache: 'off (SEARCH_CACHE_SIZE=0), after one warm-up pass, 1 connection',
    };
    emit({ step: 'latency', ...latency });

    // 4. BM25 over the same products, and the scores.
    const bm25Started = Date.now();
    const bm25 = new Bm25Index(data.products.map((p) => ({ id: p.id, title: p.title, description: p.description })));
    const scored = outcomes.map((outcome) => score(data, bm25, outcome));
    const bm25Ms = Date.now() - bm25Started;
    const figures = (pick: (s: Scored) => Scored['ours'] | Scored['bm25']) => ({
      ndcg10: round(mean(scored.map((s) => pick(s).ndcg10)), 4),
      p1: round(mean(scored.map((s) => pick(s).p1)), 4),
      zeroResults: scored.filter((s) => pick(s).zero).length,
    });
    const ours = figures((s) => s.ours);
    const baseline = figures((s) => s.bm25);
    const loose = outcomes.filter((o) => o.looseMatch).length;
    const strategies: Record<string, number> = {};
    for (const o of outcomes) if (o.matching) strategies[o.matching.strategy] = (strategies[o.matching.strategy] ?? 0) + 1;
    emit({ step: 'relevance', target: 'ours', queries: scored.length, ...ours, looseAnswers: loose, matching: strategies });
    emit({ step: 'relevance', target: 'bm25', queries: scored.length, ...baseline, k1: 1.2, b: 0.75, ms: bm25Ms });
    const compare = {
      ndcg10_ratio: ratio(ours.ndcg10, baseline.ndcg10),
      p1_ratio: ratio(ours.p1, baseline.p1),
      zeroResults_ratio: ratio(ours.zeroResults, baseline.zeroResults),
      queriesWorse: scored.filter((s) => s.ours.ndcg10 < s.bm25.ndcg10 - 1e-9).length,
      queriesBetter: scored.filter((s) => s.ours.ndcg10 > s.bm25.ndcg10 + 1e-9).length,
    };
    emit({ step: 'compare', ...compare });

    // 5. The queries that lose most against BM25.
    const titleOf = new Map(data.products.map((p) => [p.id, p.title]));
    const losers = scored
      .filter((s) => s.bm25.ndcg10 - s.ours.ndcg10 > 1e-9)
      .sort((a, b) => b.bm25.ndcg10 - b.ours.ndcg10 - (a.bm25.ndcg10 - a.ours.ndcg10) || a.query.localeCompare(b.query))
      .slice(0, options.losers);
    losers.forEach((s, i) => {
      const top3 = s.outcome.titles.slice(0, 3).map((title, at) => ({ title, label: s.ours.ranked[at] ?? null }));
      emit({
        step: 'loser',
        rank: i + 1,
        query: s.query,
        ours_ndcg10: round(s.ours.ndcg10, 4),
        bm25_ndcg10: round(s.bm25.ndcg10, 4),
        total: s.outcome.total,
        top3,
        bm25_top3: s.bm25.ids.slice(0, 3).map((id, at) => ({ title: titleOf.get(id), label: s.bm25.ranked[at] ?? null })),
        looseMatch: s.outcome.looseMatch,
        matching: s.outcome.matching,
      });
    });
    log(
      `ours nDCG@10 ${ours.ndcg10}, P@1 ${ours.p1}, zero ${ours.zeroResults} | BM25 nDCG@10 ${baseline.ndcg10}, P@1 ${baseline.p1}, zero ${baseline.zeroResults}`,
    );
    for (const [i, s] of losers.entries())
      log(
        `${String(i + 1).padStart(2)}. "${s.query}" ours ${s.ours.ndcg10.toFixed(3)} bm25 ${s.bm25.ndcg10.toFixed(3)}${s.outcome.looseMatch ? ` loose (${s.outcome.matching?.strategy}: "${s.outcome.matching?.q}")` : ''}: ${s.outcome.titles
          .slice(0, 3)
          .map((t, at) => `[${s.ours.ranked[at] ?? '-'}] ${t}`)
          .join(' | ')}`,
      );

    if (options.jsonOut) {
      const details = scored.map((s) => ({
        query: s.query,
        judged: s.judged,
        ours: {
          ndcg10: round(s.ours.ndcg10, 4),
          p1: s.ours.p1,
          total: s.outcome.total,
          ms: round(s.outcome.ms, 2),
          looseMatch: s.outcome.looseMatch,
          matching: s.outcome.matching,
          results: s.outcome.ids.map((id, at) => ({ id, title: s.outcome.titles[at], label: s.ours.ranked[at] ?? null })),
        },
        bm25: {
          ndcg10: round(s.bm25.ndcg10, 4),
          p1: s.bm25.p1,
          results: s.bm25.ids.map((id, at) => ({ id, title: titleOf.get(id), label: s.bm25.ranked[at] ?? null })),
        },
      }));
      fs.writeFileSync(options.jsonOut, `${JSON.stringify(details, null, 2)}\n`);
      log(`per-query details in ${options.jsonOut}`);
    }

    Object.assign(summary, {
      ours: { ...ours, looseAnswers: loose, p50_ms: latency.p50_ms, p95_ms: latency.p95_ms },
      bm25: baseline,
      ratios: { ndcg10: compare.ndcg10_ratio, p1: compare.p1_ratio, zeroResults: compare.zeroResults_ratio },
      queriesWorse: compare.queriesWorse,
      queriesBetter: compare.queriesBetter,
      losers: losers.map((s) => s.query),
    });
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await cleanup();
  }
  emit({
    step: 'summary',
    storeId,
    kept: Boolean(options.store) || options.keep,
    queries: queries.length,
    products: data.products.length,
    commit,
    ...summary,
    elapsed_s: Math.round((Date.now() - startedAt.getTime()) / 1000),
  });
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      if (error instanceof UsageError) {
        process.stderr.write(`bench:relevance: ${error.message}\n`);
        process.exit(2);
      }
      process.stderr.write(`bench:relevance failed: ${(error as Error).stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
