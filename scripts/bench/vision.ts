/**
 * `npm run bench:vision [-- --quick] [-- --keep]`: the visual search benchmark (docs/benchmarks.md, "Visual search").
 *
 * 1. Embedder throughput with the default model (MobileNetV2 on tfjs wasm): images/s embedded one at
 *    a time and in batches (8, 16), decode (sharp normalisation) time per image, and the process RSS
 *    with the model loaded (what a vision worker holds).
 * 2. A fresh store of N published products (default 10,000) built in PostgreSQL, each with an image
 *    vector: 256 images drawn and embedded for real, then each product gets one of those vectors with
 *    a little noise (re-normalised) — embedding 10,000 images on 2 cores would take ~10 minutes and
 *    measure nothing new. The store is indexed with our reindex (vectors read from PostgreSQL).
 * 3. Query by image, Q times (default 100): decode → embed → search, each timed, p50/p95 of each
 *    part and of the total; storefront path (Meilisearch, published) and merchant path (PostgreSQL
 *    scan of every vector, all statuses).
 * Prints one JSON object per line; the last one is the summary.
 *
 * Options (flag or environment): --n / N (10000), --queries / QUERIES (100), --quick (N=2000, 30
 * queries), --keep / KEEP=1 (leave the store's rows and index), --seed / SEED.
 */
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
import { percentile } from './load';
import { emit, roundScaled } from './common';

interface Options {
  n: number;
  queries: number;
  keep: boolean;
  seed: number;
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

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2), process.env);
  const config: Config = loadConfig({ ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'silent' });
  const rng = new Rng(options.seed);
  const rssStart = process.memoryUsage().rss;

  // 1. Embedder throughput.
  let started = performance.now();
  const embedder = await getEmbedder('mobilenet-v2', config.vision);
  const loadMs = performance.now() - started;
  const photos: Buffer[] = [];
  for (let i = 0; i < 256; i += 1) photos.push(await photo(rng, i));
  const decodeTimes: number[] = [];
  const prepared: PreparedImage[] = [];
  for (const bytes of photos) {
    started = performance.now();
    prepared.push(await prepareImage(bytes, { size: embedder.inputSize, maxPixels: config.vision.maxPixels }));
    decodeTimes.push(performance.now() - started);
  }
  const rates = await throughput(embedder, prepared);
  const rssModel = process.memoryUsage().rss;
  emit({
    phase: 'embedder',
    model: 'mobilenet-v2',
    dimensions: embedder.dimensions,
    modelLoadMs: roundScaled(loadMs),
    decodeMs: stats(decodeTimes),
    ...rates,
    rssBeforeMb: mb(rssStart),
    rssWithModelMb: mb(rssModel),
  });

  // The 256 real vectors the catalogue is built from (batched, as the worker does).
  const base: Float32Array[] = [];
  for (let i = 0; i < prepared.length; i += 16) base.push(...(await embedder.embedImages(prepared.slice(i, i + 16))));
  const rssAfterBatches = process.memoryUsage().rss;

  // 2. A store of N products with vectors, indexed.
  const db = await createDataSource(config, 'bench-vision').initialize();
  await runMigrations(db);
  const admin = createAdminClient(config, 600_000);
  await ensureSearchKey(admin, config.meiliMasterKey);
  const store = await createBenchStore(db, rng);
  try {
    started = performance.now();
    await insertProducts(db, store, rng, options.n);
    const productRows: Array<{ id: string }> = await db.query(
      "SELECT id FROM products WHERE store_id = $1 AND status = 'PUBLISHED' ORDER BY id",
      [store.storeId],
    );
    await db.query(
      'INSERT INTO visual_search_settings (store_id, tenant_id, enabled, model, dimensions, max_results) VALUES ($1, $2, true, $3, $4, 20)',
      [store.storeId, store.tenantId, 'mobilenet-v2', embedder.dimensions],
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
        [slice.map((r) => r.id), store.storeId, store.tenantId, embedder.dimensions, vectors],
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

    // 3. Query latency.
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
    for (let q = 0; q < options.queries; q += 1) {
      const k = rng.int(0, photos.length - 1);
      // A shopper's photo: the product image, re-encoded at another size.
      const query = await sharp(photos[k]!).resize(rng.int(200, 400)).jpeg({ quality: 70 }).toBuffer();
      const t0 = performance.now();
      const image = await prepareImage(query, { size: embedder.inputSize, maxPixels: config.vision.maxPixels });
      const t1 = performance.now();
      const [vector] = await embedder.embedImages([image]);
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
          dimensions: embedder.dimensions,
          vector: vector!,
          limit: 20,
          minScore: 0,
        });
        parts.merchantSearch.push(performance.now() - m0);
      }
    }
    client.close();
    const rssEnd = process.memoryUsage().rss;
    const summary = {
      phase: 'summary',
      products: productRows.length,
      queries: options.queries,
      embedder: rates,
      queryMs: { decode: stats(parts.decode), embed: stats(parts.embed), search: stats(parts.search), total: stats(parts.total) },
      merchantQuerySearchMs: stats(parts.merchantSearch),
      topHitFromQueryImage: roundScaled(firstHits / Math.max(1, options.queries), 3),
      rssMb: { start: mb(rssStart), withModel: mb(rssModel), afterBatches: mb(rssAfterBatches), end: mb(rssEnd) },
      cpus: (await import('node:os')).cpus().length,
    };
    emit(summary);
  } finally {
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
