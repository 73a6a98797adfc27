/**
 * What a bulk edit does to one product, and how a revert undoes it. Each operation reuses the product
 * rules of api/products (the publish rule, attribute checks, exact money) and writes, per changed
 * product, the same audit entry and index outbox row as the single-product operations (`audited`).
 * A business rule a product breaks throws an AppError: that product fails, the others go on.
 */
import { In } from 'typeorm';
import { Product, ProductCategory, ProductTagAssignment, ProductVariant } from '../../storage/entities';
import type { BulkEditOperation } from '../../storage/entities/product-bulk-edit.entity';
import type { ProductStatus } from '../../storage/entities/product.entity';
import type { RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { AppError, ConflictError } from '../../lib/errors';
import { divideHalfUp, formatUnits, minorUnit, toUnits } from '../../domain/money';
import { assertAttributes, canonicalMoney, checkAttributes } from '../../domain/product-rules';
import { MONEY_MAX, PRODUCT_MAX_TAGS } from '../products/products.schemas';
import { audited, type ProductTopic } from '../products/products.service';
import { loadParts, productState } from '../products/products.view';
import { productBulkEditsError } from './product-bulk-edits.errors';

export type PriceMode = 'SET' | 'ADD' | 'PERCENT';

/** What was asked besides the products (stored as the edit's params). */
export interface BulkParams {
  status?: ProductStatus;
  categoryId?: string | null;
  tagIds?: string[];
  mode?: PriceMode;
  value?: number;
  revertOf?: string;
}

export type ItemOutcome = { status: 'OK'; previous: Record<string, unknown> } | { status: 'UNCHANGED' };

/** The original item a revert item undoes. */
export interface RevertSource {
  operation: BulkEditOperation;
  previous: Record<string, unknown>;
  /** The product's updated_at is still the one the edit left (always false for a deleted product). */
  unchangedSince: boolean;
}

export const productGone = (): AppError => productBulkEditsError('product_not_found', 'The product no longer exists.');
const changedSince = (): ConflictError =>
  productBulkEditsError('changed_since_edit', 'The product changed after the bulk edit; it was not reverted.');

const iso = (value: Date | null): string | null => (value ? value.toISOString() : null);
const lower = (ids: string[]): string[] => ids.map((id) => id.toLowerCase());

// ---------------------------------------------------------------------------------------------- status

/** publish, archive and set-status: the status changes under the rules of the single-product operations. */
export async function applyStatus(tx: RequestContext, product: Product, status: ProductStatus): Promise<ItemOutcome> {
  if (product.status === status) return { status: 'UNCHANGED' };
  if (status === 'PUBLISHED') {
    const parts = await loadParts(tx, product);
    const check = await checkAttributes(tx, product.storeId, parts.categoryIds, product.attributes, 'attributes');
    assertAttributes({ ...check, unknown: [], invalid: [] }, true, 'attributes');
  }
  const now = new Date();
  const publishedAt = status === 'PUBLISHED' ? now : product.publishedAt;
  await tenantRepository(tx, Product).update({ id: product.id }, { status, publishedAt, updatedAt: now });
  const [action, topic]: [string, ProductTopic] =
    status === 'PUBLISHED' ? ['publish', 'published'] : status === 'ARCHIVED' ? ['archive', 'archived'] : ['update', 'updated'];
  await audited(tx, action, topic, product.id, { status: product.status }, { status, publishedAt });
  return { status: 'OK', previous: { status: product.status, publishedAt: iso(product.publishedAt) } };
}

async function revertStatus(tx: RequestContext, product: Product, previous: Record<string, unknown>): Promise<ItemOutcome> {
  const status = previous.status as ProductStatus;
  const publishedAt = previous.publishedAt ? new Date(previous.publishedAt as string) : null;
  await tenantRepository(tx, Product).update({ id: product.id }, { status, publishedAt, updatedAt: new Date() });
  const topic: ProductTopic = status === 'PUBLISHED' ? 'published' : status === 'ARCHIVED' ? 'archived' : 'updated';
  await audited(tx, 'update', topic, product.id, { status: product.status, publishedAt: product.publishedAt }, { status, publishedAt });
  return { status: 'OK', previous: { status: product.status, publishedAt: iso(product.publishedAt) } };
}

// -------------------------------------------------------------------------------------------- category

async function writeCategories(tx: RequestContext, productId: string, categoryIds: string[]): Promise<void> {
  await tx.manager.delete(ProductCategory, { productId });
  if (categoryIds.length)
    await tx.manager.insert(
      ProductCategory,
      categoryIds.map((categoryId, position) => ({ productId, categoryId, position })),
    );
}

const touch = (tx: RequestContext, productId: string): Promise<number> =>
  tenantRepository(tx, Product).update({ id: productId }, { updatedAt: new Date() });

/** set-category: the category becomes the product's only one (none for null); attributes are checked against it. */
export async function applyCategory(tx: RequestContext, product: Product, categoryId: string | null): Promise<ItemOutcome> {
  const parts = await loadParts(tx, product);
  const next = categoryId ? [categoryId.toLowerCase()] : [];
  if (lower(parts.categoryIds).join() === next.join()) return { status: 'UNCHANGED' };
  const check = await checkAttributes(tx, product.storeId, next, product.attributes, 'attributes');
  assertAttributes(check, product.status === 'PUBLISHED', 'attributes');
  await writeCategories(tx, product.id, next);
  await touch(tx, product.id);
  await audited(tx, 'update', 'updated', product.id, { categoryIds: parts.categoryIds }, { categoryIds: next });
  return { status: 'OK', previous: { categoryIds: parts.categoryIds } };
}

async function revertCategories(tx: RequestContext, product: Product, previous: Record<string, unknown>): Promise<ItemOutcome> {
  const parts = await loadParts(tx, product);
  const wanted = (previous.categoryIds as string[]) ?? [];
  // A category deleted since the edit cannot come back; the others do, in their order.
  const rows: Array<{ id: string }> = wanted.length
    ? await tx.manager.query('SELECT id FROM categories WHERE tenant_id = $1 AND id = ANY($2::uuid[])', [tx.tenantId, wanted])
    : [];
  const existing = new Set(rows.map((r) => r.id.toLowerCase()));
  const restored = lower(wanted).filter((id) => existing.has(id));
  await writeCategories(tx, product.id, restored);
  await touch(tx, product.id);
  await audited(tx, 'update', 'updated', product.id, { categoryIds: parts.categoryIds }, { categoryIds: restored });
  return { status: 'OK', previous: { categoryIds: parts.categoryIds } };
}

// ------------------------------------------------------------------------------------------------ tags

async function writeTags(tx: RequestContext, productId: string, tagIds: string[]): Promise<void> {
  await tx.manager.delete(ProductTagAssignment, { productId });
  const now = new Date();
  if (tagIds.length)
    await tx.manager.insert(
      ProductTagAssignment,
      tagIds.map((tagId) => ({ tagId, productId, createdAt: now })),
    );
}

/** add-tags and remove-tags. A product would hold more than PRODUCT_MAX_TAGS tags: too_many_tags. */
export async function applyTags(tx: RequestContext, product: Product, tagIds: string[], add: boolean): Promise<ItemOutcome> {
  const parts = await loadParts(tx, product);
  const current = lower(parts.tagIds);
  const asked = lower(tagIds);
  let next: string[];
  if (add) {
    const missing = asked.filter((id) => !current.includes(id));
    if (missing.length === 0) return { status: 'UNCHANGED' };
    next = [...current, ...missing];
    if (next.length > PRODUCT_MAX_TAGS)
      throw productBulkEditsError('too_many_tags', `A product holds at most ${PRODUCT_MAX_TAGS} tags; this one would have ${next.length}.`);
    const now = new Date();
    await tx.manager.insert(
      ProductTagAssignment,
      missing.map((tagId) => ({ tagId, productId: product.id, createdAt: now })),
    );
  } else {
    const present = asked.filter((id) => current.includes(id));
    if (present.length === 0) return { status: 'UNCHANGED' };
    next = current.filter((id) => !present.includes(id));
    await tx.manager.delete(ProductTagAssignment, { productId: product.id, tagId: In(present) });
  }
  await touch(tx, product.id);
  await audited(tx, 'update', 'updated', product.id, { tagIds: [...current].sort() }, { tagIds: [...next].sort() });
  return { status: 'OK', previous: { tagIds: parts.tagIds } };
}

async function revertTags(tx: RequestContext, product: Product, previous: Record<string, unknown>): Promise<ItemOutcome> {
  const parts = await loadParts(tx, product);
  const wanted = (previous.tagIds as string[]) ?? [];
  const rows: Array<{ id: string }> = wanted.length
    ? await tx.manager.query('SELECT id FROM product_tags WHERE tenant_id = $1 AND id = ANY($2::uuid[])', [tx.tenantId, wanted])
    : [];
  const existing = new Set(rows.map((r) => r.id.toLowerCase()));
  const restored = lower(wanted).filter((id) => existing.has(id));
  await writeTags(tx, product.id, restored);
  await touch(tx, product.id);
  await audited(tx, 'update', 'updated', product.id, { tagIds: lower(parts.tagIds).sort() }, { tagIds: [...restored].sort() });
  return { status: 'OK', previous: { tagIds: parts.tagIds } };
}

// ----------------------------------------------------------------------------------------------- price

const SCALE_UNITS = 10_000n; // numeric(14, 4)
const PERCENT_UNITS = 100n * SCALE_UNITS; // 100 % at scale 4

/**
 * The new amount (a decimal string, scale 4) for `current` under the change, rounded half away from
 * zero to `decimals`; throws negative_price when the exact result is below 0 and price_too_high above
 * MONEY_MAX. All in BigInt units: no floating point.
 */
export function changedPrice(current: string, mode: PriceMode, value: number, decimals: number, path = 'price'): string {
  const units = toUnits(current);
  const change = toUnits(value);
  const step = 10n ** BigInt(4 - Math.min(decimals, 4));
  let rounded: bigint;
  let negative: boolean;
  if (mode === 'PERCENT') {
    // units × (100 % + change) / 100 %, rounded once, straight to the minor unit.
    const numerator = units * (PERCENT_UNITS + change);
    negative = numerator < 0n;
    rounded = divideHalfUp(numerator, PERCENT_UNITS * step) * step;
  } else {
    const exact = mode === 'SET' ? change : units + change;
    negative = exact < 0n;
    rounded = divideHalfUp(exact, step) * step;
  }
  if (negative)
    throw productBulkEditsError(
      'negative_price',
      `The new ${path} would be below 0 (${formatUnits(units, 4)} changed by ${mode} ${value}); prices are never negative.`,
    );
  if (rounded > BigInt(MONEY_MAX) * SCALE_UNITS)
    throw productBulkEditsError('price_too_high', `The new ${path} would be above ${MONEY_MAX}.`);
  return formatUnits(rounded, 4);
}

const below = (a: string, b: string): boolean => toUnits(a) < toUnits(b);

/** update-price: the product price and every variant's own price change alike (compare-at prices stay). */
export async function applyPrice(tx: RequestContext, product: Product, mode: PriceMode, value: number): Promise<ItemOutcome> {
  const decimals = minorUnit(product.currency);
  const price = changedPrice(product.price, mode, value, decimals);
  const variants = await tenantRepository(tx, ProductVariant).find({
    where: { productId: product.id },
    order: { position: 'ASC', id: 'ASC' },
  });
  const variantPrices = variants.map((v) => ({
    variant: v,
    price: v.price === null ? null : changedPrice(v.price, mode, value, decimals, `price of variant ${v.id}`),
  }));
  if (product.compareAtPrice !== null && below(product.compareAtPrice, price)) {
    throw productBulkEditsError(
      'compare_at_below_price',
      `The new price ${price} would be above the compare-at price ${canonicalMoney(product.compareAtPrice)}.`,
    );
  }
  for (const { variant, price: own } of variantPrices) {
    if (variant.compareAtPrice !== null && below(variant.compareAtPrice, own ?? price)) {
      throw productBulkEditsError('compare_at_below_price', `The new price of variant ${variant.id} would be above its compare-at price.`);
    }
  }
  const changedVariants = variantPrices.filter(
    ({ variant, price: own }) => own !== null && canonicalMoney(own) !== canonicalMoney(variant.price),
  );
  if (canonicalMoney(price) === canonicalMoney(product.price) && changedVariants.length === 0) return { status: 'UNCHANGED' };
  await tenantRepository(tx, Product).update({ id: product.id }, { price, updatedAt: new Date() });
  for (const { variant, price: own } of changedVariants)
    await tenantRepository(tx, ProductVariant).update({ id: variant.id }, { price: own });
  const previous = {
    price: canonicalMoney(product.price),
    variants: changedVariants.map(({ variant }) => ({ id: variant.id, price: canonicalMoney(variant.price) })),
  };
  await audited(tx, 'update', 'updated', product.id, previous, {
    price: canonicalMoney(price),
    variants: changedVariants.map(({ variant, price: own }) => ({ id: variant.id, price: canonicalMoney(own) })),
  });
  return { status: 'OK', previous };
}

async function revertPrice(tx: RequestContext, product: Product, previous: Record<string, unknown>): Promise<ItemOutcome> {
  const oldVariants = (previous.variants as Array<{ id: string; price: string }>) ?? [];
  const variants = await tenantRepository(tx, ProductVariant).find({ where: { productId: product.id } });
  const byId = new Map(variants.map((v) => [v.id.toLowerCase(), v]));
  const restored = oldVariants.filter((v) => byId.has(v.id.toLowerCase()));
  const now = {
    price: canonicalMoney(product.price),
    variants: restored.map((v) => ({ id: v.id, price: canonicalMoney(byId.get(v.id.toLowerCase())!.price) })),
  };
  await tenantRepository(tx, Product).update({ id: product.id }, { price: previous.price as string, updatedAt: new Date() });
  for (const v of restored) await tenantRepository(tx, ProductVariant).update({ id: v.id }, { price: v.price });
  await audited(tx, 'update', 'updated', product.id, now, { price: previous.price, variants: restored });
  return { status: 'OK', previous: now };
}

// ----------------------------------------------------------------------------------------- hard delete

/**
 * The rows that go with a product when it is deleted, and how each comes back: a row returns only
 * while what it points to (besides the product) still exists, and never twice.
 */
const LINK_TABLES: Array<{ table: string; where: string; restoreIf: string }> = [
  { table: 'product_variants', where: 't.product_id = $1', restoreIf: 'true' },
  { table: 'product_images', where: 't.product_id = $1', restoreIf: 'true' },
  { table: 'product_categories', where: 't.product_id = $1', restoreIf: 'EXISTS (SELECT 1 FROM categories c WHERE c.id = r.category_id)' },
  {
    table: 'product_tag_assignments',
    where: 't.product_id = $1',
    restoreIf: 'EXISTS (SELECT 1 FROM product_tags g WHERE g.id = r.tag_id)',
  },
  {
    table: 'product_relations',
    where: '(t.product_id = $1 OR t.related_product_id = $1)',
    restoreIf:
      'EXISTS (SELECT 1 FROM products a WHERE a.id = r.product_id) AND EXISTS (SELECT 1 FROM products b WHERE b.id = r.related_product_id)',
  },
  { table: 'collection_items', where: 't.product_id = $1', restoreIf: 'EXISTS (SELECT 1 FROM collections c WHERE c.id = r.collection_id)' },
  {
    table: 'bundle_items',
    where: 't.product_id = $1',
    restoreIf:
      'EXISTS (SELECT 1 FROM bundles b WHERE b.id = r.bundle_id) AND (r.variant_id IS NULL OR EXISTS (SELECT 1 FROM product_variants v WHERE v.id = r.variant_id))',
  },
  { table: 'sponsored_listings', where: 't.product_id = $1', restoreIf: 'true' },
];

/** What a delete keeps of a product for its revert (the item's `previous`): rows as JSON of each column. */
type ProductSnapshot = {
  product: Record<string, unknown>;
  /** The linked rows by table (LINK_TABLES). */
  links: Record<string, unknown[]>;
  /** The bundles the product is sold as. */
  bundleIds: string[];
};

/** The whole product as rows (JSON of each column), with every linked row and the bundles it is sold as. */
async function snapshot(tx: RequestContext, product: Product): Promise<ProductSnapshot> {
  const [row]: Array<{ row: Record<string, unknown> }> = await tx.manager.query(
    'SELECT to_jsonb(p) AS row FROM products p WHERE p.id = $1 AND p.tenant_id = $2',
    [product.id, tx.tenantId],
  );
  const links: Record<string, unknown[]> = {};
  for (const link of LINK_TABLES) {
    const rows: Array<{ row: unknown }> = await tx.manager.query(
      `SELECT to_jsonb(t) AS row FROM ${link.table} t WHERE ${link.where} ORDER BY 1::text`,
      [product.id],
    );
    links[link.table] = rows.map((r) => r.row);
  }
  const bundles: Array<{ id: string }> = await tx.manager.query('SELECT id FROM bundles WHERE product_id = $1 AND tenant_id = $2', [
    product.id,
    tx.tenantId,
  ]);
  return { product: row!.row, links, bundleIds: bundles.map((b) => b.id) };
}

export async function applyDelete(tx: RequestContext, product: Product): Promise<ItemOutcome> {
  const previous = await snapshot(tx, product);
  const before = productState(await loadParts(tx, product));
  await tenantRepository(tx, Product).delete({ id: product.id });
  await audited(tx, 'delete', 'deleted', product.id, before, null);
  return { status: 'OK', previous };
}

const columnCache = new Map<string, string[]>();

/** The current columns of `table` (cached: the schema does not change while the process runs). */
async function tableColumns(tx: RequestContext, table: string): Promise<string[]> {
  let columns = columnCache.get(table);
  if (!columns) {
    const rows: Array<{ column_name: string }> = await tx.manager.query(
      'SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position',
      [table],
    );
    columns = rows.map((r) => r.column_name);
    columnCache.set(table, columns);
  }
  return columns;
}

/**
 * Inserts snapshot rows (JSON of each column) into `table` where `condition` holds for the row `r`;
 * duplicates are skipped. Only columns present in the snapshot are written, so a column added by a
 * later migration takes its default.
 */
async function insertSnapshotRows(
  tx: RequestContext,
  table: string,
  rows: Array<Record<string, unknown>>,
  condition: string,
): Promise<number> {
  if (rows.length === 0) return 0;
  const present = new Set(rows.flatMap((row) => Object.keys(row)));
  const columns = (await tableColumns(tx, table)).filter((c) => present.has(c)).map((c) => `"${c.replace(/"/g, '""')}"`);
  const [inserted]: Array<{ n: number }> = await tx.manager.query(
    `WITH ins AS (
       INSERT INTO ${table} (${columns.join(', ')}) SELECT ${columns.map((c) => `r.${c}`).join(', ')}
         FROM jsonb_array_elements($1::jsonb) e, jsonb_populate_record(NULL::${table}, e) r WHERE ${condition} ON CONFLICT DO NOTHING RETURNING 1)
     SELECT count(*)::int AS n FROM ins`,
    [JSON.stringify(rows)],
  );
  return inserted!.n;
}

/** Inserts the snapshot's rows of `table` that may come back (see LINK_TABLES); duplicates are skipped. */
export async function restoreLinks(tx: RequestContext, table: string, rows: unknown[]): Promise<void> {
  const link = LINK_TABLES.find((l) => l.table === table);
  if (!link) return;
  await insertSnapshotRows(tx, table, rows as Array<Record<string, unknown>>, link.restoreIf);
}

/** Why a hard-deleted product cannot come back: its id, slug or a SKU is taken meanwhile (else null). */
export async function restoreBlocker(tx: RequestContext, previous: Record<string, unknown>): Promise<string | null> {
  const row = previous.product as { id: string; store_id: string; slug: string };
  const variants = ((previous.links as Record<string, Array<{ sku: string | null }>>).product_variants ?? [])
    .map((v) => v.sku)
    .filter((s): s is string => !!s);
  const [found]: Array<{ id_taken: boolean; slug_taken: boolean; sku_taken: boolean }> = await tx.manager.query(
    `SELECT EXISTS (SELECT 1 FROM products WHERE id = $1) AS id_taken,
            EXISTS (SELECT 1 FROM products WHERE store_id = $2 AND lower(slug) = lower($3)) AS slug_taken,
            EXISTS (SELECT 1 FROM product_variants WHERE store_id = $2 AND sku IS NOT NULL AND lower(sku) = ANY($4::text[])) AS sku_taken`,
    [row.id, row.store_id, row.slug, variants.map((s) => s.toLowerCase())],
  );
  if (found!.id_taken) return 'a product with this id exists again';
  if (found!.slug_taken) return 'another product of the store has its slug now';
  if (found!.sku_taken) return 'another product of the store uses one of its SKUs now';
  return null;
}

async function revertDelete(tx: RequestContext, productId: string, previous: Record<string, unknown>): Promise<ItemOutcome> {
  const blocker = await restoreBlocker(tx, previous);
  if (blocker) throw productBulkEditsError('changed_since_edit', `The product cannot be recreated: ${blocker}.`);
  const row = { ...(previous.product as Record<string, unknown>), updated_at: new Date().toISOString() };
  // Checked again by the insert itself: a product that took the id or slug meanwhile makes it insert nothing.
  if ((await insertSnapshotRows(tx, 'products', [row], 'true')) === 0)
    throw productBulkEditsError('changed_since_edit', 'The product cannot be recreated: its id or slug was taken meanwhile.');
  // A brand deleted since the edit is left out (the delete of a brand clears it on its products too).
  await tx.manager.query(
    'UPDATE products SET brand_id = NULL WHERE id = $1 AND brand_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM brands b WHERE b.id = products.brand_id)',
    [productId],
  );
  const links = (previous.links as Record<string, unknown[]>) ?? {};
  for (const link of LINK_TABLES) await restoreLinks(tx, link.table, links[link.table] ?? []);
  const bundleIds = (previous.bundleIds as string[]) ?? [];
  if (bundleIds.length)
    await tx.manager.query('UPDATE bundles SET product_id = $1 WHERE id = ANY($2::uuid[]) AND product_id IS NULL AND tenant_id = $3', [
      productId,
      bundleIds,
      tx.tenantId,
    ]);
  const product = await tenantRepository(tx, Product).getOneBy({ id: productId });
  await audited(tx, 'create', 'created', productId, null, productState(await loadParts(tx, product)));
  return { status: 'OK', previous: { deleted: true } };
}

// ---------------------------------------------------------------------------------------------- revert

/** Undoes what `source` did to the product (null: the product does not exist now). */
export async function applyRevert(
  tx: RequestContext,
  productId: string,
  product: Product | null,
  source: RevertSource,
): Promise<ItemOutcome> {
  if (source.operation === 'hard-delete') return revertDelete(tx, productId, source.previous);
  if (!product) throw productGone();
  if (!source.unchangedSince) throw changedSince();
  switch (source.operation) {
    case 'publish':
    case 'archive':
    case 'set-status':
      return revertStatus(tx, product, source.previous);
    case 'set-category':
      return revertCategories(tx, product, source.previous);
    case 'add-tags':
    case 'remove-tags':
      return revertTags(tx, product, source.previous);
    case 'update-price':
      return revertPrice(tx, product, source.previous);
    default:
      throw productBulkEditsError('not_revertible', 'A revert cannot be reverted.');
  }
}
