/** DTOs of the bundles area. */
import Joi from 'joi';
import { dto } from '../http/route';
import { t, typedDto } from '../http/typed-schema';
import { bool, dateTime, money, oneOf, uuid } from '../http/schema-types';
import { catalogSlug } from '../../domain/slugs';

export const BUNDLE_NAME_MAX = 200;
export const BUNDLE_ITEMS_MAX = 50;
export const BUNDLE_QUANTITY_MAX = 1000;
export const BUNDLE_COUNT_MAX = 100;
export const PRICING_TYPES = ['FIXED_PRICE', 'PERCENT_OFF'] as const;

const bundleName = (): Joi.StringSchema => Joi.string().trim().min(1).max(BUNDLE_NAME_MAX);
const quantity = (): Joi.NumberSchema => Joi.number().integer().min(1).max(BUNDLE_QUANTITY_MAX).description('1 to 1000.');

/** (productId, variantId) identifies a line: the same pair twice is refused. */
const sameLine = (a: { productId: string; variantId?: string | null }, b: { productId: string; variantId?: string | null }): boolean =>
  a.productId.toLowerCase() === b.productId.toLowerCase() && (a.variantId ?? null)?.toLowerCase() === (b.variantId ?? null)?.toLowerCase();

/** The pricing rule of a bundle's body (PricingInput of the service). */
export const BundlePricingInput = t
  .object({
    type: t.oneOf(PRICING_TYPES).required(),
    // Required or forbidden by type (`.when`): optional in the type.
    price: t.custom<number>(
      money()
        .when('type', { is: 'FIXED_PRICE', then: Joi.required(), otherwise: Joi.forbidden() })
        .description(
          'FIXED_PRICE only (required there, forbidden otherwise): the price of one bundle, 0 to 1000000000 with at most 4 decimals, in the store currency.',
        ),
    ),
    percentOff: t.custom<number>(
      Joi.number()
        .greater(0)
        .less(100)
        .precision(2)
        .when('type', { is: 'PERCENT_OFF', then: Joi.required(), otherwise: Joi.forbidden() })
        .description(
          "PERCENT_OFF only (required there, forbidden otherwise): the percentage taken off the items' sum, more than 0 and less than 100, at most 2 decimals.",
        ),
    ),
  })
  .rules((o) => o.description('The pricing rule: { type: FIXED_PRICE, price } or { type: PERCENT_OFF, percentOff }.'));

/** A line of a bundle's body or of a price computation (ItemInput of the service). */
export const BundleItemInput = t.object({
  productId: t.string(uuid().description("A product of the bundle's store.")).required(),
  variantId: t.string(uuid().description('A variant of that product; without one the product itself (its price) is meant.')).nullable(),
  quantity: t.number(quantity()).required(),
});

const items = () =>
  t.array(
    BundleItemInput,
    Joi.array()
      .min(1)
      .max(BUNDLE_ITEMS_MAX)
      .unique(sameLine)
      .description(
        '1 to 50 lines, in the order to show them; a (productId, variantId) pair at most once. Each product must be of the store and each variant of its product (400 invalid_product / invalid_variant).',
      ),
  );

const sellingProduct = () =>
  t
    .string(
      uuid().description(
        'The product of type BUNDLE of the store that sells the bundle (a product sells at most one bundle: 409 product_has_bundle); null for none.',
      ),
    )
    .nullable();

export const CreateBundleDto = typedDto(
  'CreateBundleDto',
  t.object({
    storeId: t.storeId(),
    name: t.string(bundleName()).required(),
    slug: t.string(
      catalogSlug().description(
        'Derived from the name when left out (with -2, -3, … appended until it is free in the store); unique per store, case-insensitively (409 slug_taken).',
      ),
    ),
    productId: sellingProduct(),
    pricing: BundlePricingInput.required(),
    items: items().required(),
    isActive: t.boolean(bool().description('Defaults to true.')).default(true),
  }),
);

export const UpdateBundleDto = typedDto(
  'UpdateBundleDto',
  t
    .object({
      name: t.string(bundleName()),
      slug: t.string(catalogSlug()),
      productId: sellingProduct(),
      pricing: BundlePricingInput,
      items: items().rules((s) => s.description('When given, replaces the whole list (1 to 50 lines, same rules as on create).')),
      isActive: t.boolean(bool()),
    })
    .rules((o) =>
      o
        .min(1)
        .messages({ 'object.min': 'give at least one field to change' })
        .description('Any subset of the fields of a bundle (at least one). The store of a bundle cannot change.'),
    ),
);

export const ComputeBundlePriceDto = typedDto(
  'ComputeBundlePriceDto',
  t.object({
    bundleId: t.string(uuid()).required(),
    quantities: t.array(
      BundleItemInput,
      Joi.array()
        .min(1)
        .max(BUNDLE_ITEMS_MAX)
        .unique(sameLine)
        .description(
          "Quantities per bundle replacing the bundle's own for the lines named (by productId and variantId); a line that is not in the bundle answers 400 item_not_in_bundle. Lines not named keep their quantity.",
        ),
    ),
    count: t.number(Joi.number().integer().min(1).max(BUNDLE_COUNT_MAX).description('How many bundles, 1 to 100 (default 1).')).default(1),
  }),
);

const amount = (description: string): Joi.NumberSchema => Joi.number().description(description);

const PricingView = Joi.object({
  type: oneOf(PRICING_TYPES).required(),
  price: Joi.number().description('FIXED_PRICE: the price of one bundle.'),
  percentOff: Joi.number().description("PERCENT_OFF: the percentage off the items' sum."),
}).label('BundlePricing');

const itemFields = {
  productId: uuid().required(),
  variantId: uuid().allow(null).required(),
  quantity: Joi.number().integer().required(),
  position: Joi.number().integer().required().description('0-based place in the list.'),
};

const summaryFields = {
  id: uuid().required(),
  storeId: uuid().required(),
  productId: uuid().allow(null).required().description('The BUNDLE product that sells it, or null.'),
  name: Joi.string().required(),
  slug: Joi.string().required(),
  pricing: PricingView.required(),
  isActive: Joi.boolean().required(),
  createdAt: dateTime().required(),
  updatedAt: dateTime().required(),
};

export const BundleSummary = Joi.object({
  ...summaryFields,
  items: Joi.array().items(Joi.object(itemFields).label('BundleItemRef')).required(),
}).label('BundleSummary');

const nullableAmount = (description: string): Joi.NumberSchema => amount(description).allow(null);

export const BundleResponse = dto(
  'BundleResponse',
  Joi.object({
    ...summaryFields,
    items: Joi.array()
      .items(
        Joi.object({
          ...itemFields,
          productTitle: Joi.string().required(),
          productCurrency: Joi.string().required(),
          variantSku: Joi.string().allow(null).required(),
          unitPrice: amount(
            "The variant's own price, else the product's price (as stored, up to 4 decimals), in productCurrency.",
          ).required(),
        }).label('BundleItemDetail'),
      )
      .required(),
    currency: Joi.string().required().description('The store currency, in which every amount below is.'),
    itemsTotal: nullableAmount(
      "Σ unitPrice × quantity, each line rounded half up to 2 decimals; null when an item is priced in another currency than the store's.",
    ).required(),
    bundlePrice: nullableAmount(
      'FIXED_PRICE: the fixed price; PERCENT_OFF: itemsTotal × (1 − percentOff / 100) rounded half up to 2 decimals. null as itemsTotal.',
    ).required(),
    savings: nullableAmount(
      "itemsTotal − bundlePrice (negative when a fixed price exceeds the items' sum). null as itemsTotal.",
    ).required(),
    savingsPercent: nullableAmount(
      'savings / itemsTotal × 100 rounded half up to 2 decimals (0 when itemsTotal is 0). null as itemsTotal.',
    ).required(),
  }),
);

export const BundleListResponse = dto(
  'BundleListResponse',
  Joi.object({
    items: Joi.array().items(BundleSummary).required().description('The bundles, ordered by name (case-insensitively); not paged.'),
  }),
);

export const BundlePriceResponse = dto(
  'BundlePriceResponse',
  Joi.object({
    currency: Joi.string().required().description('The store currency of every amount.'),
    count: Joi.number().integer().required().description('How many bundles were priced.'),
    lines: Joi.array()
      .items(
        Joi.object({
          productId: uuid().required(),
          variantId: uuid().allow(null).required(),
          quantity: Joi.number().integer().required().description('Quantity per bundle × count.'),
          unitPrice: amount('Variant price, else product price, as stored (up to 4 decimals).').required(),
          lineTotal: amount('unitPrice × quantity, rounded half up to 2 decimals.').required(),
        }).label('BundlePriceLine'),
      )
      .required(),
    itemsTotal: amount('Σ lineTotal.').required(),
    bundlePrice: amount(
      'FIXED_PRICE: price × count rounded half up to 2 decimals; PERCENT_OFF: itemsTotal × (1 − percentOff / 100) rounded half up to 2 decimals.',
    ).required(),
    discount: amount("itemsTotal − bundlePrice (negative when a fixed price exceeds the items' sum).").required(),
    total: amount('What the customer pays: bundlePrice.').required(),
  }),
);
