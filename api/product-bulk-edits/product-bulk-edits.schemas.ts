/** DTOs and enums of the product bulk edits area and of the eight `POST /catalog/products/bulk/*` operations. */
import Joi from 'joi';
import { dto } from '../http/route';
import { t, typedDto } from '../http/typed-schema';
import { dateTime, oneOf, uuid } from '../http/schema-types';
import { decimalPlaces, MONEY_MAX, PRODUCT_MAX_TAGS, PRODUCT_STATUSES } from '../products/products.schemas';

/** Product bulk edit `action` and `status`: the specification's enumerated values. */
export const BULK_EDIT_ACTIONS = ['UPDATE_PRICE', 'UPDATE_STATUS', 'UPDATE_TAGS', 'UPDATE_CATEGORY', 'ARCHIVE', 'DELETE'] as const;
export const BULK_EDIT_STATUSES = ['RUNNING', 'COMPLETED', 'FAILED'] as const;
/** The operation that made an edit (not in the specification): the bulk route, or `revert`. */
export const BULK_EDIT_OPERATIONS = [
  'publish',
  'archive',
  'hard-delete',
  'set-category',
  'set-status',
  'update-price',
  'add-tags',
  'remove-tags',
  'revert',
] as const;
export const BULK_EDIT_ITEM_STATUSES = ['PENDING', 'OK', 'UNCHANGED', 'FAILED'] as const;
export const PRICE_CHANGE_MODES = ['SET', 'ADD', 'PERCENT'] as const;

/** Most products one bulk request may select. */
export const BULK_MAX_PRODUCTS = 10_000;
/** Largest percentage change (+1000 % = eleven times the price); -100 % makes the price 0. */
export const PERCENT_MAX = 1_000;

const productIds = () =>
  t.array(
    // Lowercased first so that unique() compares in linear time (a comparator would be quadratic on 10 000 ids).
    t.string(uuid().lowercase()),
    Joi.array()
      .min(1)
      .max(BULK_MAX_PRODUCTS)
      .unique()
      .description(
        `1 to ${BULK_MAX_PRODUCTS} distinct product ids of the store. An id that is not a product of the store (unknown, of another store or of another tenant) fails the whole request with 400 invalid_product listing the ids, and nothing changes.`,
      ),
  );

const selection = { storeId: t.storeId(), productIds: productIds().required() };

/** A decimal given as a JSON number with at most 4 decimals, never rounded by validation. */
const decimal = (min: number, max: number) =>
  Joi.number()
    .min(min)
    .max(max)
    .custom((value: number, helpers) => (decimalPlaces(value) > 4 ? helpers.error('number.precision', { limit: 4 }) : value));

export const ProductIdsBodyDto = typedDto(
  'ProductIdsBodyDto',
  t.object(selection).rules((o) => o.description('The products to act on.')),
);

export const BulkSetCategoryDto = typedDto(
  'BulkSetCategoryDto',
  t.object({
    ...selection,
    categoryId: t
      .string(
        uuid().description(
          "A category of the store (else 400 invalid_category): it becomes each product's only category. null removes every category. The product's attribute values are checked against the attributes of the new category as on a replace: an unknown attribute (unknown_attribute), a wrong value (invalid_attribute) or, for a PUBLISHED product, a missing required attribute (missing_required_attributes) fails that product.",
        ),
      )
      .nullable()
      .required(),
  }),
);

export const BulkSetProductStatusDto = typedDto(
  'BulkSetProductStatusDto',
  t.object({
    ...selection,
    status: t
      .oneOf(PRODUCT_STATUSES, (s) =>
        s.description(
          'The new status. PUBLISHED applies the publish rule (a product missing a required attribute of its categories fails with missing_required_attributes) and sets publishedAt.',
        ),
      )
      .required(),
  }),
);

export const BulkUpdatePriceDto = typedDto(
  'BulkUpdatePriceDto',
  t
    .object({
      ...selection,
      mode: t
        .oneOf(PRICE_CHANGE_MODES, (s) =>
          s.description(
            'SET: the price becomes value. ADD: value is added (negative lowers the price). PERCENT: the price changes by value percent (-10 lowers it by a tenth).',
          ),
        )
        .required(),
      // Both custom rules only check the number and return it as it is.
      value: t
        .number(
          decimal(-MONEY_MAX, MONEY_MAX)
            .custom((value: number, helpers) => {
              const mode = (helpers.state.ancestors[0] as { mode?: string }).mode;
              const [min, max] = mode === 'PERCENT' ? [-100, PERCENT_MAX] : mode === 'SET' ? [0, MONEY_MAX] : [-MONEY_MAX, MONEY_MAX];
              if (value < min) return helpers.error('number.min', { limit: min });
              if (value > max) return helpers.error('number.max', { limit: max });
              if (value === 0 && mode !== 'SET') return helpers.error('any.invalid');
              return value;
            })
            .description(
              `SET: 0 to ${MONEY_MAX}; ADD: -${MONEY_MAX} to ${MONEY_MAX}, not 0; PERCENT: -100 to ${PERCENT_MAX}, not 0. At most 4 decimals (more are refused, never rounded).`,
            ),
        )
        .required(),
    })
    .rules((o) =>
      o.description(
        "Changes the product price and every variant's own price (variants without their own price follow the product). Computed in exact decimals; each result is rounded half away from zero to the minor unit of the product's currency (2 decimals for EUR, 0 for JPY, 3 for KWD). A product whose new price (or a variant's) would be below 0 fails with negative_price, above 1000000000 with price_too_high, and below its compare-at price with compare_at_below_price; it keeps its prices. Compare-at prices are not changed.",
      ),
    ),
);

export const BulkProductTagsDto = typedDto(
  'BulkProductTagsDto',
  t.object({
    ...selection,
    tagIds: t
      .array(
        t.string(uuid().lowercase()),
        Joi.array()
          .min(1)
          .max(PRODUCT_MAX_TAGS)
          .unique()
          .description(
            `1 to ${PRODUCT_MAX_TAGS} distinct product tags of the store (else 400 invalid_tag). Adding more than a product may hold (${PRODUCT_MAX_TAGS}) fails that product with too_many_tags.`,
          ),
      )
      .required(),
  }),
);

const count = () => Joi.number().integer().min(0);

const ItemResult = Joi.object({
  productId: uuid().required(),
  status: oneOf(BULK_EDIT_ITEM_STATUSES)
    .required()
    .description('PENDING (not processed yet), OK (changed), UNCHANGED (already as asked; nothing written), FAILED (see errorCode).'),
  errorCode: Joi.string().allow(null).required(),
  errorMessage: Joi.string().allow(null).required(),
  previous: Joi.object()
    .unknown(true)
    .allow(null)
    .required()
    .description(
      'The values the edit changed, as they were before it: { status, publishedAt } for status changes, { categoryIds } for set-category, { tagIds } for tags, { price, variants: [{ id, price }] } for prices (decimal strings), the whole product with its variants, images and links for a hard delete. null unless OK.',
    ),
}).label('ProductBulkEditItem');

const bulkEditFields = {
  id: uuid().required(),
  storeId: uuid().required(),
  action: oneOf(BULK_EDIT_ACTIONS)
    .required()
    .description(
      'publish and set-status record UPDATE_STATUS; archive ARCHIVE; hard-delete DELETE; set-category UPDATE_CATEGORY; update-price UPDATE_PRICE; add-tags and remove-tags UPDATE_TAGS; a revert records the action of the edit it reverts.',
    ),
  operation: oneOf(BULK_EDIT_OPERATIONS).required(),
  status: oneOf(BULK_EDIT_STATUSES)
    .required()
    .description(
      'RUNNING until every product is processed; then COMPLETED, or FAILED when no product could be changed (every product failed).',
    ),
  params: Joi.object()
    .unknown(true)
    .required()
    .description(
      'What was asked besides the products: { status }, { categoryId }, { tagIds }, { mode, value }; { revertOf } for a revert.',
    ),
  actor: Joi.object({ type: Joi.string().required(), id: Joi.string().allow(null).required() })
    .required()
    .description('Who made the edit: a user or an API key.'),
  productCount: count().required(),
  processedCount: count().required().description('Products processed so far (progress of a RUNNING edit).'),
  okCount: count().required(),
  unchangedCount: count().required(),
  failedCount: count().required(),
  revertOf: uuid().allow(null).required().description('For a revert: the edit it reverted.'),
  revertedBy: uuid().allow(null).required().description('The revert that undid this edit, if any.'),
  createdAt: dateTime().required(),
  finishedAt: dateTime().allow(null).required(),
};

export const ProductBulkEditSummary = Joi.object(bulkEditFields).label('ProductBulkEditSummary');

export const ProductBulkEditResponse = dto(
  'ProductBulkEditResponse',
  Joi.object({
    ...bulkEditFields,
    items: Joi.array().items(ItemResult).required().description('One per selected product, in the order given.'),
  }),
);

export const ProductBulkEditListResponse = dto(
  'ProductBulkEditListResponse',
  Joi.object({
    items: Joi.array().items(ProductBulkEditSummary).required(),
    nextCursor: uuid().allow(null).required().description('Pass as cursor for the next page; null on the last page.'),
  }),
);

const perValue = (values: readonly string[]) => Joi.object(Object.fromEntries(values.map((v) => [v, count().required()])));

export const ProductBulkEditOverviewResponse = dto(
  'ProductBulkEditOverviewResponse',
  Joi.object({
    storeId: uuid().required(),
    sinceDays: Joi.number().integer().min(1).max(365).required(),
    since: dateTime().required().description('Edits created at or after this time are counted (now − sinceDays days).'),
    total: count().required(),
    byAction: perValue(BULK_EDIT_ACTIONS).required(),
    byStatus: perValue(BULK_EDIT_STATUSES).required(),
    counts: Joi.array()
      .items(
        Joi.object({
          action: oneOf(BULK_EDIT_ACTIONS).required(),
          status: oneOf(BULK_EDIT_STATUSES).required(),
          count: count().required(),
        }).label('ProductBulkEditCount'),
      )
      .required()
      .description('Every action × status pair with at least one edit, ordered by action then status.'),
  }),
);
