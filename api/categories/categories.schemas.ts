/** DTOs of the categories area (categories and category attributes). */
import Joi from 'joi';
import { csvDocument, dto } from '../http/route';
import { t, typedDto } from '../http/typed-schema';
import { bool, CSV_CELLS_CHECKED, dateTime, httpUrl, int, oneOf, storeId, text, uuid } from '../http/schema-types';

// Value types ---------------------------------------------------------------------------------

import { catalogSlug } from '../../domain/slugs';

export { CATALOG_SLUG_MAX, catalogSlug } from '../../domain/slugs';

export const CATEGORY_NAME_MAX = 120;
export const CATEGORY_DESCRIPTION_MAX = 5000;
export const ATTRIBUTE_TYPES = ['text', 'number', 'boolean', 'enum'] as const;
export const MAX_ATTRIBUTES = 100;
export const MAX_ENUM_VALUES = 200;
export const MAX_REORDER_IDS = 1000;

// Requests ------------------------------------------------------------------------------------

/** The editable fields of a category, shared by create and replace. */
const categoryFields = {
  name: t.string(text(1, CATEGORY_NAME_MAX)).required(),
  slug: t.string(catalogSlug().description('Derived from the name when omitted (with -2, -3, … appended until free).')),
  parentId: t
    .string(uuid().description('A category of the same store (400 invalid_parent otherwise); null or omitted: a root category.'))
    .nullable(),
  description: t.string(text(0, CATEGORY_DESCRIPTION_MAX)).nullable(),
  imageUrl: t.string(httpUrl()).nullable(),
  position: t.number(int(0, 1_000_000).description('Sort key among the siblings (ties by name). Omitted: after the last sibling.')),
  isActive: t.boolean(bool().description('Default true.')),
};

export const CreateCategoryDto = typedDto('CreateCategoryDto', t.object({ storeId: t.storeId(), ...categoryFields }));

export const UpdateCategoryDto = typedDto(
  'UpdateCategoryDto',
  t
    .object({
      ...categoryFields,
      slug: t.string(catalogSlug().description('Omitted: the slug stays as it is.')),
      parentId: t
        .string(
          uuid().description(
            'A category of the same store, not this one nor one of its descendants (400 category_cycle). Null or omitted: a root category.',
          ),
        )
        .nullable(),
      position: t.number(
        int(0, 1_000_000).description('Omitted: kept when the parent stays, else after the last sibling of the new parent.'),
      ),
    })
    .rules((o) =>
      o.description(
        'Replaces the editable fields: name is required; an omitted description, imageUrl or parentId becomes null and an omitted isActive true; an omitted slug and position are kept (position: when the parent stays).',
      ),
    ),
);

export const ReorderCategoriesDto = typedDto(
  'ReorderCategoriesDto',
  t.object({
    storeId: t.storeId(),
    parentId: t.string(uuid().description('The parent whose children are reordered; null for the root categories.')).nullable().required(),
    ids: t
      .array(
        t.string(uuid()),
        Joi.array().min(1).max(MAX_REORDER_IDS).unique().description('Exactly the children of the parent, in the new order.'),
      )
      .required(),
  }),
);

/**
 * The body of the CSV imports (categories, brands, collections): the store and the CSV text. The
 * request is bounded by BODY_LIMIT_JSON (default 1 MB, 413 above) and each layout by its row limit.
 */
export const CsvImportBodyDto = dto(
  'CsvImportBodyDto',
  Joi.object({
    storeId: storeId(),
    csv: Joi.string()
      .min(1)
      .required()
      .meta(CSV_CELLS_CHECKED)
      .description('UTF-8 CSV with a header row, in the column layout of the resource (see the operation).'),
  }),
);

/** One attribute of SetCategoryAttributesDto (AttributeInput of the service). */
export const CategoryAttributeInput = t.object({
  name: t.string(text(1, 100)).required(),
  type: t.oneOf(ATTRIBUTE_TYPES).required(),
  // Required for enum, forbidden otherwise (`Joi.when`): optional in the type.
  values: t.custom<string[]>(
    Joi.when('type', {
      is: 'enum',
      then: Joi.array().items(text(1, 100)).min(1).max(MAX_ENUM_VALUES).unique().required(),
      otherwise: Joi.forbidden(),
    }).description(
      'The allowed values: required for enum (1 to 200 distinct strings of 1 to 100 characters), forbidden for the other types.',
    ),
  ),
  required: t.boolean(bool()).default(false),
  filterable: t.boolean(bool()).default(false),
});

export const SetCategoryAttributesDto = typedDto(
  'SetCategoryAttributesDto',
  t.object({
    attributes: t
      .array(
        CategoryAttributeInput,
        Joi.array()
          .max(MAX_ATTRIBUTES)
          .unique((a: { name: string }, b: { name: string }) => a.name.toLowerCase() === b.name.toLowerCase())
          .messages({ 'array.unique': '{{#label}} repeats an attribute name (names are compared case-insensitively)' })
          .description('The whole set, in order (position = index). Names unique case-insensitively.'),
      )
      .required(),
  }),
);

// Responses -----------------------------------------------------------------------------------

const categoryView = Joi.object({
  id: uuid().required(),
  storeId: uuid().required(),
  parentId: uuid().allow(null).required(),
  name: Joi.string().required(),
  slug: Joi.string().required(),
  description: Joi.string().allow(null, '').required(),
  imageUrl: Joi.string().allow(null).required(),
  position: Joi.number().integer().required(),
  isActive: Joi.boolean().required(),
  depth: Joi.number().integer().min(0).required().description('0 for a root category.'),
  path: Joi.array().items(Joi.string()).required().description('The slugs of the ancestors, root first, then its own.'),
  childCount: Joi.number().integer().min(0).required(),
  createdAt: dateTime().required(),
  updatedAt: dateTime().required(),
});

export const CategoryResponse = dto('CategoryResponse', categoryView);
export const CategoryListResponse = dto('CategoryListResponse', Joi.object({ items: Joi.array().items(categoryView).required() }));

export const CategoryImportResponse = dto(
  'CategoryImportResponse',
  Joi.object({
    created: Joi.number().integer().min(0).required(),
    updated: Joi.number().integer().min(0).required().description('Existing categories the import changed.'),
    unchanged: Joi.number().integer().min(0).required().description('Rows that matched an existing category exactly.'),
  }),
);

const attributeView = Joi.object({
  id: uuid().required(),
  name: Joi.string().required(),
  type: oneOf(ATTRIBUTE_TYPES).required(),
  values: Joi.array().items(Joi.string()).required().description('Empty unless type is enum.'),
  required: Joi.boolean().required(),
  filterable: Joi.boolean().required(),
  position: Joi.number().integer().required(),
});

export const CategoryAttributesResponse = dto(
  'CategoryAttributesResponse',
  Joi.object({ items: Joi.array().items(attributeView).required() }),
);

export const ProductAttributeReportResponse = dto(
  'ProductAttributeReportResponse',
  Joi.object({
    productId: uuid().required(),
    valid: Joi.boolean().required(),
    missing: Joi.array().items(Joi.string()).required().description("Required attributes of the product's categories without a value."),
    invalid: Joi.array()
      .items(Joi.object({ path: Joi.string().required(), message: Joi.string().required() }))
      .required()
      .description("Values that break their attribute's type or allowed values."),
    unknown: Joi.array().items(Joi.string()).required().description('Values whose name no category of the product defines.'),
  }),
);

export const CategoriesCsv = csvDocument(
  'CategoriesCsv',
  'The categories of a store, one row per category, parents before children. Columns: slug, name, parentSlug, position, isActive, description, imageUrl.',
);
