/**
 * Product relations: positioned links from a product to other products of its store, of three kinds
 * (RELATED, UPSELL, CROSS_SELL).
 *
 * Any member of the tenant and API keys of the store with the catalog scope edit them; another
 * tenant's product or relation answers 404 (as does, for an API key, one of another store). A
 * relation is part of the owning product's document, so every write records one audit entry
 * (`product_relation.create|update|delete|reorder`) and one outbox row for the owning product (queue
 * `index`, aggregate `product`, topic `product.updated`), in the transaction of the change; a write
 * that changes nothing writes neither. Writes lock the owning product row, so concurrent upserts and
 * reorders of one product run one after the other.
 */
import { In } from 'typeorm';
import { Product, ProductRelation, type ProductRelationKind, type ProductStatus } from '../../storage/entities/product.entity';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { enqueueOutbox, type OutboxEvent } from '../../storage/outbox';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { BadRequestError, NotFoundError } from '../../lib/errors';
import { requireStore } from '../../domain/store-access';
import { RELATION_KINDS, RELATION_REORDER_MAX, ReorderProductRelationsDto, UpsertProductRelationDto } from './product-relations.schemas';
import type { InputOf } from '../http/typed-schema';
import { productRelationsError } from './product-relations.errors';

export interface ProductRelationView {
  id: string;
  relatedProductId: string;
  kind: ProductRelationKind;
  position: number;
  relatedProduct: { id: string; title: string; slug: string; status: ProductStatus };
}

const productNotFound = (): NotFoundError => productRelationsError('product_not_found', 'The product does not exist.');
const relationNotFound = (): NotFoundError => productRelationsError('product_relation_not_found', 'The product relation does not exist.');

const productUpdated = (productId: string): OutboxEvent => ({
  queue: 'index',
  topic: 'product.updated',
  aggregateType: 'product',
  aggregateId: productId,
});

function view(relation: ProductRelation, related: Pick<Product, 'id' | 'title' | 'slug' | 'status'>): ProductRelationView {
  return {
    id: relation.id,
    relatedProductId: relation.relatedProductId,
    kind: relation.kind,
    position: relation.position,
    relatedProduct: { id: related.id, title: related.title, slug: related.slug, status: related.status },
  };
}

/** The product `id` of the caller's tenant (for an API key: of its store), whose store the caller may use; 404 otherwise. */
async function loadProduct(ctx: RequestContext, id: string, options: { forWrite?: boolean } = {}): Promise<Product> {
  const products = tenantRepository(ctx, Product, productNotFound);
  const product = options.forWrite
    ? await products.findOne({ where: { id }, lock: { mode: 'pessimistic_write' } })
    : await products.findOneBy({ id });
  if (!product || (ctx.actor.type === 'api_key' && ctx.actor.storeId !== product.storeId)) throw productNotFound();
  await requireStore(ctx, product.storeId, { forWrite: options.forWrite });
  return product;
}

const kindRank = (kind: ProductRelationKind): number => RELATION_KINDS.indexOf(kind);

async function relationsOf(ctx: RequestContext, productId: string, kind?: ProductRelationKind): Promise<ProductRelation[]> {
  const rows = await tenantRepository(ctx, ProductRelation).find({
    where: { productId, ...(kind ? { kind } : {}) },
    order: { position: 'ASC', id: 'ASC' },
  });
  return rows.sort((a, b) => kindRank(a.kind) - kindRank(b.kind) || a.position - b.position || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export async function listProductRelations(ctx: RequestContext, productId: string): Promise<{ items: ProductRelationView[] }> {
  const product = await loadProduct(ctx, productId);
  const relations = await relationsOf(ctx, product.id);
  const related = relations.length
    ? await tenantRepository(ctx, Product).find({
        where: { id: In(relations.map((r) => r.relatedProductId)) },
        select: { id: true, title: true, slug: true, status: true },
      })
    : [];
  const byId = new Map(related.map((p) => [p.id, p]));
  return {
    items: relations.flatMap((relation) =>
      byId.has(relation.relatedProductId) ? [view(relation, byId.get(relation.relatedProductId)!)] : [],
    ),
  };
}

export type UpsertProductRelationInput = InputOf<typeof UpsertProductRelationDto>;

export async function upsertProductRelation(
  ctx: RequestContext,
  productId: string,
  input: UpsertProductRelationInput,
): Promise<ProductRelationView> {
  return inTransaction(ctx, async (tx) => {
    const product = await loadProduct(tx, productId, { forWrite: true });
    const invalidRelated = (detail: string): BadRequestError =>
      productRelationsError('invalid_related_product', detail, [{ path: 'body.relatedProductId', message: detail }]);
    if (input.relatedProductId.toLowerCase() === product.id.toLowerCase()) throw invalidRelated('A product cannot be related to itself.');
    const related = await tenantRepository(tx, Product).findOne({
      where: { id: input.relatedProductId, storeId: product.storeId },
      select: { id: true, title: true, slug: true, status: true },
    });
    if (!related) throw invalidRelated('The related product must be a product of the same store.');

    const relations = tenantRepository(tx, ProductRelation);
    const existing = await relations.findOneBy({ productId: product.id, relatedProductId: related.id, kind: input.kind });
    if (existing) {
      if (input.position === undefined || input.position === existing.position) return view(existing, related);
      await relations.update({ id: existing.id }, { position: input.position });
      await recordAudit(tx, {
        action: 'product_relation.update',
        resourceType: 'product_relation',
        resourceId: existing.id,
        before: { productId: product.id, position: existing.position },
        after: { productId: product.id, position: input.position },
      });
      await enqueueOutbox(tx, productUpdated(product.id));
      return view({ ...existing, position: input.position }, related);
    }

    const sameKind = await relationsOf(tx, product.id, input.kind);
    if (sameKind.length >= RELATION_REORDER_MAX) {
      throw productRelationsError('too_many_relations', `A product has at most ${RELATION_REORDER_MAX} relations of one kind.`);
    }
    const position = input.position ?? (sameKind.length ? Math.max(...sameKind.map((r) => r.position)) + 1 : 0);
    const relation = relations.create({
      id: uuidv7(),
      storeId: product.storeId,
      productId: product.id,
      relatedProductId: related.id,
      kind: input.kind,
      position,
      createdAt: new Date(),
    });
    await tx.manager.insert(ProductRelation, relation);
    await recordAudit(tx, {
      action: 'product_relation.create',
      resourceType: 'product_relation',
      resourceId: relation.id,
      after: { productId: product.id, relatedProductId: related.id, kind: input.kind, position },
    });
    await enqueueOutbox(tx, productUpdated(product.id));
    return view(relation, related);
  });
}

export type ReorderProductRelationsInput = InputOf<typeof ReorderProductRelationsDto>;

export async function reorderProductRelations(ctx: RequestContext, productId: string, input: ReorderProductRelationsInput): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const product = await loadProduct(tx, productId, { forWrite: true });
    const current = await relationsOf(tx, product.id, input.kind);
    const wanted = input.ids.map((id) => id.toLowerCase());
    const have = new Set(current.map((r) => r.id.toLowerCase()));
    if (wanted.length !== current.length || wanted.some((id) => !have.has(id))) {
      throw productRelationsError(
        'reorder_mismatch',
        `ids must list exactly the product's ${current.length} relation(s) of kind ${input.kind}, each once.`,
        [{ path: 'body.ids', message: `expected the ${current.length} ${input.kind} relation id(s) of the product` }],
      );
    }
    const byId = new Map(current.map((r) => [r.id.toLowerCase(), r]));
    const changed = wanted
      .map((id, position) => ({ relation: byId.get(id)!, position }))
      .filter(({ relation, position }) => relation.position !== position);
    if (!changed.length) return;
    const relations = tenantRepository(tx, ProductRelation);
    for (const { relation, position } of changed) await relations.update({ id: relation.id }, { position });
    await recordAudit(tx, {
      action: 'product_relation.reorder',
      resourceType: 'product',
      resourceId: product.id,
      before: { kind: input.kind, ids: current.map((r) => r.id) },
      after: { kind: input.kind, ids: wanted.map((id) => byId.get(id)!.id) },
    });
    await enqueueOutbox(tx, productUpdated(product.id));
  });
}

export async function deleteProductRelation(ctx: RequestContext, id: string): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const found = await tenantRepository(tx, ProductRelation, relationNotFound).findOneBy({ id });
    if (!found || (tx.actor.type === 'api_key' && tx.actor.storeId !== found.storeId)) throw relationNotFound();
    // Lock the owning product like the other writes, then re-read the relation under that lock.
    const product = await loadProduct(tx, found.productId, { forWrite: true });
    const relation = await tenantRepository(tx, ProductRelation).findOneBy({ id: found.id });
    if (!relation) throw relationNotFound();
    await tenantRepository(tx, ProductRelation).delete({ id: relation.id });
    await recordAudit(tx, {
      action: 'product_relation.delete',
      resourceType: 'product_relation',
      resourceId: relation.id,
      before: { productId: product.id, relatedProductId: relation.relatedProductId, kind: relation.kind, position: relation.position },
    });
    await enqueueOutbox(tx, productUpdated(product.id));
  });
}
