/** DTOs of the product relations area (links from one product to others). */
import Joi from 'joi';
import { dto } from '../http/route';
import { int, oneOf, uuid } from '../http/schema-types';
import { t, typedDto } from '../http/typed-schema';

export const RELATION_KINDS = ['RELATED', 'UPSELL', 'CROSS_SELL'] as const;
export const RELATION_POSITION_MAX = 10_000;
/** Most relations of one kind a reorder lists (and so a product can usefully hold per kind). */
export const RELATION_REORDER_MAX = 500;

const kind = () => t.oneOf(RELATION_KINDS, (s) => s.description('RELATED, UPSELL or CROSS_SELL.'));

export const UpsertProductRelationDto = typedDto(
  'UpsertProductRelationDto',
  t
    .object({
      relatedProductId: t.string(uuid().description('Another product of the same store.')).required(),
      kind: kind().required(),
      position: t.number(
        int(0, RELATION_POSITION_MAX).description(
          '0 to 10000; lower comes first within the kind. Left out: a new relation goes after the last one of its kind, an existing one keeps its position.',
        ),
      ),
    })
    .rules((o) => o.description('Adds the relation (product, relatedProductId, kind), or updates its position when it exists.')),
);

export const ReorderProductRelationsDto = typedDto(
  'ReorderProductRelationsDto',
  t.object({
    kind: kind().required(),
    ids: t
      .array(
        t.string(uuid()),
        Joi.array()
          .min(1)
          .max(RELATION_REORDER_MAX)
          .unique()
          .description("Exactly the ids of the product's relations of this kind, in their new order."),
      )
      .required(),
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
  kind: kind().required().schema,
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
