/** Merchant product catalog: lists, CRUD and state moves (document 2, "Catalog: products (merchant)"). */
import { defineRoutes, listedRequired } from '../http/route';
import { bool, cursor, dateTime, number, oneOf, positiveInt, storeId, text, uuid, uuidArray } from '../http/schema-types';
import { CreateProductDto, PRODUCT_SORT_FIELDS, PRODUCT_STATUSES, PRODUCT_TYPES, SORT_DIRECTIONS, UpdateProductDto } from './products.schemas';

/** The filters the paged list and the search share; listed "(all r)", optional here (ruling 3). */
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
  'The specification does not type these parameters: page is 1 to 1000 (default 1), limit 1 to 100 (default 50), status one of DRAFT, PUBLISHED, ARCHIVED, search 1 to 200 characters, ids are UUIDs, type the product type enum, priceMin and priceMax 0 to 1000000000, createdFrom and createdTo ISO 8601 timestamps, hasBarcode true or false, sortBy one of createdAt, updatedAt, name, price, stock (default createdAt), sortDir asc or desc (default desc).';

export const productRoutes = defineRoutes({ tag: 'catalog', auth: 'merchant' }, [
  { operationId: 'products.list', method: 'GET', path: '/catalog/products', summary: 'All products of a store', query: { storeId: storeId() }, status: 200 },
  { operationId: 'products.create', method: 'POST', path: '/catalog/products', summary: 'Create a product', body: CreateProductDto, status: 201 },
  {
    operationId: 'products.categoryValue',
    method: 'GET',
    path: '/catalog/products/category-value',
    summary: 'Catalog value per category of a store',
    description: 'The specification shows only the path; read as the product count and stock value of each category.',
    query: { storeId: storeId() },
    status: 200,
  },
  {
    operationId: 'products.page',
    method: 'GET',
    path: '/catalog/products/page',
    summary: 'One page of the products of a store, filtered and sorted',
    description: `${untyped} cursor is the opaque nextCursor of the previous page; when a cursor is given it wins over page. ids: at most 100 UUIDs.`,
    query: { storeId: storeId(), cursor: listedRequired(cursor()), ...productFilters(), ids: listedRequired(uuidArray(100)) },
    status: 200,
  },
  {
    operationId: 'products.search',
    method: 'GET',
    path: '/catalog/products/search',
    summary: 'Search the products of a store for the admin panel',
    description: `${untyped} vendorId is a UUID.`,
    query: { storeId: storeId(), ...productFilters(), vendorId: listedRequired(uuid()) },
    status: 200,
  },
  { operationId: 'products.get', method: 'GET', path: '/catalog/products/{id}', summary: 'One product with its variants', status: 200 },
  { operationId: 'products.update', method: 'PUT', path: '/catalog/products/{id}', summary: 'Replace a product', body: UpdateProductDto, status: 200 },
  { operationId: 'products.delete', method: 'DELETE', path: '/catalog/products/{id}', summary: 'Delete a product permanently', status: 204 },
  { operationId: 'products.publish', method: 'POST', path: '/catalog/products/{id}/publish', summary: 'Publish a product to the storefront', status: 201 },
  { operationId: 'products.archive', method: 'POST', path: '/catalog/products/{id}/archive', summary: 'Archive a product', status: 201 },
  { operationId: 'products.duplicate', method: 'POST', path: '/catalog/products/{id}/duplicate', summary: 'Copy a product as a new draft', status: 201 },
]);
