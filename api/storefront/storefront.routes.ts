/**
 * Public storefront reads of the catalog (document 2, "Catalog: public (storefront)"): search,
 * suggest, product, category, brand, collection and filter pages, and visitor view tracking.
 * No token; only published data of the store in the path or query (ruling 7).
 */
import Joi from 'joi';
import { defineRoutes, listedRequired, type RouteRequest } from '../http/route';
import { FilterConfigResponse } from '../filter-config/filter-config.schemas';
import {
  PublicBrandListResponse,
  PublicBrandResponse,
  PublicBundleResponse,
  PublicCategoryResponse,
  PublicCategoryTreeResponse,
  PublicCollectionListResponse,
  PublicCollectionResponse,
  PublicProductResponse,
  PublicRelatedProductsResponse,
  SitemapFeedResponse,
} from './storefront.schemas';
import {
  getBrand,
  getCategory,
  getCollection,
  getProduct,
  listBrands,
  listCategories,
  listCollections,
  productBundles,
  publicFilterConfig,
  relatedProducts,
  sitemapFeed,
  trackProductView,
} from './storefront.service';

type Params = Record<string, string>;

/** What every built public read shares (ruling 7). */
const PUBLIC = "No token. A store that does not exist or is archived answers 404 store_not_found; only this store's published products and active categories, brands, collections and bundles are shown.";
import { bool, cursor, number, oneOf, positiveInt, queryArray, storeId, text, uuid, uuidArray } from '../http/schema-types';
import { PRODUCT_TYPES, PUBLIC_SEARCH_SORTS } from '../products/products.schemas';

/** "at most 10 characters: two lowercase letters, optionally a hyphen and 2 to 8 alphanumerics" */
const locale = (): Joi.StringSchema =>
  Joi.string()
    .max(10)
    .pattern(/^[a-z]{2}(-[A-Za-z0-9]{2,8})?$/, 'locale')
    .messages({ 'string.pattern.name': '{{#label}} must be a locale such as en or en-US' });

export const storefrontRoutes = defineRoutes({ tag: 'catalog', auth: 'public' }, [
  {
    operationId: 'storefront.priceVisibility',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/price-visibility',
    summary: 'Whether the store shows prices to visitors',
    status: 200,
  },
  {
    operationId: 'storefront.search',
    method: 'GET',
    path: '/catalog/public/search',
    summary: 'Search the published products of a store with filters, sort and facets',
    query: {
      storeId: storeId(),
      locale: locale(),
      q: Joi.string().max(200).allow('').description('Search text; empty or absent lists everything that matches the filters.'),
      page: positiveInt(100).default(1),
      perPage: positiveInt(60).default(24),
      sort: oneOf(PUBLIC_SEARCH_SORTS).default('relevance'),
      type: oneOf(PRODUCT_TYPES),
      categoryId: uuid(),
      brandId: uuid(),
      vendorId: uuid(),
      categoryIds: uuidArray(40),
      brandIds: uuidArray(40),
      ids: uuidArray(60),
      priceMin: number(0, 1_000_000_000),
      priceMax: number(0, 1_000_000_000),
      minRating: number(0, 5),
      inStock: bool(),
      discounted: bool(),
      options: queryArray(text(3, 180), 40),
      attrs: queryArray(text(3, 180), 40),
    },
    status: 200,
  },
  {
    operationId: 'storefront.suggest',
    method: 'GET',
    path: '/catalog/public/suggest',
    summary: 'Search-as-you-type suggestions for a partial query',
    description:
      'q is the text being completed, so it stays required (the specification marks it required with length 1 to 200). locale is not typed for suggest; it follows the public search rule. limit has no stated default; 8.',
    query: {
      storeId: storeId(),
      locale: locale(),
      q: text(1, 200).required(),
      limit: positiveInt(12).default(8),
    },
    status: 200,
  },
  {
    operationId: 'storefront.getProduct',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/products/{slug}',
    summary: 'One published product by its slug',
    status: 200,
    description: `${PUBLIC} Drafts, archived and unknown slugs answer 404 product_not_found (slug compared case-insensitively). Public fields only: no costs, no stock levels (inStock per variant and for the product), ids of the product, its variants, brand and categories only.`,
    response: PublicProductResponse,
    handler: (req: RouteRequest<Params>) => getProduct(req.context, req.params.storeId!, req.params.slug!),
  },
  {
    operationId: 'storefront.trackProductView',
    method: 'POST',
    path: '/catalog/public/stores/{storeId}/products/{productId}/view',
    summary: 'Record that a visitor viewed a product',
    status: 204,
    description: `${PUBLIC} Adds one to the product's view count with a single UPDATE; a product that is not published in the store answers 404 product_not_found. No audit entry and no outbox row: a visitor counter is not a merchant write, and the search index picks the count up with the product's next event or a reindex.`,
    handler: async (req: RouteRequest<Params>) => trackProductView(req.context, req.params.storeId!, req.params.productId!),
  },
  {
    operationId: 'storefront.listCategories',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/categories',
    summary: 'The category tree of a store',
    status: 200,
    description: `${PUBLIC} The active categories as a tree (children in display order); an inactive category hides its whole subtree.`,
    response: PublicCategoryTreeResponse,
    handler: (req: RouteRequest<Params>) => listCategories(req.context, req.params.storeId!),
  },
  {
    operationId: 'storefront.listBrands',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/brands',
    summary: 'The active brands of a store',
    status: 200,
    description: `${PUBLIC} Ordered by name; not paged.`,
    response: PublicBrandListResponse,
    handler: (req: RouteRequest<Params>) => listBrands(req.context, req.params.storeId!),
  },
  {
    operationId: 'storefront.getBrand',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/brands/{slug}',
    summary: 'One active brand by its slug',
    status: 200,
    description: `${PUBLIC} An inactive or unknown brand answers 404 brand_not_found.`,
    response: PublicBrandResponse,
    handler: (req: RouteRequest<Params>) => getBrand(req.context, req.params.storeId!, req.params.slug!),
  },
  {
    operationId: 'storefront.filterConfig',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/filter-config',
    summary: 'Which search filters the storefront shows, in order',
    status: 200,
    description: `${PUBLIC} The configuration as merchants saved it (or the default), with only the enabled facets, in position order.`,
    response: FilterConfigResponse,
    handler: (req: RouteRequest<Params>) => publicFilterConfig(req.context, req.params.storeId!),
  },
  {
    operationId: 'storefront.getCategory',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/categories/{slug}',
    summary: 'One category by its slug',
    status: 200,
    description: `${PUBLIC} One active category (not under an inactive one) with its active children and its ancestors from the root (breadcrumb); otherwise 404 category_not_found.`,
    response: PublicCategoryResponse,
    handler: (req: RouteRequest<Params>) => getCategory(req.context, req.params.storeId!, req.params.slug!),
  },
  {
    operationId: 'storefront.relatedProducts',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/products/{productId}/related',
    summary: 'Published products related to a product',
    description: `${PUBLIC} Published related products: RELATED first by position, then UPSELL, then CROSS_SELL. A product that is not published in the store answers 404 product_not_found. limit is not typed by the specification; 1 to 100, default 50.`,
    query: { limit: listedRequired(positiveInt(100).default(50)) },
    status: 200,
    response: PublicRelatedProductsResponse,
    handler: (req: RouteRequest<Params, Record<string, number>>) => relatedProducts(req.context, req.params.storeId!, req.params.productId!, req.query.limit!),
  },
  {
    operationId: 'storefront.productBundle',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/products/{productId}/bundle',
    summary: 'Bundle details of a product',
    status: 200,
    description: `${PUBLIC} The active bundles sold as the product or containing it, with computed prices as the bundle read returns them; a product that is not published answers 404 product_not_found, one without an active bundle 404 bundle_not_found.`,
    response: PublicBundleResponse,
    handler: (req: RouteRequest<Params>) => productBundles(req.context, req.params.storeId!, req.params.productId!),
  },
  {
    operationId: 'storefront.sitemapFeed',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/sitemap-feed',
    summary: 'Published catalog entries of a store for a sitemap, page by page',
    description:
      PUBLIC +
      ' Published products ordered by id. cursor and limit are not typed by the specification: cursor is the opaque nextCursor of the previous page; limit is 1 to 1000, default 500 (sitemap generators read large pages).',
    query: { cursor: listedRequired(cursor()), limit: listedRequired(positiveInt(1000).default(500)) },
    status: 200,
    response: SitemapFeedResponse,
    handler: (req: RouteRequest<Params, { cursor?: string; limit?: number }>) => sitemapFeed(req.context, req.params.storeId!, req.query.cursor, req.query.limit!),
  },
  {
    operationId: 'storefront.listCollections',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/collections',
    summary: 'The active collections of a store',
    status: 200,
    description: `${PUBLIC} In display order; not paged.`,
    response: PublicCollectionListResponse,
    handler: (req: RouteRequest<Params>) => listCollections(req.context, req.params.storeId!),
  },
  {
    operationId: 'storefront.getCollection',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/collections/{slug}',
    summary: 'One active collection by its slug, with its products',
    status: 200,
    description: `${PUBLIC} An inactive or unknown collection answers 404 collection_not_found; its published products in the collection's order.`,
    response: PublicCollectionResponse,
    handler: (req: RouteRequest<Params>) => getCollection(req.context, req.params.storeId!, req.params.slug!),
  },
]);
