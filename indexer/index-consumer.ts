/**
 * The `index` queue consumer: keeps each store's Meilisearch index in step with PostgreSQL.
 *
 * - product → re-read it; upsert its document when PUBLISHED, delete it otherwise (draft, archived,
 *   deleted); deliveries that arrive together share one read and one write (product-batcher.ts).
 * - product_batch → the same for every product its rows list (an import batch, one job).
 * - brand / category / product_tag → re-index every product of the store that references it, found
 *   both in PostgreSQL (current references: a rename reaches every product) and in the index
 *   (documents that still reference a deleted or detached one).
 * - store (filter_config.updated) → apply the store's index settings again.
 * - collection / bundle → nothing is indexed for them yet; acknowledged.
 *
 * Every Meilisearch write waits for its task and throws unless it succeeded, so the outbox
 * acknowledges rows only after success and retries failures with backoff.
 */
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { MeilisearchApiError, type Meilisearch } from 'meilisearch';
import { PRODUCT_BATCH_AGGREGATE, type OutboxDelivery } from '../storage/outbox';
import { isUuid } from '../storage/ids';
import type { DeliveryHandler } from '../storage/consumers';
import { storeIndexUid } from '../search/index-names';
import { applyIndexSettings, indexSettings, loadStoreSearchData } from '../search/index-settings';
import { localeField, ProductDocumentBuilder, type ProductDocument } from '../search/product-document';
import { ProductBatcher } from './product-batcher';
import { MeiliTaskError, settle } from '../search/meili-tasks';
import { asStoreNodes, type StoreNodes } from '../search/store-placement';

export const INDEX_BATCH = 1_000;
/**
 * Deliveries the indexer works on at once. Product deliveries mostly wait in the product batcher
 * (one Meilisearch write for many), so this is how large a burst can grow into one write.
 */
export const INDEX_CONCURRENCY = 2_000;
/** How long a product delivery waits for others to share its Meilisearch write (well inside the 1 s freshness target). */
const PRODUCT_LINGER_MS = 25;
/** How long the products of an import batch wait for more to share a write (see ProductBatcher's patientLingerMs). */
const BULK_LINGER_MS = 3_000;
/** Most products one Meilisearch write of the product batcher carries. */
const PRODUCT_WRITE_MAX = 15_000;
/**
 * Writes of the product batcher in Meilisearch at once. Meilisearch indexes the document additions
 * waiting in its queue together as one batch, and part of a batch's cost does not grow with its size
 * (measured: 21 CPU-s to index 100 000 documents sent at once, 32 CPU-s for the same documents in
 * writes of about 2 000 with 2 in flight). With several writes queued, the slower Meilisearch is
 * behind a bulk change, the larger the batches it makes of them.
 */
const PRODUCT_WRITES_IN_FLIGHT = 6;
/** How long a process trusts that a store's index exists with the right settings before checking again. */
const SETTINGS_TTL_MS = 60_000;

export interface IndexerDeps {
  dataSource: DataSource;
  /** Where each store's index is (one client: every store is there). */
  meili: Meilisearch | StoreNodes;
  logger: Logger;
  batchSize?: number;
  taskTimeoutMs?: number;
  /** Called with the stores whose index a delivery changed, after Meilisearch confirmed it (drops cached search answers). */
  onStoresChanged?: (storeIds: Iterable<string>) => Promise<void>;
}

const isNotFound = (error: unknown): boolean => error instanceof MeilisearchApiError && error.cause?.code === 'index_not_found';

/** Writes products of stores into their indexes; shared by the consumer and the reindex command. */
export class StoreIndexer {
  private readonly ensured = new Map<string, { at: number; locales: Set<string> }>();
  readonly batchSize: number;
  readonly taskTimeoutMs: number;
  private readonly nodes: StoreNodes;

  constructor(private readonly deps: IndexerDeps) {
    this.nodes = asStoreNodes(deps.meili);
    this.batchSize = deps.batchSize ?? INDEX_BATCH;
    this.taskTimeoutMs = deps.taskTimeoutMs ?? 60_000;
  }

  /** Makes sure the store's index exists with its settings (checked at most once a minute, or when new locales appear). */
  async ensureStore(storeId: string, options: { force?: boolean; onlyIfExists?: boolean; locales?: Iterable<string> } = {}): Promise<void> {
    const known = this.ensured.get(storeId);
    const locales = [...(options.locales ?? [])];
    if (!options.force && known && Date.now() - known.at < SETTINGS_TTL_MS && locales.every((l) => known.locales.has(l))) return;
    const data = await loadStoreSearchData(this.deps.dataSource, storeId);
    const applied = await applyIndexSettings(await this.nodes.adminFor(storeId), storeIndexUid(storeId), indexSettings(data), {
      timeoutMs: this.taskTimeoutMs,
      create: !options.onlyIfExists,
    });
    if (applied === 'missing') return;
    this.ensured.set(storeId, { at: Date.now(), locales: new Set([...data.locales.map(localeField), ...locales]) });
  }

  /**
   * Re-reads the products and upserts or deletes their documents. `fallbackStores`: where to delete
   * products that no longer exist in PostgreSQL (their store is not known any more).
   */
  async syncProducts(ids: string[], fallbackStores: string[] = []): Promise<{ upserted: number; deleted: number; stores: Set<string> }> {
    let upserted = 0;
    let deleted = 0;
    const stores = new Set<string>();
    const builder = new ProductDocumentBuilder(this.deps.dataSource);
    // Read in slices of batchSize, written per store in writes of up to PRODUCT_WRITE_MAX documents
    // (part of a Meilisearch write's cost does not grow with its size, so a large change goes in few writes).
    const byStore = new Map<string, ProductDocument[]>();
    const write = async (storeId: string, docs: ProductDocument[]): Promise<void> => {
      byStore.delete(storeId);
      const locales = new Set<string>();
      for (const doc of docs)
        for (const key of Object.keys(doc))
          if (key.startsWith('title_') || key.startsWith('description_')) locales.add(key.slice(key.indexOf('_') + 1));
      await this.ensureStore(storeId, { locales });
      const meili = await this.nodes.adminFor(storeId);
      await settle(meili.index(storeIndexUid(storeId)).addDocuments(docs, { primaryKey: 'id' }), this.taskTimeoutMs);
      upserted += docs.length;
      stores.add(storeId);
    };
    for (let i = 0; i < ids.length; i += this.batchSize) {
      const slice = ids.slice(i, i + this.batchSize);
      const { documents, removed } = await builder.build(slice);
      for (const doc of documents) {
        const bucket = byStore.get(doc.storeId);
        if (bucket) bucket.push(doc);
        else byStore.set(doc.storeId, [doc]);
      }
      for (const [storeId, docs] of [...byStore]) if (docs.length >= PRODUCT_WRITE_MAX) await write(storeId, docs);
      if (removed.length > 0) {
        const rows: Array<{ id: string; store_id: string }> = await this.deps.dataSource.query(
          'SELECT id, store_id FROM products WHERE id = ANY($1::uuid[])',
          [removed],
        );
        const storeOf = new Map(rows.map((r) => [r.id, r.store_id]));
        const targets = new Map<string, string[]>();
        for (const id of removed) {
          for (const storeId of storeOf.has(id) ? [storeOf.get(id)!] : fallbackStores) {
            const bucket = targets.get(storeId);
            if (bucket) bucket.push(id);
            else targets.set(storeId, [id]);
          }
        }
        for (const [storeId, list] of targets) {
          // Deleting from an index that was never created is nothing to do.
          const meili = await this.nodes.adminFor(storeId);
          await settle(meili.index(storeIndexUid(storeId)).deleteDocuments(list), this.taskTimeoutMs, ['index_not_found']);
          stores.add(storeId);
        }
        deleted += removed.length;
      }
    }
    for (const [storeId, docs] of [...byStore]) await write(storeId, docs);
    return { upserted, deleted, stores };
  }

  /** Ids of the documents of a store's index matching `filter` (none when the index does not exist). */
  async documentIds(storeId: string, filter: string): Promise<string[]> {
    const ids: string[] = [];
    const index = (await this.nodes.adminFor(storeId)).index<ProductDocument>(storeIndexUid(storeId));
    try {
      for (let offset = 0; ; offset += this.batchSize) {
        const page = await index.getDocuments({ filter, fields: ['id'], limit: this.batchSize, offset });
        ids.push(...page.results.map((d) => d.id));
        if (page.results.length < this.batchSize) break;
      }
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    return ids;
  }
}

type Fanout = { table: string; field: string; products: string };

/** How to find the products that reference an aggregate: its store, products in PostgreSQL, and the filter over documents. */
const FANOUT: Record<string, Fanout> = {
  brand: { table: 'brands', field: 'brandId', products: 'SELECT id FROM products WHERE brand_id = $1 ORDER BY id' },
  category: {
    table: 'categories',
    field: 'categoryIds',
    // The category and its whole subtree: a rename or a move changes the names and ancestor ids of all of them.
    products: `WITH RECURSIVE tree AS (SELECT id FROM categories WHERE id = $1 UNION SELECT c.id FROM categories c JOIN tree t ON c.parent_id = t.id)
               SELECT DISTINCT pc.product_id AS id FROM product_categories pc JOIN tree t ON pc.category_id = t.id ORDER BY 1`,
  },
  product_tag: {
    table: 'product_tags',
    field: 'tagIds',
    products: 'SELECT product_id AS id FROM product_tag_assignments WHERE tag_id = $1 ORDER BY 1',
  },
};

/** Where the store of an aggregate that only public-read caches care about is found. */
const OWN_TABLE: Record<string, string> = {
  shipping_rate: 'shipping_rates',
  content_page: 'content_entries',
  content_post: 'content_entries',
  pricing_rule: 'pricing_rules',
  flash_sale_campaign: 'flash_sale_campaigns',
};

export function createIndexHandler(deps: IndexerDeps): DeliveryHandler<'index'> & { indexer: StoreIndexer } {
  const indexer = new StoreIndexer(deps);
  const { dataSource, logger } = deps;
  const announce = async (stores: Iterable<string>): Promise<void> => {
    if (deps.onStoresChanged) await deps.onStoresChanged(stores);
  };
  const storesOfTenants = async (tenantIds: string[]): Promise<string[]> => {
    if (tenantIds.length === 0) return [];
    const rows: Array<{ id: string }> = await dataSource.query('SELECT id FROM stores WHERE tenant_id = ANY($1::uuid[]) ORDER BY id', [
      tenantIds,
    ]);
    return rows.map((r) => r.id);
  };
  const tenantStores = (tenantId: string | null): Promise<string[]> => storesOfTenants(tenantId ? [tenantId] : []);
  // One store lookup, one write and one announcement per batch of products, however many deliveries share it.
  // The batch's fallbacks are the deliveries' tenants: their stores are where a product gone from PostgreSQL is deleted.
  const syncAndAnnounce = async (ids: string[], tenantIds: string[]): Promise<{ stores: Set<string> }> => {
    const started = Date.now();
    const result = await indexer.syncProducts(ids, await storesOfTenants(tenantIds));
    await announce(result.stores);
    logger.debug(
      { products: ids.length, upserted: result.upserted, deleted: result.deleted, stores: result.stores.size, ms: Date.now() - started },
      'index: products written',
    );
    return result;
  };
  const products = new ProductBatcher(
    syncAndAnnounce,
    { maxBatch: PRODUCT_WRITE_MAX, lingerMs: PRODUCT_LINGER_MS, patientLingerMs: BULK_LINGER_MS, maxInFlight: PRODUCT_WRITES_IN_FLIGHT },
    (error) => error instanceof MeiliTaskError,
  );

  const handle = async (delivery: OutboxDelivery<'index'>): Promise<void> => {
    const { aggregateType, aggregateId, tenantId } = delivery;
    if (!isUuid(aggregateId)) {
      logger.warn({ aggregateType, aggregateId }, 'index: aggregate id is not a UUID; acknowledged without indexing');
      return;
    }
    const id = aggregateId.toLowerCase();
    switch (delivery.aggregateType) {
      case 'product': {
        await products.sync(id, tenantId ? [tenantId] : []);
        return;
      }
      case PRODUCT_BATCH_AGGREGATE: {
        // An import batch: its products join the product batcher together (one read, one write per maxBatch).
        // The import's last batch is not patient: nothing more of the import will join its write.
        const ids = new Set<string>();
        let final = false;
        for (const message of delivery.messages) {
          const payload = message.payload as { productIds?: unknown; final?: unknown };
          if (payload.final === true) final = true;
          if (Array.isArray(payload.productIds))
            for (const productId of payload.productIds) if (isUuid(productId)) ids.add(productId.toLowerCase());
        }
        await Promise.all([...ids].map((productId) => products.sync(productId, tenantId ? [tenantId] : [], !final)));
        return;
      }
      case 'brand':
      case 'category':
      case 'product_tag': {
        const fanout = FANOUT[aggregateType]!;
        const [own]: Array<{ store_id: string }> = await dataSource.query(`SELECT store_id FROM ${fanout.table} WHERE id = $1`, [id]);
        const stores = own ? [own.store_id] : await tenantStores(tenantId);
        const fromDb: Array<{ id: string }> = await dataSource.query(fanout.products, [id]);
        const ids = new Set(fromDb.map((r) => r.id));
        for (const storeId of stores) for (const docId of await indexer.documentIds(storeId, `${fanout.field} = "${id}"`)) ids.add(docId);
        const result = await indexer.syncProducts([...ids], stores);
        logger.debug({ aggregateType, aggregateId: id, upserted: result.upserted, deleted: result.deleted }, 'index: fan-out done');
        // Names of brands and categories are also facet labels and suggestions: announce the store even when no product changed.
        await announce(own ? [own.store_id, ...result.stores] : result.stores);
        return;
      }
      case 'store': {
        const [store]: Array<{ id: string }> = await dataSource.query('SELECT id FROM stores WHERE id = $1', [id]);
        // A store's index is created with its first product; until then there is nothing to configure.
        if (store) await indexer.ensureStore(store.id, { force: true, onlyIfExists: true });
        // Store events also carry what search reads besides the index: price visibility, filter configuration, sponsored listings.
        await announce([id]);
        return;
      }
      case 'collection':
      case 'bundle':
        // Nothing of theirs is in the product documents yet.
        return;
      case 'shipping_rate':
      case 'content_page':
      case 'content_post':
      case 'pricing_rule':
      case 'flash_sale_campaign': {
        // Not in the product documents (price changes arrive as product rows), but public reads of
        // the store are cached: announce the store (all of the tenant's when the row is gone).
        const [own]: Array<{ store_id: string }> = await dataSource.query(
          `SELECT store_id FROM ${OWN_TABLE[aggregateType]} WHERE id = $1`,
          [id],
        );
        await announce(own ? [own.store_id] : await tenantStores(tenantId));
        return;
      }
      case 'search_synonym':
        // The rule's store event (search_synonyms.updated, aggregate store) re-applies the synonyms.
        return;
      default: {
        // Every aggregate type of the queue is handled above (storage/outbox-events.ts); a row of an
        // older version with another one (e.g. sponsored_listing, now a store event) is acknowledged.
        const _exhaustive: never = delivery;
        void _exhaustive;
        logger.warn({ aggregateType, aggregateId: id }, 'index: unknown aggregate type; acknowledged without indexing');
      }
    }
  };
  return Object.assign(handle, { indexer });
}
