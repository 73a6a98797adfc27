/** DTOs of the brands area. The CSV import body and the catalog slug are shared: see categories.schemas.ts. */
import Joi from 'joi';
import { csvDocument, dto } from '../http/route';
import { bool, dateTime, httpUrl, uuid } from '../http/schema-types';
import { t, typedDto } from '../http/typed-schema';
import { catalogSlug } from '../../domain/slugs';

export const BRAND_NAME_MAX = 120;
export const BRAND_DESCRIPTION_MAX = 5000;

const brandName = (): Joi.StringSchema => Joi.string().trim().min(1).max(BRAND_NAME_MAX);
const brandDescription = (): Joi.StringSchema =>
  Joi.string().max(BRAND_DESCRIPTION_MAX).description('Plain text, at most 5000 characters.');

export const CreateBrandDto = typedDto(
  'CreateBrandDto',
  t.object({
    storeId: t.storeId(),
    name: t.string(brandName()).required(),
    slug: t.string(
      catalogSlug().description('Derived from the name when left out (with -2, -3, … appended until it is free in the store).'),
    ),
    description: t.string(brandDescription()).nullable(),
    logoUrl: t.string(httpUrl().description('An http(s) URL of the logo image.')).nullable(),
    websiteUrl: t.string(httpUrl().description("An http(s) URL of the brand's website.")).nullable(),
    isActive: t
      .boolean(
        bool().description('Inactive brands stay attached to their products but are not offered as a storefront filter. Defaults to true.'),
      )
      .default(true),
  }),
);

export const UpdateBrandDto = typedDto(
  'UpdateBrandDto',
  t
    .object({
      name: t.string(brandName()),
      slug: t.string(catalogSlug()),
      description: t.string(brandDescription().description('null clears it.')).nullable(),
      logoUrl: t.string(httpUrl().description('null clears it.')).nullable(),
      websiteUrl: t.string(httpUrl().description('null clears it.')).nullable(),
      isActive: t.boolean(bool()),
    })
    .rules((o) =>
      o
        .min(1)
        .messages({ 'object.min': 'give at least one field to change' })
        .description(
          'Any subset of the fields of a brand (at least one); null clears an optional field. The store of a brand cannot change.',
        ),
    ),
);

export const BRAND_BULK_MAX = 500;

export const BulkSetBrandStatusDto = typedDto(
  'BulkSetBrandStatusDto',
  t.object({
    storeId: t.storeId(),
    ids: t
      .array(t.string(uuid()), Joi.array().min(1).max(BRAND_BULK_MAX).unique().description('The brands to change, 1 to 500 distinct ids.'))
      .required(),
    isActive: t.boolean(bool()).required(),
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
