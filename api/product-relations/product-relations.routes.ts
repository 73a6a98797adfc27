/** Product relations: links from one product to others (docs/catalog.md). */
import { defineRoutes, type RouteRequest } from '../http/route';
import {
  ProductRelationListResponse,
  ProductRelationResponse,
  ReorderProductRelationsDto,
  UpsertProductRelationDto,
} from './product-relations.schemas';
import {
  deleteProductRelation,
  listProductRelations,
  reorderProductRelations,
  upsertProductRelation,
  type ReorderProductRelationsInput,
  type UpsertProductRelationInput,
} from './product-relations.service';
import { DELETE_DESCRIPTION, LIST_DESCRIPTION, REORDER_DESCRIPTION, UPSERT_DESCRIPTION } from './product-relations.descriptions';

type Params = Record<string, string>;

export const productRelationRoutes = defineRoutes({ tag: 'catalog', auth: 'merchant' }, [
  {
    operationId: 'productRelations.list',
    method: 'GET',
    path: '/catalog/products/{productId}/relations',
    summary: 'Relations of a product, in order',
    description: LIST_DESCRIPTION,
    response: ProductRelationListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listProductRelations(req.context, req.params.productId!),
  },
  {
    operationId: 'productRelations.upsert',
    method: 'POST',
    path: '/catalog/products/{productId}/relations',
    summary: 'Add a relation to a product, or update it if it exists',
    description: UPSERT_DESCRIPTION,
    body: UpsertProductRelationDto,
    response: ProductRelationResponse,
    status: 201,
    problems: [409],
    handler: (req: RouteRequest<Params, Params, UpsertProductRelationInput>) =>
      upsertProductRelation(req.context, req.params.productId!, req.body),
  },
  {
    operationId: 'productRelations.reorder',
    method: 'POST',
    path: '/catalog/products/{productId}/relations/reorder',
    summary: 'Set the order of the relations of a product',
    description: REORDER_DESCRIPTION,
    body: ReorderProductRelationsDto,
    status: 204,
    handler: async (req: RouteRequest<Params, Params, ReorderProductRelationsInput>) =>
      reorderProductRelations(req.context, req.params.productId!, req.body),
  },
  {
    operationId: 'productRelations.delete',
    method: 'DELETE',
    path: '/catalog/products/relations/{id}',
    summary: 'Remove a product relation',
    description: DELETE_DESCRIPTION,
    status: 204,
    handler: async (req: RouteRequest<Params>) => deleteProductRelation(req.context, req.params.id!),
  },
]);
