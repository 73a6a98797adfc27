/** DTOs of the product tags area. */
import Joi from 'joi';
import { dto } from '../http/route';
import { catalogSlug } from '../../domain/slugs';
import { dateTime, uuid } from '../http/schema-types';
import { t, typedDto } from '../http/typed-schema';

export const TAG_NAME_MAX = 60;
export { CATALOG_SLUG_MAX as TAG_SLUG_MAX } from '../../domain/slugs';
export const TAG_ASSIGN_MAX = 500;
/** A tag slug: the catalog slug rule (lowercase letters, digits and single hyphens, 1 to 120 characters). */
export const tagSlug = (): Joi.StringSchema => catalogSlug().min(1);

const tagName = (): Joi.StringSchema =>
  Joi.string().trim().min(1).max(TAG_NAME_MAX).description('1 to 60 characters (surrounding spaces are trimmed).');

export const CreateProductTagDto = typedDto(
  'CreateProductTagDto',
  t.object({
    storeId: t.storeId(),
    name: t.string(tagName()).required(),
    slug: t.string(tagSlug().description('Derived from the name when left out (with -2, -3, … appended until it is free in the store).')),
  }),
);

export const UpdateProductTagDto = typedDto(
  'UpdateProductTagDto',
  t
    .object({ name: t.string(tagName()), slug: t.string(tagSlug()) })
    .rules((o) =>
      o
        .min(1)
        .messages({ 'object.min': 'give at least one field to change' })
        .description('name, slug or both. The store of a tag cannot change.'),
    ),
);

export const AssignProductTagDto = dto(
  'AssignProductTagDto',
  Joi.object({
    productIds: Joi.array()
      .items(uuid())
      .min(1)
      .max(TAG_ASSIGN_MAX)
      .unique()
      .required()
      .description("1 to 500 distinct products of the tag's store."),
  }),
);

export const ProductTagItem = Joi.object({
  id: uuid().required(),
  name: Joi.string().required(),
  slug: Joi.string().required(),
  productCount: Joi.number().integer().min(0).required().description('Products the tag is assigned to.'),
  createdAt: dateTime().required(),
  updatedAt: dateTime().required(),
}).label('ProductTagItem');

export const ProductTagResponse = dto('ProductTagResponse', ProductTagItem);

export const ProductTagListResponse = dto(
  'ProductTagListResponse',
  Joi.object({
    items: Joi.array().items(ProductTagItem).required().description('Ordered by name (case-insensitively), then id.'),
    nextCursor: Joi.string().allow(null).required().description('Pass as cursor for the next page; null on the last page.'),
  }),
);
