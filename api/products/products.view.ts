/** Loading a product with its parts, and the JSON it answers as. */
import { Product, ProductCategory, ProductImage, ProductTagAssignment, ProductVariant } from '../../storage/entities';
import type { ProductStatus, ProductType } from '../../storage/entities/product.entity';
import type { RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { NotFoundError } from '../../lib/errors';
import { requireStore } from '../../domain/store-access';
import { canonicalMoney, moneyNumber, optionalMoneyNumber } from '../../domain/product-rules';
import { discountPercent } from '../../domain/money';
import { productsError } from './products.errors';

export const productNotFound = (): NotFoundError => productsError('product_not_found', 'The product does not exist.');

export interface ProductParts {
  product: Product;
  variants: ProductVariant[];
  images: ProductImage[];
  categoryIds: string[];
  tagIds: string[];
}

/**
 * The product `id` of the caller's tenant whose store the caller may reach (an API key only its own
 * store), or 404. `forWrite` locks the row and refuses archived stores.
 */
export async function loadProduct(ctx: RequestContext, id: string, options: { forWrite?: boolean } = {}): Promise<Product> {
  const products = tenantRepository(ctx, Product, productNotFound);
  const product = options.forWrite
    ? await products.findOne({ where: { id }, lock: { mode: 'pessimistic_write' } })
    : await products.findOneBy({ id });
  if (!product) throw productNotFound();
  if (ctx.actor.type === 'api_key' && ctx.actor.storeId !== product.storeId) throw productNotFound();
  await requireStore(ctx, product.storeId, { forWrite: options.forWrite });
  return product;
}

export async function loadParts(ctx: RequestContext, product: Product): Promise<ProductParts> {
  const variants = await tenantRepository(ctx, ProductVariant).find({
    where: { productId: product.id },
    order: { position: 'ASC', id: 'ASC' },
  });
  const images = await ctx.manager.find(ProductImage, { where: { productId: product.id }, order: { position: 'ASC', id: 'ASC' } });
  const categories = await ctx.manager.find(ProductCategory, { where: { productId: product.id }, order: { position: 'ASC' } });
  const tags = await ctx.manager.find(ProductTagAssignment, {
    where: { productId: product.id },
    order: { createdAt: 'ASC', tagId: 'ASC' },
  });
  return { product, variants, images, categoryIds: categories.map((c) => c.categoryId), tagIds: tags.map((t) => t.tagId) };
}

export interface ProductVariantView {
  id: string;
  sku: string | null;
  barcode: string | null;
  options: Record<string, string>;
  price: number | null;
  compareAtPrice: number | null;
  stock: number;
  position: number;
}

export interface ProductImageView {
  id: string;
  url: string;
  alt: string | null;
  position: number;
}

/** A product with its variants and images, as the product operations answer it (products.schemas.ts ProductItem). */
export interface ProductView {
  id: string;
  storeId: string;
  title: string;
  slug: string;
  descriptionHtml: string;
  type: ProductType;
  status: ProductStatus;
  price: number;
  compareAtPrice: number | null;
  discountPercent: number;
  currency: string;
  brandId: string | null;
  vendorId: string | null;
  vendorName: string | null;
  categoryIds: string[];
  tagIds: string[];
  attributes: Record<string, string | number | boolean>;
  translations: Record<string, { title?: string; descriptionHtml?: string }>;
  inStock: boolean;
  variants: ProductVariantView[];
  images: ProductImageView[];
  rating: number;
  reviewCount: number;
  salesCount: number;
  viewCount: number;
  publishedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A product of a list, page or search, with its summed stock and first image (products.schemas.ts ProductSummary). */
export type ProductSummaryView = Pick<
  ProductView,
  | 'id'
  | 'storeId'
  | 'title'
  | 'slug'
  | 'type'
  | 'status'
  | 'price'
  | 'compareAtPrice'
  | 'discountPercent'
  | 'currency'
  | 'brandId'
  | 'vendorId'
  | 'inStock'
  | 'publishedAt'
  | 'createdAt'
  | 'updatedAt'
> & {
  /** Summed over the variants. */
  stock: number;
  /** The first image's URL. */
  imageUrl: string | null;
};

export function productView(parts: ProductParts): ProductView {
  const { product: p } = parts;
  return {
    id: p.id,
    storeId: p.storeId,
    title: p.title,
    slug: p.slug,
    descriptionHtml: p.descriptionHtml,
    type: p.type,
    status: p.status,
    price: moneyNumber(p.price),
    compareAtPrice: optionalMoneyNumber(p.compareAtPrice),
    discountPercent: discountPercent(p.price, p.compareAtPrice),
    currency: p.currency,
    brandId: p.brandId,
    vendorId: p.vendorId,
    vendorName: p.vendorName,
    categoryIds: parts.categoryIds,
    tagIds: parts.tagIds,
    attributes: p.attributes,
    translations: p.translations,
    inStock: parts.variants.some((v) => v.stock > 0),
    variants: parts.variants.map((v) => ({
      id: v.id,
      sku: v.sku,
      barcode: v.barcode,
      options: v.options,
      price: optionalMoneyNumber(v.price),
      compareAtPrice: optionalMoneyNumber(v.compareAtPrice),
      stock: v.stock,
      position: v.position,
    })),
    images: parts.images.map((i) => ({ id: i.id, url: i.url, alt: i.alt, position: i.position })),
    rating: Number(p.rating),
    reviewCount: p.reviewCount,
    salesCount: p.salesCount,
    viewCount: Number(p.viewCount),
    publishedAt: p.publishedAt ? p.publishedAt.toISOString() : null,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

/** What a merchant set, in one comparable form: equal states mean a replace changes nothing. Also the audit's before/after. */
export function productState(parts: ProductParts): Record<string, unknown> {
  const { product: p } = parts;
  return {
    storeId: p.storeId,
    title: p.title,
    slug: p.slug,
    descriptionHtml: p.descriptionHtml,
    type: p.type,
    status: p.status,
    price: canonicalMoney(p.price),
    compareAtPrice: canonicalMoney(p.compareAtPrice),
    currency: p.currency,
    brandId: p.brandId,
    vendorId: p.vendorId,
    vendorName: p.vendorName,
    categoryIds: parts.categoryIds,
    tagIds: [...parts.tagIds].map((id) => id.toLowerCase()).sort(),
    attributes: p.attributes,
    translations: p.translations,
    variants: parts.variants.map((v) => ({
      sku: v.sku,
      barcode: v.barcode,
      options: v.options,
      price: canonicalMoney(v.price),
      compareAtPrice: canonicalMoney(v.compareAtPrice),
      stock: v.stock,
    })),
    images: parts.images.map((i) => ({ url: i.url, alt: i.alt })),
  };
}

/** Deterministic JSON (sorted object keys) for comparing states. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
