/**
 * The fast path of an import for products that do not exist yet: the same checks and the same rows
 * as createProduct (api/products/products.service.ts), but written for a whole batch with multi-row
 * inserts — products, variants, images, categories, tags, one audit entry (product.create) and one
 * outbox row (queue index, topic product.created) per product, plus the vision row where the store
 * has visual search and the product an image. Checks that fail are reported per product; if the
 * database still refuses the batch (a race on a slug or SKU), the caller's savepoint is rolled back
 * and the products go through createProduct one by one.
 */
import {
  AuditEntry,
  Product,
  ProductCategory,
  ProductImage,
  ProductTagAssignment,
  ProductVariant,
  type Store,
} from '../../storage/entities';
import { uuidv7 } from '../../storage/ids';
import { bulkInsert } from '../../storage/bulk-insert';
import { enqueueOutbox, productBatchEvent, type OutboxEvent } from '../../storage/outbox';
import type { RequestContext } from '../../storage/request-context';
import { AppError, type FieldError } from '../../lib/errors';
import { productRows, type ProductInput } from '../products/products.service';
import {
  assertAttributes,
  checkAttributeValues,
  checkCurrency,
  compareMoney,
  loadAttributeDefinitions,
  moneyString,
} from '../../domain/product-rules';
import { productState, type ProductParts } from '../products/products.view';
import { emitProductEvents } from '../webhooks/product-events';
import { assertWithinPlan } from '../billing/limits';

export interface NewProduct {
  key: number;
  input: ProductInput;
}

/** Builds the parts of each new product; products whose checks fail are returned in `failed` with the service's field errors. */
export async function buildNewProducts(
  tx: RequestContext,
  store: Store,
  items: NewProduct[],
): Promise<{ built: Array<{ key: number; parts: ProductParts }>; failed: Array<{ key: number; errors: FieldError[]; message: string }> }> {
  const built: Array<{ key: number; parts: ProductParts }> = [];
  const failed: Array<{ key: number; errors: FieldError[]; message: string }> = [];
  // SKUs already used in the store, and SKUs repeated within the batch.
  const skus = items.flatMap((item) => (item.input.variants ?? []).map((v) => v.sku?.toLowerCase()).filter((s): s is string => !!s));
  const taken = new Set<string>(
    skus.length
      ? (
          (await tx.manager.query(
            'SELECT lower(sku) AS sku FROM product_variants WHERE tenant_id = $1 AND store_id = $2 AND lower(sku) = ANY($3::text[])',
            [tx.tenantId, store.id, skus],
          )) as Array<{ sku: string }>
        ).map((r) => r.sku)
      : [],
  );
  const claimed = new Set<string>();
  const now = new Date();
  // The attribute definitions of every category the batch names, read once; each product checks against those of its own categories.
  const batchCategories = [...new Set(items.flatMap((item) => (item.input.categoryIds ?? []).map((c) => c.toLowerCase())))];
  const definitions = await loadAttributeDefinitions(tx, store.id, batchCategories);
  for (const { key, input } of items) {
    try {
      const errors: FieldError[] = [];
      const price = moneyString(input.price);
      const compareAtPrice = input.compareAtPrice === undefined || input.compareAtPrice === null ? null : moneyString(input.compareAtPrice);
      if (compareAtPrice !== null && compareMoney(compareAtPrice, price) < 0)
        errors.push({ path: 'body.compareAtPrice', message: 'must be null or at least the price' });
      const currency = input.currency ?? store.currency;
      checkCurrency(currency);
      const status = input.status ?? 'DRAFT';
      const categoryIds = (input.categoryIds ?? []).map((c) => c.toLowerCase());
      const own = new Set(categoryIds);
      const attributes = checkAttributeValues(
        definitions.filter((d) => own.has(d.categoryId)),
        input.attributes ?? {},
      );
      assertAttributes(attributes, status === 'PUBLISHED');
      const seen = new Set<string>();
      (input.variants ?? []).forEach((variant, index) => {
        const own = variant.price === undefined || variant.price === null ? price : moneyString(variant.price);
        if (
          variant.compareAtPrice !== undefined &&
          variant.compareAtPrice !== null &&
          compareMoney(moneyString(variant.compareAtPrice), own) < 0
        ) {
          errors.push({ path: `body.variants[${index}].compareAtPrice`, message: 'must be null or at least the variant price' });
        }
        const sku = variant.sku?.toLowerCase();
        if (!sku) return;
        if (seen.has(sku)) errors.push({ path: `body.variants[${index}].sku`, message: 'sku repeats another variant of the product' });
        else if (taken.has(sku) || claimed.has(sku))
          errors.push({ path: `body.variants[${index}].sku`, message: 'sku is already used by another product of the store' });
        seen.add(sku);
      });
      if (errors.length) {
        failed.push({ key, errors, message: 'The product is invalid.' });
        continue;
      }
      for (const sku of seen) claimed.add(sku);
      const id = uuidv7();
      const { product, variants, images } = productRows(
        tx,
        store.id,
        input,
        { id, slug: input.slug!, status, price, compareAtPrice, currency, attributes: attributes.values },
        now,
      );
      built.push({ key, parts: { product, variants, images, categoryIds, tagIds: (input.tagIds ?? []).map((t) => t.toLowerCase()) } });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      failed.push({ key, errors: error.errors, message: error.message });
    }
  }
  return { built, failed };
}

/**
 * Writes built products with multi-row inserts (storage/bulk-insert.ts), their audit entries and
 * one outbox row for the whole batch (aggregate `product_batch`, the product ids in its payload):
 * the indexer reads and writes the batch's documents together instead of one delivery per product.
 */
export async function insertNewProducts(
  tx: RequestContext,
  store: Store,
  built: ProductParts[],
  options: { final?: boolean } = {},
): Promise<void> {
  if (!built.length) return;
  await assertWithinPlan(tx, 'products', built.length); // the plan's product limit (docs/billing.md, "Limits")
  const now = new Date();
  await bulkInsert(
    tx.manager,
    Product,
    built.map((p) => p.product),
  );
  await bulkInsert(
    tx.manager,
    ProductVariant,
    built.flatMap((p) => p.variants),
  );
  await bulkInsert(
    tx.manager,
    ProductImage,
    built.flatMap((p) => p.images),
  );
  await bulkInsert(
    tx.manager,
    ProductCategory,
    built.flatMap((p) => p.categoryIds.map((categoryId, position) => ({ productId: p.product.id, categoryId, position }))),
  );
  await bulkInsert(
    tx.manager,
    ProductTagAssignment,
    built.flatMap((p) => p.tagIds.map((tagId) => ({ tagId, productId: p.product.id, createdAt: now }))),
  );
  // The audit entries recordAudit would write, one per product (product states hold no secret fields and no dates).
  await bulkInsert(
    tx.manager,
    AuditEntry,
    built.map((p) => ({
      id: uuidv7(),
      tenantId: tx.tenantId ?? null,
      actorType: tx.actor.type,
      actorId: tx.actor.id ?? null,
      action: 'product.create',
      resourceType: 'product',
      resourceId: p.product.id,
      before: null,
      after: productState(p) as never,
      ip: tx.client?.ip ?? null,
      userAgent: tx.client?.userAgent?.slice(0, 500) ?? null,
      requestId: tx.requestId,
    })),
  );
  const events: OutboxEvent[] = [
    productBatchEvent(
      'product.created',
      built.map((p) => p.product.id),
      options,
    ),
  ];
  const [vision] = (await tx.manager.query('SELECT 1 FROM visual_search_settings WHERE store_id = $1 AND enabled', [
    store.id,
  ])) as unknown[];
  if (vision)
    for (const p of built)
      if (p.images.length)
        events.push({ queue: 'vision', topic: 'product.image_changed', aggregateType: 'product', aggregateId: p.product.id });
  await enqueueOutbox(tx, events);
  // Webhook subscribers hear of imported products as of any other new product (one check, one read per batch).
  await emitProductEvents(
    tx,
    'created',
    built.map((p) => p.product.id),
  );
}
