/**
 * Product tags of a store and their assignment to products.
 *
 * Any member of the tenant and API keys of the store with the catalog scope edit tags; another
 * tenant's store, tag or product answers 404 (as does, for an API key, one of another store). Slugs
 * are unique per store, case-insensitively (index `product_tags_store_slug`): 409 `slug_taken`.
 *
 * Writes, each in one transaction, one audit entry and one outbox row (queue `index`) per resource
 * changed: creating, renaming or deleting a tag is a change of the tag (aggregate `product_tag`,
 * topic `product_tag.created|updated|deleted`); assigning or removing it is a change of each product
 * concerned (aggregate `product`, topic `product.updated`), because the indexed product document
 * carries its tags. Deleting a tag also changes every product that had it (one `product.untag` audit
 * entry and one `product.updated` row each). A write that changes nothing writes neither.
 */
import { In } from 'typeorm';
import { Product, ProductTag, ProductTagAssignment } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { enqueueOutbox, type OutboxEvent } from '../../storage/outbox';
import type { RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { ConflictError, NotFoundError } from '../../lib/errors';
import { decodeCursor, encodeCursor, isText, isUuid } from '../http/cursor';
import { requireStore } from '../../domain/store-access';
import { CreateProductTagDto, TAG_SLUG_MAX, UpdateProductTagDto } from './product-tags.schemas';
import type { InputOf } from '../http/typed-schema';
import { freeStoreSlug, inSlugTransaction, slugify, storeSlugInUse } from '../../domain/slugs';
import { productTagsError } from './product-tags.errors';

export interface ProductTagView {
  id: string;
  name: string;
  slug: string;
  productCount: number;
  createdAt: string;
  updatedAt: string;
}

const tagNotFound = (): NotFoundError => productTagsError('product_tag_not_found', 'The product tag does not exist.');
const productNotFound = (): NotFoundError => productTagsError('product_not_found', 'The product does not exist.');
const slugTaken = (): ConflictError =>
  productTagsError('slug_taken', 'Another tag of the store has this slug.', [
    { path: 'body.slug', message: 'slug is already taken in the store' },
  ]);

const tagEvent = (topic: 'created' | 'updated' | 'deleted', id: string): OutboxEvent => ({
  queue: 'index',
  topic: `product_tag.${topic}`,
  aggregateType: 'product_tag',
  aggregateId: id,
});
const productUpdated = (id: string): OutboxEvent => ({
  queue: 'index',
  topic: 'product.updated',
  aggregateType: 'product',
  aggregateId: id,
});

function tagView(tag: ProductTag, productCount: number): ProductTagView {
  return {
    id: tag.id,
    name: tag.name,
    slug: tag.slug,
    productCount,
    createdAt: tag.createdAt.toISOString(),
    updatedAt: tag.updatedAt.toISOString(),
  };
}

/** Runs a tag write; a slug race lost at the unique index answers 409 `slug_taken` like the check before it. */
const tagWrite = <T>(ctx: RequestContext, work: (tx: RequestContext) => Promise<T>): Promise<T> =>
  inSlugTransaction(ctx, 'product_tags_store_slug', slugTaken, work);

const slugInUse = (tx: RequestContext, storeId: string, slug: string, exceptId?: string): Promise<boolean> =>
  storeSlugInUse(tx, ProductTag, storeId, slug, exceptId);

function freeSlug(tx: RequestContext, storeId: string, name: string): Promise<string> {
  return freeStoreSlug(tx, ProductTag, storeId, slugify(name, TAG_SLUG_MAX - 6, 'tag'));
}

async function countProducts(ctx: RequestContext, tagId: string): Promise<number> {
  return ctx.manager.count(ProductTagAssignment, { where: { tagId } });
}

/** The product `id` of the caller's tenant (and, for an API key, of its store); 404 otherwise. */
async function loadProduct(ctx: RequestContext, id: string): Promise<Product> {
  const product = await tenantRepository(ctx, Product, productNotFound).findOneBy({ id });
  if (!product || (ctx.actor.type === 'api_key' && ctx.actor.storeId !== product.storeId)) throw productNotFound();
  return product;
}

/** The tag `id` of the caller's tenant, locked, whose store the caller may write; 404 otherwise. */
async function loadTagForWrite(tx: RequestContext, id: string): Promise<ProductTag> {
  const tag = await tenantRepository(tx, ProductTag, tagNotFound).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  if (!tag || (tx.actor.type === 'api_key' && tx.actor.storeId !== tag.storeId)) throw tagNotFound();
  await requireStore(tx, tag.storeId, { forWrite: true });
  return tag;
}

export interface ListProductTagsInput {
  storeId: string;
  cursor?: string;
  limit: number;
  productId?: string;
}

/** Tags page by (lower(name), id); the cursor is the last row's pair. */
const tagCursor = (tag: ProductTag): string => encodeCursor([tag.name.toLowerCase(), tag.id]);

export async function listProductTags(
  ctx: RequestContext,
  input: ListProductTagsInput,
): Promise<{ items: ProductTagView[]; nextCursor: string | null }> {
  const store = await requireStore(ctx, input.storeId);
  const query = tenantRepository(ctx, ProductTag)
    .createQueryBuilder('t')
    .andWhere('t.storeId = :storeId', { storeId: store.id })
    .orderBy('lower(t.name)', 'ASC')
    .addOrderBy('t.id', 'ASC')
    .limit(input.limit + 1);
  if (input.productId !== undefined) {
    const product = await loadProduct(ctx, input.productId);
    if (product.storeId !== store.id) throw productNotFound();
    query.andWhere('EXISTS (SELECT 1 FROM product_tag_assignments a WHERE a.tag_id = t.id AND a.product_id = :productId)', {
      productId: product.id,
    });
  }
  if (input.cursor !== undefined) {
    const [afterName, afterId] = decodeCursor(input.cursor, { accepts: ([name, id]) => isText(name) && isUuid(id) });
    query.andWhere('(lower(t.name), t.id) > (:afterName, :afterId)', { afterName, afterId });
  }
  const rows = await query.getMany();
  const page = rows.slice(0, input.limit);
  const counts = new Map<string, number>();
  if (page.length) {
    const found: Array<{ tag_id: string; n: string }> = await ctx.manager.query(
      'SELECT tag_id, count(*) AS n FROM product_tag_assignments WHERE tag_id = ANY($1::uuid[]) GROUP BY tag_id',
      [page.map((t) => t.id)],
    );
    for (const row of found) counts.set(row.tag_id, Number(row.n));
  }
  return {
    items: page.map((tag) => tagView(tag, counts.get(tag.id) ?? 0)),
    nextCursor: rows.length > input.limit ? tagCursor(page[page.length - 1]!) : null,
  };
}

export type CreateProductTagInput = InputOf<typeof CreateProductTagDto>;

export async function createProductTag(ctx: RequestContext, input: CreateProductTagInput): Promise<ProductTagView> {
  return tagWrite(ctx, async (tx) => {
    const store = await requireStore(tx, input.storeId, { forWrite: true });
    if (input.slug !== undefined && (await slugInUse(tx, store.id, input.slug))) throw slugTaken();
    const slug = input.slug ?? (await freeSlug(tx, store.id, input.name));
    const now = new Date();
    const tag = tenantRepository(tx, ProductTag).create({
      id: uuidv7(),
      storeId: store.id,
      name: input.name,
      slug,
      createdAt: now,
      updatedAt: now,
    });
    await tx.manager.insert(ProductTag, tag);
    await recordAudit(tx, {
      action: 'product_tag.create',
      resourceType: 'product_tag',
      resourceId: tag.id,
      after: { storeId: store.id, name: tag.name, slug },
    });
    await enqueueOutbox(tx, tagEvent('created', tag.id));
    return tagView(tag, 0);
  });
}

export type UpdateProductTagInput = InputOf<typeof UpdateProductTagDto>;

export async function updateProductTag(ctx: RequestContext, id: string, input: UpdateProductTagInput): Promise<ProductTagView> {
  return tagWrite(ctx, async (tx) => {
    const tag = await loadTagForWrite(tx, id);
    if (input.slug !== undefined && input.slug !== tag.slug && (await slugInUse(tx, tag.storeId, input.slug, tag.id))) throw slugTaken();
    const before: Partial<UpdateProductTagInput> = {};
    const after: Partial<UpdateProductTagInput> = {};
    for (const field of ['name', 'slug'] as const) {
      const value = input[field];
      if (value === undefined || value === tag[field]) continue;
      before[field] = tag[field];
      after[field] = value;
    }
    let current = tag;
    if (Object.keys(after).length) {
      const updatedAt = new Date();
      await tenantRepository(tx, ProductTag).update({ id: tag.id }, { ...after, updatedAt });
      await recordAudit(tx, { action: 'product_tag.update', resourceType: 'product_tag', resourceId: tag.id, before, after });
      await enqueueOutbox(tx, tagEvent('updated', tag.id));
      current = { ...tag, ...after, updatedAt };
    }
    return tagView(current, await countProducts(tx, tag.id));
  });
}

/** Marks the products as changed: updated_at now, one audit entry and one product.updated outbox row each. */
async function touchProducts(
  tx: RequestContext,
  productIds: string[],
  action: 'product.tag' | 'product.untag',
  tag: ProductTag,
): Promise<void> {
  if (!productIds.length) return;
  await tenantRepository(tx, Product).update({ id: In(productIds) }, { updatedAt: new Date() });
  const change = { tagId: tag.id, tagSlug: tag.slug };
  for (const productId of productIds) {
    await recordAudit(tx, {
      action,
      resourceType: 'product',
      resourceId: productId,
      ...(action === 'product.tag' ? { after: change } : { before: change }),
    });
  }
  await enqueueOutbox(tx, productIds.map(productUpdated));
}

export async function deleteProductTag(ctx: RequestContext, id: string): Promise<void> {
  await tagWrite(ctx, async (tx) => {
    const tag = await loadTagForWrite(tx, id);
    const assigned = await tx.manager.find(ProductTagAssignment, { where: { tagId: tag.id }, order: { productId: 'ASC' } });
    const productIds = assigned.map((a) => a.productId);
    // The assignments go with the tag (ON DELETE CASCADE).
    await tenantRepository(tx, ProductTag).delete({ id: tag.id });
    await recordAudit(tx, {
      action: 'product_tag.delete',
      resourceType: 'product_tag',
      resourceId: tag.id,
      before: { storeId: tag.storeId, name: tag.name, slug: tag.slug, productCount: productIds.length },
    });
    await enqueueOutbox(tx, tagEvent('deleted', tag.id));
    await touchProducts(tx, productIds, 'product.untag', tag);
  });
}

export async function assignProductTag(ctx: RequestContext, tagId: string, productIds: string[]): Promise<void> {
  await tagWrite(ctx, async (tx) => {
    const tag = await loadTagForWrite(tx, tagId);
    const wanted = [...new Set(productIds.map((id) => id.toLowerCase()))];
    const products = await tenantRepository(tx, Product).find({ where: { storeId: tag.storeId, id: In(wanted) }, select: { id: true } });
    const found = new Set(products.map((p) => p.id.toLowerCase()));
    const invalid = wanted.filter((id) => !found.has(id));
    if (invalid.length) {
      throw productTagsError(
        'invalid_product',
        `Products must be products of the tag's store: ${invalid.join(', ')}.`,
        productIds.flatMap((id, index) =>
          found.has(id.toLowerCase()) ? [] : [{ path: `body.productIds[${index}]`, message: `${id} is not a product of the store` }],
        ),
      );
    }
    const already = await tx.manager.find(ProductTagAssignment, { where: { tagId: tag.id, productId: In(wanted) } });
    const skip = new Set(already.map((a) => a.productId.toLowerCase()));
    const adding = wanted.filter((id) => !skip.has(id)).sort();
    if (!adding.length) return;
    await tx.manager
      .createQueryBuilder()
      .insert()
      .into(ProductTagAssignment)
      .values(adding.map((productId) => ({ tagId: tag.id, productId })))
      .orIgnore()
      .execute();
    await touchProducts(tx, adding, 'product.tag', tag);
  });
}

export async function unassignProductTag(ctx: RequestContext, tagId: string, productId: string): Promise<void> {
  await tagWrite(ctx, async (tx) => {
    const tag = await loadTagForWrite(tx, tagId);
    const removed = await tx.manager.delete(ProductTagAssignment, { tagId: tag.id, productId });
    if (!removed.affected) throw productTagsError('assignment_not_found', 'The tag is not assigned to this product.');
    await touchProducts(tx, [productId], 'product.untag', tag);
  });
}
