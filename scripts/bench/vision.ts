/**
 * `npm run bench:vision [-- --quick] [-- --baseline <dist folder>]`: the visual search benchmark
 * (docs/benchmarks.md, "Visual search").
 *
 * 1. Embedder throughput of the default model (MobileNetV2) on each runtime, onnxruntime (default)
 *    and tfjs wasm: images/s embedded one at a time and in batches (8, 16), decode (sharp
 *    normalisation) time per image, and the process RSS with the models loaded.
 * 2. A fresh store of N published products (default 10,000) built in PostgreSQL, each with an image
 *    vector: 256 images drawn and embedded for real, then each product gets one of those vectors with
 *    a little noise (re-normalised) — embedding every product image would measure nothing new. The
 *    store is indexed with our reindex (vectors read from PostgreSQL).
 * 3. Where a query's time goes, in this process: decode → embed → search, each timed, p50/p95 of each
 *    part and of the total; storefront path (Meilisearch, published) and merchant path (vectors
 *    scored in the process, all statuses).
 * 4. Query by image over HTTP, the way shoppers send it (multipart upload to the public operation),
 *    against two api processes side by side: the baseline and this build. The baseline is another
 *    build's folder (`--baseline dist-before`, its app/main.js) or, without one, this build with the
 *    speed features off (tfjs runtime, no query cache, no batching). Rounds alternate which goes
 *    first, because the machine is shared and its load drifts. Each round and process: one client
 *    sending distinct photos one after another (p50/p95), the same photos sent again (what the
 *    query cache saves), and C concurrent clients for S seconds each (queries/s, p50/p95, and the
 *    CPU milliseconds per query of the api process — all its threads — of Meilisearch and of this
 *    client, from /proc). Every upload is a distinct re-encoding, so only the "again" step can hit a
 *    cache. The load average is printed with each step.
 * Prints one JSON object per line; the last one is the summary.
 *
 * Options (flag or environment): --n / N (10000), --queries / QUERIES (100), --quick (N=2000, 30
 * queries, 3 s per concurrency), --keep / KEEP=1 (leave the store's rows and index), --seed / SEED,
 * --baseline / BASELINE (a dist folder), --baseline-env / BASELINE_ENV (`NAME=value,…` set for the
 * baseline only: compare settings of one build, e.g. `--baseline dist --baseline-env
 * VISION_QUERY_BATCH_SIZE=1`), --rounds / ROUNDS (2), --clients / CLIENTS (1,4,8,16), --seconds /
 * SECONDS (5), --no-http (phases 1–3 only).
 */
import { createHash } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { loadConfig, type Config } from '../../lib/config';
import { createDataSource } from '../../storage/data-source';
import { runMigrations } from '../../storage/migrate';
import { createAdminClient, ensureSearchKey, keyValueFor, searchKeyUid } from '../../search/meili';
import { createSearchTransport } from '../../search/search-transport';
import { storeIndexUid } from '../../search/index-names';
import { reindexStore } from '../../indexer/reindex';
import { getEmbedder, disposeEmbedders, type Embedder } from '../../vision/embedder';
import { prepareImage, type PreparedImage } from '../../vision/image';
import { encodeVector } from '../../storage/vectors';
import { searchAllStatuses, searchPublished } from '../../vision/query';
import { createBenchStore, deleteBenchStore, insertProducts, Rng } from './search-data';
import { percentile, processCpuMs } from './load';
import { emit, freePort, localMeiliPid, log, roundScaled, spawnApiProcess, stopProcess, waitUntilReady } from './common';

interface Options {
  n: number;
  queries: number;
  keep: boolean;
  seed: number;
  baseline: string | undefined;
  baselineEnv: Record<string, string>;
  rounds: number;
  clients: number[];
  seconds: number;
  http: boolean;
}

function parseOptions(argv: string[], env: NodeJS.ProcessEnv): Options {
  const flag = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const quick = argv.includes('--quick') || env.QUICK === '1';
  return {
    n: Number(flag('n') ?? env.N ?? (quick ? 2_000 : 10_000)),
    queries: Number(flag('queries') ?? env.QUERIES ?? (quick ? 30 : 100)),
    keep: argv.includes('--keep') || env.KEEP === '1',
    seed: Number(flag('seed') ?? env.SEED ?? 42),
    baseline: flag('baseline') ?? env.BASELINE,
    baselineEnv: Object.fromEntries(
      (flag('baseline-env') ?? env.BASELINE_ENV ?? '')
        .split(',')
        .filter(Boolean)
        .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
    ),
    rounds: Number(flag('rounds') ?? env.ROUNDS ?? 2),
    clients: (flag('clients') ?? env.CLIENTS ?? '1,4,8,16').split(',').map(Number),
    seconds: Number(flag('seconds') ?? env.SECONDS ?? (quick ? 3 : 5)),
    http: !argv.includes('--no-http'),
  };
}

const mb = (bytes: number): number => roundScaled(bytes / 1024 / 1024);

function stats(values: number[]): { p50: number; p95: number; mean: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    p50: roundScaled(percentile(sorted, 50), 2),
    p95: roundScaled(percentile(sorted, 95), 2),
    mean: roundScaled(values.reduce((s, v) => s + v, 0) / Math.max(1, values.length), 2),
  };
}

/** A 320×240 JPEG: a coloured background with a shape, like a simple product photo. */
async function photo(rng: Rng, index: number): Promise<Buffer> {
  const c = (): string => `rgb(${rng.int(0, 255)},${rng.int(0, 255)},${rng.int(0, 255)})`;
  const shapes = [
    `<circle cx="160" cy="120" r="${rng.int(30, 100)}" fill="${c()}"/>`,
    `<rect x="${rng.int(10, 120)}" y="${rng.int(10, 100)}" width="${rng.int(60, 180)}" height="${rng.int(40, 120)}" fill="${c()}"/>`,
    `<polygon points="160,${rng.int(10, 60)} ${rng.int(220, 310)},230 ${rng.int(10, 100)},230" fill="${c()}"/>`,
    Array.from({ length: 6 }, (_, i) => `<rect x="0" y="${i * 40}" width="320" height="${rng.int(8, 24)}" fill="${c()}"/>`).join(''),
  ];
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="240"><rect width="320" height="240" fill="${c()}"/>${shapes[index % shapes.length]}</svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 85 }).toBuffer();
}

async function throughput(embedder: Embedder, images: PreparedImage[]): Promise<Record<string, unknown>> {
  await embedder.embedImages(images.slice(0, 2)); // warm-up
  const single = Math.min(images.length, 32);
  let started = performance.now();
  for (let i = 0; i < single; i += 1) await embedder.embedImages([images[i]!]);
  const singlePerS = single / ((performance.now() - started) / 1000);
  const batched: Record<string, number> = {};
  for (const size of [8, 16]) {
    const count = Math.min(images.length - (images.length % size), 64);
    started = performance.now();
    for (let i = 0; i < count; i += size) await embedder.embedImages(images.slice(i, i + size));
    batched[`batch${size}PerS`] = roundScaled(count / ((performance.now() - started) / 1000), 2);
  }
  return { imagesPerSecondSingle: roundScaled(singlePerS, 2), ...batched };
}

function jitter(base: Float32Array, rng: Rng, amount: number): Float32Array {
  const out = new Float32Array(base.length);
  let sum = 0;
  for (let i = 0; i < base.length; i += 1) {
    out[i] = Math.max(0, base[i]! + (rng.next() - 0.5) * amount);
    sum += out[i]! * out[i]!;
  }
  const norm = Math.sqrt(sum) || 1;
  for (let i = 0; i < out.length; i += 1) out[i] = out[i]! / norm;
  return out;
}

const load = (): number[] => os.loadavg().map((l) => roundScaled(l, 2));

/** CPU milliseconds so far of the api process under test (all its threads), Meilisearch and this client. */
function cpuNow(target: Target): Record<string, number | undefined> {
  const meili = localMeiliPid();
  const self = process.cpuUsage();
  return {
    api: target.child?.pid ? processCpuMs(target.child.pid) : undefined,
    meilisearch: meili ? processCpuMs(meili) : undefined,
    benchClient: (self.user + self.system) / 1000,
  };
}

/** CPU milliseconds per query of each process between two cpuNow() readings. */
function cpuPerQuery(before: Record<string, number | undefined>, after: Record<string, number | undefined>, queries: number) {
  const out: Record<string, number> = {};
  for (const [name, start] of Object.entries(before)) {
    const end = after[name];
    if (start !== undefined && end !== undefined && queries > 0) out[name] = roundScaled((end - start) / queries, 2);
  }
  return out;
}

// ---- query by image over HTTP ------------------------------------------------------------------

/** An api process under test: the baseline or this build. */
interface Target {
  name: string;
  entry: string;
  env: Record<string, string>;
  child?: ChildProcess;
  port?: number;
  agent?: http.Agent;
  /** Next upload of the pool this process gets (each process sees every upload once, in order). */
  cursor: number;
  repeats: number;
}

interface Upload {
  /** The multipart body: `limit` and the file part `image`. */
  body: Buffer;
  /** The catalogue image it was made from. */
  origin: number;
}

const BOUNDARY = 'bench-vision-boundary';

function multipart(image: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="limit"\r\n\r\n20\r\n` +
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="image"; filename="query.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
    ),
    image,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

/** `count` distinct shopper photos: catalogue images re-encoded at another size and quality. */
async function uploadPool(photos: Buffer[], rng: Rng, count: number): Promise<Upload[]> {
  const seen = new Set<string>();
  const pool: Upload[] = [];
  while (pool.length < count) {
    const origin = rng.int(0, photos.length - 1);
    const image = await sharp(photos[origin]!)
      .resize(rng.int(200, 400))
      .jpeg({ quality: rng.int(60, 90) })
      .toBuffer();
    const hash = createHash('sha256').update(image).digest('hex');
    if (seen.has(hash)) continue;
    seen.add(hash);
    pool.push({ body: multipart(image), origin });
  }
  return pool;
}

async function startTarget(target: Target): Promise<void> {
  const port = await freePort();
  const child = spawnApiProcess(
    port,
    {
      // All load comes from one address: the limit stays on (its Redis round trip is part of a
      // query's cost) but high enough never to refuse.
      VISION_PUBLIC_QUERIES_PER_MINUTE: '100000',
      ...target.env,
    },
    target.entry,
  );
  target.child = await waitUntilReady(child, port);
  target.port = port;
  target.agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
}

interface Answer {
  ms: number;
  ok: boolean;
  topId?: string;
}

function post(target: Target, storeId: string, body: Buffer): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: target.port,
        method: 'POST',
        path: `/api/v1/visual-search/public/stores/${storeId}/query`,
        agent: target.agent,
        headers: { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': body.length },
        timeout: 60_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const ms = performance.now() - started;
          if (res.statusCode !== 200 && res.statusCode !== 201) {
            log(`${target.name}: HTTP ${res.statusCode} ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`);
            return resolve({ ms, ok: false });
          }
          const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { items: Array<{ id: string }> };
          resolve({ ms, ok: true, topId: parsed.items[0]?.id });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error) => {
      log(`${target.name}: ${error.message}`);
      resolve({ ms: performance.now() - started, ok: false });
    });
    req.end(body);
  });
}

function nextUpload(target: Target, pool: Upload[]): Upload {
  if (target.cursor >= pool.length) {
    target.cursor = 0;
    target.repeats += 1;
  }
  const upload = pool[target.cursor]!;
  target.cursor += 1;
  return upload;
}

type Stats = ReturnType<typeof stats>;

interface Step extends Stats {
  clients: number;
  queriesPerS: number;
  errors: number;
  cpuMsPerQuery: Record<string, number>;
  load: number[];
}

interface RoundResult {
  phase: 'http';
  round: number;
  target: string;
  oneClientMs: Stats;
  samePhotoAgainMs: Stats;
  topHitFromQueryImage: number;
  saturation: Step[];
  errors: number;
  loadBefore: number[];
  loadAfter: number[];
}

/** One round against one process: sequential, the same photos again, then each concurrency. */
async function httpRound(
  target: Target,
  storeId: string,
  pool: Upload[],
  origin: Map<string, number>,
  options: Options,
  round: number,
): Promise<RoundResult> {
  const loadBefore = load();
  const sequential: number[] = [];
  const sent: Upload[] = [];
  let top = 0;
  let errors = 0;
  for (let q = 0; q < options.queries; q += 1) {
    const upload = nextUpload(target, pool);
    const answer = await post(target, storeId, upload.body);
    if (!answer.ok) errors += 1;
    sequential.push(answer.ms);
    sent.push(upload);
    if (answer.topId && origin.get(answer.topId) === upload.origin) top += 1;
  }
  const again: number[] = [];
  for (const upload of sent.slice(0, Math.min(sent.length, 30))) {
    const answer = await post(target, storeId, upload.body);
    if (!answer.ok) errors += 1;
    again.push(answer.ms);
  }
  const saturation: Step[] = [];
  for (const clients of options.clients) {
    const latencies: number[] = [];
    let failed = 0;
    const cpuBefore = cpuNow(target);
    const started = performance.now();
    const deadline = started + options.seconds * 1000;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (performance.now() < deadline) {
          const answer = await post(target, storeId, nextUpload(target, pool).body);
          if (answer.ok) latencies.push(answer.ms);
          else failed += 1;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    saturation.push({
      clients,
      queriesPerS: roundScaled(latencies.length / seconds, 1),
      ...stats(latencies),
      errors: failed,
      cpuMsPerQuery: cpuPerQuery(cpuBefore, cpuNow(target), latencies.length),
      load: load(),
    });
  }
  return {
    phase: 'http',
    round,
    target: target.name,
    oneClientMs: stats(sequential),
    samePhotoAgainMs: stats(again),
    topHitFromQueryImage: roundScaled(top / Math.max(1, options.queries), 3),
    saturation,
    errors,
    loadBefore,
    loadAfter: load(),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const value = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return roundScaled(value, 2);
}

/** Per process, the median over rounds of each figure. */
function httpSummary(rounds: RoundResult[], targets: Target[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const target of targets) {
    const mine = rounds.filter((r) => r.target === target.name);
    const clients = (mine[0]?.saturation ?? []).map((s) => s.clients);
    out[target.name] = {
      oneClientP50Ms: median(mine.map((r) => r.oneClientMs.p50)),
      oneClientP95Ms: median(mine.map((r) => r.oneClientMs.p95)),
      samePhotoAgainP50Ms: median(mine.map((r) => r.samePhotoAgainMs.p50)),
      saturation: clients.map((c) => {
        const at = mine.map((r) => r.saturation.find((s) => s.clients === c)!);
        return {
          clients: c,
          queriesPerS: median(at.map((s) => s.queriesPerS)),
          p50Ms: median(at.map((s) => s.p50)),
          p95Ms: median(at.map((s) => s.p95)),
        };
      }),
      poolRepeats: target.repeats,
    };
  }
  return out;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2), process.env);
  const config: Config = loadConfig({ ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'silent' });
  const rng = new Rng(options.seed);
  const rssStart = process.memoryUsage().rss;

  // 1. Embedder throughput, each runtime in a thread of its own (as the api and vision roles run it).
  const photos: Buffer[] = [];
  for (let i = 0; i < 256; i += 1) photos.push(await photo(rng, i));
  const decodeTimes: number[] = [];
  const prepared: PreparedImage[] = [];
  for (const bytes of photos) {
    const started = performance.now();
    prepared.push(await prepareImage(bytes, { size: 224, maxPixels: config.vision.maxPixels }));
    decodeTimes.push(performance.now() - started);
  }
  const runtimes: Record<string, unknown> = {};
  let embedder: Embedder | undefined;
  let loadMs = 0;
  let rssModel = 0;
  // The configured runtime first, so the RSS after it is what a process with that model holds.
  const order = config.vision.mobilenetRuntime === 'onnx' ? (['onnx', 'tfjs'] as const) : (['tfjs', 'onnx'] as const);
  for (const runtime of order) {
    const started = performance.now();
    const loaded = await getEmbedder('mobilenet-v2', { ...config.vision, mobilenetRuntime: runtime });
    const ms = performance.now() - started;
    runtimes[runtime] = { modelLoadMs: roundScaled(ms), ...(await throughput(loaded, prepared)), rssMb: mb(process.memoryUsage().rss) };
    if (runtime === config.vision.mobilenetRuntime) {
      embedder = loaded;
      loadMs = ms;
      rssModel = process.memoryUsage().rss;
    }
  }
  const rssBoth = process.memoryUsage().rss;
  emit({
    phase: 'embedder',
    model: 'mobilenet-v2',
    runtime: config.vision.mobilenetRuntime,
    dimensions: embedder!.dimensions,
    modelLoadMs: roundScaled(loadMs),
    decodeMs: stats(decodeTimes),
    runtimes,
    rssBeforeMb: mb(rssStart),
    rssWithModelMb: mb(rssModel),
    rssBothRuntimesMb: mb(rssBoth),
    load: load(),
  });
  const rates = runtimes[config.vision.mobilenetRuntime];

  // The 256 real vectors the catalogue is built from (batched, as the worker does).
  const base: Float32Array[] = [];
  for (let i = 0; i < prepared.length; i += 16) base.push(...(await embedder!.embedImages(prepared.slice(i, i + 16))));
  const rssAfterBatches = process.memoryUsage().rss;

  // 2. A store of N products with vectors, indexed.
  const db = await createDataSource(config, 'bench-vision').initialize();
  await runMigrations(db);
  const admin = createAdminClient(config, 600_000);
  await ensureSearchKey(admin, config.meiliMasterKey);
  const store = await createBenchStore(db, rng);
  const targets: Target[] = [];
  try {
    let started = performance.now();
    await insertProducts(db, store, rng, options.n);
    const productRows: Array<{ id: string }> = await db.query(
      "SELECT id FROM products WHERE store_id = $1 AND status = 'PUBLISHED' ORDER BY id",
      [store.storeId],
    );
    await db.query(
      'INSERT INTO visual_search_settings (store_id, tenant_id, enabled, model, dimensions, max_results) VALUES ($1, $2, true, $3, $4, 20)',
      [store.storeId, store.tenantId, 'mobilenet-v2', embedder!.dimensions],
    );
    const origin = new Map<string, number>();
    for (let i = 0; i < productRows.length; i += 1000) {
      const slice = productRows.slice(i, i + 1000);
      const vectors = slice.map((row) => {
        const k = rng.int(0, base.length - 1);
        origin.set(row.id, k);
        return encodeVector(jitter(base[k]!, rng, 0.02));
      });
      await db.query(
        `INSERT INTO product_images (id, product_id, url, position) SELECT gen_random_uuid(), id, 'https://images.example.org/bench/' || id || '.jpg', 0 FROM unnest($1::uuid[]) AS t(id)
          ON CONFLICT DO NOTHING`,
        [slice.map((r) => r.id)],
      );
      await db.query(
        `INSERT INTO product_image_vectors (product_id, store_id, tenant_id, status, model, dimensions, vector, image_url)
         SELECT id, $2, $3, 'INDEXED', 'mobilenet-v2', $4, vector, 'https://images.example.org/bench/' || id || '.jpg' FROM unnest($1::uuid[], $5::bytea[]) AS t(id, vector)`,
        [slice.map((r) => r.id), store.storeId, store.tenantId, embedder!.dimensions, vectors],
      );
    }
    const buildMs = performance.now() - started;
    started = performance.now();
    const reindex = await reindexStore(db, admin, store.storeId, { taskTimeoutMs: 1_800_000 });
    emit({
      phase: 'catalogue',
      products: productRows.length,
      buildMs: roundScaled(buildMs),
      reindexMs: roundScaled(performance.now() - started),
      indexed: reindex.documents,
    });

    // 3. Where a query's time goes, in this process.
    // The api process's search connection: the search-only key derived from the master key.
    const client = createSearchTransport(config.meiliUrl, keyValueFor(searchKeyUid(config.meiliMasterKey), config.meiliMasterKey));
    const parts = {
      decode: [] as number[],
      embed: [] as number[],
      search: [] as number[],
      total: [] as number[],
      merchantSearch: [] as number[],
    };
    let firstHits = 0;
    const loadBefore = load();
    for (let q = 0; q < options.queries; q += 1) {
      const k = rng.int(0, photos.length - 1);
      // A shopper's photo: the product image, re-encoded at another size.
      const query = await sharp(photos[k]!).resize(rng.int(200, 400)).jpeg({ quality: 70 }).toBuffer();
      const t0 = performance.now();
      const image = await prepareImage(query, { size: embedder!.inputSize, maxPixels: config.vision.maxPixels });
      const t1 = performance.now();
      const [vector] = await embedder!.embedImages([image]);
      const t2 = performance.now();
      const hits = await searchPublished(client, { storeId: store.storeId, vector: vector!, limit: 20, minScore: 0 });
      const t3 = performance.now();
      parts.decode.push(t1 - t0);
      parts.embed.push(t2 - t1);
      parts.search.push(t3 - t2);
      parts.total.push(t3 - t0);
      if (hits[0] && origin.get(hits[0].id) === k) firstHits += 1;
      if (q < Math.min(options.queries, 20)) {
        const m0 = performance.now();
        await searchAllStatuses(db, {
          storeId: store.storeId,
          tenantId: store.tenantId,
          model: 'mobilenet-v2',
          dimensions: embedder!.dimensions,
          vector: vector!,
          limit: 20,
          minScore: 0,
        });
        parts.merchantSearch.push(performance.now() - m0);
      }
    }
    client.close();
    const inProcess = {
      decode: stats(parts.decode),
      embed: stats(parts.embed),
      search: stats(parts.search),
      total: stats(parts.total),
    };
    emit({
      phase: 'query-parts',
      runtime: config.vision.mobilenetRuntime,
      queryMs: inProcess,
      merchantQuerySearchMs: stats(parts.merchantSearch),
      load: [loadBefore, load()],
    });
    // The models of this process are not needed any more: give their cores and memory back.
    const rssEnd = process.memoryUsage().rss;
    await disposeEmbedders();

    // 4. Query by image over HTTP, baseline and this build side by side.
    const rounds: RoundResult[] = [];
    if (options.http) {
      const entry = path.resolve(__dirname, '../../app/main.js');
      targets.push(
        options.baseline
          ? {
              name: `baseline (${[options.baseline, ...Object.entries(options.baselineEnv).map(([k, v]) => `${k}=${v}`)].join(' ')})`,
              entry: path.resolve(options.baseline, 'app/main.js'),
              env: options.baselineEnv,
              cursor: 0,
              repeats: 0,
            }
          : {
              name: 'baseline (this build, speed features off)',
              entry,
              env: { VISION_MOBILENET_RUNTIME: 'tfjs', VISION_QUERY_CACHE_SIZE: '0', VISION_QUERY_BATCH_SIZE: '1' },
              cursor: 0,
              repeats: 0,
            },
        { name: 'current', entry, env: {}, cursor: 0, repeats: 0 },
      );
      log("making the shoppers' photos");
      const pool = await uploadPool(photos, rng, options.http ? Math.max(600, options.rounds * 1200) : 0);
      for (const target of targets) {
        log(`starting ${target.name}`);
        await startTarget(target);
        // The first query loads the model; a few more warm the process.
        for (let i = 0; i < 5; i += 1) await post(target, store.storeId, nextUpload(target, pool).body);
      }
      for (let round = 1; round <= options.rounds; round += 1) {
        const order = round % 2 === 1 ? targets : [...targets].reverse();
        for (const target of order) {
          log(`round ${round}: ${target.name}`);
          const result = await httpRound(target, store.storeId, pool, origin, options, round);
          emit(result);
          rounds.push(result);
        }
      }
    }

    const summary = {
      phase: 'summary',
      products: productRows.length,
      queries: options.queries,
      embedder: rates,
      runtimes,
      queryMs: inProcess,
      merchantQuerySearchMs: stats(parts.merchantSearch),
      topHitFromQueryImage: roundScaled(firstHits / Math.max(1, options.queries), 3),
      ...(options.http ? { http: httpSummary(rounds, targets) } : {}),
      rssMb: {
        start: mb(rssStart),
        withModel: mb(rssModel),
        bothRuntimes: mb(rssBoth),
        afterBatches: mb(rssAfterBatches),
        end: mb(rssEnd),
      },
      cpus: os.cpus().length,
      load: load(),
    };
    emit(summary);
  } finally {
    for (const target of targets) {
      target.agent?.destroy();
      if (target.child) await stopProcess(target.child);
    }
    if (!options.keep) {
      await deleteBenchStore(db, store);
      await admin
        .deleteIndex(storeIndexUid(store.storeId))
        .waitTask({ timeout: 60_000 })
        .catch(() => undefined);
    }
    await db.destroy();
    await disposeEmbedders();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
