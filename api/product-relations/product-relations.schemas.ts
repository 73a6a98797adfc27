/** DTOs of the product relations area (links from one product to others). */
import Joi from 'joi';
import { dto } from '../http/route';
import { int, oneOf, uuid } from '../http/schema-types';

export const RELATION_KINDS = ['RELATED', 'UPSELL', 'CROSS_SELL'] as const;
export const RELATION_POSITION_MAX = 10_000;
/** Most relations of one kind a reorder lists (and so a product can usefully hold per kind). */
export const RELATION_REORDER_MAX = 500;

const kind = (): Joi.StringSchema => oneOf(RELATION_KINDS).description('RELATED, UPSELL or CROSS_SELL.');

export const UpsertProductRelationDto = dto(
  'UpsertProductRelationDto',
  Joi.object({
    relatedProductId: uuid().required().description('Another product of the same store.'),
    kind: kind().required(),
    position: int(0, RELATION_POSITION_MAX).description(
      '0 to 10000; lower comes first within the kind. Left out: a new relation goes after the last one of its kind, an existing one keeps its position.',
    ),
  }).description('Adds the relation (product, relatedProductId, kind), or updates its position when it exists.'),
);

export const ReorderProductRelationsDto = dto(
  'ReorderProductRelationsDto',
  Joi.object({
    kind: kind().required(),
    ids: Joi.array()
      .items(uuid())
      .min(1)
      .max(RELATION_REORDER_MAX)
      .unique()
      .required()
      .description("Exactly the ids of the product's relations of this kind, in their new order."),
  }),
);

const RelatedProduct = Joi.object({
  id: uuid().required(),
  title: Joi.string().required(),
  slug: Joi.string().required(),
  status: oneOf(['DRAFT', 'PUBLISHED', 'ARCHIVED']).required(),
}).label('RelatedProductSummary');

export const ProductRelationItem = Joi.object({
  id: uuid().required(),
  relatedProductId: uuid().required(),
  kind: kind().required(),
  position: Joi.number().integer().min(0).required(),
  relatedProduct: RelatedProduct.required(),
}).label('ProductRelationItem');

export const ProductRelationResponse = dto('ProductRelationResponse', ProductRelationItem);

export const ProductRelationListResponse = dto(
  'ProductRelationListResponse',
  Joi.object({
    items: Joi.array()
      .items(ProductRelationItem)
      .required()
      .description('Grouped by kind (RELATED, UPSELL, CROSS_SELL), each kind by position, then id.'),
  }),
);
