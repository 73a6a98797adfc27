/**
 * Bundles of a store: list, by product, get, create, update, delete and price computation.
 *
 * A bundle is a list of products (or variants of them) with quantities and one pricing rule:
 * FIXED_PRICE (the bundle costs `price`) or PERCENT_OFF (the items' sum less `percentOff` percent).
 * Any member of the tenant and API keys of the store with the bundles scope edit bundles; another
 * tenant's store, bundle or product answers 404 (as does, for an API key, a bundle of another store).
 * Every change writes, in its transaction, one audit entry (`bundle.create|update|delete`) and one
 * outbox row (queue `index`, aggregate `bundle`, topic `bundle.created|updated|deleted`); a change
 * that changes nothing writes neither.
 *
 * Money: amounts are exact decimals (BigInt units of 0.0001, see domain/money.ts), each line total
 * and each computed price rounded half up to 2 decimals.
 */
import { In } from 'typeorm';
import { Bundle, BundleItem, Product, ProductVariant, type Store } from '../../storage/entities';
import type { BundlePricingType } from '../../storage/entities/bundle.entity';
import { recordAudit } from '../../storage/audit';
import { isUniqueViolation } from '../../storage/db-errors';
import { uuidv7 } from '../../storage/ids';
import { enqueueOutbox, type OutboxEvent } from '../../storage/outbox';
import type { RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { ConflictError, NotFoundError } from '../../lib/errors';
import { requireStore } from '../../domain/store-access';
import { CATALOG_SLUG_MAX, freeStoreSlug, inSlugTransaction, slugify, storeSlugInUse } from '../../domain/slugs';
import { RESULT_DECIMALS, SCALE, divideHalfUp, formatUnits, rescale, toUnits, unitsToNumber } from '../../domain/money';
import { bundlesError } from './bundles.errors';
import type { BundleItemInput, BundlePricingInput, ComputeBundlePriceDto, CreateBundleDto, UpdateBundleDto } from './bundles.schemas';
import type { InputOf } from '../http/typed-schema';

export type PricingInput = InputOf<typeof BundlePricingInput>;

export type ItemInput = InputOf<typeof BundleItemInput>;

export type CreateBundleInput = InputOf<typeof CreateBundleDto>;

export type UpdateBundleInput = InputOf<typeof UpdateBundleDto>;

export type ComputeBundlePriceInput = InputOf<typeof ComputeBundlePriceDto>;

interface PricingView {
  type: BundlePricingType;
  price?: number;
  percentOff?: number;
}

interface ItemRef {
  productId: string;
  variantId: string | null;
  quantity: number;
  position: number;
}

export interface BundleSummaryView {
  id: string;
  storeId: string;
  productId: string | null;
  name: string;
  slug: string;
  pricing: PricingView;
  isActive: boolean;
  items: ItemRef[];
  createdAt: string;
  updatedAt: string;
}

/** An item with its product, variant and unit price (BundleItemDetail). */
export interface BundleItemDetailView extends ItemRef {
  productTitle: string;
  productCurrency: string;
  variantSku: string | null;
  unitPrice: number;
}

/** A bundle with its priced items and totals (BundleResponse); the totals are null when an item is priced in another currency. */
export interface BundleDetailView extends Omit<BundleSummaryView, 'items'> {
  items: BundleItemDetailView[];
  currency: string;
  itemsTotal: number | null;
  bundlePrice: number | null;
  savings: number | null;
  savingsPercent: number | null;
}

const bundleNotFound = (): NotFoundError => bundlesError('bundle_not_found', 'The bundle does not exist.');
const productNotFound = (): NotFoundError => bundlesError('product_not_found', 'The product does not exist.');
const slugTaken = (): ConflictError =>
  bundlesError('slug_taken', 'Another bundle of the store has this slug.', [
    { path: 'body.slug', message: 'slug is already taken in the store' },
  ]);
const productHasBundle = (): ConflictError =>
  bundlesError('product_has_bundle', 'The product already sells another bundle.', [
    { path: 'body.productId', message: 'this product already sells another bundle' },
  ]);
const mixedCurrency = (): ConflictError => bundlesError('mixed_currency', "The bundle's items are not all priced in the store currency.");

const event = (topic: 'created' | 'updated' | 'deleted', id: string): OutboxEvent => ({
  queue: 'index',
  topic: `bundle.${topic}`,
  aggregateType: 'bundle',
  aggregateId: id,
});

/** The canonical decimal of a numeric column value ("9.9900" → 9.99). */
const amountOf = (stored: string): number => unitsToNumber(toUnits(stored), SCALE);

function pricingView(bundle: Bundle): PricingView {
  return bundle.pricingType === 'FIXED_PRICE'
    ? { type: 'FIXED_PRICE', price: amountOf(bundle.fixedPrice!) }
    : { type: 'PERCENT_OFF', percentOff: amountOf(bundle.percentOff!) };
}

const itemRef = (item: BundleItem): ItemRef => ({
  productId: item.productId,
  variantId: item.variantId,
  quantity: item.quantity,
  position: item.position,
});

function summaryView(bundle: Bundle, items: BundleItem[]): BundleSummaryView {
  return {
    id: bundle.id,
    storeId: bundle.storeId,
    productId: bundle.productId,
    name: bundle.name,
    slug: bundle.slug,
    pricing: pricingView(bundle),
    isActive: bundle.isActive,
    items: items.map(itemRef),
    createdAt: bundle.createdAt.toISOString(),
    updatedAt: bundle.updatedAt.toISOString(),
  };
}

/** What the audit log keeps of a bundle. */
function auditState(
  bundle: Bundle,
  items: Array<{ productId: string; variantId: string | null; quantity: number }>,
): Record<string, unknown> {
  return {
    storeId: bundle.storeId,
    productId: bundle.productId,
    name: bundle.name,
    slug: bundle.slug,
    pricing: pricingView(bundle),
    isActive: bundle.isActive,
    items: items.map((i) => ({ productId: i.productId, variantId: i.variantId, quantity: i.quantity })),
  };
}

/** Runs a bundle write; races lost at the unique indexes answer like the checks before them. */
async function bundleWrite<T>(ctx: RequestContext, work: (tx: RequestContext) => Promise<T>): Promise<T> {
  try {
    return await inSlugTransaction(ctx, 'bundles_store_slug', slugTaken, work);
  } catch (error) {
    if (isUniqueViolation(error, 'bundles_product')) throw productHasBundle();
    throw error;
  }
}

async function itemsOf(ctx: RequestContext, bundleIds: string[]): Promise<Map<string, BundleItem[]>> {
  const byBundle = new Map<string, BundleItem[]>(bundleIds.map((id) => [id, []]));
  if (bundleIds.length === 0) return byBundle;
  // bundle_items has no tenant column: it is reached only through bundles already scoped to the tenant.
  const rows = await ctx.manager
    .getRepository(BundleItem)
    .find({ where: { bundleId: In(bundleIds) }, order: { position: 'ASC', id: 'ASC' } });
  for (const row of rows) byBundle.get(row.bundleId)!.push(row);
  return byBundle;
}

async function summaries(ctx: RequestContext, bundles: Bundle[]): Promise<BundleSummaryView[]> {
  const items = await itemsOf(
    ctx,
    bundles.map((b) => b.id),
  );
  return bundles.map((b) => summaryView(b, items.get(b.id)!));
}

export async function listBundles(ctx: RequestContext, storeId: string): Promise<{ items: BundleSummaryView[] }> {
  const store = await requireStore(ctx, storeId);
  const bundles = await tenantRepository(ctx, Bundle)
    .createQueryBuilder('b')
    .andWhere('b.storeId = :storeId', { storeId: store.id })
    .orderBy('lower(b.name)', 'ASC')
    .addOrderBy('b.id', 'ASC')
    .getMany();
  return { items: await summaries(ctx, bundles) };
}

export async function bundlesByProduct(ctx: RequestContext, productId: string): Promise<{ items: BundleSummaryView[] }> {
  const product = await tenantRepository(ctx, Product, productNotFound).findOneBy({ id: productId });
  if (!product) throw productNotFound();
  if (ctx.actor.type === 'api_key' && ctx.actor.storeId !== product.storeId) throw productNotFound();
  await requireStore(ctx, product.storeId);
  const bundles = await tenantRepository(ctx, Bundle)
    .createQueryBuilder('b')
    .andWhere('b.storeId = :storeId', { storeId: product.storeId })
    .andWhere(
      '(b.productId = :productId OR EXISTS (SELECT 1 FROM bundle_items i WHERE i.bundle_id = b.id AND i.product_id = :productId))',
      { productId: product.id },
    )
    .orderBy('lower(b.name)', 'ASC')
    .addOrderBy('b.id', 'ASC')
    .getMany();
  return { items: await summaries(ctx, bundles) };
}

/** The bundle `id` of the caller's tenant (locked when writing) in a store the caller may use; 404 otherwise. */
async function loadBundle(ctx: RequestContext, id: string, forWrite: boolean): Promise<{ bundle: Bundle; store: Store }> {
  const bundle = await tenantRepository(ctx, Bundle, bundleNotFound).findOne({
    where: { id },
    ...(forWrite ? { lock: { mode: 'pessimistic_write' as const } } : {}),
  });
  if (!bundle) throw bundleNotFound();
  // An API key reaches only its own store: a bundle of another store is as missing as any other.
  if (ctx.actor.type === 'api_key' && ctx.actor.storeId !== bundle.storeId) throw bundleNotFound();
  const store = await requireStore(ctx, bundle.storeId, { forWrite });
  return { bundle, store };
}

interface Catalog {
  products: Map<string, Product>;
  variants: Map<string, ProductVariant>;
}

async function loadCatalog(
  ctx: RequestContext,
  storeId: string,
  items: Array<{ productId: string; variantId?: string | null }>,
): Promise<Catalog> {
  const productIds = [...new Set(items.map((i) => i.productId.toLowerCase()))];
  const variantIds = [...new Set(items.flatMap((i) => (i.variantId ? [i.variantId.toLowerCase()] : [])))];
  const products = productIds.length ? await tenantRepository(ctx, Product).find({ where: { storeId, id: In(productIds) } }) : [];
  const variants = variantIds.length ? await tenantRepository(ctx, ProductVariant).find({ where: { storeId, id: In(variantIds) } }) : [];
  return { products: new Map(products.map((p) => [p.id, p])), variants: new Map(variants.map((v) => [v.id, v])) };
}

/**
 * Checks the lines of a create or update: every product of the store (400 invalid_product), every
 * variant of its line's product (400 invalid_variant), none the product that sells the bundle.
 */
async function checkItems(tx: RequestContext, storeId: string, items: ItemInput[], sellingProductId: string | null): Promise<void> {
  const catalog = await loadCatalog(tx, storeId, items);
  const badProducts = items.flatMap((item, i) =>
    !catalog.products.has(item.productId.toLowerCase()) || item.productId.toLowerCase() === sellingProductId?.toLowerCase()
      ? [
          {
            path: `body.items[${i}].productId`,
            message:
              item.productId.toLowerCase() === sellingProductId?.toLowerCase()
                ? 'the product that sells the bundle cannot be one of its items'
                : 'not a product of the store',
          },
        ]
      : [],
  );
  if (badProducts.length) throw bundlesError('invalid_product', 'An item is not a product of the store.', badProducts);
  const badVariants = items.flatMap((item, i) => {
    if (!item.variantId) return [];
    const variant = catalog.variants.get(item.variantId.toLowerCase());
    return variant && variant.productId === item.productId.toLowerCase()
      ? []
      : [{ path: `body.items[${i}].variantId`, message: "not a variant of the item's product" }];
  });
  if (badVariants.length) throw bundlesError('invalid_variant', 'An item names a variant that is not of its product.', badVariants);
}

/** The selling product: a product of type BUNDLE of the store (400 invalid_product) that sells no other bundle (409 product_has_bundle). */
async function checkSellingProduct(tx: RequestContext, storeId: string, productId: string, exceptBundleId?: string): Promise<void> {
  const product = await tenantRepository(tx, Product).findOneBy({ id: productId, storeId });
  if (!product || product.type !== 'BUNDLE') {
    throw bundlesError('invalid_product', 'productId must be a product of type BUNDLE of the store.', [
      { path: 'body.productId', message: 'not a BUNDLE product of the store' },
    ]);
  }
  const query = tenantRepository(tx, Bundle).createQueryBuilder('b').andWhere('b.productId = :productId', { productId: product.id });
  if (exceptBundleId) query.andWhere('b.id <> :exceptBundleId', { exceptBundleId });
  if (await query.getExists()) throw productHasBundle();
}

const slugInUse = (tx: RequestContext, storeId: string, slug: string, exceptId?: string): Promise<boolean> =>
  storeSlugInUse(tx, Bundle, storeId, slug, exceptId);

const pricingColumns = (pricing: PricingInput): Pick<Bundle, 'pricingType' | 'fixedPrice' | 'percentOff'> =>
  pricing.type === 'FIXED_PRICE'
    ? { pricingType: 'FIXED_PRICE', fixedPrice: formatUnits(toUnits(pricing.price!), SCALE), percentOff: null }
    : { pricingType: 'PERCENT_OFF', fixedPrice: null, percentOff: formatUnits(toUnits(pricing.percentOff!, 2), 2) };

async function writeItems(tx: RequestContext, bundleId: string, items: ItemInput[]): Promise<BundleItem[]> {
  const rows = items.map((item, position) =>
    Object.assign(new BundleItem(), {
      id: uuidv7(),
      bundleId,
      productId: item.productId.toLowerCase(),
      variantId: item.variantId?.toLowerCase() ?? null,
      quantity: item.quantity,
      position,
    }),
  );
  await tx.manager.delete(BundleItem, { bundleId });
  await tx.manager.insert(BundleItem, rows);
  return rows;
}

// ---- pricing --------------------------------------------------------------------------------------

interface PricedLine {
  productId: string;
  variantId: string | null;
  quantity: number;
  unitUnits: bigint;
  /** At RESULT_DECIMALS. */
  lineCents: bigint;
}

interface Priced {
  lines: PricedLine[];
  itemsTotal: bigint;
  bundlePrice: bigint;
}

/** Unit price (units of 0.0001) of a line: the variant's own price, else the product's. */
function unitUnits(catalog: Catalog, productId: string, variantId: string | null): bigint {
  const variant = variantId ? catalog.variants.get(variantId) : undefined;
  return toUnits(variant?.price ?? catalog.products.get(productId)!.price);
}

/**
 * Prices `lines` (quantities already multiplied by `count`): each line unitPrice × quantity rounded
 * half up to 2 decimals, itemsTotal their sum; FIXED_PRICE: price × count rounded half up to 2
 * decimals; PERCENT_OFF: itemsTotal × (100 − p) / 100 rounded half up to 2 decimals.
 */
function price(
  bundle: Bundle,
  catalog: Catalog,
  lines: Array<{ productId: string; variantId: string | null; quantity: number }>,
  count: number,
): Priced {
  const priced = lines.map((line) => {
    const unit = unitUnits(catalog, line.productId, line.variantId);
    return { ...line, unitUnits: unit, lineCents: rescale(unit * BigInt(line.quantity), SCALE, RESULT_DECIMALS) };
  });
  const itemsTotal = priced.reduce((sum, line) => sum + line.lineCents, 0n);
  const bundlePrice =
    bundle.pricingType === 'FIXED_PRICE'
      ? rescale(toUnits(bundle.fixedPrice!) * BigInt(count), SCALE, RESULT_DECIMALS)
      : // percent_off has 2 decimals: (100 − p) / 100 = (10000 − p·100) / 10000.
        divideHalfUp(itemsTotal * (10_000n - toUnits(bundle.percentOff!, 2)), 10_000n);
  return { lines: priced, itemsTotal, bundlePrice };
}

/** True when every item's product is priced in the store currency. */
const oneCurrency = (store: Store, catalog: Catalog, items: Array<{ productId: string }>): boolean =>
  items.every((i) => catalog.products.get(i.productId)?.currency === store.currency);

const cents = (value: bigint): number => unitsToNumber(value, RESULT_DECIMALS);

async function detailView(ctx: RequestContext, bundle: Bundle, store: Store, items: BundleItem[]): Promise<BundleDetailView> {
  const catalog = await loadCatalog(ctx, bundle.storeId, items);
  const summary = summaryView(bundle, items);
  const detailItems = items.map((item): BundleItemDetailView => {
    const product = catalog.products.get(item.productId)!;
    const variant = item.variantId ? catalog.variants.get(item.variantId) : undefined;
    return {
      ...itemRef(item),
      productTitle: product.title,
      productCurrency: product.currency.trim(),
      variantSku: variant?.sku ?? null,
      unitPrice: unitsToNumber(unitUnits(catalog, item.productId, item.variantId), SCALE),
    };
  });
  let totals: Pick<BundleDetailView, 'itemsTotal' | 'bundlePrice' | 'savings' | 'savingsPercent'> = {
    itemsTotal: null,
    bundlePrice: null,
    savings: null,
    savingsPercent: null,
  };
  if (oneCurrency(store, catalog, items)) {
    const priced = price(bundle, catalog, items, 1);
    const savings = priced.itemsTotal - priced.bundlePrice;
    totals = {
      itemsTotal: cents(priced.itemsTotal),
      bundlePrice: cents(priced.bundlePrice),
      savings: cents(savings),
      // savings / itemsTotal × 100 at 2 decimals = savings × 10000 / itemsTotal hundredths.
      savingsPercent: priced.itemsTotal === 0n ? 0 : cents(divideHalfUp(savings * 10_000n, priced.itemsTotal)),
    };
  }
  return { ...summary, items: detailItems, currency: store.currency, ...totals };
}

export async function getBundle(ctx: RequestContext, id: string): Promise<BundleDetailView> {
  const { bundle, store } = await loadBundle(ctx, id, false);
  return detailView(ctx, bundle, store, (await itemsOf(ctx, [bundle.id])).get(bundle.id)!);
}

export async function createBundle(ctx: RequestContext, input: CreateBundleInput): Promise<BundleDetailView> {
  return bundleWrite(ctx, async (tx) => {
    const store = await requireStore(tx, input.storeId, { forWrite: true });
    const productId = input.productId?.toLowerCase() ?? null;
    if (input.slug !== undefined && (await slugInUse(tx, store.id, input.slug))) throw slugTaken();
    if (productId) await checkSellingProduct(tx, store.id, productId);
    await checkItems(tx, store.id, input.items, productId);
    const slug = input.slug ?? (await freeStoreSlug(tx, Bundle, store.id, slugify(input.name, CATALOG_SLUG_MAX - 6, 'bundle')));
    const now = new Date();
    const bundle = tenantRepository(tx, Bundle).create({
      id: uuidv7(),
      storeId: store.id,
      productId,
      name: input.name,
      slug,
      ...pricingColumns(input.pricing),
      isActive: input.isActive,
      createdAt: now,
      updatedAt: now,
    });
    await tx.manager.insert(Bundle, bundle);
    const items = await writeItems(tx, bundle.id, input.items);
    await recordAudit(tx, { action: 'bundle.create', resourceType: 'bundle', resourceId: bundle.id, after: auditState(bundle, items) });
    await enqueueOutbox(tx, event('created', bundle.id));
    return detailView(tx, bundle, store, items);
  });
}

const sameItems = (a: BundleItem[], b: ItemInput[]): boolean =>
  a.length === b.length &&
  a.every(
    (item, i) =>
      item.productId === b[i]!.productId.toLowerCase() &&
      item.variantId === (b[i]!.variantId?.toLowerCase() ?? null) &&
      item.quantity === b[i]!.quantity,
  );

export async function updateBundle(ctx: RequestContext, id: string, input: UpdateBundleInput): Promise<BundleDetailView> {
  return bundleWrite(ctx, async (tx) => {
    const { bundle, store } = await loadBundle(tx, id, true);
    let items = (await itemsOf(tx, [bundle.id])).get(bundle.id)!;
    const before = auditState(bundle, items);
    const next: Bundle = { ...bundle };
    if (input.name !== undefined) next.name = input.name;
    if (input.slug !== undefined) next.slug = input.slug;
    if (input.productId !== undefined) next.productId = input.productId?.toLowerCase() ?? null;
    if (input.pricing !== undefined) Object.assign(next, pricingColumns(input.pricing));
    if (input.isActive !== undefined) next.isActive = input.isActive;
    const itemsChanged = input.items !== undefined && !sameItems(items, input.items);
    const after = auditState(
      next,
      itemsChanged
        ? input.items!.map((i) => ({
            productId: i.productId.toLowerCase(),
            variantId: i.variantId?.toLowerCase() ?? null,
            quantity: i.quantity,
          }))
        : items,
    );
    if (JSON.stringify(before) === JSON.stringify(after)) return detailView(tx, bundle, store, items);

    if (next.slug !== bundle.slug && (await slugInUse(tx, bundle.storeId, next.slug, bundle.id))) throw slugTaken();
    if (next.productId && next.productId !== bundle.productId) await checkSellingProduct(tx, bundle.storeId, next.productId, bundle.id);
    if (itemsChanged || next.productId !== bundle.productId) {
      const lines = itemsChanged ? input.items! : items;
      await checkItems(tx, bundle.storeId, lines, next.productId);
    }
    next.updatedAt = new Date();
    const { id: _id, tenantId: _t, storeId: _s, createdAt: _c, ...columns } = next;
    await tenantRepository(tx, Bundle).update({ id: bundle.id }, columns);
    if (itemsChanged) items = await writeItems(tx, bundle.id, input.items!);
    const changedBefore: Record<string, unknown> = {};
    const changedAfter: Record<string, unknown> = {};
    for (const key of Object.keys(after)) {
      if (JSON.stringify(before[key]) === JSON.stringify(after[key])) continue;
      changedBefore[key] = before[key];
      changedAfter[key] = after[key];
    }
    await recordAudit(tx, {
      action: 'bundle.update',
      resourceType: 'bundle',
      resourceId: bundle.id,
      before: changedBefore,
      after: changedAfter,
    });
    await enqueueOutbox(tx, event('updated', bundle.id));
    return detailView(tx, next, store, items);
  });
}

export async function deleteBundle(ctx: RequestContext, id: string): Promise<void> {
  await bundleWrite(ctx, async (tx) => {
    const { bundle } = await loadBundle(tx, id, true);
    const items = (await itemsOf(tx, [bundle.id])).get(bundle.id)!;
    await tenantRepository(tx, Bundle).delete({ id: bundle.id });
    await recordAudit(tx, { action: 'bundle.delete', resourceType: 'bundle', resourceId: bundle.id, before: auditState(bundle, items) });
    await enqueueOutbox(tx, event('deleted', bundle.id));
  });
}

export interface BundlePriceView {
  currency: string;
  count: number;
  lines: Array<{ productId: string; variantId: string | null; quantity: number; unitPrice: number; lineTotal: number }>;
  itemsTotal: number;
  bundlePrice: number;
  discount: number;
  total: number;
}

export async function computeBundlePrice(ctx: RequestContext, input: ComputeBundlePriceInput): Promise<BundlePriceView> {
  const { bundle, store } = await loadBundle(ctx, input.bundleId, false);
  const items = (await itemsOf(ctx, [bundle.id])).get(bundle.id)!;
  const key = (productId: string, variantId: string | null | undefined): string =>
    `${productId.toLowerCase()}/${variantId?.toLowerCase() ?? ''}`;
  const quantities = new Map(items.map((item) => [key(item.productId, item.variantId), item.quantity]));
  const unknown = (input.quantities ?? []).flatMap((q, i) =>
    quantities.has(key(q.productId, q.variantId))
      ? []
      : [{ path: `body.quantities[${i}]`, message: 'this product (and variant) is not an item of the bundle' }],
  );
  if (unknown.length) throw bundlesError('item_not_in_bundle', 'A quantity names a line that is not in the bundle.', unknown);
  for (const q of input.quantities ?? []) quantities.set(key(q.productId, q.variantId), q.quantity);

  const catalog = await loadCatalog(ctx, bundle.storeId, items);
  if (!oneCurrency(store, catalog, items)) throw mixedCurrency();
  const lines = items.map((item) => ({
    productId: item.productId,
    variantId: item.variantId,
    quantity: quantities.get(key(item.productId, item.variantId))! * input.count,
  }));
  const priced = price(bundle, catalog, lines, input.count);
  return {
    currency: store.currency,
    count: input.count,
    lines: priced.lines.map((l) => ({
      productId: l.productId,
      variantId: l.variantId,
      quantity: l.quantity,
      unitPrice: unitsToNumber(l.unitUnits, SCALE),
      lineTotal: cents(l.lineCents),
    })),
    itemsTotal: cents(priced.itemsTotal),
    bundlePrice: cents(priced.bundlePrice),
    discount: cents(priced.itemsTotal - priced.bundlePrice),
    total: cents(priced.bundlePrice),
  };
}
