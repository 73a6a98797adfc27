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

type Params = Record<string, string>;

const searchEngine = searchEngineOf;

const PAIRS = (what: string): string =>
  `\`name:value\` of a ${what} (e.g. \`size:M\`); a bare \`value\` matches that value under any name. Values of one name are alternatives (OR), different names all apply (AND). Repeat the parameter or give a comma-separated list; a comma inside a value is written \`\\,\`.`;

/** When price filters and sorts are ignored (see ignoredParams of the answer). */
const NOT_SHOWN = 'the store does not show prices to this visitor (price visibility); the answer names it in ignoredParams';

/** The per-client request limit of search and suggest (api/storefront/public-limits.ts). */
const PUBLIC_SEARCH_LIMIT =
  'Rate limited per client address: search and suggest together at most SEARCH_PUBLIC_REQUESTS_PER_MINUTE requests a minute (1200 by default, across all stores; an IPv6 client counts by its /64), then 429 rate_limited with Retry-After. Cached answers count too.';

const SEARCH_DESCRIPTION = [
  'No token. Only published products of the store (a store that does not exist or is archived answers 404 store_not_found).',
  'Filters: `type`, `categoryId` (the category and its whole subtree), `brandId`, `vendorId`, `ids`, `priceMin`/`priceMax` (inclusive), `minRating`, `inStock`, `discounted`, `categoryIds`/`brandIds` (any of), `options`/`attrs`. Array parameters accept repeated parameters and comma-separated values.',
  "Facets are the enabled facets of the store's filter configuration, in its order, with disjunctive counts: a facet's counts apply every selection except its own (categoryIds, brandIds, vendorId, type, price range, minRating, inStock, discounted, and the `name:value` selections of that option or attribute), so a shopper sees what the other values would give. categoryId and brandId are page context (a category or brand page) and always apply.",
  'Sorts: relevance (default; the query words decide), newest, price_asc, price_desc, discount (largest percent off first), most_reviewed, rating, best_selling, most_viewed; ties go to the newest product. A chosen sort orders the results strictly.',
  "Matching: every word must match (typos tolerated, the last word as a prefix). When that finds nothing, looser passes are tried in turn: word forms (numbers split from units such as 500ml, plurals reduced to the singular, punctuation ignored), then fewer words (the most common words of the query dropped first); `matching.strategy` and `looseMatch` say which pass answered. A search with a query that still finds nothing is counted in the store's zero-result queries.",
  `Sponsored: on the first page, active sponsored listings of the store whose keywords match the query and whose product matches every filter take at most one slot per ${SPONSORED_SHARE} results of perPage (3 on a page of 24), marked \`sponsored: true\`, at positions 1, ${SPONSORED_SHARE + 2}, ${2 * SPONSORED_SHARE + 3}; a product already among the page's results is not repeated. They are not counted in total.`,
  'Prices (price, compareAtPrice, discountPercent, currency) and the price facet (its stats and buckets) are left out when the store does not show prices to this visitor (price visibility). Nothing may then depend on a price either: priceMin and priceMax are ignored, and so are the price sorts (price_asc, price_desc, and discount, which orders by the percent off); the search runs as if they had not been sent (a price sort as relevance), `sort` answers the sort applied, and `ignoredParams` names what was ignored (e.g. `["priceMin", "sort"]`; empty otherwise). They are ignored rather than refused so that shared links and storefront sections that ask for them keep working for visitors who cannot see prices.',
  "Answers are cached per store and normalised parameters, and dropped as soon as the store's index, settings, price visibility, filter configuration or sponsored listings change.",
  PUBLIC_SEARCH_LIMIT,
].join('\n\n');

/** What every built public read shares (docs/decisions.md, Tenancy). */
const PUBLIC =
  "No token. A store that does not exist or is archived answers 404 store_not_found; only this store's published products and active categories, brands, collections and bundles are shown.";
/** What the price-carrying public reads say about price visibility. */
const NO_PRICES =
  'When the store does not show prices to this visitor (price visibility HIDDEN, or SIGNED_IN without a valid access token), the price fields are absent';

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
    description: `${PUBLIC} The store's price visibility (EVERYONE, SIGNED_IN, HIDDEN) and whether this request sees prices. Signed in means the request carries \`Authorization: Bearer <access token>\` of a signed-in user (any tenant); a missing, malformed, expired or revoked token never fails a public request, it only counts as not signed in. Where prices are not shown, search, suggest, product, related products, bundle, collection, flash sale and query-by-image reads leave the price fields out, search and query by image ignore price filters and price sorts, the public filter configuration leaves out the price facet, and the shipping quote does not use catalog prices.`,
    response: PriceVisibilityResponse,
    handler: (req: RouteRequest<Params>) => publicPriceVisibility(req.context, req.params.storeId!),
  },
  {
    operationId: 'storefront.search',
    method: 'GET',
    path: '/catalog/public/search',
    summary: 'Search the published products of a store with filters, sort and facets',
    description: SEARCH_DESCRIPTION,
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
    description:
      "No token. Products whose words start with what was typed (the last word as a prefix, typos tolerated, fewer words matched while typing), plus the store's active categories and brands whose names match (every typed word starts a word of the name, or is one typo away from a word of 5 letters or more); each list holds at most `limit`. q is the text being completed, so it stays required (the specification marks it required with length 1 to 200). locale is not typed for suggest; it follows the public search rule. limit has no stated default; 8. Prices are left out when the store does not show them to this visitor. Cached like search. " +
      PUBLIC_SEARCH_LIMIT,
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
    description: `${PUBLIC} Drafts, archived and unknown slugs answer 404 product_not_found (slug compared case-insensitively). Public fields only: no costs, no stock levels (inStock per variant and for the product), ids of the product, its variants, brand and categories only. ${NO_PRICES} (price, compareAtPrice, discountPercent, currency, and each variant's price and compareAtPrice).`,
    response: PublicProductResponse,
    handler: (req: RouteRequest<Params>) => getProduct(req.context, req.params.storeId!, req.params.slug!),
  },
  {
    operationId: 'storefront.trackProductView',
    method: 'POST',
    path: '/catalog/public/stores/{storeId}/products/{productId}/view',
    summary: 'Record that a visitor viewed a product',
    status: 204,
    description: `${PUBLIC} Adds one to the product's view count (the most_viewed sort of the public search) with a single UPDATE, at most once per client address and product in PRODUCT_VIEW_WINDOW_SECONDS (an hour by default; an IPv6 client counts by its /64): a repeated view, such as a reload, answers 204 all the same but is not counted. A product that is not published in the store answers 404 product_not_found. No audit entry and no outbox row: a visitor counter is not a merchant write, and the search index picks the count up with the product's next event or a reindex.`,
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
    description: `${PUBLIC} The configuration as merchants saved it (or the default), with only the enabled facets, in position order. When the store does not show prices to this visitor, the price facet is left out and priceBuckets is empty.`,
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
    description: `${PUBLIC} Published related products: RELATED first by position, then UPSELL, then CROSS_SELL. A product that is not published in the store answers 404 product_not_found. limit is not typed by the specification; 1 to 100, default 50. ${NO_PRICES} (price, compareAtPrice, discountPercent of each item).`,
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
    description: `${PUBLIC} The active bundles sold as the product or containing it, with computed prices as the bundle read returns them; a product that is not published answers 404 product_not_found, one without an active bundle 404 bundle_not_found. ${NO_PRICES} (pricing, currency, itemsTotal, bundlePrice, savings, savingsPercent, and each item's unitPrice and productCurrency).`,
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
    handler: (req: RouteRequest<Params, { cursor?: string; limit?: number }>) =>
      sitemapFeed(req.context, req.params.storeId!, req.query.cursor, req.query.limit!),
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
    description: `${PUBLIC} An inactive or unknown collection answers 404 collection_not_found; its published products in the collection's order. ${NO_PRICES} (price, compareAtPrice, discountPercent of each product).`,
    response: PublicCollectionResponse,
    handler: (req: RouteRequest<Params>) => getCollection(req.context, req.params.storeId!, req.params.slug!),
  },
]);
