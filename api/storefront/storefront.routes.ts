/**
 * Public storefront reads of the catalog (docs/search.md): search,
 * suggest, product, category, brand, collection and filter pages, and visitor view tracking.
 * No token; only published data of the store in the path or query (docs/decisions.md, Tenancy).
 */
import Joi from 'joi';
import { defineRoutes, listedRequired, type RouteRequest } from '../http/route';
import { FilterConfigResponse } from '../filter-config/filter-config.schemas';
import {
  PriceVisibilityResponse,
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
  publicPriceVisibility,
  relatedProducts,
  sitemapFeed,
  trackProductView,
} from './storefront.service';

import { bool, cursor, number, oneOf, positiveInt, queryArray, storeId, text, uuid, uuidArray } from '../http/schema-types';
import { PRODUCT_TYPES } from '../products/products.schemas';
import { PUBLIC_SEARCH_SORTS } from '../../search/public-search-request';
import { PublicSearchResponse, PublicSuggestResponse } from './search.schemas';
import { SPONSORED_SHARE, searchEngineOf } from '../../search/public-search';
import type { PublicSearchParams } from '../../search/public-search-request';
import type { SuggestParams } from '../../search/suggest';
import { pricesShown } from '../../domain/price-visibility';
import { hitPublicSearchLimit } from './public-limits';
import {
  FILTER_CONFIG_DESCRIPTION,
  GET_BRAND_DESCRIPTION,
  GET_CATEGORY_DESCRIPTION,
  GET_COLLECTION_DESCRIPTION,
  GET_PRODUCT_DESCRIPTION,
  LIST_BRANDS_DESCRIPTION,
  LIST_CATEGORIES_DESCRIPTION,
  LIST_COLLECTIONS_DESCRIPTION,
  PRICE_VISIBILITY_DESCRIPTION,
  PRODUCT_BUNDLE_DESCRIPTION,
  RELATED_PRODUCTS_DESCRIPTION,
  searchDescription,
  SITEMAP_FEED_DESCRIPTION,
  SUGGEST_DESCRIPTION,
  TRACK_PRODUCT_VIEW_DESCRIPTION,
} from './storefront.descriptions';

type Params = Record<string, string>;

const searchEngine = searchEngineOf;

const PAIRS = (what: string): string =>
  `\`name:value\` of a ${what} (e.g. \`size:M\`); a bare \`value\` matches that value under any name. Values of one name are alternatives (OR), different names all apply (AND). Repeat the parameter or give a comma-separated list; a comma inside a value is written \`\\,\`.`;

/** When price filters and sorts are ignored (see ignoredParams of the answer). */
const NOT_SHOWN = 'the store does not show prices to this visitor (price visibility); the answer names it in ignoredParams';

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
    description: PRICE_VISIBILITY_DESCRIPTION,
    response: PriceVisibilityResponse,
    handler: (req: RouteRequest<Params>) => publicPriceVisibility(req.context, req.params.storeId!),
  },
  {
    operationId: 'storefront.search',
    method: 'GET',
    path: '/catalog/public/search',
    summary: 'Search the published products of a store with filters, sort and facets',
    description: searchDescription(SPONSORED_SHARE),
    query: {
      storeId: storeId(),
      locale: locale(),
      q: Joi.string().max(200).allow('').description('Search text; empty or absent lists everything that matches the filters.'),
      page: positiveInt(100).default(1),
      perPage: positiveInt(60).default(24),
      sort: oneOf(PUBLIC_SEARCH_SORTS)
        .default('relevance')
        .description(`price_asc, price_desc and discount are ignored (relevance applies) when ${NOT_SHOWN}.`),
      type: oneOf(PRODUCT_TYPES),
      categoryId: uuid(),
      brandId: uuid(),
      vendorId: uuid(),
      categoryIds: uuidArray(40),
      brandIds: uuidArray(40),
      ids: uuidArray(60),
      priceMin: number(0, 1_000_000_000).description(`Inclusive. Ignored when ${NOT_SHOWN}.`),
      priceMax: number(0, 1_000_000_000).description(`Inclusive. Ignored when ${NOT_SHOWN}.`),
      minRating: number(0, 5),
      inStock: bool(),
      discounted: bool(),
      options: queryArray(text(3, 180), 40, { commaSeparated: true }).description(PAIRS('variant option')),
      attrs: queryArray(text(3, 180), 40, { commaSeparated: true }).description(PAIRS('attribute')),
    },
    status: 200,
    response: PublicSearchResponse,
    problems: [429],
    handler: async (req: RouteRequest<Params>) => {
      hitPublicSearchLimit(req.context);
      return searchEngine(req.context).search(req.query as PublicSearchParams, (profile) =>
        pricesShown(req.context, profile.priceVisibility),
      );
    },
  },
  {
    operationId: 'storefront.suggest',
    method: 'GET',
    path: '/catalog/public/suggest',
    summary: 'Search-as-you-type suggestions for a partial query',
    description: SUGGEST_DESCRIPTION,
    query: {
      storeId: storeId(),
      locale: locale(),
      q: text(1, 200).required(),
      limit: positiveInt(12).default(8),
    },
    status: 200,
    response: PublicSuggestResponse,
    problems: [429],
    handler: async (req: RouteRequest<Params>) => {
      hitPublicSearchLimit(req.context);
      return searchEngine(req.context).suggest(req.query as SuggestParams, (profile) => pricesShown(req.context, profile.priceVisibility));
    },
  },
  {
    operationId: 'storefront.getProduct',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/products/{slug}',
    summary: 'One published product by its slug',
    status: 200,
    description: GET_PRODUCT_DESCRIPTION,
    response: PublicProductResponse,
    handler: (req: RouteRequest<Params>) => getProduct(req.context, req.params.storeId!, req.params.slug!),
  },
  {
    operationId: 'storefront.trackProductView',
    method: 'POST',
    path: '/catalog/public/stores/{storeId}/products/{productId}/view',
    summary: 'Record that a visitor viewed a product',
    status: 204,
    description: TRACK_PRODUCT_VIEW_DESCRIPTION,
    handler: async (req: RouteRequest<Params>) => trackProductView(req.context, req.params.storeId!, req.params.productId!),
  },
  {
    operationId: 'storefront.listCategories',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/categories',
    summary: 'The category tree of a store',
    status: 200,
    description: LIST_CATEGORIES_DESCRIPTION,
    response: PublicCategoryTreeResponse,
    handler: (req: RouteRequest<Params>) => listCategories(req.context, req.params.storeId!),
  },
  {
    operationId: 'storefront.listBrands',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/brands',
    summary: 'The active brands of a store',
    status: 200,
    description: LIST_BRANDS_DESCRIPTION,
    response: PublicBrandListResponse,
    handler: (req: RouteRequest<Params>) => listBrands(req.context, req.params.storeId!),
  },
  {
    operationId: 'storefront.getBrand',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/brands/{slug}',
    summary: 'One active brand by its slug',
    status: 200,
    description: GET_BRAND_DESCRIPTION,
    response: PublicBrandResponse,
    handler: (req: RouteRequest<Params>) => getBrand(req.context, req.params.storeId!, req.params.slug!),
  },
  {
    operationId: 'storefront.filterConfig',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/filter-config',
    summary: 'Which search filters the storefront shows, in order',
    status: 200,
    description: FILTER_CONFIG_DESCRIPTION,
    response: FilterConfigResponse,
    handler: (req: RouteRequest<Params>) => publicFilterConfig(req.context, req.params.storeId!),
  },
  {
    operationId: 'storefront.getCategory',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/categories/{slug}',
    summary: 'One category by its slug',
    status: 200,
    description: GET_CATEGORY_DESCRIPTION,
    response: PublicCategoryResponse,
    handler: (req: RouteRequest<Params>) => getCategory(req.context, req.params.storeId!, req.params.slug!),
  },
  {
    operationId: 'storefront.relatedProducts',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/products/{productId}/related',
    summary: 'Published products related to a product',
    description: RELATED_PRODUCTS_DESCRIPTION,
    query: { limit: listedRequired(positiveInt(100).default(50)) },
    status: 200,
    response: PublicRelatedProductsResponse,
    handler: (req: RouteRequest<Params, Record<string, number>>) =>
      relatedProducts(req.context, req.params.storeId!, req.params.productId!, req.query.limit!),
  },
  {
    operationId: 'storefront.productBundle',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/products/{productId}/bundle',
    summary: 'Bundle details of a product',
    status: 200,
    description: PRODUCT_BUNDLE_DESCRIPTION,
    response: PublicBundleResponse,
    handler: (req: RouteRequest<Params>) => productBundles(req.context, req.params.storeId!, req.params.productId!),
  },
  {
    operationId: 'storefront.sitemapFeed',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/sitemap-feed',
    summary: 'Published catalog entries of a store for a sitemap, page by page',
    description: SITEMAP_FEED_DESCRIPTION,
    query: { cursor: listedRequired(cursor()), limit: listedRequired(positiveInt(1000).default(500)) },
    status: 200,
    response: SitemapFeedResponse,
    handler: (req: RouteRequest<Params, { cursor?: string; limit?: number }>) =>
      sitemapFeed(req.context, req.params.storeId!, req.query.cursor, req.query.limit!),
  },
  {
    operationId: 'storefront.listCollections',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/collections',
    summary: 'The active collections of a store',
    status: 200,
    description: LIST_COLLECTIONS_DESCRIPTION,
    response: PublicCollectionListResponse,
    handler: (req: RouteRequest<Params>) => listCollections(req.context, req.params.storeId!),
  },
  {
    operationId: 'storefront.getCollection',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/collections/{slug}',
    summary: 'One active collection by its slug, with its products',
    status: 200,
    description: GET_COLLECTION_DESCRIPTION,
    response: PublicCollectionResponse,
    handler: (req: RouteRequest<Params>) => getCollection(req.context, req.params.storeId!, req.params.slug!),
  },
]);
