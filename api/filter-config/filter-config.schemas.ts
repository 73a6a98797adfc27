/** DTOs of the storefront filter configuration. */
import Joi from 'joi';
import { dto } from '../http/route';
import { t, typedDto } from '../http/typed-schema';
import { dateTime, money, uuid } from '../http/schema-types';
import { FACET_DISPLAYS } from '../../domain/filter-config';

export const FACET_KINDS = ['category', 'brand', 'vendor', 'type', 'price', 'rating', 'inStock', 'discounted'] as const;

export const MAX_FACETS = 40;
export const MAX_PRICE_BUCKETS = 20;

/** A built-in facet, or `option:<name>` (a variant option such as size) or `attr:<name>` (a category attribute). */
export const FACET_KEY_PATTERN =
  /^(?:category|brand|vendor|type|price|rating|inStock|discounted|(?:option|attr):[\p{L}\p{N}](?:[\p{L}\p{N} _.-]{0,58}[\p{L}\p{N}])?)$/u;

const facetKey = (): Joi.StringSchema =>
  Joi.string()
    .max(65)
    .pattern(FACET_KEY_PATTERN, 'facet key')
    .messages({
      'string.pattern.name':
        '{{#label}} must be one of category, brand, vendor, type, price, rating, inStock, discounted, or option:<name> or attr:<name> (a name of 1 to 60 letters, digits, spaces, _ . -, starting and ending with a letter or digit)',
    })
    .description(
      'category, brand, vendor, type, price, rating, inStock, discounted; `option:<name>` for a variant option (e.g. `option:size`) or `attr:<name>` for a category attribute (e.g. `attr:material`); a name is 1 to 60 letters, digits, spaces, `_`, `.` or `-`, starting and ending with a letter or digit.',
    );

const FacetInput = t
  .object({
    key: t.string(facetKey()).required(),
    label: t.string(Joi.string().trim().min(1).max(60).description('What the storefront shows as the heading of the filter.')).required(),
    display: t
      .oneOf(FACET_DISPLAYS, (s) =>
        s.description(
          'How the storefront shows the filter: checkbox (several values), radio (one value), swatch (colours or images), range (a numeric range), toggle (on/off), rating (stars).',
        ),
      )
      .required(),
    enabled: t
      .boolean(Joi.boolean().description('A disabled facet keeps its place and label but is not shown. Defaults to true.'))
      .default(true),
  })
  .rules((o) => o.label('FilterFacetInput'));

interface Bucket {
  min?: unknown;
  max?: unknown;
}

// The custom rule only checks the bounds and returns the bucket as it is, so the type stays the object's.
const PriceBucketInput = t
  .object({
    min: t.number(money().description('Lower bound (inclusive), at least 0.')).required(),
    max: t
      .number(
        money().description(
          'Upper bound (exclusive), greater than min; null (or left out) means no upper bound and is allowed on the last bucket only.',
        ),
      )
      .nullable()
      .default(null),
    label: t.string(
      Joi.string().trim().min(1).max(60).description('What the storefront shows; it builds one from the bounds when left out.'),
    ),
  })
  .rules((o) =>
    o
      .custom((bucket: Bucket, helpers) =>
        typeof bucket.max === 'number' && typeof bucket.min === 'number' && bucket.max <= bucket.min
          ? helpers.error('priceBucket.empty', {}, { ...helpers.state, path: [...(helpers.state.path ?? []), 'max'] })
          : bucket,
      )
      .messages({ 'priceBucket.empty': 'max must be greater than min' })
      .label('PriceBucketInput'),
  );

/** Buckets ascend without overlapping, and only the last one may be open-ended. */
function orderedBuckets(buckets: Bucket[], helpers: Joi.CustomHelpers): Bucket[] | Joi.ErrorReport {
  for (let i = 0; i < buckets.length; i += 1) {
    const bucket = buckets[i]!;
    const at = (field: string) => ({ ...helpers.state, path: [...(helpers.state.path ?? []), i, field] });
    if (bucket.max === null && i < buckets.length - 1) return helpers.error('priceBuckets.openEnded', {}, at('max'));
    const previous = buckets[i - 1];
    if (previous && typeof previous.max === 'number' && typeof bucket.min === 'number' && bucket.min < previous.max) {
      return helpers.error('priceBuckets.overlap', { previous: previous.max }, at('min'));
    }
  }
  return buckets;
}

export const UpdateFilterConfigDto = typedDto(
  'UpdateFilterConfigDto',
  t
    .object({
      facets: t
        .array(
          FacetInput,
          Joi.array()
            .max(MAX_FACETS)
            .unique('key')
            .messages({ 'array.unique': '{{#label}} repeats the key of another facet' })
            .description("The facets the storefront shows, in this order (a facet's position is its index), 0 to 40 with distinct keys."),
        )
        .required(),
      // orderedBuckets only checks the order and returns the buckets as they are.
      priceBuckets: t
        .array(
          PriceBucketInput,
          Joi.array()
            .max(MAX_PRICE_BUCKETS)
            .custom(orderedBuckets)
            .messages({
              'priceBuckets.openEnded': '{{#label}} may be null only on the last price bucket',
              'priceBuckets.overlap':
                '{{#label}} must be at least the max of the previous bucket ({{#previous}}): buckets ascend without overlapping',
            })
            .description(
              "0 to 20 price ranges in ascending order that do not overlap (each min is at least the previous max); only the last may have max null. An empty list configures none: public search then derives the buckets from the store's prices.",
            ),
        )
        .required(),
    })
    .rules((o) => o.description('The whole configuration: it replaces the saved one.')),
);

const FacetItem = Joi.object({
  key: Joi.string().required(),
  label: Joi.string().required(),
  display: Joi.string()
    .valid(...FACET_DISPLAYS)
    .required(),
  position: Joi.number().integer().min(0).required().description('0-based order on the storefront.'),
  enabled: Joi.boolean().required(),
}).label('FilterFacet');

const PriceBucketItem = Joi.object({
  min: Joi.number().required(),
  max: Joi.number().allow(null).required(),
  label: Joi.string(),
}).label('PriceBucket');

export const FilterConfigResponse = dto(
  'FilterConfigResponse',
  Joi.object({
    storeId: uuid().required(),
    facets: Joi.array().items(FacetItem).required(),
    priceBuckets: Joi.array()
      .items(PriceBucketItem)
      .required()
      .description("The configured price buckets; empty: none configured, public search derives them from the store's prices."),
    updatedAt: dateTime()
      .allow(null)
      .required()
      .description('When the configuration was last saved; null while the store uses the default.'),
  }),
);
