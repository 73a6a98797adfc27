/**
 * One Meilisearch index per store: uid `store_<store id without hyphens>`. The reindex command builds
 * `store_<id>_tmp` beside it and swaps the two.
 */
import type { Index, Meilisearch } from 'meilisearch';
import type { ProductDocument } from './product-document';

export function storeIndexUid(storeId: string): string {
  return `store_${storeId.toLowerCase().replace(/-/g, '')}`;
}

export function tmpIndexUid(storeId: string): string {
  return `${storeIndexUid(storeId)}_tmp`;
}

export function storeIndex(client: Meilisearch, storeId: string): Index<ProductDocument> {
  return client.index<ProductDocument>(storeIndexUid(storeId));
}
