/** DTOs of the collections area. The CSV import body is shared: see categories.schemas.ts. */
import Joi from 'joi';
import { csvDocument, dto } from '../http/route';
import { bool, dateTime, httpUrl, int, uuid } from '../http/schema-types';
import { t, typedDto } from '../http/typed-schema';
import { catalogSlug } from '../../domain/slugs';

export const COLLECTION_NAME_MAX = 120;
export const COLLECTION_DESCRIPTION_MAX = 5000;
export const COLLECTION_BULK_MAX = 500;
export const COLLECTION_ITEMS_MAX = 500;
export const REORDER_IDS_MAX = 1000;

const collectionName = (): Joi.StringSchema => Joi.string().trim().min(1).max(COLLECTION_NAME_MAX);
const collectionDescription = (): Joi.StringSchema =>
  Joi.string().max(COLLECTION_DESCRIPTION_MAX).description('Plain text, at most 5000 characters.');

export const CreateCollectionDto = typedDto(
  'CreateCollectionDto',
  t.object({
    storeId: t.storeId(),
    name: t.string(collectionName()).required(),
    slug: t.string(
      catalogSlug().description('Derived from the name when left out (with -2, -3, … appended until it is free in the store).'),
    ),
    description: t.string(collectionDescription()).nullable(),
    imageUrl: t.string(httpUrl().description('An http(s) URL of the collection image.')).nullable(),
    isActive: t
      .boolean(bool().description('Inactive collections are kept but not shown on the storefront. Defaults to true.'))
      .default(true),
  }),
);

export const UpdateCollectionDto = typedDto(
  'UpdateCollectionDto',
  t
    .object({
      name: t.string(collectionName()),
      slug: t.string(catalogSlug()),
      description: t.string(collectionDescription().description('null clears it.')).nullable(),
      imageUrl: t.string(httpUrl().description('null clears it.')).nullable(),
      isActive: t.boolean(bool()),
    })
    .rules((o) =>
      o
        .min(1)
        .messages({ 'object.min': 'give at least one field to change' })
        .description(
          'Any subset of the fields of a collection (at least one); null clears an optional field. The store of a collection cannot change; its position changes through reorder.',
        ),
    ),
);

export const BulkSetCollectionStatusDto = typedDto(
  'BulkSetCollectionStatusDto',
  t.object({
    storeId: t.storeId(),
    ids: t
      .array(
        t.string(uuid()),
        Joi.array().min(1).max(COLLECTION_BULK_MAX).unique().description('The collections to change, 1 to 500 distinct ids.'),
      )
      .required(),
    isActive: t.boolean(bool()).required(),
  }),
);

/** A store-scoped reorder body: exactly the store's resources (here: collections), each once, in the new order. */
/**
 * A list of ids in a new order. The specification names this one DTO for the store's collections and
 * for the platform's community categories, so `storeId` is optional here: store-scoped lists
 * (collections) require it and answer 400 at `body.storeId` without it; platform lists ignore it.
 */
export const IdsBodyDto = typedDto(
  'IdsBodyDto',
  t.object({
    storeId: t.string(uuid().description('The store, for store-scoped lists such as collections (required there).')),
    ids: t
      .array(
        t.string(uuid()),
        Joi.array()
          .min(1)
          .max(REORDER_IDS_MAX)
          .unique()
          .description('Every one of the resources, each once, in the new order (1 to 1000 ids).'),
      )
      .required(),
  }),
);

export const CollectionItemsDto = typedDto(
  'CollectionItemsDto',
  t.object({
    productIds: t
      .array(
        t.string(uuid()),
        Joi.array().min(1).max(COLLECTION_ITEMS_MAX).unique().description("1 to 500 distinct products of the collection's store."),
      )
      .required(),
    position: t.number(
      int(0, 1_000_000).description(
        'Adding only: the 0-based place of the first added product (the rest follow it); omitted or past the end: appended. Ignored when removing.',
      ),
    ),
  }),
);

const CollectionFields = {
  id: uuid().required(),
  name: Joi.string().required(),
  slug: Joi.string().required(),
  description: Joi.string().allow(null).required(),
  imageUrl: Joi.string().allow(null).required(),
  isActive: Joi.boolean().required(),
  position: Joi.number().integer().min(0).required().description("The place of the collection in the store's manual order."),
  productCount: Joi.number().integer().min(0).required(),
  createdAt: dateTime().required(),
  updatedAt: dateTime().required(),
};

export const CollectionItem = Joi.object(CollectionFields).label('CollectionItem');

export const CollectionProductItem = Joi.object({
  productId: uuid().required(),
  position: Joi.number().integer().min(0).required(),
  product: Joi.object({
    id: uuid().required(),
    title: Joi.string().required(),
    slug: Joi.string().required(),
    status: Joi.string().required(),
    price: Joi.number().required(),
  }).required(),
}).label('CollectionProductItem');

export const CollectionResponse = dto('CollectionResponse', CollectionItem);

export const CollectionDetailResponse = dto(
  'CollectionDetailResponse',
  Joi.object({
    ...CollectionFields,
    items: Joi.array().items(CollectionProductItem).required().description('The products of the collection in their order.'),
  }),
);

export const CollectionListResponse = dto(
  'CollectionListResponse',
  Joi.object({
    items: Joi.array()
      .items(CollectionItem)
      .required()
      .description('Every collection of the store, active or not, by position, then name.'),
  }),
);

export const CollectionItemsAddedResponse = dto(
  'CollectionItemsAddedResponse',
  Joi.object({
    added: Joi.number().integer().min(0).required().description('Products added.'),
    skipped: Joi.array().items(uuid()).required().description('Products already in the collection, left where they were.'),
  }),
);

export const CollectionItemsRemovedResponse = dto(
  'CollectionItemsRemovedResponse',
  Joi.object({
    removed: Joi.number().integer().min(0).required().description('Products removed.'),
    notFound: Joi.array().items(uuid()).required().description('Ids that were not in the collection, in the order given.'),
  }),
);

export const BulkSetCollectionStatusResponse = dto(
  'BulkSetCollectionStatusResponse',
  Joi.object({
    updated: Joi.number().integer().min(0).required().description('Collections whose status changed.'),
    unchanged: Joi.number().integer().min(0).required().description('Collections that already had the status.'),
    notFound: Joi.array()
      .items(uuid())
      .required()
      .description('Ids that are not collections of the store (unknown, or of another store), in the order given.'),
  }),
);

export const CollectionImportResponse = dto(
  'CollectionImportResponse',
  Joi.object({
    created: Joi.number().integer().min(0).required().description('Rows whose slug was new in the store: collections created.'),
    updated: Joi.number()
      .integer()
      .min(0)
      .required()
      .description('Rows that changed an existing collection (matched by slug, case-insensitively).'),
    unchanged: Joi.number()
      .integer()
      .min(0)
      .required()
      .description('Rows identical to their existing collection (fields and products): nothing written.'),
  }),
);

export const COLLECTIONS_CSV_COLUMNS = 'slug, name, isActive, position, description, imageUrl, productSlugs';

export const CollectionsCsv = csvDocument(
  'CollectionsCsv',
  `The collections of a store, one row per collection, by position then name. Columns: ${COLLECTIONS_CSV_COLUMNS} (isActive is true or false; productSlugs the slugs of the collection's products in order, separated by spaces; empty cells are absent values). Cells that begin with =, +, -, @, a tab or a carriage return are prefixed with an apostrophe against spreadsheet formula injection; the import reads them back without it.`,
);
