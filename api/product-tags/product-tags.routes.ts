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

type Params = Record<string, string>;

const readers = "Any member of the tenant, or an API key of the store with catalog:read. Another tenant's store answers 404.";
const writers =
  "Any member of the tenant (owner, admin, staff), or an API key of the store with catalog:write; an archived store answers 409 store_archived. Another tenant's store, tag or product answers 404.";

export const productTagRoutes = defineRoutes({ tag: 'catalog', auth: 'merchant' }, [
  {
    operationId: 'productTags.list',
    method: 'GET',
    path: '/catalog/product-tags',
    summary: 'Tags of a store, optionally only those of one product',
    description: `${readers} cursor, limit and productId are not typed by the specification: cursor is the opaque nextCursor of the previous page, limit 1 to 100 (default 50), productId a UUID (only that product's tags; a product that is not of the store answers 404 product_not_found). Ordered by name (case-insensitively), then id; each tag with the number of products it is assigned to.`,
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
    description: `${writers} A slug already used by a tag of the store (case-insensitively) answers 409 slug_taken; without a slug one is derived from the name. Writes one audit entry (product_tag.create) and one outbox row (product_tag.created).`,
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
    description: `${writers} Changes the fields given; a slug taken by another tag of the store answers 409 slug_taken. A change writes one audit entry (product_tag.update) and one outbox row (product_tag.updated); a request that changes nothing writes neither.`,
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
    description: `${writers} The tag's assignments go with it. Writes one audit entry (product_tag.delete) and one outbox row (product_tag.deleted) for the tag, and for each product that had it one audit entry (product.untag) and one outbox row (product.updated).`,
    status: 204,
    handler: async (req: RouteRequest<Params>) => deleteProductTag(req.context, req.params.tagId!),
  },
  {
    operationId: 'productTags.assign',
    method: 'POST',
    path: '/catalog/product-tags/{tagId}/assign',
    summary: 'Assign a tag to products',
    description: `${writers} Every product must be a product of the tag's store, or the answer is 400 invalid_product listing the others (body.productIds[N]) and nothing is assigned. Products that already have the tag are skipped. Each product newly tagged gets one audit entry (product.tag) and one outbox row (product.updated: the product document carries its tags).`,
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
    description: `${writers} A product that does not have the tag answers 404 assignment_not_found. Writes one audit entry (product.untag) and one outbox row (product.updated) for the product.`,
    status: 204,
    handler: async (req: RouteRequest<Params>) => unassignProductTag(req.context, req.params.tagId!, req.params.productId!),
  },
]);
