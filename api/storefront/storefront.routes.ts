/**
 * Public storefront reads of the catalog (document 2, "Catalog: public (storefront)"): search,
 * suggest, product, category, brand, collection and filter pages, and visitor view tracking.
 * No token; only published data of the store in the path or query (ruling 7).
 */
import Joi from 'joi';
import { defineRoutes, listedRequired } from '../http/route';
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
  },
  {
    operationId: 'storefront.trackProductView',
    method: 'POST',
    path: '/catalog/public/stores/{storeId}/products/{productId}/view',
    summary: 'Record that a visitor viewed a product',
    status: 204,
  },
  { operationId: 'storefront.listCategories', method: 'GET', path: '/catalog/public/stores/{storeId}/categories', summary: 'The category tree of a store', status: 200 },
  { operationId: 'storefront.listBrands', method: 'GET', path: '/catalog/public/stores/{storeId}/brands', summary: 'The active brands of a store', status: 200 },
  { operationId: 'storefront.getBrand', method: 'GET', path: '/catalog/public/stores/{storeId}/brands/{slug}', summary: 'One active brand by its slug', status: 200 },
  {
    operationId: 'storefront.filterConfig',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/filter-config',
    summary: 'Which search filters the storefront shows, in order',
    status: 200,
  },
  { operationId: 'storefront.getCategory', method: 'GET', path: '/catalog/public/stores/{storeId}/categories/{slug}', summary: 'One category by its slug', status: 200 },
  {
    operationId: 'storefront.relatedProducts',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/products/{productId}/related',
    summary: 'Published products related to a product',
    description: 'limit is not typed by the specification; 1 to 100, default 50.',
    query: { limit: listedRequired(positiveInt(100).default(50)) },
    status: 200,
  },
  {
    operationId: 'storefront.productBundle',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/products/{productId}/bundle',
    summary: 'Bundle details of a product',
    status: 200,
  },
  {
    operationId: 'storefront.sitemapFeed',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/sitemap-feed',
    summary: 'Published catalog entries of a store for a sitemap, page by page',
    description:
      'cursor and limit are not typed by the specification: cursor is the opaque nextCursor of the previous page; limit is 1 to 1000, default 500 (sitemap generators read large pages).',
    query: { cursor: listedRequired(cursor()), limit: listedRequired(positiveInt(1000).default(500)) },
    status: 200,
  },
  { operationId: 'storefront.listCollections', method: 'GET', path: '/catalog/public/stores/{storeId}/collections', summary: 'The active collections of a store', status: 200 },
  {
    operationId: 'storefront.getCollection',
    method: 'GET',
    path: '/catalog/public/stores/{storeId}/collections/{slug}',
    summary: 'One active collection by its slug, with its products',
    status: 200,
  },
]);
