/** Merchant product catalog: lists, CRUD and state moves (docs/catalog.md). */
import { defineRoutes, listedRequired, type RouteRequest } from '../http/route';
import { bool, cursor, dateTime, number, oneOf, positiveInt, storeId, text, uuid, uuidArray } from '../http/schema-types';
import {
  CategoryValueResponse,
  CreateProductDto,
  PRODUCT_SORT_FIELDS,
  PRODUCT_STATUSES,
  PRODUCT_TYPES,
  ProductListResponse,
  ProductPageResponse,
  ProductResponse,
  ProductSearchResponse,
  SORT_DIRECTIONS,
  UpdateProductDto,
} from './products.schemas';
import { categoryValue, listProducts, pageProducts, searchProducts, type ProductFilters } from './products.queries';
import {
  archiveProduct,
  createProduct,
  deleteProduct,
  duplicateProduct,
  getProduct,
  publishProduct,
  replaceProduct,
  type CreateProductInput,
  type ProductInput,
} from './products.service';

type Params = Record<string, string>;

const readers = "Any member of the tenant, or an API key of the store with catalog:read. Another tenant's store or product answers 404.";
const writers =
  "Any member of the tenant (owner, admin, staff), or an API key of the store with catalog:write; an archived store answers 409 store_archived. Another tenant's store or product answers 404. Each change writes one audit entry and one outbox row (queue index, aggregate product); a request that changes nothing writes neither.";

/** The filters the paged list and the search share; listed "(all r)", optional here (docs/decisions.md, Optional filters). */
const productFilters = () => ({
  page: listedRequired(positiveInt(1000).default(1)),
  limit: listedRequired(positiveInt(100).default(50)),
  status: listedRequired(oneOf(PRODUCT_STATUSES)),
  search: listedRequired(text(1, 200).description('Free-text filter.')),
  categoryId: listedRequired(uuid()),
  brandId: listedRequired(uuid()),
  type: listedRequired(oneOf(PRODUCT_TYPES)),
  priceMin: listedRequired(number(0, 1_000_000_000)),
  priceMax: listedRequired(number(0, 1_000_000_000)),
  createdFrom: listedRequired(dateTime()),
  createdTo: listedRequired(dateTime()),
  hasBarcode: listedRequired(bool()),
  sortBy: listedRequired(oneOf(PRODUCT_SORT_FIELDS).default('createdAt')),
  sortDir: listedRequired(oneOf(SORT_DIRECTIONS).default('desc')),
});

const untyped =
  'Filters: status, type, brandId, categoryId (products directly in that category), ids, priceMin/priceMax (product price, inclusive; priceMin above priceMax is 400 invalid_range), createdFrom/createdTo (inclusive; from after to is 400 invalid_range), hasBarcode (some variant has a barcode), search (case-insensitive substring of the title, slug or a variant SKU; % and _ are literal). All statuses unless status is given. sortBy name sorts by the title case-insensitively, stock by the sum of variant stock; ties break on id. The specification does not type these parameters: page is 1 to 1000 (default 1), limit 1 to 100 (default 50), status one of DRAFT, PUBLISHED, ARCHIVED, search 1 to 200 characters, ids are UUIDs, type the product type enum, priceMin and priceMax 0 to 1000000000, createdFrom and createdTo ISO 8601 timestamps, hasBarcode true or false, sortBy one of createdAt, updatedAt, name, price, stock (default createdAt), sortDir asc or desc (default desc).';

export const productRoutes = defineRoutes({ tag: 'catalog', auth: 'merchant' }, [
  {
    operationId: 'products.list',
    method: 'GET',
    path: '/catalog/products',
    summary: 'All products of a store',
    description: `${readers} Every product of the store (any status) as summaries, newest first, 100 at a time: total counts them all, and nextCursor (null on the last page) passed back as cursor (an extension) gives the next 100. For filters and sorts use /catalog/products/page.`,
    query: { storeId: storeId(), cursor: cursor().description('Extension: the nextCursor of the previous answer.') },
    response: ProductListResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params>) => listProducts(req.context, req.query.storeId, req.query.cursor),
  },
  {
    operationId: 'products.create',
    method: 'POST',
    path: '/catalog/products',
    summary: 'Create a product',
    description: `${writers} Topic product.created. A slug used by another product of the store answers 409 slug_taken, a SKU used in the store 409 sku_taken; a brand, category or tag of another store 400 invalid_brand, invalid_category or invalid_tag; compareAtPrice below price 400 compare_at_below_price; attribute problems 400 unknown_attribute, invalid_attribute or (when PUBLISHED) missing_required_attributes.`,
    body: CreateProductDto,
    response: ProductResponse,
    status: 201,
    problems: [409],
    handler: (req: RouteRequest<Params, Params, CreateProductInput>) => createProduct(req.context, req.body),
  },
  {
    operationId: 'products.categoryValue',
    method: 'GET',
    path: '/catalog/products/category-value',
    summary: 'Catalog value per category of a store',
    description: `${readers} The specification shows only the path; read as the product count and stock value of each category: for every category of the store (ordered by name), the products directly in it (any status) and the sum over them of (variant price, else product price) × variant stock, computed in SQL numeric and answered as a decimal string with 2 decimals.`,
    query: { storeId: storeId() },
    response: CategoryValueResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params>) => categoryValue(req.context, req.query.storeId),
  },
  {
    operationId: 'products.page',
    method: 'GET',
    path: '/catalog/products/page',
    summary: 'One page of the products of a store, filtered and sorted',
    description: `${readers} ${untyped} cursor is the opaque nextCursor of the previous page (made for the same sortBy and sortDir, else 400 invalid_cursor); when a cursor is given it wins over page. ids: at most 100 UUIDs. total counts every product matching the filters.`,
    query: { storeId: storeId(), cursor: listedRequired(cursor()), ...productFilters(), ids: listedRequired(uuidArray(100)) },
    response: ProductPageResponse,
    status: 200,
    handler: (req) => pageProducts(req.context, req.query as ProductFilters),
  },
  {
    operationId: 'products.search',
    method: 'GET',
    path: '/catalog/products/search',
    summary: 'Search the products of a store for the admin panel',
    description: `${readers} ${untyped} vendorId is a UUID. Paged by page and limit; total counts every match.`,
    query: { storeId: storeId(), ...productFilters(), vendorId: listedRequired(uuid()) },
    response: ProductSearchResponse,
    status: 200,
    handler: (req) => searchProducts(req.context, req.query as ProductFilters),
  },
  {
    operationId: 'products.get',
    method: 'GET',
    path: '/catalog/products/{id}',
    summary: 'One product with its variants',
    description: readers,
    response: ProductResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => getProduct(req.context, req.params.id),
  },
  {
    operationId: 'products.update',
    method: 'PUT',
    path: '/catalog/products/{id}',
    summary: 'Replace a product',
    description: `${writers} Topic product.updated. The same checks as create. A replace identical to the product changes nothing.`,
    body: UpdateProductDto,
    response: ProductResponse,
    status: 200,
    problems: [409],
    handler: (req: RouteRequest<Params, Params, ProductInput>) => replaceProduct(req.context, req.params.id, req.body),
  },
  {
    operationId: 'products.delete',
    method: 'DELETE',
    path: '/catalog/products/{id}',
    summary: 'Delete a product permanently',
    description: `${writers} Topic product.deleted. Its variants, images, category and tag links and relations go with it.`,
    status: 204,
    handler: (req: RouteRequest<Params>) => deleteProduct(req.context, req.params.id),
  },
  {
    operationId: 'products.publish',
    method: 'POST',
    path: '/catalog/products/{id}/publish',
    summary: 'Publish a product to the storefront',
    description: `${writers} Topic product.published. Sets PUBLISHED and publishedAt; refuses with 400 missing_required_attributes (listing them) while a required attribute of its categories has no value. Publishing a published product changes nothing.`,
    response: ProductResponse,
    status: 201,
    handler: (req: RouteRequest<Params>) => publishProduct(req.context, req.params.id),
  },
  {
    operationId: 'products.archive',
    method: 'POST',
    path: '/catalog/products/{id}/archive',
    summary: 'Archive a product',
    description: `${writers} Topic product.archived. publishedAt keeps the last publication time. Archiving an archived product changes nothing.`,
    response: ProductResponse,
    status: 201,
    handler: (req: RouteRequest<Params>) => archiveProduct(req.context, req.params.id),
  },
  {
    operationId: 'products.duplicate',
    method: 'POST',
    path: '/catalog/products/{id}/duplicate',
    summary: 'Copy a product as a new draft',
    description: `${writers} Topic product.created (for the copy). The copy has the slug <slug>-copy (then -copy-2, -copy-3, … until free), status DRAFT, no publishedAt, zero counters, variants without SKUs, and the same title, description, prices, categories, tags, images, attributes and translations.`,
    response: ProductResponse,
    status: 201,
    handler: (req: RouteRequest<Params>) => duplicateProduct(req.context, req.params.id),
  },
]);
