/**
 * Public storefront reads straight from PostgreSQL (products, categories, brands, collections, bundles).
 * No token: every read starts from the store in the path, which must exist and not be archived
 * (404 store_not_found otherwise), and every query is bound to that store's id, so another store's
 * data is never reachable. Only published products and active categories, brands, collections and
 * bundles are shown.
 *
 * Price visibility: the store's setting (EVERYONE, SIGNED_IN, HIDDEN) is read with the store, and
 * when this request may not see prices (pricesShown) every price field (prices, compare-at prices,
 * discount percentages, currencies, bundle totals) is left out of the answer, not set to null.
 */
import { isTenantSuspended } from '../billing/suspension';
import { NotFoundError } from '../../lib/errors';
import { UUID_PATTERN } from '../http/schema-types';
import { storeNotFound } from '../../domain/store-access';
import { getFilterConfig, type FilterConfigView } from '../filter-config/filter-config.service';
import { bundlesByProduct, getBundle } from '../bundles/bundles.service';
import type { RequestContext } from '../../storage/request-context';
import { asPriceVisibility, pricesShown, type PriceVisibility } from '../../domain/price-visibility';
import { priceLines, publicPrices, type PricedLine } from '../../domain/pricing-engine';
import { discountPercent } from '../../domain/money';
import { storefrontError } from './storefront.errors';
import { firstViewInWindow } from './public-limits';

interface PublicStore {
  id: string;
  tenantId: string;
  priceVisibility: PriceVisibility;
  /** Whether this request sees the store's prices. */
  pricesShown: boolean;
}

const notFound = (
  what: string,
  code: 'category_not_found' | 'brand_not_found' | 'product_not_found' | 'bundle_not_found' | 'collection_not_found',
): NotFoundError => storefrontError(code, `The ${what} does not exist.`);

/** The store `storeId` if it exists and is not archived; 404 store_not_found otherwise. */
async function publicStore(ctx: RequestContext, storeId: string): Promise<PublicStore> {
  const rows: Array<{ id: string; tenant_id: string; price_visibility: string }> = await ctx.manager.query(
    `SELECT id, tenant_id, price_visibility FROM stores WHERE id = $1 AND status <> 'archived'`,
    [storeId],
  );
  if (!rows[0]) throw storeNotFound();
  const priceVisibility = asPriceVisibility(rows[0].price_visibility);
  return { id: rows[0].id, tenantId: rows[0].tenant_id, priceVisibility, pricesShown: pricesShown(ctx, priceVisibility) };
}

/** GET /catalog/public/stores/{storeId}/price-visibility: the setting and whether this request sees prices. */
export async function publicPriceVisibility(
  ctx: RequestContext,
  storeId: string,
): Promise<{ storeId: string; priceVisibility: PriceVisibility; pricesShown: boolean; open: boolean }> {
  const store = await publicStore(ctx, storeId);
  const open = !(await isTenantSuspended(ctx.manager, store.tenantId));
  return { storeId: store.id, priceVisibility: store.priceVisibility, pricesShown: store.pricesShown, open };
}

/**
 * A context acting inside the store's tenant, so the tenant-scoped service functions of other areas
 * (filter configuration, bundles) can be reused for a public read. It is only ever used for reads.
 */
const storeContext = (ctx: RequestContext, store: PublicStore): RequestContext => ({ ...ctx, tenantId: store.tenantId });

const num = (value: string | null): number | null => (value === null ? null : Number(value));

// ---- categories ----------------------------------------------------------------------------------

export interface PublicCategory {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  imageUrl: string | null;
  children: PublicCategory[];
}

interface CategoryRow {
  id: string;
  parent_id: string | null;
  name: string;
  slug: string;
  description: string | null;
  image_url: string | null;
  is_active: boolean;
}

async function categoryRows(ctx: RequestContext, storeId: string): Promise<CategoryRow[]> {
  return ctx.manager.query(
    'SELECT id, parent_id, name, slug, description, image_url, is_active FROM categories WHERE store_id = $1 ORDER BY position, lower(name), id',
    [storeId],
  );
}

/** The active tree: an inactive category hides its whole subtree. */
function activeTree(rows: CategoryRow[]): {
  roots: PublicCategory[];
  nodes: Map<string, PublicCategory>;
  parents: Map<string, string | null>;
} {
  const byParent = new Map<string | null, CategoryRow[]>();
  for (const row of rows) byParent.set(row.parent_id, [...(byParent.get(row.parent_id) ?? []), row]);
  const nodes = new Map<string, PublicCategory>();
  const parents = new Map<string, string | null>();
  const build = (parentId: string | null, depth: number): PublicCategory[] =>
    depth > 64
      ? []
      : (byParent.get(parentId) ?? [])
          .filter((row) => row.is_active)
          .map((row) => {
            const node: PublicCategory = {
              id: row.id,
              name: row.name,
              slug: row.slug,
              description: row.description,
              imageUrl: row.image_url,
              children: [],
            };
            nodes.set(row.id, node);
            parents.set(row.id, parentId);
            node.children = build(row.id, depth + 1);
            return node;
          });
  return { roots: build(null, 0), nodes, parents };
}

export async function listCategories(ctx: RequestContext, storeId: string): Promise<{ items: PublicCategory[] }> {
  const store = await publicStore(ctx, storeId);
  return { items: activeTree(await categoryRows(ctx, store.id)).roots };
}

export async function getCategory(
  ctx: RequestContext,
  storeId: string,
  slug: string,
): Promise<PublicCategory & { ancestors: Array<{ id: string; name: string; slug: string }> }> {
  const store = await publicStore(ctx, storeId);
  const { nodes, parents } = activeTree(await categoryRows(ctx, store.id));
  const node = [...nodes.values()].find((n) => n.slug.toLowerCase() === slug.toLowerCase());
  if (!node) throw notFound('category', 'category_not_found');
  const ancestors: Array<{ id: string; name: string; slug: string }> = [];
  for (let parent = parents.get(node.id) ?? null; parent; parent = parents.get(parent) ?? null) {
    const p = nodes.get(parent)!;
    ancestors.unshift({ id: p.id, name: p.name, slug: p.slug });
  }
  return { ...node, ancestors };
}

// ---- brands --------------------------------------------------------------------------------------

export interface PublicBrand {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  logoUrl: string | null;
  websiteUrl: string | null;
}

const BRAND_COLUMNS = 'id, name, slug, description, logo_url AS "logoUrl", website_url AS "websiteUrl"';

export async function listBrands(ctx: RequestContext, storeId: string): Promise<{ items: PublicBrand[] }> {
  const store = await publicStore(ctx, storeId);
  return {
    items: await ctx.manager.query(`SELECT ${BRAND_COLUMNS} FROM brands WHERE store_id = $1 AND is_active ORDER BY lower(name), id`, [
      store.id,
    ]),
  };
}

export async function getBrand(ctx: RequestContext, storeId: string, slug: string): Promise<PublicBrand> {
  const store = await publicStore(ctx, storeId);
  const rows: PublicBrand[] = await ctx.manager.query(
    `SELECT ${BRAND_COLUMNS} FROM brands WHERE store_id = $1 AND is_active AND lower(slug) = lower($2)`,
    [store.id, slug],
  );
  if (!rows[0]) throw notFound('brand', 'brand_not_found');
  return rows[0];
}

// ---- filter configuration ------------------------------------------------------------------------

/**
 * The enabled facets in order. Where this visitor may not see prices, the price facet and the price
 * buckets are left out too (as the search answer leaves out its price facet): the buckets are the
 * merchant's price ranges.
 */
export async function publicFilterConfig(ctx: RequestContext, storeId: string): Promise<FilterConfigView> {
  const store = await publicStore(ctx, storeId);
  const config = await getFilterConfig(storeContext(ctx, store), store.id);
  return {
    ...config,
    facets: config.facets.filter((f) => f.enabled && (store.pricesShown || f.key !== 'price')).sort((a, b) => a.position - b.position),
    priceBuckets: store.pricesShown ? config.priceBuckets : [],
  };
}

// ---- products ------------------------------------------------------------------------------------

export interface ProductCard {
  id: string;
  title: string;
  slug: string;
  /** The three price fields are absent when the visitor may not see prices. */
  price?: number;
  compareAtPrice?: number | null;
  discountPercent?: number;
  badge?: 'FLASH_SALE' | null;
  flashSaleEndsAt?: string | null;
  imageUrl: string | null;
  inStock: boolean;
}

interface CardRow {
  id: string;
  store_id: string;
  title: string;
  slug: string;
  price: string;
  compare_at_price: string | null;
  currency: string;
  brand_id: string | null;
  image_url: string | null;
  in_stock: boolean;
}

/** Columns of a product card; `p` is the products alias. */
const CARD_COLUMNS = `p.id, p.store_id, p.title, p.slug, p.price, p.compare_at_price, p.currency, p.brand_id,
  (SELECT i.url FROM product_images i WHERE i.product_id = p.id ORDER BY i.position, i.id LIMIT 1) AS image_url,
  EXISTS (SELECT 1 FROM product_variants v WHERE v.product_id = p.id AND v.stock > 0) AS in_stock`;

/**
 * The price a visitor sees, as the search index shows it: the pricing engine's public price (rules
 * and running flash sales); when discounted, the compare-at price is at least the regular price.
 */
function shownPrice(
  price: string,
  compareAt: string | null,
  effective: { price: string; discounted: boolean; flashSale: { endsAt: string } | null } | undefined,
) {
  const discounted = effective?.discounted === true;
  const now = discounted ? effective!.price : price;
  const compare = discounted && (compareAt === null || Number(compareAt) < Number(price)) ? price : compareAt;
  return {
    price: Number(now),
    compareAtPrice: num(compare),
    discountPercent: discountPercent(now, compare),
    badge: discounted && effective!.flashSale ? ('FLASH_SALE' as const) : null,
    flashSaleEndsAt: discounted && effective!.flashSale ? effective!.flashSale.endsAt : null,
  };
}

async function cards(ctx: RequestContext, rows: CardRow[], showPrices: boolean): Promise<ProductCard[]> {
  const effective = showPrices ? await publicPrices(ctx.manager, rows) : new Map();
  return rows.map((row) => {
    const base = { id: row.id, title: row.title, slug: row.slug };
    const rest = { imageUrl: row.image_url, inStock: row.in_stock };
    if (!showPrices) return { ...base, ...rest };
    return { ...base, ...shownPrice(row.price, row.compare_at_price, effective.get(row.id)), ...rest };
  });
}

/** A published product as a shopper sees it (PublicProductResponse); the price fields are absent when prices are hidden. */
export interface PublicProductView {
  id: string;
  title: string;
  slug: string;
  descriptionHtml: string;
  translations: Record<string, unknown>;
  type: string;
  price?: number;
  compareAtPrice?: number | null;
  discountPercent?: number;
  badge?: 'FLASH_SALE' | null;
  flashSaleEndsAt?: string | null;
  currency?: string;
  brand: { id: string; name: string; slug: string } | null;
  vendorName: string | null;
  categories: Array<{ id: string; name: string; slug: string }>;
  attributes: Record<string, unknown>;
  images: Array<{ url: string; alt: string | null }>;
  variants: Array<{
    id: string;
    sku: string | null;
    options: Record<string, string>;
    price?: number;
    compareAtPrice?: number | null;
    inStock: boolean;
  }>;
  inStock: boolean;
  rating: number;
  reviewCount: number;
  publishedAt: string | null;
  updatedAt: string;
}

interface PublicProductRow {
  id: string;
  title: string;
  slug: string;
  description_html: string;
  type: string;
  price: string;
  compare_at_price: string | null;
  currency: string;
  brand_id: string | null;
  vendor_name: string | null;
  attributes: Record<string, unknown>;
  translations: Record<string, unknown>;
  rating: string;
  review_count: number;
  published_at: Date | null;
  updated_at: Date;
}

export async function getProduct(ctx: RequestContext, storeId: string, slug: string): Promise<PublicProductView> {
  const store = await publicStore(ctx, storeId);
  const rows: PublicProductRow[] = await ctx.manager.query(
    `SELECT p.id, p.title, p.slug, p.description_html, p.type, p.price, p.compare_at_price, p.currency, p.brand_id, p.vendor_name, p.attributes,
            p.translations, p.rating, p.review_count, p.published_at, p.updated_at
       FROM products p WHERE p.store_id = $1 AND p.status = 'PUBLISHED' AND lower(p.slug) = lower($2)`,
    [store.id, slug],
  );
  const p = rows[0];
  if (!p) throw notFound('product', 'product_not_found');
  const id = p.id;
  const [variants, images, categories, brands] = await Promise.all([
    ctx.manager.query(
      'SELECT id, sku, options, price, compare_at_price, stock FROM product_variants WHERE product_id = $1 ORDER BY position, id',
      [id],
    ) as Promise<
      Array<{
        id: string;
        sku: string | null;
        options: Record<string, string>;
        price: string | null;
        compare_at_price: string | null;
        stock: number;
      }>
    >,
    ctx.manager.query('SELECT url, alt FROM product_images WHERE product_id = $1 ORDER BY position, id', [id]) as Promise<
      Array<{ url: string; alt: string | null }>
    >,
    ctx.manager.query(
      'SELECT c.id, c.name, c.slug FROM product_categories pc JOIN categories c ON c.id = pc.category_id WHERE pc.product_id = $1 AND c.store_id = $2 AND c.is_active ORDER BY pc.position, c.id',
      [id, store.id],
    ) as Promise<Array<{ id: string; name: string; slug: string }>>,
    p.brand_id
      ? (ctx.manager.query('SELECT id, name, slug FROM brands WHERE id = $1 AND store_id = $2 AND is_active', [
          p.brand_id,
          store.id,
        ]) as Promise<Array<{ id: string; name: string; slug: string }>>)
      : Promise.resolve([]),
  ]);
  const shown = store.pricesShown;
  // The engine's public price of the product and of each variant (rules and running flash sales).
  const priced = shown
    ? await priceLines(ctx.manager, store.id, [
        { productId: id, quantity: 1 },
        ...variants.map((v) => ({ productId: id, variantId: v.id, quantity: 1 })),
      ])
    : undefined;
  const effectiveOf = (line: PricedLine | undefined) =>
    line && line.unitPrice < line.baseUnitPrice
      ? { price: String(line.unitPrice), discounted: true, flashSale: line.flashSale }
      : undefined;
  const productPrice = shownPrice(p.price, p.compare_at_price, effectiveOf(priced?.lines[0]));
  return {
    id,
    title: p.title,
    slug: p.slug,
    descriptionHtml: p.description_html,
    translations: p.translations,
    type: p.type,
    ...(shown ? { ...productPrice, currency: p.currency.trim() } : {}),
    brand: brands[0] ?? null,
    vendorName: p.vendor_name,
    categories,
    attributes: p.attributes,
    images,
    variants: variants.map((v, i) => ({
      id: v.id,
      sku: v.sku,
      options: v.options,
      ...(shown
        ? (({ price, compareAtPrice }) => ({ price, compareAtPrice }))(
            shownPrice(v.price ?? p.price, v.compare_at_price, effectiveOf(priced?.lines[i + 1])),
          )
        : {}),
      inStock: v.stock > 0,
    })),
    inStock: variants.some((v) => v.stock > 0),
    rating: Number(p.rating),
    reviewCount: p.review_count,
    publishedAt: p.published_at ? p.published_at.toISOString() : null,
    updatedAt: p.updated_at.toISOString(),
  };
}

/** The published product `productId` of the store; 404 product_not_found for drafts, archived, unknown and other stores' products. */
async function publishedProduct(ctx: RequestContext, storeId: string, productId: string): Promise<string> {
  const rows: Array<{ id: string }> = await ctx.manager.query(
    `SELECT id FROM products WHERE id = $1 AND store_id = $2 AND status = 'PUBLISHED'`,
    [productId, storeId],
  );
  if (!rows[0]) throw notFound('product', 'product_not_found');
  return rows[0].id;
}

export async function relatedProducts(
  ctx: RequestContext,
  storeId: string,
  productId: string,
  limit: number,
): Promise<{ items: Array<ProductCard & { kind: string }> }> {
  const store = await publicStore(ctx, storeId);
  const id = await publishedProduct(ctx, store.id, productId);
  const rows: Array<CardRow & { kind: string; position: number }> = await ctx.manager.query(
    `SELECT DISTINCT ON (r.related_product_id) r.kind, r.position, ${CARD_COLUMNS},
            CASE r.kind WHEN 'RELATED' THEN 0 WHEN 'UPSELL' THEN 1 ELSE 2 END AS kind_rank
       FROM product_relations r JOIN products p ON p.id = r.related_product_id
      WHERE r.product_id = $1 AND r.store_id = $2 AND p.store_id = $2 AND p.status = 'PUBLISHED'
      ORDER BY r.related_product_id, kind_rank, r.position`,
    [id, store.id],
  );
  const rank = (kind: string): number => (kind === 'RELATED' ? 0 : kind === 'UPSELL' ? 1 : 2);
  const ordered = rows.sort((a, b) => rank(a.kind) - rank(b.kind) || a.position - b.position || a.id.localeCompare(b.id));
  const top = ordered.slice(0, limit);
  const shown = await cards(ctx, top, store.pricesShown);
  return { items: top.map((row, i) => ({ ...shown[i]!, kind: row.kind })) };
}

const BUNDLE_PRICE_FIELDS = ['pricing', 'currency', 'itemsTotal', 'bundlePrice', 'savings', 'savingsPercent'] as const;
const BUNDLE_ITEM_PRICE_FIELDS = ['unitPrice', 'productCurrency'] as const;

export async function productBundles(
  ctx: RequestContext,
  storeId: string,
  productId: string,
): Promise<{ items: Array<Record<string, unknown>> }> {
  const store = await publicStore(ctx, storeId);
  const id = await publishedProduct(ctx, store.id, productId);
  const scoped = storeContext(ctx, store);
  const candidates = (await bundlesByProduct(scoped, id)).items.filter((b) => b.isActive);
  // A bundle is shown only when every product it names (its items and the product that sells it) is published.
  const named = [...new Set(candidates.flatMap((b) => [...b.items.map((i) => i.productId), ...(b.productId ? [b.productId] : [])]))];
  const published = new Set(
    named.length
      ? (
          (await ctx.manager.query(`SELECT id FROM products WHERE store_id = $1 AND status = 'PUBLISHED' AND id = ANY($2::uuid[])`, [
            store.id,
            named,
          ])) as Array<{ id: string }>
        ).map((r) => r.id)
      : [],
  );
  const active = candidates.filter((b) => b.items.every((i) => published.has(i.productId)) && (!b.productId || published.has(b.productId)));
  if (active.length === 0) throw notFound('bundle', 'bundle_not_found');
  const details = await Promise.all(active.map((b) => getBundle(scoped, b.id)));
  // Merchant bookkeeping (store id, active flag, creation time) is left out of the public view, and
  // so is every price (pricing, unit prices, currencies, totals) when the visitor may not see prices.
  return {
    items: details.map((detail) => {
      const view: Record<string, unknown> = { ...detail };
      for (const key of ['storeId', 'isActive', 'createdAt']) delete view[key];
      if (!store.pricesShown) {
        for (const key of BUNDLE_PRICE_FIELDS) delete view[key];
        view.items = (view.items as Array<Record<string, unknown>>).map((item) => {
          const rest = { ...item };
          for (const key of BUNDLE_ITEM_PRICE_FIELDS) delete rest[key];
          return rest;
        });
      }
      return view;
    }),
  };
}

export async function sitemapFeed(
  ctx: RequestContext,
  storeId: string,
  cursor: string | undefined,
  limit: number,
): Promise<{ items: Array<{ slug: string; updatedAt: string }>; nextCursor: string | null }> {
  const store = await publicStore(ctx, storeId);
  if (cursor !== undefined && !UUID_PATTERN.test(cursor))
    throw storefrontError('invalid_cursor', 'The cursor is not one this feed returned.', [
      { path: 'query.cursor', message: 'cursor is invalid' },
    ]);
  const rows: Array<{ id: string; slug: string; updated_at: Date }> = await ctx.manager.query(
    `SELECT id, slug, updated_at FROM products WHERE store_id = $1 AND status = 'PUBLISHED' AND ($2::uuid IS NULL OR id > $2::uuid) ORDER BY id LIMIT $3`,
    [store.id, cursor ?? null, limit + 1],
  );
  const page = rows.slice(0, limit);
  return {
    items: page.map((r) => ({ slug: r.slug, updatedAt: r.updated_at.toISOString() })),
    nextCursor: rows.length > limit ? page[page.length - 1]!.id : null,
  };
}

/**
 * Counts a visitor's view with one UPDATE, at most once per client and product in the view window
 * (firstViewInWindow): a repeated view answers the same 204 and counts nothing, so one client cannot
 * push a product up the most_viewed sort. The product is checked first, so unknown ids leave nothing
 * in Redis. No audit entry and no outbox row: a view counter is not a merchant write, and the search
 * index picks the count up with the product's next event or reindex.
 */
export async function trackProductView(ctx: RequestContext, storeId: string, productId: string): Promise<void> {
  const store = await publicStore(ctx, storeId);
  const id = await publishedProduct(ctx, store.id, productId);
  if (!(await firstViewInWindow(ctx, id))) return;
  await ctx.manager.query(`UPDATE products SET view_count = view_count + 1 WHERE id = $1 AND store_id = $2 AND status = 'PUBLISHED'`, [
    id,
    store.id,
  ]);
}

// ---- collections ---------------------------------------------------------------------------------

export interface PublicCollection {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  imageUrl: string | null;
}

const COLLECTION_COLUMNS = 'id, name, slug, description, image_url AS "imageUrl"';

export async function listCollections(ctx: RequestContext, storeId: string): Promise<{ items: PublicCollection[] }> {
  const store = await publicStore(ctx, storeId);
  return {
    items: await ctx.manager.query(
      `SELECT ${COLLECTION_COLUMNS} FROM collections WHERE store_id = $1 AND is_active ORDER BY position, lower(name), id`,
      [store.id],
    ),
  };
}

export async function getCollection(
  ctx: RequestContext,
  storeId: string,
  slug: string,
): Promise<PublicCollection & { products: ProductCard[] }> {
  const store = await publicStore(ctx, storeId);
  const rows: PublicCollection[] = await ctx.manager.query(
    `SELECT ${COLLECTION_COLUMNS} FROM collections WHERE store_id = $1 AND is_active AND lower(slug) = lower($2)`,
    [store.id, slug],
  );
  const collection = rows[0];
  if (!collection) throw notFound('collection', 'collection_not_found');
  const products: CardRow[] = await ctx.manager.query(
    `SELECT ${CARD_COLUMNS} FROM collection_items ci JOIN products p ON p.id = ci.product_id
      WHERE ci.collection_id = $1 AND p.store_id = $2 AND p.status = 'PUBLISHED' ORDER BY ci.position, p.id`,
    [collection.id, store.id],
  );
  return { ...collection, products: await cards(ctx, products, store.pricesShown) };
}
