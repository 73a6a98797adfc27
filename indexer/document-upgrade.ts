/**
 * Rebuilds, once, the search index of every store whose product documents have an older shape than
 * this code builds (a field the search relies on is missing from documents built before it existed:
 * version 1 added `titleProductWords`, docs/search.md "Matching"; version 2 `priceCell`, "Price buckets").
 *
 * The indexer role runs it in the background when it starts: each stale store is rebuilt with the
 * reindex command's blue/green copy (indexer/reindex.ts: a fresh index, swapped in, searches go on
 * meanwhile), then marked current. A store is rebuilt by one process at a time (a PostgreSQL
 * advisory lock held for the rebuild); a process that dies mid-rebuild releases the lock with its
 * connection and leaves the store stale, so the next start tries again. Stores created after the
 * version's migration start current (the column's default).
 */
import type { DataSource } from 'typeorm';
import type { Meilisearch } from 'meilisearch';
import type { Logger } from 'pino';
import { reindexStore, withIndexRebuildLock, type ReindexOptions } from './reindex';
import type { StoreNodes } from '../search/store-placement';

/** The shape of the product documents this code builds; a migration moves stores.search_document_version's default with it. */
export const SEARCH_DOCUMENT_VERSION = 2;

export interface UpgradeOptions extends ReindexOptions {
  /** Checked before each store: true stops the loop (the role is stopping). */
  stopping?: () => boolean;
  /** Only these stores (default: every store). */
  storeIds?: string[];
}

/** Rebuilds the stale stores' indexes, one after the other; answers the stores this call rebuilt. */
export async function upgradeStoreDocuments(
  dataSource: DataSource,
  meili: Meilisearch | StoreNodes,
  logger: Logger,
  options: UpgradeOptions = {},
): Promise<string[]> {
  // A store with nothing published has no documents to rebuild: it is current as it is.
  await dataSource.query(
    `UPDATE stores s SET search_document_version = $1 WHERE s.search_document_version < $1
       AND NOT EXISTS (SELECT 1 FROM products p WHERE p.store_id = s.id AND p.status = 'PUBLISHED')`,
    [SEARCH_DOCUMENT_VERSION],
  );
  const stale: Array<{ id: string }> = await dataSource.query(
    `SELECT id FROM stores WHERE search_document_version < $1 AND status <> 'archived' AND ($2::uuid[] IS NULL OR id = ANY($2))
     ORDER BY id`,
    [SEARCH_DOCUMENT_VERSION, options.storeIds ?? null],
  );
  const upgraded: string[] = [];
  for (const { id } of stale) {
    if (options.stopping?.()) break;
    try {
      await withIndexRebuildLock(dataSource, id, async (session) => {
        // Another process may have finished it between the list and the lock.
        const [row] = (await session.query('SELECT search_document_version AS version FROM stores WHERE id = $1', [id])) as Array<{
          version: number;
        }>;
        if (!row || row.version >= SEARCH_DOCUMENT_VERSION) return;
        const result = await reindexStore(dataSource, meili, id, options);
        await session.query('UPDATE stores SET search_document_version = $2 WHERE id = $1', [id, SEARCH_DOCUMENT_VERSION]);
        upgraded.push(id);
        logger.info(
          { storeId: id, documents: result.documents, ms: result.ms },
          'indexer: store index rebuilt for the current document shape',
        );
      });
    } catch (error) {
      logger.warn(
        { err: error, storeId: id },
        'indexer: could not rebuild a store index for the current document shape; retried on the next start',
      );
    }
  }
  return upgraded;
}
