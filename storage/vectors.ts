/**
 * Image vectors in PostgreSQL (table product_image_vectors): float32 little-endian in a bytea, so a
 * reindex of Meilisearch reads them instead of recomputing, and the merchant query can score every
 * product of a store (drafts included) without the search engine.
 */
import type { DataSource, EntityManager } from 'typeorm';

export function encodeVector(vector: Float32Array): Buffer {
  const buffer = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i += 1) buffer.writeFloatLE(vector[i]!, i * 4);
  return buffer;
}

export function decodeVector(buffer: Buffer): number[] {
  const out = new Array<number>(buffer.length / 4);
  for (let i = 0; i < out.length; i += 1) out[i] = buffer.readFloatLE(i * 4);
  return out;
}

/** Dot product of a stored (float32 LE) vector with `query`; both L2-normalised, so the cosine. */
export function dotStored(buffer: Buffer, query: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < query.length; i += 1) sum += buffer.readFloatLE(i * 4) * query[i]!;
  return sum;
}

/** Meilisearch's ranking score of a vector match: (1 + cosine) / 2, in [0, 1]. */
export const scoreOfCosine = (cosine: number): number => Math.min(1, Math.max(0, (1 + cosine) / 2));

/** The stored vectors of products that match their store's current model (what the index should carry). */
export async function currentVectors(db: DataSource | EntityManager, productIds: string[]): Promise<Map<string, number[]>> {
  if (productIds.length === 0) return new Map();
  const rows: Array<{ product_id: string; vector: Buffer }> = await db.query(
    `SELECT v.product_id, v.vector FROM product_image_vectors v JOIN visual_search_settings s ON s.store_id = v.store_id
      WHERE v.product_id = ANY($1::uuid[]) AND v.vector IS NOT NULL AND v.model = s.model AND v.dimensions = s.dimensions`,
    [productIds],
  );
  return new Map(rows.map((r) => [r.product_id, decodeVector(r.vector)]));
}

/** Vector length of a store's image embedder when visual search is enabled (index settings), else undefined. */
export async function storeEmbedderDimensions(db: DataSource | EntityManager, storeId: string): Promise<number | undefined> {
  const [row]: Array<{ dimensions: number }> = await db.query(
    'SELECT dimensions FROM visual_search_settings WHERE store_id = $1 AND enabled',
    [storeId],
  );
  return row?.dimensions;
}

/** Whether the store of a product has visual search enabled (product writes enqueue embedding work only then). */
export async function visualSearchEnabledForProduct(db: DataSource | EntityManager, productId: string): Promise<boolean> {
  const rows: unknown[] = await db.query(
    'SELECT 1 FROM products p JOIN visual_search_settings s ON s.store_id = p.store_id AND s.enabled WHERE p.id = $1',
    [productId],
  );
  return rows.length > 0;
}
