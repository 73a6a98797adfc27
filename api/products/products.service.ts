/**
 * Product writes: create, replace, delete, publish, archive, duplicate.
 *
 * Any member of the tenant and API keys of the store with catalog:write edit products; another
 * tenant's store or product answers 404 (as does, for an API key, a product of another store). Every
 * change writes, in its transaction, one audit entry (`product.create|update|delete|publish|archive|
 * duplicate`) and one outbox row (queue `index`, aggregate `product`, topic `product.created|updated|
 * deleted|published|archived`); a request that changes nothing writes neither.
 */
import { Product, ProductCategory, ProductImage, ProductTagAssignment, ProductVariant, type Store } from '../../storage/entities';
import type { ProductStatus } from '../../storage/entities/product.entity';
import { recordAudit } from '../../storage/audit';
import { isUniqueViolation } from '../../storage/db-errors';
import { uuidv7 } from '../../storage/ids';
import { enqueueOutbox } from '../../storage/outbox';
import { visualSearchEnabledForProduct } from '../../storage/vectors';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { ConflictError, type FieldError } from '../../lib/errors';
import { requireStore } from '../../domain/store-access';
import { PRODUCT_SLUG_MAX } from '../../domain/product-rules';
import { emitProductEvent } from '../webhooks/product-events';
import {
  assertAttributes,
  checkAttributes,
  checkBrand,
  checkCategories,
  checkCurrency,
  checkTags,
  compareMoney,
  freeProductSlug,
  moneyString,
  productSlugify,
  productSlugInUse,
  sanitizeDescription,
  sanitizeTranslations,
  type AttributeValues,
} from '../../domain/product-rules';
import { loadParts, loadProduct, productState, productView, stableJson, type ProductParts, type ProductView } from './products.view';
import { productsError } from './products.errors';
import type { CreateProductDto, ProductVariantInput, UpdateProductDto } from './products.schemas';
import type { InputOf } from '../http/typed-schema';
import { assertWithinPlan } from '../billing/limits';

export type VariantInput = InputOf<typeof ProductVariantInput>;

/** The replace body (also what an import row becomes); create takes the same with its store. */
export type ProductInput = InputOf<typeof UpdateProductDto>;

export type CreateProductInput = InputOf<typeof CreateProductDto>;

export type ProductTopic = 'created' | 'updated' | 'deleted' | 'published' | 'archived';
type Topic = ProductTopic;

const slugTaken = (path = 'body.slug'): ConflictError =>
  productsError('slug_taken', 'Another product of the store has this slug.', [{ path, message: 'slug is already taken in the store' }]);
const skuTaken = (errors: FieldError[] = []): ConflictError => productsError('sku_taken', 'A SKU is already used in the store.', errors);

/** One audit entry and one outbox row (queue index) for a changed product; also used by the bulk edits. */
export async function audited(
  tx: RequestContext,
  action: string,
  topic: Topic,
  id: string,
  before: object | null,
  after: object | null,
): Promise<void> {
  await recordAudit(tx, { action: `product.${action}`, resourceType: 'product', resourceId: id, before, after });
  await enqueueOutbox(tx, { queue: 'index', topic: `product.${topic}`, aggregateType: 'product', aggregateId: id });
  // Webhooks: product.created|updated|published|archived (api/webhooks/product-events.ts).
  await emitProductEvent(tx, topic, id);
  // Visual search: a new main image is embedded again by the vision worker (a deleted product's vector goes with it).
  if (after !== null && mainImage(before) !== mainImage(after) && (await visualSearchEnabledForProduct(tx.manager, id)))
    await enqueueOutbox(tx, { queue: 'vision', topic: 'product.image_changed', aggregateType: 'product', aggregateId: id });
}

const mainImage = (state: object | null): string | undefined => (state as { images?: Array<{ url?: string }> } | null)?.images?.[0]?.url;

/**
 * Runs a product write; a race lost at a unique index answers 409 like the check before it. When the
 * slug was chosen by the service (derived or `-copy`), a lost slug race is retried with the next free one.
 */
async function productWrite<T>(
  ctx: RequestContext,
  work: (tx: RequestContext) => Promise<T>,
  options: { derivedSlug?: boolean } = {},
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await inTransaction(ctx, work);
    } catch (error) {
      if (isUniqueViolation(error, 'products_store_slug')) {
        if (options.derivedSlug && attempt < 5) continue;
        throw slugTaken();
      }
      if (isUniqueViolation(error, 'product_variants_store_sku')) throw skuTaken();
      throw error;
    }
  }
}

/** SKUs must be unique in the request and among the other products of the store (case-insensitively). */
async function checkSkus(tx: RequestContext, storeId: string, productId: string | undefined, variants: VariantInput[]): Promise<void> {
  const errors: FieldError[] = [];
  const seen = new Map<string, number>();
  variants.forEach((variant, index) => {
    if (!variant.sku) return;
    const key = variant.sku.toLowerCase();
    if (seen.has(key)) errors.push({ path: `body.variants[${index}].sku`, message: `sku repeats variants[${seen.get(key)}]` });
    else seen.set(key, index);
  });
  if (seen.size > 0) {
    const rows: Array<{ sku: string }> = await tx.manager.query(
      'SELECT lower(sku) AS sku FROM product_variants WHERE tenant_id = $1 AND store_id = $2 AND lower(sku) = ANY($3::text[]) AND ($4::uuid IS NULL OR product_id <> $4::uuid)',
      [tx.tenantId, storeId, [...seen.keys()], productId ?? null],
    );
    for (const row of rows)
      errors.push({ path: `body.variants[${seen.get(row.sku)}].sku`, message: 'sku is already used by another product of the store' });
  }
  if (errors.length) throw skuTaken(errors);
}

interface Desired {
  product: Product;
  parts: ProductParts;
}

/** Validates `input` against the store and builds the product as it will be (nothing written yet). */
async function desiredProduct(tx: RequestContext, store: Store, input: ProductInput, current?: ProductParts): Promise<Desired> {
  const existing = current?.product;
  const id = existing?.id ?? uuidv7();
  if (input.slug !== undefined && (await productSlugInUse(tx, store.id, input.slug, existing?.id))) throw slugTaken();
  const slug = input.slug ?? existing?.slug ?? (await freeProductSlug(tx, store.id, productSlugify(input.title)));
  const status: ProductStatus = input.status ?? existing?.status ?? 'DRAFT';
  const price = moneyString(input.price);
  const compareAtPrice = input.compareAtPrice === undefined || input.compareAtPrice === null ? null : moneyString(input.compareAtPrice);
  if (compareAtPrice !== null && compareMoney(compareAtPrice, price) < 0) {
    throw productsError('compare_at_below_price', 'The compare-at price is below the price.', [
      { path: 'body.compareAtPrice', message: 'must be null or at least the price' },
    ]);
  }
  const currency = input.currency ?? store.currency;
  checkCurrency(currency);
  await checkBrand(tx, store.id, input.brandId);
  const categoryIds = input.categoryIds ?? [];
  const tagIds = input.tagIds ?? [];
  await checkCategories(tx, store.id, categoryIds);
  await checkTags(tx, store.id, tagIds);
  const attributes = await checkAttributes(tx, store.id, categoryIds, input.attributes ?? {});
  assertAttributes(attributes, status === 'PUBLISHED');

  const variantInputs = input.variants ?? [];
  const knownVariantIds = new Set((current?.variants ?? []).map((v) => v.id.toLowerCase()));
  const usedIds = new Set<string>();
  const variantErrors: FieldError[] = [];
  variantInputs.forEach((variant, index) => {
    if (variant.id !== undefined) {
      const key = variant.id.toLowerCase();
      if (!knownVariantIds.has(key) || usedIds.has(key))
        variantErrors.push({ path: `body.variants[${index}].id`, message: 'not a variant of this product (or given twice)' });
      usedIds.add(key);
    }
    const own = variant.price === undefined || variant.price === null ? price : moneyString(variant.price);
    if (
      variant.compareAtPrice !== undefined &&
      variant.compareAtPrice !== null &&
      compareMoney(moneyString(variant.compareAtPrice), own) < 0
    ) {
      variantErrors.push({ path: `body.variants[${index}].compareAtPrice`, message: 'must be null or at least the variant price' });
    }
  });
  if (variantErrors.some((e) => e.path.endsWith('.id')))
    throw productsError(
      'invalid_variant',
      'Some variant ids are not variants of this product.',
      variantErrors.filter((e) => e.path.endsWith('.id')),
    );
  if (variantErrors.length) throw productsError('compare_at_below_price', 'A variant compare-at price is below its price.', variantErrors);
  await checkSkus(tx, store.id, existing?.id, variantInputs);

  const now = new Date();
  const { product, variants, images } = productRows(
    tx,
    store.id,
    input,
    { id, slug, status, price, compareAtPrice, currency, attributes: attributes.values },
    now,
    existing,
  );
  return {
    product,
    parts: { product, variants, images, categoryIds: categoryIds.map((c) => c.toLowerCase()), tagIds: tagIds.map((t) => t.toLowerCase()) },
  };
}

/** What a product's rows are made of besides its input, once the input is checked against the store. */
export interface CheckedProduct {
  id: string;
  slug: string;
  status: ProductStatus;
  price: string;
  compareAtPrice: string | null;
  currency: string;
  attributes: AttributeValues;
}

/**
 * The product, variant and image rows as they will be written: a new product (no `existing`) starts
 * with no rating, reviews, sales or views; a replaced one keeps those and its creation time. Variants
 * and images come in input order; a variant keeps the id it names (an existing variant of the product),
 * else gets a new one. Shared with the import's batch create so both write the same rows.
 */
export function productRows(
  tx: RequestContext,
  storeId: string,
  input: ProductInput,
  checked: CheckedProduct,
  now: Date,
  existing?: Product,
): Pick<ProductParts, 'product' | 'variants' | 'images'> {
  const { id, status } = checked;
  const product = tenantRepository(tx, Product).create({
    ...(existing ?? {}),
    id,
    storeId,
    title: input.title,
    slug: checked.slug,
    descriptionHtml: sanitizeDescription(input.descriptionHtml),
    type: input.type,
    status,
    price: checked.price,
    compareAtPrice: checked.compareAtPrice,
    currency: checked.currency,
    brandId: input.brandId ?? null,
    vendorId: input.vendorId ?? null,
    vendorName: input.vendorName ?? null,
    attributes: checked.attributes,
    translations: sanitizeTranslations(input.translations),
    rating: existing?.rating ?? '0',
    reviewCount: existing?.reviewCount ?? 0,
    salesCount: existing?.salesCount ?? 0,
    viewCount: existing?.viewCount ?? '0',
    publishedAt: status === 'PUBLISHED' && existing?.status !== 'PUBLISHED' ? now : (existing?.publishedAt ?? null),
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  });
  const variants = (input.variants ?? []).map((variant, position) =>
    tenantRepository(tx, ProductVariant).create({
      id: variant.id?.toLowerCase() ?? uuidv7(),
      storeId,
      productId: id,
      sku: variant.sku ?? null,
      barcode: variant.barcode ?? null,
      options: variant.options ?? {},
      price: variant.price === undefined || variant.price === null ? null : moneyString(variant.price),
      compareAtPrice: variant.compareAtPrice === undefined || variant.compareAtPrice === null ? null : moneyString(variant.compareAtPrice),
      stock: variant.stock,
      position,
    }),
  );
  const images = (input.images ?? []).map((image, position) =>
    Object.assign(new ProductImage(), { id: uuidv7(), productId: id, url: image.url, alt: image.alt || null, position }),
  );
  return { product, variants, images };
}

/** Writes the product row (insert or update) and replaces its variants, images, categories and tags. */
async function persist(tx: RequestContext, parts: ProductParts, isNew: boolean): Promise<void> {
  const { product } = parts;
  if (isNew) {
    await tx.manager.insert(Product, product);
  } else {
    const {
      id: _id,
      tenantId: _t,
      storeId: _s,
      createdAt: _c,
      rating: _r,
      reviewCount: _rc,
      salesCount: _sc,
      viewCount: _vc,
      ...fields
    } = product;
    await tenantRepository(tx, Product).update({ id: product.id }, fields as never);
    await tx.manager.delete(ProductVariant, { productId: product.id });
    await tx.manager.delete(ProductImage, { productId: product.id });
    await tx.manager.delete(ProductCategory, { productId: product.id });
    await tx.manager.delete(ProductTagAssignment, { productId: product.id });
  }
  if (parts.variants.length) await tx.manager.insert(ProductVariant, parts.variants);
  if (parts.images.length) await tx.manager.insert(ProductImage, parts.images);
  if (parts.categoryIds.length)
    await tx.manager.insert(
      ProductCategory,
      parts.categoryIds.map((categoryId, position) => ({ productId: product.id, categoryId, position })),
    );
  const now = new Date();
  if (parts.tagIds.length)
    await tx.manager.insert(
      ProductTagAssignment,
      parts.tagIds.map((tagId) => ({ tagId, productId: product.id, createdAt: now })),
    );
}

export async function createProduct(ctx: RequestContext, input: CreateProductInput): Promise<ProductView> {
  return productWrite(
    ctx,
    async (tx) => {
      const store = await requireStore(tx, input.storeId, { forWrite: true });
      await assertWithinPlan(tx, 'products'); // the plan's product limit (docs/billing.md, "Limits")
      const { storeId: _storeId, ...fields } = input;
      const desired = await desiredProduct(tx, store, fields);
      await persist(tx, desired.parts, true);
      await audited(tx, 'create', 'created', desired.product.id, null, productState(desired.parts));
      return productView(await loadParts(tx, desired.product));
    },
    { derivedSlug: input.slug === undefined },
  );
}

export async function getProduct(ctx: RequestContext, id: string): Promise<ProductView> {
  return productView(await loadParts(ctx, await loadProduct(ctx, id)));
}

/** Replaces the product; a replace identical to the product changes nothing and writes nothing. */
export async function replaceProduct(ctx: RequestContext, id: string, input: ProductInput): Promise<ProductView> {
  return productWrite(ctx, async (tx) => {
    const product = await loadProduct(tx, id, { forWrite: true });
    const store = await requireStore(tx, product.storeId, { forWrite: true });
    const current = await loadParts(tx, product);
    const desired = await desiredProduct(tx, store, input, current);
    const before = productState(current);
    const after = productState(desired.parts);
    if (stableJson(before) === stableJson(after)) return productView(current);
    await persist(tx, desired.parts, false);
    await audited(tx, 'update', 'updated', product.id, before, after);
    return productView(await loadParts(tx, desired.product));
  });
}

export async function deleteProduct(ctx: RequestContext, id: string): Promise<void> {
  await productWrite(ctx, async (tx) => {
    const product = await loadProduct(tx, id, { forWrite: true });
    const before = productState(await loadParts(tx, product));
    await tenantRepository(tx, Product).delete({ id: product.id });
    await audited(tx, 'delete', 'deleted', product.id, before, null);
  });
}

/** Publishes (201): status PUBLISHED and publishedAt now, once the required attributes of its categories are set. Publishing a published product changes nothing. */
export async function publishProduct(ctx: RequestContext, id: string): Promise<ProductView> {
  return productWrite(ctx, async (tx) => {
    const product = await loadProduct(tx, id, { forWrite: true });
    const parts = await loadParts(tx, product);
    if (product.status === 'PUBLISHED') return productView(parts);
    const check = await checkAttributes(tx, product.storeId, parts.categoryIds, product.attributes, 'attributes');
    assertAttributes({ ...check, unknown: [], invalid: [] }, true, 'attributes');
    const now = new Date();
    await tenantRepository(tx, Product).update({ id: product.id }, { status: 'PUBLISHED', publishedAt: now, updatedAt: now });
    await audited(tx, 'publish', 'published', product.id, { status: product.status }, { status: 'PUBLISHED', publishedAt: now });
    return productView({ ...parts, product: { ...product, status: 'PUBLISHED', publishedAt: now, updatedAt: now } });
  });
}

/** Archives (201); archiving an archived product changes nothing. */
export async function archiveProduct(ctx: RequestContext, id: string): Promise<ProductView> {
  return productWrite(ctx, async (tx) => {
    const product = await loadProduct(tx, id, { forWrite: true });
    const parts = await loadParts(tx, product);
    if (product.status === 'ARCHIVED') return productView(parts);
    const now = new Date();
    await tenantRepository(tx, Product).update({ id: product.id }, { status: 'ARCHIVED', updatedAt: now });
    await audited(tx, 'archive', 'archived', product.id, { status: product.status }, { status: 'ARCHIVED' });
    return productView({ ...parts, product: { ...product, status: 'ARCHIVED', updatedAt: now } });
  });
}

/** Copies a product as a new draft: slug `<slug>-copy` (then -copy-2, …), SKUs cleared, counters zero. */
export async function duplicateProduct(ctx: RequestContext, id: string): Promise<ProductView> {
  return productWrite(
    ctx,
    async (tx) => {
      const source = await loadProduct(tx, id, { forWrite: true });
      const parts = await loadParts(tx, source);
      const copyId = uuidv7();
      const now = new Date();
      const slug = await freeProductSlug(tx, source.storeId, `${source.slug.slice(0, PRODUCT_SLUG_MAX - 12).replace(/-+$/, '')}-copy`);
      const product = tenantRepository(tx, Product).create({
        ...source,
        id: copyId,
        slug,
        status: 'DRAFT',
        rating: '0',
        reviewCount: 0,
        salesCount: 0,
        viewCount: '0',
        publishedAt: null,
        createdAt: now,
        updatedAt: now,
      });
      const copy: ProductParts = {
        product,
        variants: parts.variants.map((v) => ({ ...v, id: uuidv7(), productId: copyId, sku: null })),
        images: parts.images.map((i) => ({ ...i, id: uuidv7(), productId: copyId })),
        categoryIds: parts.categoryIds,
        tagIds: parts.tagIds,
      };
      await persist(tx, copy, true);
      await recordAudit(tx, {
        action: 'product.duplicate',
        resourceType: 'product',
        resourceId: copyId,
        before: null,
        after: { sourceId: source.id, ...productState(copy) },
      });
      await enqueueOutbox(tx, { queue: 'index', topic: 'product.created', aggregateType: 'product', aggregateId: copyId });
      await emitProductEvent(tx, 'created', copyId);
      if (copy.images.length && (await visualSearchEnabledForProduct(tx.manager, copyId)))
        await enqueueOutbox(tx, { queue: 'vision', topic: 'product.image_changed', aggregateType: 'product', aggregateId: copyId });
      return productView(await loadParts(tx, product));
    },
    { derivedSlug: true },
  );
}
