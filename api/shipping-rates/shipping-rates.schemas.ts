/**
 * DTOs of the shipping rates area. The specification names the DTOs but not their fields; the fields
 * below are this platform's design, documented in each schema description.
 *
 * A rate: a destination (a city and district, a city, or everything else), optional weight and
 * order-value bands (half-open: min inclusive, max exclusive; a missing bound is open), a price and an
 * optional free-shipping threshold in the store's currency, and an optional delivery estimate in days.
 */
import Joi from 'joi';
import { csvDocument, dto } from '../http/route';
import { t, typedDto } from '../http/typed-schema';
import { bool, dateTime, int, money, uuid } from '../http/schema-types';

export const RATE_NAME_MAX = 120;
export const PLACE_NAME_MAX = 100;
export const WEIGHT_MAX_GRAMS = 10_000_000;
export const DELIVERY_DAYS_MAX = 365;
export const QUOTE_ITEMS_MAX = 100;
export const QUOTE_QUANTITY_MAX = 10_000;

/** Amounts are exact: more than 4 decimals is a 400, never silently rounded. */
const exactMoney = (): Joi.NumberSchema => money().prefs({ convert: false });

const rateName = (): Joi.StringSchema =>
  Joi.string()
    .trim()
    .min(1)
    .max(RATE_NAME_MAX)
    .description(`Shown to shoppers, e.g. "Standard" or "Express"; 1 to ${RATE_NAME_MAX} characters after trimming.`);
const placeName = (): Joi.StringSchema => Joi.string().trim().min(1).max(PLACE_NAME_MAX);

const fields = {
  name: t.string(rateName()),
  city: t
    .string(
      placeName().description(
        `The destination city (1 to ${PLACE_NAME_MAX} characters), matched case- and accent-insensitively with whitespace collapsed ("İstanbul", "istanbul" and " ISTANBUL " are one city). null (or left out) with no district: the rate covers every address no city rate covers ("everything else", the fallback).`,
      ),
    )
    .nullable(),
  district: t
    .string(
      placeName().description(
        `A district of city (1 to ${PLACE_NAME_MAX} characters), matched like city; needs city (district names repeat across cities). null: the whole city.`,
      ),
    )
    .nullable(),
  minWeightGrams: t
    .number(int(0, WEIGHT_MAX_GRAMS).description('Weight band, lower bound in grams (inclusive). null: no lower bound.'))
    .nullable(),
  maxWeightGrams: t
    .number(
      int(1, WEIGHT_MAX_GRAMS).description(
        'Weight band, upper bound in grams (exclusive: a cart of exactly this weight falls in the next band); greater than minWeightGrams. null: no upper bound.',
      ),
    )
    .nullable(),
  minOrderValue: t
    .number(exactMoney().description("Order-value band, lower bound (inclusive) in the store's currency. null: no lower bound."))
    .nullable(),
  maxOrderValue: t
    .number(
      exactMoney()
        .greater(0)
        .description(
          "Order-value band, upper bound (exclusive) in the store's currency; greater than minOrderValue. null: no upper bound.",
        ),
    )
    .nullable(),
  price: t.number(exactMoney().description("What the rate costs, 0 to 1,000,000,000 (at most 4 decimals), in the store's currency.")),
  freeShippingThreshold: t
    .number(
      exactMoney().description(
        'Orders whose value is at or above this amount ship free with this rate (price 0, free true). null: never free (unless price is 0).',
      ),
    )
    .nullable(),
  minDeliveryDays: t
    .number(int(0, DELIVERY_DAYS_MAX).description(`Delivery estimate, fewest days (0 to ${DELIVERY_DAYS_MAX}). null: not stated.`))
    .nullable(),
  maxDeliveryDays: t
    .number(
      int(0, DELIVERY_DAYS_MAX).description(
        `Delivery estimate, most days (0 to ${DELIVERY_DAYS_MAX}), at least minDeliveryDays. null: not stated.`,
      ),
    )
    .nullable(),
  isActive: t.boolean(bool().description('Inactive rates are kept but never quoted.')),
};

const crossFieldRules =
  'maxWeightGrams must be greater than minWeightGrams, maxOrderValue greater than minOrderValue, maxDeliveryDays at least minDeliveryDays, and district needs city; otherwise 400 with the field path.';

export const CreateShippingRateDto = typedDto(
  'CreateShippingRateDto',
  t
    .object({
      storeId: t.storeId(),
      ...fields,
      name: fields.name.required(),
      price: fields.price.required(),
      isActive: fields.isActive.default(true).rules((s) => s.description('Defaults to true. Inactive rates are kept but never quoted.')),
    })
    .rules((o) => o.description(`A shipping rate of the store, priced in the store's currency. ${crossFieldRules}`)),
);

export const UpdateShippingRateDto = typedDto(
  'UpdateShippingRateDto',
  t
    .object(fields)
    .rules((o) =>
      o
        .min(1)
        .messages({ 'object.min': 'give at least one field to change' })
        .description(
          `Any subset of the fields of a rate (at least one); null clears an optional field. The rules are checked on the rate as it would be after the change: ${crossFieldRules} The store and currency of a rate cannot change.`,
        ),
    ),
);

const DESTINATION_LEVELS = ['DISTRICT', 'CITY', 'EVERYWHERE_ELSE'] as const;

const RateItem = Joi.object({
  id: uuid().required(),
  storeId: uuid().required(),
  name: Joi.string().required(),
  city: Joi.string().allow(null).required(),
  district: Joi.string().allow(null).required(),
  destination: Joi.string()
    .valid(...DESTINATION_LEVELS)
    .required()
    .description('DISTRICT (city and district set), CITY (city only) or EVERYWHERE_ELSE (neither: the fallback).'),
  minWeightGrams: Joi.number().integer().allow(null).required(),
  maxWeightGrams: Joi.number().integer().allow(null).required(),
  minOrderValue: Joi.number().allow(null).required(),
  maxOrderValue: Joi.number().allow(null).required(),
  price: Joi.number().required(),
  freeShippingThreshold: Joi.number().allow(null).required(),
  currency: Joi.string().required().description("The store's currency (ISO 4217) when the rate was created."),
  minDeliveryDays: Joi.number().integer().allow(null).required(),
  maxDeliveryDays: Joi.number().integer().allow(null).required(),
  isActive: Joi.boolean().required(),
  createdAt: dateTime().required(),
  updatedAt: dateTime().required(),
}).label('ShippingRateItem');

export const ShippingRateResponse = dto('ShippingRateResponse', RateItem);

export const ShippingRateListResponse = dto(
  'ShippingRateListResponse',
  Joi.object({
    items: Joi.array().items(RateItem).required().description('Rates of the store, active or not, in creation order.'),
    nextCursor: Joi.string().allow(null).required().description('Pass as cursor for the next page; null on the last page.'),
  }),
);

export const ShippingRatesCsv = csvDocument(
  'ShippingRatesCsv',
  'The shipping rates of a store, one row per rate, in creation order. Columns: id, name, destination, city, district, minWeightGrams, maxWeightGrams, minOrderValue, maxOrderValue, price, freeShippingThreshold, currency, minDeliveryDays, maxDeliveryDays, isActive (true or false; empty cells are absent values). Cells that begin with =, +, -, @, a tab or a carriage return are prefixed with an apostrophe against spreadsheet formula injection.',
);

const QuoteItem = Joi.object({
  productId: uuid().description('A published product of the store (its own weight and price). Give productId or variantId, not both.'),
  variantId: uuid().description("A variant of a published product of the store (its weight and price, else its product's)."),
  quantity: int(1, QUOTE_QUANTITY_MAX).required().description(`1 to ${QUOTE_QUANTITY_MAX}.`),
  weightGrams: int(0, WEIGHT_MAX_GRAMS).description(
    'Weight of one unit in grams, used only when the catalog holds no weight for the item (the catalog weight always wins). An item with neither counts as weighing 0 g.',
  ),
})
  .xor('productId', 'variantId')
  .label('QuoteShippingItem');

export const QuoteShippingDto = dto(
  'QuoteShippingDto',
  Joi.object({
    items: Joi.array().items(QuoteItem).min(1).max(QUOTE_ITEMS_MAX).required().description(`The cart: 1 to ${QUOTE_ITEMS_MAX} lines.`),
    orderValue: exactMoney().description(
      "The order value the value bands and free-shipping thresholds are compared with, in the store's currency (e.g. after discounts). Left out: the sum of quantity × catalog price (the variant's price, else its product's), or, when the store does not show prices to this visitor, unknown (quoted as 0).",
    ),
    address: Joi.object({
      city: placeName().required().description('The city shipped to.'),
      district: placeName().description('The district shipped to; without it only city-wide and fallback rates can apply.'),
    })
      .required()
      .label('QuoteShippingAddress'),
  }).description('A cart and a shipping address to quote.'),
);

const QuoteOption = Joi.object({
  rateId: uuid().required(),
  name: Joi.string().required(),
  destination: Joi.string()
    .valid(...DESTINATION_LEVELS)
    .required()
    .description('How the rate matched the address.'),
  price: Joi.number().required().description('What shipping costs with this option: 0 when free.'),
  ratePrice: Joi.number().required().description("The rate's price before the free-shipping threshold."),
  free: Joi.boolean()
    .required()
    .description('True when the order ships free: the order value is at or above the free-shipping threshold, or the rate costs 0.'),
  freeShippingThreshold: Joi.number().allow(null).required(),
  currency: Joi.string().required(),
  minDeliveryDays: Joi.number().integer().allow(null).required(),
  maxDeliveryDays: Joi.number().integer().allow(null).required(),
}).label('ShippingQuoteOption');

export const ShippingQuoteResponse = dto(
  'ShippingQuoteResponse',
  Joi.object({
    storeId: uuid().required(),
    currency: Joi.string().required().description("The store's currency."),
    weightGrams: Joi.number().integer().min(0).required().description('The cart weight the weight bands were compared with.'),
    orderValue: Joi.number()
      .min(0)
      .description(
        'The order value the value bands and thresholds were compared with. Absent when the store does not show prices to this visitor and the cart gave no orderValue (the quote was then made as for an order value of 0).',
      ),
    pricesShown: Joi.boolean()
      .required()
      .description("Whether this visitor may see the store's prices; when false, catalog prices were not used for the order value."),
    options: Joi.array()
      .items(QuoteOption)
      .required()
      .description(
        'Every option that applies, cheapest first (then the shortest estimate, then name). Empty when no active rate covers the address, weight and value: the store does not ship this cart there.',
      ),
  }),
);
