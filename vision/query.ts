/**
 * Query by image and similar products.
 *
 * - Storefront (published products): one Meilisearch search in the store's index with the query
 *   vector under the user-provided embedder `image` (`hybrid.semanticRatio: 1`), the shopper's
 *   filters in the same request, the ranking score shown and the store's minimum similarity as the
 *   score threshold. Only published products are in the index at all.
 * - Merchant (every status, drafts included): the store's vectors in PostgreSQL are scored here
 *   (dot products of L2-normalised vectors, read in chunks so memory stays bounded), with the same
 *   filters in SQL. Scores are on Meilisearch's scale, (1 + cosine) / 2, so both agree.
 * - Similar products (searchSimilar): the storefront search, once per category tier that is needed.
 * Raw scores become calibrated scores in vision/calibration.ts.
 */
import type { DataSource } from 'typeorm';
import { MeiliResponseError, type SearchTransport } from '../search/search-transport';
import { storeIndexUid } from '../search/index-names';
import { inList, quote } from '../search/meili-filter';
import { scoreOfCosine } from '../storage/vectors';
import type { SameCategoryMode, VisualModel } from '../storage/entities/product-image-vector.entity';

export interface VisualFilters {
  categoryId?: string;
  brandId?: string;
  minPrice?: number;
  maxPrice?: number;
  inStock?: boolean;
}

export interface VisualHit {
  id: string;
  title: string;
  slug: string;
  status: 'DRAFT' | 'PUBLISHED' | 'ARCHIVED';
  price: number;
  currency: string;
  imageUrl: string | null;
  inStock: boolean;
  score: number;
}

export interface VectorQuery {
  storeId: string;
  vector: Float32Array | number[];
  limit: number;
  minScore: number;
  filters?: VisualFilters;
  excludeId?: string;
  /** More Meilisearch filter expressions, ANDed with the others (the category tiers of similar products). */
  extraFilter?: string[];
  /** Also read what the similar-products ranking compares (brand, attributes, categories). */
  withFacts?: boolean;
}

/** What a hit shares with the product it is compared with, read from its document; never answered as such. */
export interface HitFacts {
  brandId: string | null;
  attrs: string[];
  categoryIds: string[];
}

/** Raised when the store's index cannot answer vector queries yet (embedder not applied, model changing). */
export class IndexNotReadyError extends Error {}

export function meiliFilters(filters: VisualFilters = {}, excludeId?: string): string[] {
  const out = ['status = "PUBLISHED"'];
  if (excludeId) out.push(`id != ${quote(excludeId)}`);
  if (filters.categoryId) out.push(`categoryIds = ${quote(filters.categoryId)}`);
  if (filters.brandId) out.push(`brandId = ${quote(filters.brandId)}`);
  if (filters.minPrice !== undefined) out.push(`price >= ${Number(filters.minPrice)}`);
  if (filters.maxPrice !== undefined) out.push(`price <= ${Number(filters.maxPrice)}`);
  if (filters.inStock !== undefined) out.push(`inStock = ${filters.inStock ? 'true' : 'false'}`);
  return out;
}

interface HitDocument {
  id: string;
  title: string;
  slug: string;
  status: VisualHit['status'];
  price: number;
  currency: string;
  imageUrl: string | null;
  inStock: boolean;
  brandId?: string | null;
  attrs?: string[];
  categoryIds?: string[];
  _rankingScore?: number;
}

const HIT_FIELDS = ['id', 'title', 'slug', 'status', 'price', 'currency', 'imageUrl', 'inStock'];
const FACT_FIELDS = ['brandId', 'attrs', 'categoryIds'];

/**
 * Published products of the store nearest to `vector`, via Meilisearch, over `client`: the process's
 * search-only connection (the storefront search's, with its derived key).
 */
export async function searchPublished(client: SearchTransport, query: VectorQuery): Promise<Array<VisualHit & Partial<HitFacts>>> {
  try {
    const result = await client.search<{ hits: HitDocument[] }>(storeIndexUid(query.storeId), {
      q: null,
      vector: Array.from(query.vector),
      hybrid: { embedder: 'image', semanticRatio: 1 },
      filter: [...meiliFilters(query.filters, query.excludeId), ...(query.extraFilter ?? [])],
      limit: query.limit,
      showRankingScore: true,
      // A document without a vector scores 0; anything with a vector scores above it.
      rankingScoreThreshold: Math.max(query.minScore, 1e-6),
      attributesToRetrieve: query.withFacts ? [...HIT_FIELDS, ...FACT_FIELDS] : HIT_FIELDS,
    });
    return result.hits.map((hit) => ({
      id: hit.id,
      title: hit.title,
      slug: hit.slug,
      status: hit.status,
      price: hit.price,
      currency: hit.currency,
      imageUrl: hit.imageUrl ?? null,
      inStock: hit.inStock,
      score: Math.round((hit._rankingScore ?? 0) * 1e6) / 1e6,
      ...(query.withFacts ? { brandId: hit.brandId ?? null, attrs: hit.attrs ?? [], categoryIds: hit.categoryIds ?? [] } : {}),
    }));
  } catch (error) {
    if (error instanceof MeiliResponseError) {
      const code = error.code;
      if (code === 'index_not_found') return [];
      if (
        code === 'invalid_search_embedder' ||
        code === 'invalid_search_hybrid_query' ||
        code === 'invalid_search_vector' ||
        /embedder|dimension/i.test(error.message)
      ) {
        throw new IndexNotReadyError(error.message);
      }
    }
    throw error;
  }
}

/** Where a similar product stands against the product it is similar to (docs/search.md, "Similar products"). */
export type SimilarTier = 'same_category' | 'sibling_category' | 'other';

export interface SimilarHit extends VisualHit {
  tier: SimilarTier;
}

/** What the catalog says about the product whose similar products are wanted. */
export interface ComparableProduct {
  id: string;
  /** Its assigned categories (a product in one of them or below it is in the same category). */
  categoryIds: string[];
  /** Their parents (a product elsewhere below one of them is in a sibling category). */
  parentCategoryIds: string[];
  brandId: string | null;
  /** `name:value` of each attribute, as in the search document's `attrs`. */
  attrs: string[];
}

export interface SimilarQuery {
  storeId: string;
  vector: Float32Array | number[];
  limit: number;
  minScore: number;
  mode: SameCategoryMode;
  product: ComparableProduct;
}

/**
 * Hits fetched beyond the page in each tier, so a same-brand hit just past the cut can still win a
 * tie with the last one inside it.
 */
const TIE_SLACK = 10;
/** Raw scores that agree to two decimals count as a tie within a tier; far below what the embedders tell apart reliably. */
const TIE_STEP = 0.01;
const TIER_RANK: Record<SimilarTier, number> = { same_category: 0, sibling_category: 1, other: 2 };

/**
 * Published products that look like `query.product` (never itself), ranked within what the catalog
 * says is comparable:
 * - `prefer`: the same category (its subtree included) first, then sibling categories (elsewhere
 *   under the same parent), then the rest, each tier by similarity with brand, then shared
 *   attributes, breaking ties (scores equal to two decimals). One vector search for the first tier;
 *   the second and third (together) only when the first does not fill the page.
 * - `require`: the first tier only; nothing when the product has no category or no other product
 *   shares one.
 * - `ignore`: one search, similarity order alone (each hit still says its tier).
 * A product without a category has only the third tier.
 */
export async function searchSimilar(client: SearchTransport, query: SimilarQuery): Promise<SimilarHit[]> {
  const same = [...new Set(query.product.categoryIds)];
  const parents = [...new Set(query.product.parentCategoryIds)].filter((id) => !same.includes(id));
  if (query.mode === 'require' && same.length === 0) return [];
  const searchTier = (limit: number, extraFilter: string[]): Promise<Array<VisualHit & Partial<HitFacts>>> =>
    searchPublished(client, {
      storeId: query.storeId,
      vector: query.vector,
      limit: limit + (query.mode === 'ignore' ? 0 : TIE_SLACK),
      minScore: query.minScore,
      excludeId: query.product.id,
      extraFilter,
      withFacts: true,
    });

  let candidates: Array<VisualHit & Partial<HitFacts>>;
  if (query.mode === 'ignore' || same.length === 0) {
    candidates = await searchTier(query.limit, []);
  } else {
    candidates = await searchTier(query.limit, [inList('categoryIds', same)]);
    if (query.mode === 'prefer' && candidates.length < query.limit) {
      const missing = query.limit - candidates.length;
      const [siblings, others] = await Promise.all([
        parents.length > 0 ? searchTier(missing, [inList('categoryIds', parents), `NOT ${inList('categoryIds', same)}`]) : [],
        searchTier(missing, [`NOT ${inList('categoryIds', [...same, ...parents])}`]),
      ]);
      candidates = [...candidates, ...siblings, ...others];
    }
  }

  const sameSet = new Set(same);
  const parentSet = new Set(parents);
  const ownAttrs = new Set(query.product.attrs);
  const ranked = candidates.map(({ brandId, attrs, categoryIds, ...hit }) => {
    const ids = categoryIds ?? [];
    const tier: SimilarTier = ids.some((id) => sameSet.has(id))
      ? 'same_category'
      : ids.some((id) => parentSet.has(id))
        ? 'sibling_category'
        : 'other';
    return {
      hit: { ...hit, tier },
      step: Math.floor(hit.score / TIE_STEP + 1e-9),
      sameBrand: query.product.brandId !== null && brandId === query.product.brandId ? 1 : 0,
      sharedAttrs: (attrs ?? []).filter((a) => ownAttrs.has(a)).length,
    };
  });
  if (query.mode === 'ignore') ranked.sort((a, b) => b.hit.score - a.hit.score || (a.hit.id < b.hit.id ? -1 : 1));
  else
    ranked.sort(
      (a, b) =>
        TIER_RANK[a.hit.tier] - TIER_RANK[b.hit.tier] ||
        b.step - a.step ||
        b.sameBrand - a.sameBrand ||
        b.sharedAttrs - a.sharedAttrs ||
        b.hit.score - a.hit.score ||
        (a.hit.id < b.hit.id ? -1 : 1),
    );
  return ranked.slice(0, query.limit).map((r) => r.hit);
}

const CHUNK = 2_000;
/** Most float32 values kept by the merchant-query cache of this process (about 96 MB). */
const CACHE_FLOATS = 24 * 1024 * 1024;

interface StoreMatrix {
  stamp: string;
  ids: string[];
  /** ids.length × dimensions, row-major. */
  matrix: Float32Array;
  dimensions: number;
}

const matrices = new Map<string, StoreMatrix>();

/**
 * The store's vectors of the current model as one matrix, cached per process and reloaded when the
 * store's vector rows change (their count or latest update), least recently used stores evicted first.
 */
export async function storeMatrix(
  db: DataSource,
  storeId: string,
  tenantId: string,
  model: VisualModel,
  dimensions: number,
): Promise<StoreMatrix> {
  const key = `${storeId}:${model}:${dimensions}`;
  const [row]: Array<{ n: number; latest: Date | null }> = await db.query(
    `SELECT count(*)::int AS n, max(updated_at) AS latest FROM product_image_vectors
      WHERE store_id = $1 AND tenant_id = $2 AND vector IS NOT NULL AND model = $3 AND dimensions = $4`,
    [storeId, tenantId, model, dimensions],
  );
  const stamp = `${row?.n ?? 0}:${row?.latest?.toISOString() ?? ''}`;
  const cached = matrices.get(key);
  if (cached && cached.stamp === stamp) {
    matrices.delete(key);
    matrices.set(key, cached);
    return cached;
  }
  const ids: string[] = [];
  const parts: Float32Array[] = [];
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows: Array<{ product_id: string; vector: Buffer }> = await db.query(
      `SELECT product_id, vector FROM product_image_vectors
        WHERE store_id = $1 AND tenant_id = $2 AND vector IS NOT NULL AND model = $3 AND dimensions = $4 AND product_id > $5
        ORDER BY product_id LIMIT ${CHUNK}`,
      [storeId, tenantId, model, dimensions, after],
    );
    for (const r of rows) {
      const vector = new Float32Array(dimensions);
      for (let i = 0; i < dimensions; i += 1) vector[i] = r.vector.readFloatLE(i * 4);
      ids.push(r.product_id);
      parts.push(vector);
    }
    if (rows.length < CHUNK) break;
    after = rows[rows.length - 1]!.product_id;
  }
  const matrix = new Float32Array(ids.length * dimensions);
  parts.forEach((v, i) => matrix.set(v, i * dimensions));
  const entry: StoreMatrix = { stamp, ids, matrix, dimensions };
  matrices.delete(key);
  if (matrix.length <= CACHE_FLOATS) {
    matrices.set(key, entry);
    let total = 0;
    for (const m of matrices.values()) total += m.matrix.length;
    for (const [k, m] of matrices) {
      if (total <= CACHE_FLOATS) break;
      if (k === key) continue;
      matrices.delete(k);
      total -= m.matrix.length;
    }
  }
  return entry;
}

/** Every product of the store (any status) nearest to `vector`, scored from the vectors in PostgreSQL. */
export async function searchAllStatuses(
  db: DataSource,
  query: VectorQuery & { tenantId: string; model: VisualModel; dimensions: number },
): Promise<VisualHit[]> {
  const f = query.filters ?? {};
  const vector = query.vector instanceof Float32Array ? query.vector : Float32Array.from(query.vector);
  const filtered = query.excludeId !== undefined || Object.values(f).some((v) => v !== undefined);
  let allowed: Set<string> | undefined;
  if (filtered) {
    const rows: Array<{ id: string }> = await db.query(
      `SELECT p.id FROM products p
        WHERE p.store_id = $1 AND p.tenant_id = $2
          AND ($3::uuid IS NULL OR p.id <> $3)
          AND ($4::uuid IS NULL OR p.brand_id = $4)
          AND ($5::numeric IS NULL OR p.price >= $5)
          AND ($6::numeric IS NULL OR p.price <= $6)
          AND ($7::boolean IS NULL OR EXISTS (SELECT 1 FROM product_variants pv WHERE pv.product_id = p.id AND pv.stock > 0) = $7)
          AND ($8::uuid IS NULL OR EXISTS (
                WITH RECURSIVE tree AS (SELECT id FROM categories WHERE id = $8 AND store_id = $1
                                        UNION SELECT c.id FROM categories c JOIN tree t ON c.parent_id = t.id)
                SELECT 1 FROM product_categories pc JOIN tree t ON t.id = pc.category_id WHERE pc.product_id = p.id))`,
      [
        query.storeId,
        query.tenantId,
        query.excludeId ?? null,
        f.brandId ?? null,
        f.minPrice ?? null,
        f.maxPrice ?? null,
        f.inStock ?? null,
        f.categoryId ?? null,
      ],
    );
    allowed = new Set(rows.map((r) => r.id));
  }
  const { ids, matrix, dimensions } = await storeMatrix(db, query.storeId, query.tenantId, query.model, query.dimensions);
  const best: Array<{ id: string; score: number }> = [];
  for (let row = 0; row < ids.length; row += 1) {
    const id = ids[row]!;
    if (allowed && !allowed.has(id)) continue;
    let dot = 0;
    const offset = row * dimensions;
    for (let i = 0; i < dimensions; i += 1) dot += matrix[offset + i]! * vector[i]!;
    const score = scoreOfCosine(dot);
    if (score < query.minScore) continue;
    if (best.length < query.limit || score > best[best.length - 1]!.score) {
      best.push({ id, score });
      best.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
      if (best.length > query.limit) best.pop();
    }
  }
  if (best.length === 0) return [];
  const details: Array<{
    id: string;
    title: string;
    slug: string;
    status: VisualHit['status'];
    price: string;
    currency: string;
    image_url: string | null;
    in_stock: boolean;
  }> = await db.query(
    `SELECT p.id, p.title, p.slug, p.status, p.price, p.currency,
            (SELECT i.url FROM product_images i WHERE i.product_id = p.id ORDER BY i.position, i.id LIMIT 1) AS image_url,
            EXISTS (SELECT 1 FROM product_variants pv WHERE pv.product_id = p.id AND pv.stock > 0) AS in_stock
       FROM products p WHERE p.id = ANY($1::uuid[])`,
    [best.map((b) => b.id)],
  );
  const byId = new Map(details.map((d) => [d.id, d]));
  return best
    .filter((b) => byId.has(b.id))
    .map((b) => {
      const d = byId.get(b.id)!;
      return {
        id: d.id,
        title: d.title,
        slug: d.slug,
        status: d.status,
        price: Number(d.price),
        currency: d.currency.trim(),
        imageUrl: d.image_url,
        inStock: d.in_stock,
        score: Math.round(b.score * 1e6) / 1e6,
      };
    });
}
