/** DTOs of the brands area. The CSV import body and the catalog slug are shared: see categories.schemas.ts. */
import Joi from 'joi';
import { csvDocument, dto } from '../http/route';
import { bool, dateTime, httpUrl, storeId, uuid } from '../http/schema-types';
import { catalogSlug } from '../../domain/slugs';

export const BRAND_NAME_MAX = 120;
export const BRAND_DESCRIPTION_MAX = 5000;

const brandName = (): Joi.StringSchema => Joi.string().trim().min(1).max(BRAND_NAME_MAX);
const brandDescription = (): Joi.StringSchema =>
  Joi.string().max(BRAND_DESCRIPTION_MAX).description('Plain text, at most 5000 characters.');

export const CreateBrandDto = dto(
  'CreateBrandDto',
  Joi.object({
    storeId: storeId(),
    name: brandName().required(),
    slug: catalogSlug().description('Derived from the name when left out (with -2, -3, … appended until it is free in the store).'),
    description: brandDescription().allow(null),
    logoUrl: httpUrl().allow(null).description('An http(s) URL of the logo image.'),
    websiteUrl: httpUrl().allow(null).description("An http(s) URL of the brand's website."),
    isActive: bool()
      .default(true)
      .description('Inactive brands stay attached to their products but are not offered as a storefront filter. Defaults to true.'),
  }),
);

export const UpdateBrandDto = dto(
  'UpdateBrandDto',
  Joi.object({
    name: brandName(),
    slug: catalogSlug(),
    description: brandDescription().allow(null).description('null clears it.'),
    logoUrl: httpUrl().allow(null).description('null clears it.'),
    websiteUrl: httpUrl().allow(null).description('null clears it.'),
    isActive: bool(),
  })
    .min(1)
    .messages({ 'object.min': 'give at least one field to change' })
    .description('Any subset of the fields of a brand (at least one); null clears an optional field. The store of a brand cannot change.'),
);

export const BRAND_BULK_MAX = 500;

export const BulkSetBrandStatusDto = dto(
  'BulkSetBrandStatusDto',
  Joi.object({
    storeId: storeId(),
    ids: Joi.array()
      .items(uuid())
      .min(1)
      .max(BRAND_BULK_MAX)
      .unique()
      .required()
      .description('The brands to change, 1 to 500 distinct ids.'),
    isActive: bool().required(),
  }),
);

export const BrandItem = Joi.object({
  id: uuid().required(),
  name: Joi.string().required(),
  slug: Joi.string().required(),
  description: Joi.string().allow(null).required(),
  logoUrl: Joi.string().allow(null).required(),
  websiteUrl: Joi.string().allow(null).required(),
  isActive: Joi.boolean().required(),
  createdAt: dateTime().required(),
  updatedAt: dateTime().required(),
}).label('BrandItem');

export const BrandResponse = dto('BrandResponse', BrandItem);

export const BrandListResponse = dto(
  'BrandListResponse',
  Joi.object({
    items: Joi.array()
      .items(BrandItem)
      .required()
      .description('Every brand of the store, active or not, ordered by name (case-insensitively).'),
  }),
);

export const BulkSetBrandStatusResponse = dto(
  'BulkSetBrandStatusResponse',
  Joi.object({
    updated: Joi.number().integer().min(0).required().description('Brands whose status changed.'),
    unchanged: Joi.number().integer().min(0).required().description('Brands that already had the status.'),
    notFound: Joi.array()
      .items(uuid())
      .required()
      .description('Ids that are not brands of the store (unknown, or of another store), in the order given.'),
  }),
);

export const BrandImportResponse = dto(
  'BrandImportResponse',
  Joi.object({
    created: Joi.number().integer().min(0).required().description('Rows whose slug was new in the store: brands created.'),
    updated: Joi.number()
      .integer()
      .min(0)
      .required()
      .description(
        'Rows that changed an existing brand (matched by slug, case-insensitively). Rows identical to their brand change nothing and count in neither.',
      ),
  }),
);

export const BRANDS_CSV_COLUMNS = 'slug, name, isActive, description, logoUrl, websiteUrl';

export const BrandsCsv = csvDocument(
  'BrandsCsv',
  `The brands of a store, one row per brand, ordered by name. Columns: ${BRANDS_CSV_COLUMNS} (isActive is true or false; empty cells are absent values). Cells that begin with =, +, -, @, a tab or a carriage return are prefixed with an apostrophe against spreadsheet formula injection; the import reads them back without it.`,
);
