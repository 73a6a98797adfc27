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

type Params = Record<string, string>;

const readers =
  "Any member of the tenant, or an API key of the product's store with catalog:read. Another tenant's product answers 404 product_not_found.";
const writers =
  "Any member of the tenant (owner, admin, staff), or an API key of the product's store with catalog:write; an archived store answers 409 store_archived. Another tenant's product or relation answers 404. A change writes one audit entry and one outbox row for the owning product (topic product.updated: the product document carries its relations); a request that changes nothing writes neither.";

export const productRelationRoutes = defineRoutes({ tag: 'catalog', auth: 'merchant' }, [
  {
    operationId: 'productRelations.list',
    method: 'GET',
    path: '/catalog/products/{productId}/relations',
    summary: 'Relations of a product, in order',
    description: `${readers} Every relation, grouped by kind (RELATED, then UPSELL, then CROSS_SELL), each kind by position, with a summary of the related product (any status); not paged.`,
    response: ProductRelationListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listProductRelations(req.context, req.params.productId!),
  },
  {
    operationId: 'productRelations.upsert',
    method: 'POST',
    path: '/catalog/products/{productId}/relations',
    summary: 'Add a relation to a product, or update it if it exists',
    description: `${writers} A relation is identified by (product, relatedProductId, kind): when it exists, only its position changes (audit product_relation.update); otherwise it is created (audit product_relation.create), after the last relation of its kind unless a position is given. The related product must be another product of the same store, else 400 invalid_related_product. A product has at most 500 relations of one kind (409 too_many_relations).`,
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
    description: `${writers} ids must list exactly the product's relations of the kind, each once, in the new order (else 400 reorder_mismatch); their positions become 0, 1, 2, … One audit entry (product_relation.reorder, on the product) and one outbox row for the whole reorder.`,
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
    description: `${writers} An unknown relation answers 404 product_relation_not_found. Writes one audit entry (product_relation.delete) and one outbox row for the owning product.`,
    status: 204,
    handler: async (req: RouteRequest<Params>) => deleteProductRelation(req.context, req.params.id!),
  },
]);
