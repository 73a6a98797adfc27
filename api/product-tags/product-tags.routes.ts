/** Product tags of a store and their assignment to products (document 2, "Catalog: categories, relations, tags, filter configuration"). */
import { defineRoutes, listedRequired } from '../http/route';
import { cursor, positiveInt, storeId, uuid } from '../http/schema-types';
import { AssignProductTagDto, CreateProductTagDto, UpdateProductTagDto } from './product-tags.schemas';

export const productTagRoutes = defineRoutes({ tag: 'catalog', auth: 'merchant' }, [
  {
    operationId: 'productTags.list',
    method: 'GET',
    path: '/catalog/product-tags',
    summary: 'Tags of a store, optionally only those of one product',
    description: 'cursor, limit and productId are not typed by the specification: cursor is the opaque nextCursor of the previous page, limit 1 to 100 (default 50), productId a UUID.',
    query: {
      storeId: storeId(),
      cursor: listedRequired(cursor()),
      limit: listedRequired(positiveInt(100).default(50)),
      productId: listedRequired(uuid()),
    },
    status: 200,
  },
  { operationId: 'productTags.create', method: 'POST', path: '/catalog/product-tags', summary: 'Create a product tag', body: CreateProductTagDto, status: 201 },
  { operationId: 'productTags.update', method: 'PATCH', path: '/catalog/product-tags/{tagId}', summary: 'Update a product tag', body: UpdateProductTagDto, status: 200 },
  { operationId: 'productTags.delete', method: 'DELETE', path: '/catalog/product-tags/{tagId}', summary: 'Delete a product tag and its assignments', status: 204 },
  { operationId: 'productTags.assign', method: 'POST', path: '/catalog/product-tags/{tagId}/assign', summary: 'Assign a tag to products', body: AssignProductTagDto, status: 204 },
  {
    operationId: 'productTags.unassign',
    method: 'DELETE',
    path: '/catalog/product-tags/{tagId}/assign/{productId}',
    summary: 'Remove a tag from one product',
    status: 204,
  },
]);
