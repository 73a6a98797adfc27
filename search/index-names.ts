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

/** The store whose index (live or `_tmp`) `uid` is; undefined for any other uid. */
export function storeIdOfIndexUid(uid: string): string | undefined {
  const match = /^store_([0-9a-f]{32})(?:_tmp)?$/.exec(uid);
  if (!match) return undefined;
  const hex = match[1]!;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
