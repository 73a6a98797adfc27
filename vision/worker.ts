/**
 * The `vision` queue consumer: embeds a product's main image and stores the vector.
 *
 * For a product (aggregate `product`), re-read from PostgreSQL with its store's visual search settings:
 * - gone, or its store has visual search disabled → nothing (the vector row goes with the product);
 * - no image → its vector row is removed and the product re-indexed (its document loses the vector);
 * - a stored vector of the same model for the same image URL → reused, never recomputed (unless the
 *   delivery asks to `force`);
 * - otherwise the image is fetched safely, normalised by sharp and embedded (batched with the other
 *   jobs of this process), the row becomes INDEXED, and the product goes to the `index` queue so its
 *   document carries the vector (one writer of the search index: the indexer).
 * A failure is recorded FAILED with its reason. Transient ones (timeouts, 5xx, network) are thrown so
 * the outbox retries them with backoff, up to `maxAttempts`; permanent ones (not an image, too large,
 * a refused address, 404) are acknowledged. One bad image never blocks the others: each product is
 * its own job.
 *
 * Once a store has no image waiting (its indexing settled) and its vectors changed by a tenth or more
 * since its score calibration was measured, one `store` row measures it again (vision/calibration.ts):
 * bounded work, never in a shopper's request.
 */
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import type { VisionConfig } from '../lib/config';
import { safeFetch, SafeFetchError } from '../lib/safe-fetch';
import type { DeliveryHandler } from '../storage/consumers';
import type { OutboxDelivery } from '../storage/outbox';
import { enqueueOutbox } from '../storage/outbox';
import { inTransaction, systemContext } from '../storage/request-context';
import type { VisualModel } from '../storage/entities/product-image-vector.entity';
import { batcherFor, getEmbedder, type Embedder } from './embedder';
import { ImageError, prepareImage } from './image';
import { encodeVector } from '../storage/vectors';
import { isUuid } from '../storage/ids';
import { visionEmbeddingDuration, visionEmbeddings } from '../lib/metrics';
import { calibrationStale, computeCalibration, currentVectorCount, storedCalibration } from './calibration';

export interface VisionDeps {
  dataSource: DataSource;
  logger: Logger;
  config: VisionConfig;
  /** Replaces the embedder (tests). */
  embedderFor?: (model: VisualModel) => Promise<Embedder>;
}

interface ProductRow {
  id: string;
  store_id: string;
  tenant_id: string;
  image_url: string | null;
  enabled: boolean | null;
  model: VisualModel | null;
  dimensions: number | null;
}

interface VectorRow {
  status: string;
  model: string | null;
  image_url: string | null;
  has_vector: boolean;
  attempts: number;
}

/** Thrown for a transient failure so the outbox retries the product later. */
export class RetryLater extends Error {}

export function createVisionHandler(deps: VisionDeps): DeliveryHandler<'vision'> {
  const { dataSource, logger, config } = deps;
  const embedderFor = deps.embedderFor ?? ((model: VisualModel) => getEmbedder(model, config));

  const reindex = async (product: ProductRow, work: (tx: ReturnType<typeof systemContext>) => Promise<void>): Promise<void> => {
    const ctx = systemContext(dataSource, `vision-${product.id}`, product.tenant_id, 'vision');
    await inTransaction(ctx, async (tx) => {
      await work(tx);
      await enqueueOutbox(tx, { queue: 'index', topic: 'product.image_vector_updated', aggregateType: 'product', aggregateId: product.id });
    });
  };

  const processProduct = async (id: string, force: boolean): Promise<void> => {
    const [product]: ProductRow[] = await dataSource.query(
      `SELECT p.id, p.store_id, p.tenant_id,
              (SELECT i.url FROM product_images i WHERE i.product_id = p.id ORDER BY i.position, i.id LIMIT 1) AS image_url,
              s.enabled, s.model, s.dimensions
         FROM products p LEFT JOIN visual_search_settings s ON s.store_id = p.store_id
        WHERE p.id = $1`,
      [id],
    );
    if (!product || !product.enabled || !product.model) return;
    const [row]: VectorRow[] = await dataSource.query(
      'SELECT status, model, image_url, vector IS NOT NULL AS has_vector, attempts FROM product_image_vectors WHERE product_id = $1',
      [id],
    );
    if (!product.image_url) {
      if (row) await reindex(product, (tx) => tx.manager.query('DELETE FROM product_image_vectors WHERE product_id = $1', [id]));
      return;
    }
    if (!force && row?.has_vector && row.model === product.model && row.image_url === product.image_url) {
      if (row.status !== 'INDEXED') {
        await reindex(product, (tx) =>
          tx.manager.query(
            `UPDATE product_image_vectors SET status = 'INDEXED', error = NULL, attempts = 0, updated_at = now() WHERE product_id = $1`,
            [id],
          ),
        );
      }
      return;
    }

    const embedder = await embedderFor(product.model);
    if (embedder.dimensions !== product.dimensions)
      throw new Error(`the ${product.model} model gives ${embedder.dimensions}-d vectors, the store expects ${product.dimensions}`);
    let vector: Float32Array;
    const started = performance.now();
    try {
      const fetched = await safeFetch(product.image_url, {
        timeoutMs: config.fetchTimeoutMs,
        maxBytes: config.fetchMaxBytes,
        maxRedirects: config.maxRedirects,
        allowAddresses: config.fetchAllowAddresses,
      });
      const image = await prepareImage(fetched.body, { size: embedder.inputSize, maxPixels: config.maxPixels });
      vector = await batcherFor(embedder, config.batchSize).embed(image);
      visionEmbeddingDuration.labels(product.model).observe((performance.now() - started) / 1000);
    } catch (error) {
      if (!(error instanceof SafeFetchError) && !(error instanceof ImageError)) throw error;
      const attempts = (row?.attempts ?? 0) + 1;
      const reason = `${error.reason}: ${error.message}`.slice(0, 1000);
      await reindex(product, (tx) =>
        tx.manager.query(
          `INSERT INTO product_image_vectors (product_id, store_id, tenant_id, status, model, dimensions, vector, image_url, error, attempts, updated_at)
           VALUES ($1, $2, $3, 'FAILED', $4, NULL, NULL, $5, $6, $7, now())
           ON CONFLICT (product_id) DO UPDATE SET status = 'FAILED', model = $4, dimensions = NULL, vector = NULL, image_url = $5, error = $6, attempts = $7, updated_at = now()`,
          [id, product.store_id, product.tenant_id, product.model, product.image_url, reason, attempts],
        ),
      );
      logger.info({ productId: id, reason: error.reason, attempts }, 'vision: image not embedded');
      visionEmbeddings.labels(product.model, 'failed').inc();
      if (error instanceof SafeFetchError && error.transient && attempts < config.maxAttempts) throw new RetryLater(reason);
      return;
    }
    await reindex(product, (tx) =>
      tx.manager.query(
        `INSERT INTO product_image_vectors (product_id, store_id, tenant_id, status, model, dimensions, vector, image_url, error, attempts, updated_at)
         VALUES ($1, $2, $3, 'INDEXED', $4, $5, $6, $7, NULL, 0, now())
         ON CONFLICT (product_id) DO UPDATE SET status = 'INDEXED', model = $4, dimensions = $5, vector = $6, image_url = $7, error = NULL, attempts = 0, updated_at = now()`,
        [id, product.store_id, product.tenant_id, product.model, vector.length, encodeVector(vector), product.image_url],
      ),
    );
    visionEmbeddings.labels(product.model, 'embedded').inc();
  };

  /** The store's settings when visual search is on, and whether its calibration no longer matches its vectors. */
  const calibrationState = async (
    storeId: string,
  ): Promise<{ tenantId: string; model: VisualModel; dimensions: number; stale: boolean } | undefined> => {
    const [store]: Array<{ tenant_id: string; model: VisualModel; dimensions: number }> = await dataSource.query(
      'SELECT tenant_id, model, dimensions FROM visual_search_settings WHERE store_id = $1 AND enabled',
      [storeId],
    );
    if (!store) return undefined;
    const [vectors, calibration] = await Promise.all([
      currentVectorCount(dataSource, storeId, store.tenant_id, store.model, store.dimensions),
      storedCalibration(dataSource, storeId, store.tenant_id),
    ]);
    const stale = (vectors >= 2 || calibration !== null) && calibrationStale(calibration, vectors, store.model, store.dimensions);
    return { tenantId: store.tenant_id, model: store.model, dimensions: store.dimensions, stale };
  };

  /** After a product: when its store has no image waiting and its calibration is stale, queue one calibration of the store. */
  const queueCalibrationWhenSettled = async (productId: string): Promise<void> => {
    const [product]: Array<{ store_id: string; pending: boolean }> = await dataSource.query(
      `SELECT p.store_id, EXISTS (SELECT 1 FROM product_image_vectors v WHERE v.store_id = p.store_id AND v.status = 'PENDING') AS pending
         FROM products p WHERE p.id = $1`,
      [productId],
    );
    if (!product || product.pending) return;
    const state = await calibrationState(product.store_id);
    if (!state?.stale) return;
    const ctx = systemContext(dataSource, `vision-calibrate-${product.store_id}`, state.tenantId, 'vision');
    await inTransaction(ctx, (tx) =>
      enqueueOutbox(tx, { queue: 'vision', topic: 'visual_search.calibrate', aggregateType: 'store', aggregateId: product.store_id }),
    );
  };

  const calibrateStore = async (storeId: string): Promise<void> => {
    const state = await calibrationState(storeId);
    // Visual search turned off, or a second row for a calibration already measured.
    if (!state?.stale) return;
    const started = performance.now();
    const calibration = await computeCalibration(dataSource, storeId, state.tenantId, state.model, state.dimensions);
    logger.info(
      {
        storeId,
        vectors: calibration?.vectors ?? 0,
        sampleSize: calibration?.sampleSize ?? 0,
        goodMatchScore: calibration?.knots.at(-1) ?? null,
        ms: Math.round(performance.now() - started),
      },
      'vision: store calibrated',
    );
  };

  return async (delivery: OutboxDelivery<'vision'>): Promise<void> => {
    const { aggregateId, aggregateType } = delivery;
    switch (delivery.aggregateType) {
      case 'product': {
        if (!isUuid(aggregateId)) break;
        const force = delivery.messages.some((m) => m.topic === 'visual_search.index_requested' && m.payload?.force === true);
        await processProduct(aggregateId.toLowerCase(), force);
        await queueCalibrationWhenSettled(aggregateId.toLowerCase());
        return;
      }
      case 'store': {
        if (!isUuid(aggregateId)) break;
        await calibrateStore(aggregateId.toLowerCase());
        return;
      }
      default: {
        // Every aggregate type of the queue is handled above; a row of an older version with another is acknowledged below.
        const _exhaustive: never = delivery;
        void _exhaustive;
      }
    }
    logger.warn({ aggregateType, aggregateId }, 'vision: unknown aggregate; acknowledged');
  };
}
