/** Product relations: links from one product to others (document 2, "Catalog: categories, relations, tags, filter configuration"). */
import { defineRoutes } from '../http/route';
import { ReorderProductRelationsDto, UpsertProductRelationDto } from './product-relations.schemas';

export const productRelationRoutes = defineRoutes({ tag: 'catalog', auth: 'merchant' }, [
  { operationId: 'productRelations.list', method: 'GET', path: '/catalog/products/{productId}/relations', summary: 'Relations of a product, in order', status: 200 },
  {
    operationId: 'productRelations.upsert',
    method: 'POST',
    path: '/catalog/products/{productId}/relations',
    summary: 'Add a relation to a product, or update it if it exists',
    body: UpsertProductRelationDto,
    status: 201,
  },
  {
    operationId: 'productRelations.reorder',
    method: 'POST',
    path: '/catalog/products/{productId}/relations/reorder',
    summary: 'Set the order of the relations of a product',
    body: ReorderProductRelationsDto,
    status: 204,
  },
  { operationId: 'productRelations.delete', method: 'DELETE', path: '/catalog/products/relations/{id}', summary: 'Remove a product relation', status: 204 },
]);
