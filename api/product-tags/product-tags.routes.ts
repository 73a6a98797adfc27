/** Product tags of a store and their assignment to products (docs/catalog.md). */
import { defineRoutes, listedRequired, type RouteRequest } from '../http/route';
import { cursor, positiveInt, storeId, uuid } from '../http/schema-types';
import {
  AssignProductTagDto,
  CreateProductTagDto,
  ProductTagListResponse,
  ProductTagResponse,
  UpdateProductTagDto,
} from './product-tags.schemas';
import {
  assignProductTag,
  createProductTag,
  deleteProductTag,
  listProductTags,
  unassignProductTag,
  updateProductTag,
  type CreateProductTagInput,
  type ListProductTagsInput,
  type UpdateProductTagInput,
} from './product-tags.service';
import {
  ASSIGN_DESCRIPTION,
  CREATE_DESCRIPTION,
  DELETE_DESCRIPTION,
  LIST_DESCRIPTION,
  UNASSIGN_DESCRIPTION,
  UPDATE_DESCRIPTION,
} from './product-tags.descriptions';

type Params = Record<string, string>;

export const productTagRoutes = defineRoutes({ tag: 'catalog', auth: 'merchant' }, [
  {
    operationId: 'productTags.list',
    method: 'GET',
    path: '/catalog/product-tags',
    summary: 'Tags of a store, optionally only those of one product',
    description: LIST_DESCRIPTION,
    query: {
      storeId: storeId(),
      cursor: listedRequired(cursor()),
      limit: listedRequired(positiveInt(100).default(50)),
      productId: listedRequired(uuid()),
    },
    response: ProductTagListResponse,
    status: 200,
    handler: (req: RouteRequest) => listProductTags(req.context, req.query as ListProductTagsInput),
  },
  {
    operationId: 'productTags.create',
    method: 'POST',
    path: '/catalog/product-tags',
    summary: 'Create a product tag',
    description: CREATE_DESCRIPTION,
    body: CreateProductTagDto,
    response: ProductTagResponse,
    status: 201,
    problems: [409],
    handler: (req: RouteRequest<Params, Params, CreateProductTagInput>) => createProductTag(req.context, req.body),
  },
  {
    operationId: 'productTags.update',
    method: 'PATCH',
    path: '/catalog/product-tags/{tagId}',
    summary: 'Update a product tag',
    description: UPDATE_DESCRIPTION,
    body: UpdateProductTagDto,
    response: ProductTagResponse,
    status: 200,
    problems: [409],
    handler: (req: RouteRequest<Params, Params, UpdateProductTagInput>) => updateProductTag(req.context, req.params.tagId!, req.body),
  },
  {
    operationId: 'productTags.delete',
    method: 'DELETE',
    path: '/catalog/product-tags/{tagId}',
    summary: 'Delete a product tag and its assignments',
    description: DELETE_DESCRIPTION,
    status: 204,
    handler: async (req: RouteRequest<Params>) => deleteProductTag(req.context, req.params.tagId!),
  },
  {
    operationId: 'productTags.assign',
    method: 'POST',
    path: '/catalog/product-tags/{tagId}/assign',
    summary: 'Assign a tag to products',
    description: ASSIGN_DESCRIPTION,
    body: AssignProductTagDto,
    status: 204,
    handler: async (req: RouteRequest<Params, Params, { productIds: string[] }>) =>
      assignProductTag(req.context, req.params.tagId!, req.body.productIds),
  },
  {
    operationId: 'productTags.unassign',
    method: 'DELETE',
    path: '/catalog/product-tags/{tagId}/assign/{productId}',
    summary: 'Remove a tag from one product',
    description: UNASSIGN_DESCRIPTION,
    status: 204,
    handler: async (req: RouteRequest<Params>) => unassignProductTag(req.context, req.params.tagId!, req.params.productId!),
  },
]);
