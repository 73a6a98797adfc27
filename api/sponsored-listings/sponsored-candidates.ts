/**
 * The sponsored listings the public search may show for a query (called by search/). One statement:
 * it ends the store's due listings (end date passed, budget spent) and reads the candidates through
 * the partial index on ACTIVE listings of the store.
 */
import type { DataSource, EntityManager } from 'typeorm';
import { UUID_PATTERN } from '../http/schema-types';
import { normaliseSearchText } from '../../domain/sponsored-keywords';
import { CANDIDATES_SQL } from './sponsored-listings.sql';

export interface SponsoredCandidate {
  listingId: string;
  productId: string;
}

/** ACTIVE listings of the store that are inside their window with budget left and whose keywords match the normalised query (a listing without keywords matches every search, including an empty query); best first: highest cost_per_click, then oldest. At most `limit`. Ends listings past their end date or budget first. */
export async function sponsoredCandidates(
  db: DataSource | EntityManager,
  storeId: string,
  query: string,
  limit: number,
): Promise<SponsoredCandidate[]> {
  if (!(limit >= 1) || !UUID_PATTERN.test(storeId)) return [];
  const padded = ` ${normaliseSearchText(query)} `;
  const rows: Array<{ id: string; product_id: string }> = await db.query(CANDIDATES_SQL, [storeId, padded, Math.floor(limit)]);
  return rows.map((r) => ({ listingId: r.id, productId: r.product_id }));
}
