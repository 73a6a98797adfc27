/**
 * `npm run bench:vision-similar [-- --n 10000] [-- --queries 100] [-- --quick]`: what the
 * category-aware similar products and the score calibration cost (docs/benchmarks.md, "Visual
 * search: similar products and calibration").
 *
 * A fresh store of N published products (the search benchmark's catalogue: 10 root categories × 10
 * leaves, one leaf per product, brands, attributes), each with a synthetic 1280-d image vector: one
 * of 256 random directions plus a little noise, drawn independently of the category, as looks are
 * independent of what a product is in the worst case. Indexed with our reindex. Then, for Q products:
 *
 * - the similar-products read (vision/query.ts searchSimilar) with `ignore` — one vector search,
 *   exactly the read before category tiers existed: the baseline — and with `prefer` and `require`,
 *   at limit 6 (the storefront section) and 50 (the merchant read's default): p50/p95 latency,
 *   Meilisearch searches per read, and the same-category share of the first five results (the
 *   product's leaf category; with synthetic looks the baseline shows what chance gives);
 * - the calibration (vision/calibration.ts computeCalibration) of the store: time, sample size, and
 *   time again with the store's vectors already loaded.
 * Prints one JSON object per line; the last one is the summary.
 */
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../../lib/config';
import { createDataSource } from '../../storage/data-source';
import { runMigrations } from '../../storage/migrate';
import { createAdminClient, ensureSearchKey, keyValueFor, searchKeyUid } from '../../search/meili';
import { createSearchTransport, type SearchTransport } from '../../search/search-transport';
import { reindexStore } from '../../indexer/reindex';
import { storeIndexUid } from '../../search/index-names';
import { encodeVector } from '../../storage/vectors';
import type { SameCategoryMode } from '../../storage/entities/product-image-vector.entity';
import { searchSimilar, type ComparableProduct } from '../../vision/query';
import { computeCalibration } from '../../vision/calibration';
import { createBenchStore, deleteBenchStore, insertProducts, Rng } from './search-data';
import { percentile } from './load';
import { emit, log, roundScaled } from './common';

const DIMENSIONS = 1280;

function option(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
}

function unitVector(rng: Rng): Float32Array {
  const v = new Float32Array(DIMENSIONS);
  let norm = 0;
  for (let i = 0; i < DIMENSIONS; i += 1) {
    // Box–Muller: a Gaussian direction is uniform on the sphere.
    const g = Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
    v[i] = g;
    norm += g * g;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < DIMENSIONS; i += 1) v[i]! /= norm;
  return v;
}

function jittered(base: Float32Array, noise: Float32Array, amount: number): Float32Array {
  const v = new Float32Array(DIMENSIONS);
  let norm = 0;
  for (let i = 0; i < DIMENSIONS; i += 1) {
    v[i] = base[i]! + amount * noise[i]!;
    norm += v[i]! * v[i]!;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < DIMENSIONS; i += 1) v[i]! /= norm;
  return v;
}

/** A transport that counts the searches it is asked for. */
function counting(client: SearchTransport): SearchTransport & { searches: number } {
  const counted = {
    searches: 0,
    search: <T>(uid: string, body: Record<string, unknown>): Promise<T> => {
      counted.searches += 1;
      return client.search<T>(uid, body);
    },
    multiSearch: client.multiSearch.bind(client),
    close: () => client.close(),
  };
  return counted;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const quick = argv.includes('--quick');
  const n = Number(option(argv, 'n') ?? (quick ? 2_000 : 10_000));
  const queries = Number(option(argv, 'queries') ?? (quick ? 30 : 100));
  const rng = new Rng(Number(option(argv, 'seed') ?? 7));
  const config = loadConfig();
  const db = await createDataSource(config, 'bench-vision-similar').initialize();
  await runMigrations(db);
  const admin = createAdminClient(config, 600_000);
  await ensureSearchKey(admin, config.meiliMasterKey);
  const store = await createBenchStore(db, rng);
  const transport = createSearchTransport(config.meiliUrl, keyValueFor(searchKeyUid(config.meiliMasterKey), config.meiliMasterKey));
  const client = counting(transport);
  try {
    log(`building ${n} products with vectors`);
    await insertProducts(db, store, rng, n);
    await db.query(
      "INSERT INTO visual_search_settings (store_id, tenant_id, enabled, model, dimensions, max_results) VALUES ($1, $2, true, 'mobilenet-v2', $3, 100)",
      [store.storeId, store.tenantId, DIMENSIONS],
    );
    const looks = Array.from({ length: 256 }, () => unitVector(rng));
    const products: Array<{ id: string; brand_id: string | null; attributes: Record<string, string> | null; category_id: string }> =
      await db.query(
        `SELECT p.id, p.brand_id, p.attributes, pc.category_id FROM products p JOIN product_categories pc ON pc.product_id = p.id
          WHERE p.store_id = $1 ORDER BY p.id`,
        [store.storeId],
      );
    const vectorOf = new Map<string, Float32Array>();
    for (let start = 0; start < products.length; start += 1_000) {
      const slice = products.slice(start, start + 1_000);
      const vectors = slice.map((p) => {
        const v = jittered(looks[rng.int(0, looks.length - 1)]!, unitVector(rng), 0.6);
        vectorOf.set(p.id, v);
        return encodeVector(v);
      });
      await db.query(
        `INSERT INTO product_image_vectors (product_id, store_id, tenant_id, status, model, dimensions, vector, image_url)
         SELECT id, $2, $3, 'INDEXED', 'mobilenet-v2', $4, vector, 'https://images.example.org/bench/' || id || '.jpg'
           FROM unnest($1::uuid[], $5::bytea[]) AS t(id, vector)`,
        [slice.map((p) => p.id), store.storeId, store.tenantId, DIMENSIONS, vectors],
      );
    }
    log('indexing');
    const reindexStarted = performance.now();
    await reindexStore(db, admin, store.storeId, { taskTimeoutMs: 1_800_000 });
    emit({
      phase: 'catalogue',
      products: products.length,
      leafCategories: 100,
      reindexMs: roundScaled(performance.now() - reindexStarted),
    });

    const parentOf = new Map(store.categories.map((c) => [c.id, c.parentId]));
    const leafOf = new Map(products.map((p) => [p.id, p.category_id]));
    const sampled = Array.from({ length: queries }, () => products[rng.int(0, products.length - 1)]!);
    const results: Record<string, unknown> = {};
    const comparable = (p: (typeof products)[number]): ComparableProduct => ({
      id: p.id,
      categoryIds: [p.category_id],
      parentCategoryIds: [parentOf.get(p.category_id)].filter((id): id is string => Boolean(id)),
      brandId: p.brand_id,
      attrs: Object.entries(p.attributes ?? {}).map(([k, v]) => `${k}:${v}`),
    });
    // Warm Meilisearch and this process up on other products before timing anything.
    for (const p of products.slice(0, 20))
      for (const mode of ['ignore', 'prefer', 'require'] as SameCategoryMode[])
        await searchSimilar(client, {
          storeId: store.storeId,
          vector: vectorOf.get(p.id)!,
          limit: 50,
          minScore: 0,
          mode,
          product: comparable(p),
        });
    for (const limit of [6, 50]) {
      for (const mode of ['ignore', 'prefer', 'require'] as SameCategoryMode[]) {
        const times: number[] = [];
        let sameInTop5 = 0;
        let top5 = 0;
        client.searches = 0;
        for (const p of sampled) {
          const product = comparable(p);
          const started = performance.now();
          const hits = await searchSimilar(client, {
            storeId: store.storeId,
            vector: vectorOf.get(p.id)!,
            limit,
            minScore: 0,
            mode,
            product,
          });
          times.push(performance.now() - started);
          for (const hit of hits.slice(0, 5)) {
            top5 += 1;
            if (leafOf.get(hit.id) === p.category_id) sameInTop5 += 1;
          }
        }
        times.sort((a, b) => a - b);
        const record = {
          phase: 'similar',
          mode,
          limit,
          p50Ms: roundScaled(percentile(times, 50), 2),
          p95Ms: roundScaled(percentile(times, 95), 2),
          searchesPerRead: roundScaled(client.searches / sampled.length, 2),
          sameCategoryShareTop5: roundScaled(top5 ? sameInTop5 / top5 : 0, 3),
        };
        emit(record);
        results[`${mode}@${limit}`] = record;
      }
    }

    log('calibrating');
    let started = performance.now();
    const calibration = await computeCalibration(db, store.storeId, store.tenantId, 'mobilenet-v2', DIMENSIONS);
    const firstMs = performance.now() - started;
    started = performance.now();
    await computeCalibration(db, store.storeId, store.tenantId, 'mobilenet-v2', DIMENSIONS);
    const warmMs = performance.now() - started;
    const calibrationRecord = {
      phase: 'calibration',
      vectors: calibration?.vectors,
      sampleSize: calibration?.sampleSize,
      goodMatchScore: calibration ? roundScaled(calibration.knots.at(-1)!, 4) : null,
      medianNearestScore: calibration ? roundScaled(calibration.knots[25]!, 4) : null,
      ms: roundScaled(firstMs),
      msWithVectorsLoaded: roundScaled(warmMs),
    };
    emit(calibrationRecord);
    emit({ phase: 'summary', products: products.length, queries: sampled.length, similar: results, calibration: calibrationRecord });
  } finally {
    transport.close();
    await admin
      .deleteIndex(storeIndexUid(store.storeId))
      .waitTask()
      .catch(() => undefined);
    await deleteBenchStore(db, store);
    await db.destroy();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
