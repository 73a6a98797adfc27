/**
 * Collections of a store: manual, ordered product lists (active or not), themselves in a manual order.
 * List, create, get, update, delete, reorder, add and remove items, bulk activation, CSV export and
 * import.
 *
 * Any member of the tenant (owner, admin, staff) and API keys of the store with the collections scope
 * edit collections; another tenant's store or collection answers 404 (as does, for an API key, a
 * collection of another store). Slugs are unique per store, case-insensitively (index
 * `collections_store_slug`): a taken slug is 409 `slug_taken`. Every change writes, in its transaction,
 * one audit entry (`collection.create|update|delete|reorder|add_items|remove_items`) and one outbox row
 * (queue `index`, aggregate `collection`, topic `collection.created|updated|deleted`) per collection
 * changed — a change of its items is a change of the collection; a write that changes nothing writes
 * neither.
 */
import Joi from 'joi';
import { In } from 'typeorm';
import { Collection, CollectionItem, Product } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { enqueueOutbox, type OutboxEvent } from '../../storage/outbox';
import type { RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { attachment, toCsv, type CsvColumn, type CsvDownload } from '../http/csv';
import { parseCsvImport, rejectDuplicateRows } from '../http/csv-import';
import { ConflictError, NotFoundError, ValidationError, type FieldError } from '../../lib/errors';
import { httpUrl } from '../http/schema-types';
import { requireStore } from '../../domain/store-access';
import {
  CATALOG_SLUG_MAX,
  CATALOG_SLUG_PATTERN,
  catalogSlug,
  freeStoreSlug,
  inSlugTransaction,
  slugify,
  storeSlugInUse,
} from '../../domain/slugs';
import {
  BulkSetCollectionStatusDto,
  COLLECTION_DESCRIPTION_MAX,
  COLLECTION_NAME_MAX,
  CollectionItemsDto,
  CreateCollectionDto,
  IdsBodyDto,
  UpdateCollectionDto,
} from './collections.schemas';
import type { InputOf } from '../http/typed-schema';
import { collectionsError } from './collections.errors';

export interface CollectionView {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  imageUrl: string | null;
  isActive: boolean;
  position: number;
  productCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface CollectionProductView {
  productId: string;
  position: number;
  product: { id: string; title: string; slug: string; status: string; price: number };
}

export function collectionView(row: Collection, productCount: number): CollectionView {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    imageUrl: row.imageUrl,
    isActive: row.isActive,
    position: row.position,
    productCount,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The fields a merchant sets directly; position changes through reorder (or the import). */
export interface CollectionFields {
  name: string;
  slug: string;
  description: string | null;
  imageUrl: string | null;
  isActive: boolean;
}

const EDITABLE: ReadonlyArray<keyof CollectionFields | 'position'> = ['name', 'slug', 'description', 'imageUrl', 'isActive', 'position'];

const collectionNotFound = (): NotFoundError => collectionsError('collection_not_found', 'The collection does not exist.');
const slugTaken = (path = 'body.slug'): ConflictError =>
  collectionsError('slug_taken', 'Another collection of the store has this slug.', [
    { path, message: 'slug is already taken in the store' },
  ]);

const event = (topic: 'created' | 'updated' | 'deleted', id: string): OutboxEvent => ({
  queue: 'index',
  topic: `collection.${topic}`,
  aggregateType: 'collection',
  aggregateId: id,
});

/** Runs a collection write; a slug race lost at the unique index answers 409 `slug_taken` like the check before it. */
const collectionWrite = <T>(ctx: RequestContext, work: (tx: RequestContext) => Promise<T>): Promise<T> =>
  inSlugTransaction(ctx, 'collections_store_slug', slugTaken, work);

const slugInUse = (tx: RequestContext, storeId: string, slug: string, exceptId?: string): Promise<boolean> =>
  storeSlugInUse(tx, Collection, storeId, slug, exceptId);

/** Product counts of the collections `ids`. */
async function productCounts(ctx: RequestContext, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows: Array<{ id: string; n: number }> = await ctx.manager
    .createQueryBuilder(CollectionItem, 'i')
    .select('i.collectionId', 'id')
    .addSelect('count(*)::int', 'n')
    .where('i.collectionId IN (:...ids)', { ids })
    .groupBy('i.collectionId')
    .getRawMany();
  return new Map(rows.map((row) => [row.id, row.n]));
}

async function storeCollections(ctx: RequestContext, storeId: string, lock = false): Promise<Collection[]> {
  const query = tenantRepository(ctx, Collection)
    .createQueryBuilder('c')
    .andWhere('c.storeId = :storeId', { storeId })
    .orderBy('c.position', 'ASC')
    .addOrderBy('lower(c.name)', 'ASC')
    .addOrderBy('c.id', 'ASC');
  if (lock) query.setLock('pessimistic_write');
  return query.getMany();
}

export async function listCollections(ctx: RequestContext, storeId: string): Promise<{ items: CollectionView[] }> {
  const store = await requireStore(ctx, storeId);
  const rows = await storeCollections(ctx, store.id);
  const counts = await productCounts(
    ctx,
    rows.map((row) => row.id),
  );
  return { items: rows.map((row) => collectionView(row, counts.get(row.id) ?? 0)) };
}

/** The position after the last collection of the store. */
async function nextPosition(tx: RequestContext, storeId: string): Promise<number> {
  const row: { next: number } | undefined = await tenantRepository(tx, Collection)
    .createQueryBuilder('c')
    .select('COALESCE(MAX(c.position) + 1, 0)::int', 'next')
    .andWhere('c.storeId = :storeId', { storeId })
    .getRawOne();
  return row?.next ?? 0;
}

export type CreateCollectionInput = InputOf<typeof CreateCollectionDto>;

export async function createCollection(ctx: RequestContext, input: CreateCollectionInput): Promise<CollectionView> {
  return collectionWrite(ctx, async (tx) => {
    // The store row lock orders concurrent creations, so positions stay distinct.
    const store = await requireStore(tx, input.storeId, { forWrite: true, lock: true });
    if (input.slug !== undefined && (await slugInUse(tx, store.id, input.slug))) throw slugTaken();
    const slug = input.slug ?? (await freeStoreSlug(tx, Collection, store.id, slugify(input.name, CATALOG_SLUG_MAX - 6, 'collection')));
    const fields = {
      name: input.name,
      slug,
      description: input.description ?? null,
      imageUrl: input.imageUrl ?? null,
      isActive: input.isActive,
      position: await nextPosition(tx, store.id),
    };
    const now = new Date();
    const row = tenantRepository(tx, Collection).create({ id: uuidv7(), storeId: store.id, ...fields, createdAt: now, updatedAt: now });
    await tx.manager.insert(Collection, row);
    await recordAudit(tx, {
      action: 'collection.create',
      resourceType: 'collection',
      resourceId: row.id,
      after: { storeId: store.id, ...fields },
    });
    await enqueueOutbox(tx, event('created', row.id));
    return collectionView(row, 0);
  });
}

/** The collection `id` of the caller's tenant and store (an API key: its own store only), or 404. */
async function loadCollection(ctx: RequestContext, id: string, forWrite: boolean): Promise<Collection> {
  const repo = tenantRepository(ctx, Collection, collectionNotFound);
  const row = forWrite ? await repo.findOne({ where: { id }, lock: { mode: 'pessimistic_write' } }) : await repo.findOneBy({ id });
  if (!row) throw collectionNotFound();
  // An API key reaches only its own store: a collection of another store is as missing as any other.
  if (ctx.actor.type === 'api_key' && ctx.actor.storeId !== row.storeId) throw collectionNotFound();
  await requireStore(ctx, row.storeId, { forWrite });
  return row;
}

/** The items of a collection in order, with their products. */
async function itemsOf(ctx: RequestContext, collectionId: string): Promise<CollectionProductView[]> {
  const rows: Array<{ id: string; title: string; slug: string; status: string; price: string; position: number }> = await ctx.manager
    .createQueryBuilder(CollectionItem, 'i')
    .innerJoin(Product, 'p', 'p.id = i.productId')
    .select(['p.id AS id', 'p.title AS title', 'p.slug AS slug', 'p.status AS status', 'p.price AS price', 'i.position AS position'])
    .where('i.collectionId = :collectionId', { collectionId })
    .orderBy('i.position', 'ASC')
    .addOrderBy('p.id', 'ASC')
    .getRawMany();
  return rows.map((row) => ({
    productId: row.id,
    position: row.position,
    product: { id: row.id, title: row.title, slug: row.slug, status: row.status, price: Number(row.price) },
  }));
}

export async function getCollection(ctx: RequestContext, id: string): Promise<CollectionView & { items: CollectionProductView[] }> {
  const row = await loadCollection(ctx, id, false);
  const items = await itemsOf(ctx, row.id);
  return { ...collectionView(row, items.length), items };
}

type Changes = Partial<Record<keyof CollectionFields | 'position' | 'productIds', unknown>>;

/** The fields of `input` that differ from `row`: before and after, empty when nothing changes. */
function diff(row: Collection, input: Partial<CollectionFields & { position: number }>): { before: Changes; after: Changes } {
  const before: Changes = {};
  const after: Changes = {};
  for (const field of EDITABLE) {
    const value = input[field];
    if (value === undefined || value === row[field]) continue;
    before[field] = row[field];
    after[field] = value;
  }
  return { before, after };
}

export type UpdateCollectionInput = InputOf<typeof UpdateCollectionDto>;

export async function updateCollection(ctx: RequestContext, id: string, input: UpdateCollectionInput): Promise<CollectionView> {
  return collectionWrite(ctx, async (tx) => {
    const row = await loadCollection(tx, id, true);
    if (input.slug !== undefined && input.slug !== row.slug && (await slugInUse(tx, row.storeId, input.slug, row.id))) throw slugTaken();
    const { before, after } = diff(row, input);
    let result = row;
    if (Object.keys(after).length > 0) {
      const updatedAt = new Date();
      await tenantRepository(tx, Collection).update({ id: row.id }, { ...after, updatedAt } as Partial<Collection>);
      await recordAudit(tx, { action: 'collection.update', resourceType: 'collection', resourceId: row.id, before, after });
      await enqueueOutbox(tx, event('updated', row.id));
      result = { ...row, ...after, updatedAt } as Collection;
    }
    const counts = await productCounts(tx, [row.id]);
    return collectionView(result, counts.get(row.id) ?? 0);
  });
}

/** Deletes a collection and its items (the products stay). */
export async function deleteCollection(ctx: RequestContext, id: string): Promise<void> {
  await collectionWrite(ctx, async (tx) => {
    const row = await loadCollection(tx, id, true);
    const productIds = (await itemsOf(tx, row.id)).map((item) => item.productId);
    await tenantRepository(tx, Collection).delete({ id: row.id });
    const { id: _id, createdAt: _c, updatedAt: _u, productCount: _n, ...before } = collectionView(row, productIds.length);
    await recordAudit(tx, {
      action: 'collection.delete',
      resourceType: 'collection',
      resourceId: row.id,
      before: { storeId: row.storeId, ...before, productIds },
    });
    await enqueueOutbox(tx, event('deleted', row.id));
  });
}

export type ReorderCollectionsInput = InputOf<typeof IdsBodyDto>;

/** Sets the order of the store's collections: `ids` must be exactly its collections (400 `reorder_mismatch`); they get positions 0, 1, 2, … */
export async function reorderCollections(ctx: RequestContext, input: ReorderCollectionsInput): Promise<void> {
  if (!input.storeId)
    throw new ValidationError('The request body is invalid: storeId is required.', [
      { path: 'body.storeId', message: 'storeId is required' },
    ]);
  const storeId = input.storeId;
  await collectionWrite(ctx, async (tx) => {
    const store = await requireStore(tx, storeId, { forWrite: true, lock: true });
    const rows = await storeCollections(tx, store.id, true);
    const byId = new Map(rows.map((row) => [row.id, row]));
    const given = new Set(input.ids.map((cid) => cid.toLowerCase()));
    const unexpected = input.ids.map((cid, index) => ({ cid, index })).filter(({ cid }) => !byId.has(cid.toLowerCase()));
    const missing = rows.filter((row) => !given.has(row.id));
    if (unexpected.length || missing.length) {
      throw collectionsError('reorder_mismatch', 'ids must list exactly the collections of the store, each once.', [
        ...unexpected.map(({ cid, index }) => ({ path: `body.ids[${index}]`, message: `${cid} is not a collection of the store` })),
        ...missing.slice(0, 100).map((row) => ({ path: 'body.ids', message: `collection ${row.id} is missing` })),
      ]);
    }
    const repo = tenantRepository(tx, Collection);
    const now = new Date();
    const events: OutboxEvent[] = [];
    for (const [position, cid] of input.ids.entries()) {
      const row = byId.get(cid.toLowerCase())!;
      if (row.position === position) continue;
      await repo.update({ id: row.id }, { position, updatedAt: now });
      await recordAudit(tx, {
        action: 'collection.reorder',
        resourceType: 'collection',
        resourceId: row.id,
        before: { position: row.position },
        after: { position },
      });
      events.push(event('updated', row.id));
    }
    await enqueueOutbox(tx, events);
  });
}

/** The products `ids` of the store; 400 `invalid_product` naming those that are not. */
async function requireStoreProducts(tx: RequestContext, storeId: string, ids: string[]): Promise<void> {
  const found = await tenantRepository(tx, Product).find({ select: { id: true }, where: { storeId, id: In(ids) } });
  const known = new Set(found.map((p) => p.id));
  const errors: FieldError[] = [];
  ids.forEach((pid, index) => {
    if (!known.has(pid.toLowerCase()))
      errors.push({ path: `body.productIds[${index}]`, message: `${pid} is not a product of the collection's store` });
  });
  if (errors.length) throw collectionsError('invalid_product', "Some products are not products of the collection's store.", errors);
}

/** Replaces the order of a collection's items with `productIds` (positions 0, 1, 2, …), inserting the new ones. */
async function writeItems(
  tx: RequestContext,
  collectionId: string,
  current: ReadonlyArray<{ productId: string; position: number }>,
  productIds: string[],
): Promise<void> {
  const existing = new Map(current.map((item) => [item.productId, item.position]));
  const keep = new Set(productIds);
  const gone = current.filter((item) => !keep.has(item.productId)).map((item) => item.productId);
  if (gone.length) await tx.manager.delete(CollectionItem, { collectionId, productId: In(gone) });
  const inserts: CollectionItem[] = [];
  const moved: Array<{ productId: string; position: number }> = [];
  for (const [position, productId] of productIds.entries()) {
    const was = existing.get(productId);
    if (was === undefined) inserts.push(tx.manager.create(CollectionItem, { collectionId, productId, position }));
    else if (was !== position) moved.push({ productId, position });
  }
  // Items that move (an insertion near the top moves all below it) are updated in one statement.
  if (moved.length) {
    await tx.manager.query(
      'UPDATE collection_items ci SET position = v.position FROM unnest($2::uuid[], $3::int[]) AS v(product_id, position) WHERE ci.collection_id = $1 AND ci.product_id = v.product_id',
      [collectionId, moved.map((m) => m.productId), moved.map((m) => m.position)],
    );
  }
  for (let i = 0; i < inserts.length; i += 1000) await tx.manager.insert(CollectionItem, inserts.slice(i, i + 1000));
}

/** Records an item change of a collection: its updatedAt, one audit entry, one outbox row. */
async function recordItemsChange(
  tx: RequestContext,
  row: Collection,
  action: 'add_items' | 'remove_items',
  before: string[],
  after: string[],
): Promise<void> {
  await tenantRepository(tx, Collection).update({ id: row.id }, { updatedAt: new Date() });
  await recordAudit(tx, {
    action: `collection.${action}`,
    resourceType: 'collection',
    resourceId: row.id,
    before: { productIds: before },
    after: { productIds: after },
  });
  await enqueueOutbox(tx, event('updated', row.id));
}

export type CollectionItemsInput = InputOf<typeof CollectionItemsDto>;

/** Adds products of the store to a collection, in the order given, at `position` (default: the end); those already in it stay where they are. */
export async function addCollectionItems(
  ctx: RequestContext,
  id: string,
  input: CollectionItemsInput,
): Promise<{ added: number; skipped: string[] }> {
  return collectionWrite(ctx, async (tx) => {
    const row = await loadCollection(tx, id, true);
    await requireStoreProducts(tx, row.storeId, input.productIds);
    const current = await tx.manager.find(CollectionItem, {
      where: { collectionId: row.id },
      order: { position: 'ASC', productId: 'ASC' },
    });
    const order = current.map((item) => item.productId);
    const present = new Set(order);
    const productIds = input.productIds.map((pid) => pid.toLowerCase());
    const adding = productIds.filter((pid) => !present.has(pid));
    const skipped = productIds.filter((pid) => present.has(pid));
    if (adding.length === 0) return { added: 0, skipped };
    const at = Math.min(input.position ?? order.length, order.length);
    const next = [...order.slice(0, at), ...adding, ...order.slice(at)];
    await writeItems(tx, row.id, current, next);
    await recordItemsChange(tx, row, 'add_items', order, next);
    return { added: adding.length, skipped };
  });
}

/** Removes products from a collection; ids not in it are listed in notFound. */
export async function removeCollectionItems(
  ctx: RequestContext,
  id: string,
  input: CollectionItemsInput,
): Promise<{ removed: number; notFound: string[] }> {
  return collectionWrite(ctx, async (tx) => {
    const row = await loadCollection(tx, id, true);
    const current = await tx.manager.find(CollectionItem, {
      where: { collectionId: row.id },
      order: { position: 'ASC', productId: 'ASC' },
    });
    const order = current.map((item) => item.productId);
    const present = new Set(order);
    const removing = new Set(input.productIds.map((pid) => pid.toLowerCase()).filter((pid) => present.has(pid)));
    const notFound = input.productIds.filter((pid) => !present.has(pid.toLowerCase()));
    if (removing.size === 0) return { removed: 0, notFound };
    const next = order.filter((pid) => !removing.has(pid));
    await writeItems(tx, row.id, current, next);
    await recordItemsChange(tx, row, 'remove_items', order, next);
    return { removed: removing.size, notFound };
  });
}

export type BulkSetCollectionStatusInput = InputOf<typeof BulkSetCollectionStatusDto>;

export async function bulkSetCollectionStatus(
  ctx: RequestContext,
  input: BulkSetCollectionStatusInput,
): Promise<{ updated: number; unchanged: number; notFound: string[] }> {
  return collectionWrite(ctx, async (tx) => {
    const store = await requireStore(tx, input.storeId, { forWrite: true });
    const repo = tenantRepository(tx, Collection);
    // Only the store's collections are found; ids of another store or tenant are reported as not found, nothing more.
    const found = await repo.find({
      where: { storeId: store.id, id: In(input.ids) },
      order: { id: 'ASC' },
      lock: { mode: 'pessimistic_write' },
    });
    const byId = new Map(found.map((row) => [row.id, row]));
    const notFound = input.ids.filter((cid) => !byId.has(cid.toLowerCase()));
    const changing = found.filter((row) => row.isActive !== input.isActive);
    if (changing.length > 0) {
      const ids = changing.map((row) => row.id);
      await repo.update({ storeId: store.id, id: In(ids) }, { isActive: input.isActive, updatedAt: new Date() });
      for (const row of changing) {
        await recordAudit(tx, {
          action: 'collection.update',
          resourceType: 'collection',
          resourceId: row.id,
          before: { isActive: row.isActive },
          after: { isActive: input.isActive },
        });
      }
      await enqueueOutbox(
        tx,
        ids.map((cid) => event('updated', cid)),
      );
    }
    return { updated: changing.length, unchanged: found.length - changing.length, notFound };
  });
}

interface ExportRow {
  row: Collection;
  productSlugs: string[];
}

const CSV_COLUMNS: CsvColumn<ExportRow>[] = [
  { header: 'slug', value: (r) => r.row.slug },
  { header: 'name', value: (r) => r.row.name },
  { header: 'isActive', value: (r) => r.row.isActive },
  { header: 'position', value: (r) => r.row.position },
  { header: 'description', value: (r) => r.row.description },
  { header: 'imageUrl', value: (r) => r.row.imageUrl },
  { header: 'productSlugs', value: (r) => r.productSlugs },
];

/** The product slugs of each of the collections `ids`, in item order. */
async function productSlugsOf(ctx: RequestContext, ids: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (ids.length === 0) return out;
  const rows: Array<{ cid: string; slug: string }> = await ctx.manager
    .createQueryBuilder(CollectionItem, 'i')
    .innerJoin(Product, 'p', 'p.id = i.productId')
    .select(['i.collectionId AS cid', 'p.slug AS slug'])
    .where('i.collectionId IN (:...ids)', { ids })
    .orderBy('i.collectionId')
    .addOrderBy('i.position', 'ASC')
    .addOrderBy('p.id', 'ASC')
    .getRawMany();
  for (const row of rows) out.set(row.cid, [...(out.get(row.cid) ?? []), row.slug]);
  return out;
}

export async function exportCollections(ctx: RequestContext, storeId: string): Promise<CsvDownload> {
  const store = await requireStore(ctx, storeId);
  const rows = await storeCollections(ctx, store.id);
  const slugs = await productSlugsOf(
    ctx,
    rows.map((row) => row.id),
  );
  return {
    body: toCsv(
      rows.map((row) => ({ row, productSlugs: slugs.get(row.id) ?? [] })),
      CSV_COLUMNS,
    ),
    disposition: attachment(`collections-${store.id}.csv`),
  };
}

/** Most data rows of one collection import; above it the answer is 413. */
export const COLLECTION_IMPORT_MAX_ROWS = 5000;
/** Most products named in one productSlugs cell. */
export const COLLECTION_IMPORT_MAX_PRODUCTS = 5000;

const productSlugList = Joi.string()
  .custom((value: string, helpers) => {
    const slugs = value
      .split(/\s+/)
      .filter((s) => s !== '')
      .map((s) => s.toLowerCase());
    const bad = slugs.find((s) => s.length > CATALOG_SLUG_MAX || !CATALOG_SLUG_PATTERN.test(s));
    if (bad !== undefined) return helpers.message({ custom: `"${bad}" is not a product slug` });
    if (new Set(slugs).size !== slugs.length) return helpers.message({ custom: 'a product slug appears twice' });
    if (slugs.length > COLLECTION_IMPORT_MAX_PRODUCTS)
      return helpers.message({ custom: `at most ${COLLECTION_IMPORT_MAX_PRODUCTS} products` });
    return slugs;
  })
  .default(() => []);

/** The import layout: the export's columns. slug and name are required; an empty optional cell is no value. */
const IMPORT_LAYOUT = {
  maxRows: COLLECTION_IMPORT_MAX_ROWS,
  columns: {
    slug: catalogSlug().lowercase().required(),
    name: Joi.string().trim().min(1).max(COLLECTION_NAME_MAX).required(),
    isActive: Joi.boolean().truthy('1', 'yes').falsy('0', 'no').default(true),
    position: Joi.number().integer().min(0).max(1_000_000),
    description: Joi.string().max(COLLECTION_DESCRIPTION_MAX),
    imageUrl: httpUrl(),
    productSlugs: productSlugList,
  },
};

interface CollectionCsvRow {
  slug: string;
  name: string;
  isActive: boolean;
  position?: number;
  description?: string;
  imageUrl?: string;
  productSlugs: string[];
}

const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((value, i) => value === b[i]);

/**
 * Imports collections from CSV: every row is validated first (400 listing `rows[N].column`, nothing
 * written), including that productSlugs names products of the store; then, in one transaction, a row
 * whose slug (case-insensitively) names a collection of the store replaces its fields and its products
 * (position: kept when empty), and any other row creates a collection (position: the cell, or after the
 * last).
 */
export async function importCollections(
  ctx: RequestContext,
  input: { storeId: string; csv: string },
): Promise<{ created: number; updated: number; unchanged: number }> {
  const store = await requireStore(ctx, input.storeId, { forWrite: true });
  const rows = parseCsvImport<CollectionCsvRow>(input.csv, IMPORT_LAYOUT);
  rejectDuplicateRows(rows, 'slug', (row) => row.slug);

  return collectionWrite(ctx, async (tx) => {
    await requireStore(tx, store.id, { forWrite: true, lock: true });
    // Product slugs → ids, all rows at once; unknown slugs are row errors.
    const wanted = [...new Set(rows.flatMap((row) => row.productSlugs))];
    const productBySlug = new Map<string, string>();
    for (let i = 0; i < wanted.length; i += 1000) {
      const found = await tenantRepository(tx, Product)
        .createQueryBuilder('p')
        .select(['p.id', 'p.slug'])
        .andWhere('p.storeId = :storeId', { storeId: store.id })
        .andWhere('lower(p.slug) IN (:...slugs)', { slugs: wanted.slice(i, i + 1000) })
        .getMany();
      for (const p of found) productBySlug.set(p.slug.toLowerCase(), p.id);
    }
    const errors: FieldError[] = [];
    rows.forEach((row, index) => {
      const unknown = row.productSlugs.filter((s) => !productBySlug.has(s));
      if (unknown.length)
        errors.push({ path: `rows[${index + 1}].productSlugs`, message: `not products of the store: ${unknown.slice(0, 20).join(' ')}` });
    });
    if (errors.length) throw new ValidationError('The CSV has invalid rows; nothing was imported.', errors);

    const existing = await tenantRepository(tx, Collection)
      .createQueryBuilder('c')
      .andWhere('c.storeId = :storeId', { storeId: store.id })
      .andWhere('lower(c.slug) IN (:...slugs)', { slugs: rows.length ? rows.map((row) => row.slug) : [''] })
      .setLock('pessimistic_write')
      .getMany();
    const bySlug = new Map(existing.map((row) => [row.slug.toLowerCase(), row]));
    const itemsBefore = new Map<string, CollectionItem[]>();
    if (existing.length) {
      const items = await tx.manager.find(CollectionItem, {
        where: { collectionId: In(existing.map((row) => row.id)) },
        order: { position: 'ASC', productId: 'ASC' },
      });
      for (const item of items) itemsBefore.set(item.collectionId, [...(itemsBefore.get(item.collectionId) ?? []), item]);
    }
    const repo = tenantRepository(tx, Collection);
    let position = await nextPosition(tx, store.id);
    const events: OutboxEvent[] = [];
    let created = 0;
    let updated = 0;
    let unchanged = 0;
    for (const row of rows) {
      const productIds = row.productSlugs.map((s) => productBySlug.get(s)!);
      const fields: CollectionFields = {
        name: row.name,
        slug: row.slug,
        description: row.description ?? null,
        imageUrl: row.imageUrl ?? null,
        isActive: row.isActive,
      };
      const found = bySlug.get(row.slug);
      if (!found) {
        const now = new Date();
        const collection = repo.create({
          id: uuidv7(),
          storeId: store.id,
          ...fields,
          position: row.position ?? position,
          createdAt: now,
          updatedAt: now,
        });
        position = Math.max(position, collection.position + 1);
        await tx.manager.insert(Collection, collection);
        await writeItems(tx, collection.id, [], productIds);
        await recordAudit(tx, {
          action: 'collection.create',
          resourceType: 'collection',
          resourceId: collection.id,
          after: { storeId: store.id, ...fields, position: collection.position, productIds },
        });
        events.push(event('created', collection.id));
        created += 1;
        continue;
      }
      const { before, after } = diff(found, { ...fields, position: row.position });
      const current = itemsBefore.get(found.id) ?? [];
      const currentIds = current.map((item) => item.productId);
      const itemsChanged = !sameList(currentIds, productIds);
      if (itemsChanged) {
        before.productIds = currentIds;
        after.productIds = productIds;
        await writeItems(tx, found.id, current, productIds);
      }
      if (Object.keys(after).length === 0) {
        unchanged += 1;
        continue;
      }
      const { productIds: _p, ...columns } = after;
      await repo.update({ id: found.id }, { ...columns, updatedAt: new Date() } as Partial<Collection>);
      await recordAudit(tx, { action: 'collection.update', resourceType: 'collection', resourceId: found.id, before, after });
      events.push(event('updated', found.id));
      updated += 1;
    }
    for (let i = 0; i < events.length; i += 1000) await enqueueOutbox(tx, events.slice(i, i + 1000));
    return { created, updated, unchanged };
  });
}
