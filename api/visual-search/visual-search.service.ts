/**
 * Visual search: the store's settings, its image index (queue, status, clear), similar products and
 * query by image. Embedding happens in the vision worker (vision/worker.ts) for product images and
 * here, in the request, for the query image, which is used once and never stored.
 */
import { performance } from 'node:perf_hooks';
import { ConflictError, PayloadTooLargeError, ServiceUnavailableError, ValidationError } from '../../lib/errors';
import { requireStore, storeNotFound } from '../../domain/store-access';
import { asPriceVisibility, pricesShown } from '../../domain/price-visibility';
import { safeFetch, SafeFetchError } from '../../lib/safe-fetch';
import { recordAudit } from '../../storage/audit';
import { enqueueOutbox, enqueueOutboxSelect, outboxCte } from '../../storage/outbox';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { VisualSearchSettings, type SameCategoryMode, type VisualModel } from '../../storage/entities/product-image-vector.entity';
import type { VisionConfig } from '../../lib/config';
import { clientIp } from '../auth/accounts';
import { getEmbedder, MOBILENET_DIMENSIONS, modelDimensions, type Embedder } from '../../vision/embedder';
import { ImageError } from '../../vision/image';
import { queryEmbedderFor } from '../../vision/query-embedding';
import {
  IndexNotReadyError,
  searchAllStatuses,
  searchPublished,
  searchSimilar,
  type ComparableProduct,
  type VisualFilters,
} from '../../vision/query';
import {
  calibratedScoreOf,
  calibrationFor,
  calibrationStale,
  computeCalibration,
  currentVectorCount,
  goodMatchOf,
  minimumRawScore,
  storedCalibration,
  type Calibration,
} from '../../vision/calibration';
import { hitPublicSearchLimit } from '../storefront/public-limits';
import { decodeVector } from '../../storage/vectors';
import { attributeTokens } from '../../search/product-document';
import { visualSearchError } from './visual-search.errors';
import type { QueryByImageDto, VisualSearchSettingsDto } from './visual-search.schemas';
import type { InputOf } from '../http/typed-schema';
import type {
  CalibratedFields,
  CalibrationView,
  ClearIndexView,
  IndexRequestView,
  IndexStatusView,
  VisualResultItemView,
  VisualSearchResultsView,
  VisualSearchSettingsView,
} from './visual-search.views';

export type SettingsInput = InputOf<typeof VisualSearchSettingsDto>;

/** The body, but for a multipart request: its file part `image` arrives as the bytes. */
export type QueryInput = Omit<InputOf<typeof QueryByImageDto>, 'image'> & { image?: string | Buffer };

interface EffectiveSettings {
  enabled: boolean;
  model: VisualModel;
  dimensions: number;
  minSimilarity: number;
  maxResults: number;
  sameCategory: SameCategoryMode;
  lastRequestedAt: Date | null;
  updatedAt: Date | null;
}

const DEFAULTS: EffectiveSettings = {
  enabled: false,
  model: 'mobilenet-v2',
  dimensions: MOBILENET_DIMENSIONS,
  minSimilarity: 0,
  maxResults: 20,
  sameCategory: 'prefer',
  lastRequestedAt: null,
  updatedAt: null,
};

const disabled = (): ConflictError =>
  visualSearchError(
    'visual_search_disabled',
    'Visual search is disabled for this store; enable it with PATCH /visual-search/stores/{storeId}/settings.',
  );

function visionConfig(ctx: RequestContext): VisionConfig {
  return servicesOf(ctx).config.vision;
}

function effective(row: VisualSearchSettings | null): EffectiveSettings {
  if (!row) return { ...DEFAULTS };
  return {
    enabled: row.enabled,
    model: row.model,
    dimensions: row.dimensions,
    minSimilarity: Number(row.minSimilarity),
    maxResults: row.maxResults,
    sameCategory: row.sameCategory,
    lastRequestedAt: row.lastRequestedAt,
    updatedAt: row.updatedAt,
  };
}

async function loadSettings(ctx: RequestContext, storeId: string): Promise<VisualSearchSettings | null> {
  return tenantRepository(ctx, VisualSearchSettings).findOneBy({ storeId });
}

/**
 * Settings of a store for an anonymous caller (public query): the row is read by store id alone;
 * with whether this caller may see the store's prices (price visibility).
 */
async function publicSettings(
  ctx: RequestContext,
  storeId: string,
): Promise<{ tenantId: string; settings: EffectiveSettings; pricesShown: boolean }> {
  const [store]: Array<{ tenant_id: string; status: string; price_visibility: string }> = await ctx.manager.query(
    'SELECT tenant_id, status, price_visibility FROM stores WHERE id = $1',
    [storeId],
  );
  if (!store || store.status !== 'active') throw storeNotFound();
  const [row]: Array<{
    enabled: boolean;
    model: VisualModel;
    dimensions: number;
    min_similarity: string;
    max_results: number;
    same_category: SameCategoryMode;
  }> = await ctx.manager.query(
    'SELECT enabled, model, dimensions, min_similarity, max_results, same_category FROM visual_search_settings WHERE store_id = $1',
    [storeId],
  );
  const settings = row
    ? {
        ...DEFAULTS,
        enabled: row.enabled,
        model: row.model,
        dimensions: row.dimensions,
        minSimilarity: Number(row.min_similarity),
        maxResults: row.max_results,
        sameCategory: row.same_category,
      }
    : { ...DEFAULTS };
  return { tenantId: store.tenant_id, settings, pricesShown: pricesShown(ctx, asPriceVisibility(store.price_visibility)) };
}

function textCapable(model: VisualModel, config: VisionConfig): boolean {
  return model === 'clip' && Boolean(config.clipModelDir);
}

function settingsView(storeId: string, s: EffectiveSettings, config: VisionConfig): VisualSearchSettingsView {
  return {
    storeId,
    enabled: s.enabled,
    model: s.model,
    dimensions: s.dimensions,
    textQueries: textCapable(s.model, config),
    minSimilarity: s.minSimilarity,
    maxResults: s.maxResults,
    sameCategory: s.sameCategory,
    updatedAt: s.updatedAt ?? new Date(),
  };
}

/**
 * Queues products of a store for the vision worker: their vector rows become PENDING (a stored
 * vector is kept and reused when its image and model still match) and one `vision` outbox row is
 * written per product, all in one statement. Products without an image lose any vector row.
 */
async function queueProducts(tx: RequestContext, storeId: string, productIds: string[] | null, force: boolean): Promise<number> {
  await tx.manager.query(
    `DELETE FROM product_image_vectors v WHERE v.store_id = $1 AND ($2::uuid[] IS NULL OR v.product_id = ANY($2::uuid[]))
        AND NOT EXISTS (SELECT 1 FROM product_images i WHERE i.product_id = v.product_id)`,
    [storeId, productIds],
  );
  const [row]: Array<{ queued: number }> = await tx.manager.query(
    `WITH targets AS (
       SELECT p.id, p.store_id, p.tenant_id FROM products p
        WHERE p.store_id = $1 AND p.tenant_id = $2 AND ($3::uuid[] IS NULL OR p.id = ANY($3::uuid[]))
          AND EXISTS (SELECT 1 FROM product_images i WHERE i.product_id = p.id)),
     marked AS (
       INSERT INTO product_image_vectors (product_id, store_id, tenant_id, status, attempts)
       SELECT id, store_id, tenant_id, 'PENDING', 0 FROM targets
       ON CONFLICT (product_id) DO UPDATE SET status = 'PENDING', error = NULL, attempts = 0, updated_at = now()
       RETURNING product_id),
     ${outboxCte('queued', { queue: 'vision', topic: 'visual_search.index_requested', aggregateType: 'product' }, { tenantId: 'tenant_id', aggregateId: 'id::text', payload: '$4::jsonb', from: 'FROM targets' })}
     SELECT (SELECT count(*) FROM queued)::int AS queued, (SELECT count(*) FROM marked)::int AS marked`,
    [storeId, tx.tenantId, productIds, JSON.stringify(force ? { force: true } : {})],
  );
  return row?.queued ?? 0;
}

export async function updateSettings(ctx: RequestContext, storeId: string, input: SettingsInput): Promise<VisualSearchSettingsView> {
  const config = visionConfig(ctx);
  return inTransaction(ctx, async (tx) => {
    await requireStore(tx, storeId, { forWrite: true, lock: true });
    const existing = await loadSettings(tx, storeId);
    const before = effective(existing);
    const model = input.model ?? before.model;
    if (model === 'clip' && !config.clipModelDir) {
      throw visualSearchError('model_unavailable', 'The clip model is not installed on this server (VISION_CLIP_MODEL_DIR).', [
        { path: 'body.model', message: 'clip is not available' },
      ]);
    }
    let dimensions = before.dimensions;
    if (!existing || model !== before.model) {
      try {
        dimensions = await modelDimensions(model, config);
      } catch (error) {
        throw visualSearchError('model_unavailable', `The ${model} model cannot be used: ${(error as Error).message}.`, [
          { path: 'body.model', message: `${model} is not available` },
        ]);
      }
    }
    const after: EffectiveSettings = {
      ...before,
      enabled: input.enabled ?? before.enabled,
      model,
      dimensions,
      minSimilarity: input.minSimilarity ?? before.minSimilarity,
      maxResults: input.maxResults ?? before.maxResults,
      sameCategory: input.sameCategory ?? before.sameCategory,
    };
    const state = (s: EffectiveSettings) => ({
      enabled: s.enabled,
      model: s.model,
      dimensions: s.dimensions,
      minSimilarity: s.minSimilarity,
      maxResults: s.maxResults,
      sameCategory: s.sameCategory,
    });
    if (existing && JSON.stringify(state(before)) === JSON.stringify(state(after))) return settingsView(storeId, before, config);

    const reembed = after.enabled && (!before.enabled || after.model !== before.model || !existing);
    const now = new Date();
    const repo = tenantRepository(tx, VisualSearchSettings);
    const values = {
      enabled: after.enabled,
      model: after.model,
      dimensions: after.dimensions,
      minSimilarity: after.minSimilarity.toFixed(4),
      maxResults: after.maxResults,
      sameCategory: after.sameCategory,
      updatedAt: now,
      ...(reembed ? { lastRequestedAt: now } : {}),
    };
    if (existing) await repo.update({ storeId }, values as never);
    else
      await tx.manager.insert(VisualSearchSettings, { storeId, tenantId: tx.tenantId!, createdAt: now, lastRequestedAt: null, ...values });
    await recordAudit(tx, {
      action: 'visual_search.settings.update',
      resourceType: 'visual_search_settings',
      resourceId: storeId,
      before: existing ? state(before) : null,
      after: state(after),
    });
    if (after.enabled !== before.enabled || after.dimensions !== before.dimensions || !existing) {
      // The store's index gets (or keeps) the `image` embedder with the model's dimensions.
      await enqueueOutbox(tx, { queue: 'index', topic: 'visual_search.settings_updated', aggregateType: 'store', aggregateId: storeId });
    }
    if (reembed) {
      await queueProducts(tx, storeId, null, false);
      // Products without an image are re-indexed too, so every document of the store carries
      // `_vectors.image` (null) and the index accepts the embedder (documents indexed before visual
      // search existed lack it).
      if (!before.enabled) {
        await enqueueOutboxSelect(
          tx,
          { queue: 'index', topic: 'visual_search.enabled', aggregateType: 'product' },
          {
            tenantId: 'p.tenant_id',
            aggregateId: 'p.id::text',
            from: `FROM products p
            WHERE p.store_id = $1 AND p.tenant_id = $2 AND p.status = 'PUBLISHED' AND NOT EXISTS (SELECT 1 FROM product_images i WHERE i.product_id = p.id)`,
          },
          [storeId, tx.tenantId],
        );
      }
    }
    return settingsView(storeId, { ...after, updatedAt: now }, config);
  });
}

export async function indexProducts(
  ctx: RequestContext,
  storeId: string,
  input: { productIds?: string[]; force?: boolean },
): Promise<IndexRequestView> {
  return inTransaction(ctx, async (tx) => {
    await requireStore(tx, storeId, { forWrite: true, lock: true });
    const settings = effective(await loadSettings(tx, storeId));
    if (!settings.enabled) throw disabled();
    const ids = input.productIds ? [...new Set(input.productIds.map((id) => id.toLowerCase()))] : null;
    if (ids) {
      const found: Array<{ id: string }> = await tx.manager.query(
        'SELECT id FROM products WHERE store_id = $1 AND tenant_id = $2 AND id = ANY($3::uuid[])',
        [storeId, tx.tenantId, ids],
      );
      const known = new Set(found.map((r) => r.id));
      const missing = ids.filter((id) => !known.has(id));
      if (missing.length) {
        throw visualSearchError(
          'product_not_found',
          `${missing.length} of the products do not exist in this store.`,
          missing.slice(0, 20).map((id) => ({
            path: `body.productIds[${input.productIds!.findIndex((p) => p.toLowerCase() === id)}]`,
            message: 'no such product in this store',
          })),
        );
      }
    }
    const queued = await queueProducts(tx, storeId, ids, input.force === true);
    await tenantRepository(tx, VisualSearchSettings).update({ storeId }, { lastRequestedAt: new Date() } as never);
    await recordAudit(tx, {
      action: 'visual_search.index',
      resourceType: 'visual_search_settings',
      resourceId: storeId,
      before: null,
      after: { productIds: ids?.length ?? 'all', force: input.force === true, queued },
    });
    return { storeId, queued, model: settings.model };
  });
}

export async function indexStatus(ctx: RequestContext, storeId: string): Promise<IndexStatusView> {
  await requireStore(ctx, storeId);
  const settings = effective(await loadSettings(ctx, storeId));
  const [products]: Array<{ products: number; with_image: number }> = await ctx.manager.query(
    `SELECT count(*)::int AS products, count(*) FILTER (WHERE EXISTS (SELECT 1 FROM product_images i WHERE i.product_id = p.id))::int AS with_image
       FROM products p WHERE p.store_id = $1 AND p.tenant_id = $2`,
    [storeId, ctx.tenantId],
  );
  const [counts]: Array<{ indexed: number; pending: number; failed: number; vectors: number; last: Date | null }> = await ctx.manager.query(
    `SELECT count(*) FILTER (WHERE status = 'INDEXED' AND model = $3 AND dimensions = $4)::int AS indexed,
            count(*) FILTER (WHERE vector IS NOT NULL AND model = $3 AND dimensions = $4)::int AS vectors,
            count(*) FILTER (WHERE status = 'PENDING' OR (status = 'INDEXED' AND (model <> $3 OR dimensions <> $4)))::int AS pending,
            count(*) FILTER (WHERE status = 'FAILED')::int AS failed,
            max(updated_at) FILTER (WHERE status <> 'PENDING') AS last
       FROM product_image_vectors WHERE store_id = $1 AND tenant_id = $2`,
    [storeId, ctx.tenantId, settings.model, settings.dimensions],
  );
  const failures: Array<{ product_id: string; image_url: string | null; error: string | null; attempts: number; updated_at: Date }> =
    await ctx.manager.query(
      `SELECT product_id, image_url, error, attempts, updated_at FROM product_image_vectors
      WHERE store_id = $1 AND tenant_id = $2 AND status = 'FAILED' ORDER BY updated_at DESC, product_id LIMIT 50`,
      [storeId, ctx.tenantId],
    );
  return {
    storeId,
    enabled: settings.enabled,
    model: settings.model,
    dimensions: settings.dimensions,
    counts: {
      products: products?.products ?? 0,
      withImage: products?.with_image ?? 0,
      indexed: counts?.indexed ?? 0,
      pending: counts?.pending ?? 0,
      failed: counts?.failed ?? 0,
    },
    failures: failures.map((f) => ({
      productId: f.product_id,
      imageUrl: f.image_url,
      reason: f.error ?? 'unknown',
      attempts: Math.max(1, f.attempts),
      updatedAt: f.updated_at,
    })),
    lastRequestedAt: settings.lastRequestedAt,
    lastIndexedAt: counts?.last ?? null,
    sameCategory: settings.sameCategory,
    calibration: calibrationView(await storedCalibration(ctx.manager, storeId, ctx.tenantId!), counts?.vectors ?? 0, settings),
  };
}

function calibrationView(calibration: Calibration | null, vectorsNow: number, settings: EffectiveSettings): CalibrationView | null {
  if (!calibration) return null;
  return {
    model: calibration.model,
    dimensions: calibration.dimensions,
    vectors: calibration.vectors,
    sampleSize: calibration.sampleSize,
    goodMatchScore: calibration.knots[calibration.knots.length - 1]!,
    knots: calibration.knots,
    computedAt: calibration.computedAt,
    stale: calibrationStale(calibration, vectorsNow, settings.model, settings.dimensions),
  };
}

/**
 * Measures the store's score calibration now (the vision worker does it by itself once indexing
 * settles and the store's vectors have changed by a tenth): bounded work, see vision/calibration.ts.
 */
export async function calibrateIndex(ctx: RequestContext, storeId: string): Promise<CalibrationView> {
  await requireStore(ctx, storeId, { forWrite: true });
  const settings = effective(await loadSettings(ctx, storeId));
  if (!settings.enabled) throw disabled();
  const calibration = await computeCalibration(ctx.dataSource, storeId, ctx.tenantId!, settings.model, settings.dimensions);
  if (!calibration) {
    throw visualSearchError(
      'calibration_unavailable',
      'The store needs at least two indexed product images that are not copies of one photo to calibrate against.',
    );
  }
  const vectorsNow = await currentVectorCount(ctx.manager, storeId, ctx.tenantId!, settings.model, settings.dimensions);
  return calibrationView(calibration, vectorsNow, settings)!;
}

export async function clearIndex(ctx: RequestContext, storeId: string): Promise<ClearIndexView> {
  return inTransaction(ctx, async (tx) => {
    await requireStore(tx, storeId, { forWrite: true, lock: true });
    const [row]: Array<{ cleared: number; vectors: number }> = await tx.manager.query(
      `WITH removed AS (DELETE FROM product_image_vectors WHERE store_id = $1 AND tenant_id = $2 RETURNING product_id, vector IS NOT NULL AS had_vector),
            ${outboxCte('queued', { queue: 'index', topic: 'visual_search.cleared', aggregateType: 'product' }, { tenantId: '$2', aggregateId: 'product_id::text', from: 'FROM removed WHERE had_vector' })}
       SELECT (SELECT count(*) FROM removed)::int AS cleared, (SELECT count(*) FROM queued)::int AS vectors`,
      [storeId, tx.tenantId],
    );
    const cleared = row?.cleared ?? 0;
    // No vectors, nothing to calibrate against: the next indexing measures the store again.
    await tx.manager.query('DELETE FROM visual_search_calibrations WHERE store_id = $1 AND tenant_id = $2', [storeId, tx.tenantId]);
    if (cleared > 0)
      await recordAudit(tx, {
        action: 'visual_search.clear',
        resourceType: 'visual_search_settings',
        resourceId: storeId,
        before: { vectors: cleared },
        after: { vectors: 0 },
      });
    return { storeId, cleared };
  });
}

// ---------------------------------------------------------------------------------------------
// Queries

function searchFailed(error: unknown): never {
  if (error instanceof IndexNotReadyError) {
    throw visualSearchError(
      'visual_index_not_ready',
      "The store's image index is being rebuilt (visual search was just enabled or its model changed); try again shortly.",
    );
  }
  throw error;
}

async function embedderOf(ctx: RequestContext, settings: EffectiveSettings): Promise<Embedder> {
  let embedder: Embedder;
  try {
    embedder = await getEmbedder(settings.model, visionConfig(ctx));
  } catch (error) {
    servicesOf(ctx).logger.error({ err: error, model: settings.model }, 'visual search: the model could not be loaded');
    throw new ServiceUnavailableError(`The ${settings.model} model is not available right now.`, 5);
  }
  if (embedder.dimensions !== settings.dimensions)
    throw visualSearchError('visual_index_not_ready', "The store's model changed; its image index is being rebuilt.");
  return embedder;
}

export interface QueryTimings {
  decodeMs: number;
  embedMs: number;
  searchMs: number;
}

/** The query's vector: from the uploaded or base64 image, an image URL (fetched safely), or text (CLIP). */
export async function queryVector(
  ctx: RequestContext,
  settings: EffectiveSettings,
  input: QueryInput,
  timings: QueryTimings,
): Promise<Float32Array> {
  const config = visionConfig(ctx);
  const given = [input.image !== undefined, input.imageUrl !== undefined, input.text !== undefined].filter(Boolean).length;
  if (given === 0)
    throw visualSearchError('image_required', 'Send an image (multipart file `image` or base64 `image`), an `imageUrl`, or `text`.', [
      { path: 'body.image', message: 'image, imageUrl or text is required' },
    ]);
  if (given > 1)
    throw new ValidationError('Send only one of image, imageUrl and text.', [
      { path: 'body', message: 'only one of image, imageUrl and text' },
    ]);
  if (input.text !== undefined) {
    const embedder = await embedderOf(ctx, settings);
    if (!embedder.embedTexts)
      throw visualSearchError(
        'text_queries_unavailable',
        'Text queries need the clip model; this store uses a model that embeds images only.',
        [{ path: 'body.text', message: "not supported by the store's model" }],
      );
    const started = performance.now();
    const [vector] = await embedder.embedTexts([input.text]);
    timings.embedMs = performance.now() - started;
    return vector!;
  }
  const started = performance.now();
  let bytes: Buffer;
  let fromUrl = false;
  if (input.imageUrl !== undefined) {
    fromUrl = true;
    try {
      bytes = (
        await safeFetch(input.imageUrl, {
          timeoutMs: config.fetchTimeoutMs,
          maxBytes: config.fetchMaxBytes,
          maxRedirects: config.maxRedirects,
          allowAddresses: config.fetchAllowAddresses,
        })
      ).body;
    } catch (error) {
      if (!(error instanceof SafeFetchError)) throw error;
      const code = ['address_not_allowed', 'scheme_not_allowed', 'credentials_not_allowed', 'invalid_url'].includes(error.reason)
        ? 'image_url_not_allowed'
        : error.reason === 'too_large'
          ? 'image_too_large'
          : 'image_fetch_failed';
      throw visualSearchError(code, error.message, [{ path: 'body.imageUrl', message: error.reason }]);
    }
  } else {
    bytes = typeof input.image === 'string' ? Buffer.from(input.image, 'base64') : input.image!;
    if (bytes.length === 0) throw visualSearchError('not_an_image', 'The image is empty.', [{ path: 'body.image', message: 'empty' }], 400);
    if (bytes.length > config.uploadMaxBytes)
      throw new PayloadTooLargeError(config.uploadMaxBytes, `The image exceeds the limit of ${config.uploadMaxBytes} bytes.`);
  }
  const embedder = await embedderOf(ctx, settings);
  let embedded;
  try {
    // Cached by content hash, shared between identical uploads, batched with concurrent queries.
    embedded = await queryEmbedderFor(embedder, config).embed(bytes);
  } catch (error) {
    if (!(error instanceof ImageError)) throw error;
    const path = fromUrl ? 'body.imageUrl' : 'body.image';
    if (error.reason === 'not_an_image') {
      if (fromUrl)
        throw visualSearchError(
          'not_an_image',
          `The URL does not point at an image: ${error.message}`,
          [{ path, message: 'not an image' }],
          400,
        );
      throw visualSearchError('not_an_image', `The upload is not an image: ${error.message}`, [], 415);
    }
    if (error.reason === 'too_many_pixels') {
      if (fromUrl) throw visualSearchError('image_too_many_pixels', error.message, [{ path, message: 'too many pixels' }], 400);
      throw visualSearchError('image_too_many_pixels', error.message, [], 413);
    }
    throw visualSearchError('image_undecodable', error.message, [{ path, message: 'cannot be decoded' }]);
  }
  timings.embedMs = embedded.embedMs;
  timings.decodeMs = performance.now() - started - embedded.embedMs;
  return embedded.vector;
}

/** Items as a visitor may see them: without their price fields where the store hides prices from them. */
function pricedFor<T extends { price?: unknown; currency?: unknown }>(
  shown: boolean,
  items: T[],
): Array<Omit<T, 'price' | 'currency'> | T> {
  return shown ? items : items.map(({ price: _price, currency: _currency, ...rest }) => rest);
}

/** Each hit with its calibrated score and whether it is a good match (vision/calibration.ts). */
function withCalibration<H extends { score: number }>(hits: H[], calibration: Calibration | null): Array<H & CalibratedFields> {
  return hits.map((hit) => ({
    ...hit,
    calibratedScore: calibratedScoreOf(calibration, hit.score),
    goodMatch: goodMatchOf(calibration, hit.score),
  }));
}

function results(
  items: VisualResultItemView[],
  model: VisualModel,
  calibration: Calibration | null,
  started: number,
): VisualSearchResultsView {
  return { items, model, calibrated: calibration !== null, tookMs: Math.round(performance.now() - started) };
}

export async function queryMerchant(
  ctx: RequestContext,
  storeId: string,
  input: QueryInput,
  timings: QueryTimings = { decodeMs: 0, embedMs: 0, searchMs: 0 },
): Promise<VisualSearchResultsView> {
  const started = performance.now();
  await requireStore(ctx, storeId);
  const settings = effective(await loadSettings(ctx, storeId));
  if (!settings.enabled) throw disabled();
  const [vector, calibration] = await Promise.all([
    queryVector(ctx, settings, input, timings),
    calibrationFor(ctx.manager, storeId, ctx.tenantId!, settings.model, settings.dimensions),
  ]);
  const searchStarted = performance.now();
  const items = await searchAllStatuses(ctx.dataSource, {
    storeId,
    tenantId: ctx.tenantId!,
    model: settings.model,
    dimensions: settings.dimensions,
    vector,
    limit: Math.min(input.limit ?? settings.maxResults, settings.maxResults),
    minScore: minimumRawScore(calibration, settings.minSimilarity),
    filters: input,
  });
  timings.searchMs = performance.now() - searchStarted;
  return results(withCalibration(items, calibration), settings.model, calibration, started);
}

export async function queryPublic(
  ctx: RequestContext,
  storeId: string,
  input: QueryInput,
  timings: QueryTimings = { decodeMs: 0, embedMs: 0, searchMs: 0 },
): Promise<VisualSearchResultsView> {
  const started = performance.now();
  const services = servicesOf(ctx);
  await services.rateLimiter.hit(`visual-query:${clientIp(ctx)}`, {
    limit: services.config.vision.publicQueriesPerMinute,
    windowSeconds: 60,
  });
  const { tenantId, settings, pricesShown: shown } = await publicSettings(ctx, storeId);
  if (!settings.enabled) throw disabled();
  // Where the visitor may not see prices, nothing may depend on one: the price filters are ignored
  // (named in ignoredParams) and the price fields left out of every item.
  const filters: VisualFilters = { categoryId: input.categoryId, brandId: input.brandId, inStock: input.inStock };
  const ignoredParams: Array<'minPrice' | 'maxPrice'> = [];
  for (const key of ['minPrice', 'maxPrice'] as const) {
    if (input[key] === undefined) continue;
    if (shown) filters[key] = input[key];
    else ignoredParams.push(key);
  }
  const [vector, calibration] = await Promise.all([
    queryVector(ctx, settings, input, timings),
    calibrationFor(ctx.manager, storeId, tenantId, settings.model, settings.dimensions),
  ]);
  const searchStarted = performance.now();
  const hits = await searchPublished(services.meiliSearch, {
    storeId,
    vector,
    limit: Math.min(input.limit ?? settings.maxResults, settings.maxResults),
    minScore: minimumRawScore(calibration, settings.minSimilarity),
    filters,
  }).catch(searchFailed);
  timings.searchMs = performance.now() - searchStarted;
  const items = withCalibration(pricedFor(shown, hits), calibration);
  return { ...results(items, settings.model, calibration, started), pricesShown: shown, ignoredParams };
}

interface ComparableRow {
  id: string;
  status: string;
  brand_id: string | null;
  attributes: Record<string, string | number | boolean> | null;
  vector: Buffer | null;
  model: string | null;
  dimensions: number | null;
  category_ids: string[];
  parent_ids: string[];
}

/** The product (of this store and tenant) with its stored vector and what the catalog says about it. */
async function comparableRow(
  ctx: RequestContext,
  storeId: string,
  tenantId: string,
  productId: string,
): Promise<ComparableRow | undefined> {
  const [row]: ComparableRow[] = await ctx.manager.query(
    `SELECT p.id, p.status, p.brand_id, p.attributes, v.vector, v.model, v.dimensions,
            ARRAY(SELECT pc.category_id::text FROM product_categories pc JOIN categories c ON c.id = pc.category_id AND c.store_id = p.store_id
                   WHERE pc.product_id = p.id) AS category_ids,
            ARRAY(SELECT DISTINCT c.parent_id::text FROM product_categories pc JOIN categories c ON c.id = pc.category_id AND c.store_id = p.store_id
                   WHERE pc.product_id = p.id AND c.parent_id IS NOT NULL) AS parent_ids
       FROM products p LEFT JOIN product_image_vectors v ON v.product_id = p.id
      WHERE p.id = $1 AND p.store_id = $2 AND p.tenant_id = $3`,
    [productId, storeId, tenantId],
  );
  return row;
}

/** Published products that look like `row`, ranked by the store's sameCategory (vision/query.ts searchSimilar). */
async function similarTo(
  ctx: RequestContext,
  storeId: string,
  settings: EffectiveSettings,
  row: ComparableRow,
  calibration: Calibration | null,
  limit: number,
  started: number,
): Promise<VisualSearchResultsView> {
  if (!row.vector || row.model !== settings.model || row.dimensions !== settings.dimensions) {
    throw visualSearchError(
      'product_image_not_indexed',
      "The product's image is not indexed yet (or it has no image); see GET /visual-search/stores/{storeId}/index.",
    );
  }
  const product: ComparableProduct = {
    id: row.id,
    categoryIds: row.category_ids,
    parentCategoryIds: row.parent_ids,
    brandId: row.brand_id,
    attrs: attributeTokens(row.attributes),
  };
  const items = await searchSimilar(servicesOf(ctx).meiliSearch, {
    storeId,
    vector: decodeVector(row.vector),
    limit,
    minScore: minimumRawScore(calibration, settings.minSimilarity),
    mode: settings.sameCategory,
    product,
  }).catch(searchFailed);
  return { ...results(withCalibration(items, calibration), settings.model, calibration, started), sameCategory: settings.sameCategory };
}

export async function similarProducts(
  ctx: RequestContext,
  storeId: string,
  productId: string,
  limit: number,
): Promise<VisualSearchResultsView> {
  const started = performance.now();
  await requireStore(ctx, storeId);
  const settings = effective(await loadSettings(ctx, storeId));
  if (!settings.enabled) throw disabled();
  const [row, calibration] = await Promise.all([
    comparableRow(ctx, storeId, ctx.tenantId!, productId),
    calibrationFor(ctx.manager, storeId, ctx.tenantId!, settings.model, settings.dimensions),
  ]);
  if (!row) throw visualSearchError('product_not_found', 'The product does not exist in this store.');
  return similarTo(ctx, storeId, settings, row, calibration, limit, started);
}

/** The storefront's "Looks similar": as similarProducts, for a published product of an active store, without a token. */
export async function publicSimilarProducts(
  ctx: RequestContext,
  storeId: string,
  productId: string,
  limit: number | undefined,
): Promise<VisualSearchResultsView> {
  const started = performance.now();
  hitPublicSearchLimit(ctx);
  const { tenantId, settings, pricesShown: shown } = await publicSettings(ctx, storeId);
  if (!settings.enabled) throw disabled();
  const [row, calibration] = await Promise.all([
    comparableRow(ctx, storeId, tenantId, productId),
    calibrationFor(ctx.manager, storeId, tenantId, settings.model, settings.dimensions),
  ]);
  if (!row || row.status !== 'PUBLISHED') throw visualSearchError('product_not_found', 'The product does not exist in this store.');
  const answer = await similarTo(
    ctx,
    storeId,
    settings,
    row,
    calibration,
    Math.min(limit ?? settings.maxResults, settings.maxResults),
    started,
  );
  const items = pricedFor(shown, answer.items);
  return { ...answer, items, pricesShown: shown };
}
