/** DTOs and enums of the merchant product catalog (docs/catalog.md). */
import Joi from 'joi';
import { dto } from '../http/route';
import { t, typedDto } from '../http/typed-schema';
import { dateTime, httpUrl, int, oneOf, uuid } from '../http/schema-types';
import { currencyCode } from '../organization/organization.schemas';
import { PRODUCT_SLUG_MAX, type AttributeValues } from '../../domain/product-rules';

/** Product type: the specification's enumerated values. */
export const PRODUCT_TYPES = ['PHYSICAL', 'DIGITAL', 'BUNDLE', 'GIFT_CARD', 'SUBSCRIPTION', 'SERVICE'] as const;

/** The public product search `sort` values are PUBLIC_SEARCH_SORTS in search/public-search-request.ts. */

/**
 * Product states. The specification does not list them; the operations (publish, archive) and the
 * product.published / product.archived topics imply these three (docs/decisions.md, Enumerations).
 */
export const PRODUCT_STATUSES = ['DRAFT', 'PUBLISHED', 'ARCHIVED'] as const;

/** Sort keys of the merchant product lists (not listed by the specification). */
export const PRODUCT_SORT_FIELDS = ['createdAt', 'updatedAt', 'name', 'price', 'stock'] as const;

export const SORT_DIRECTIONS = ['asc', 'desc'] as const;

export const PRODUCT_TITLE_MAX = 300;
export const PRODUCT_DESCRIPTION_MAX = 100_000;
export const PRODUCT_MAX_CATEGORIES = 20;
export const PRODUCT_MAX_TAGS = 50;
export const PRODUCT_MAX_VARIANTS = 100;
export const PRODUCT_MAX_IMAGES = 50;
export const PRODUCT_MAX_ATTRIBUTES = 100;
export const PRODUCT_MAX_LOCALES = 30;
export const MONEY_MAX = 1_000_000_000;

export const PRODUCT_SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const TRANSLATION_LOCALE_PATTERN = /^[a-z]{2}(-[A-Za-z0-9]{2,8})?$/;

/** A product slug: lowercase letters, digits and single hyphens, 1 to 160 characters, unique in the store. */
export const productSlug = (): Joi.StringSchema =>
  Joi.string()
    .min(1)
    .max(PRODUCT_SLUG_MAX)
    .pattern(PRODUCT_SLUG_PATTERN, 'slug')
    .messages({ 'string.pattern.name': '{{#label}} must be lowercase letters, digits and single hyphens, such as blue-shirt' })
    .description(
      'Lowercase letters, digits and single hyphens, 1 to 160 characters; unique in the store (case-insensitively). Derived from the title when left out (-2, -3, … appended until free).',
    );

/** Decimal places of a JSON number as written (shortest round-trip form), exponents included. */
export function decimalPlaces(value: number): number {
  const match = /(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(value.toString());
  const fraction = match?.[1]?.length ?? 0;
  const exponent = match?.[2] ? Number.parseInt(match[2], 10) : 0;
  return Math.max(fraction - exponent, 0);
}

/**
 * An amount: a JSON number 0 to 1 000 000 000 with at most 4 decimals. Unlike joi's precision rule it
 * never rounds: more decimals are a 400. The service stores it as a decimal string (numeric column).
 */
export const productMoney = (): Joi.NumberSchema =>
  Joi.number()
    .min(0)
    .max(MONEY_MAX)
    .custom((value: number, helpers) => (decimalPlaces(value) > 4 ? helpers.error('number.precision', { limit: 4 }) : value))
    .description('Amount, 0 to 1000000000 with at most 4 decimals (never rounded: more decimals are refused).');

const htmlText = (): Joi.StringSchema =>
  Joi.string()
    .allow('')
    .max(PRODUCT_DESCRIPTION_MAX)
    .description(
      'HTML, at most 100000 characters, sanitised on write: basic formatting (p, br, strong, em, b, i, u, s, lists, headings h1–h6, blockquote, code, pre, tables, hr, span, div), links with http, https or mailto only and images with http or https sources are kept; scripts, styles, event handlers and any other tag or attribute are removed.',
    );

/** A variant of a product's body (VariantInput of the service). */
export const ProductVariantInput = t
  .object({
    id: t.string(
      uuid().description(
        'On replace: a variant of this product whose id is kept; otherwise ignored ids are refused (400 invalid_variant). New variants get new ids.',
      ),
    ),
    sku: t.string(Joi.string().trim().min(1).max(100).description('Unique in the store, case-insensitively (409 sku_taken).')).nullable(),
    barcode: t.string(Joi.string().trim().min(1).max(64)).nullable(),
    // Pattern keys: a map of option names to values.
    options: t.custom<Record<string, string>>(
      Joi.object()
        .pattern(/^.{1,100}$/, Joi.string().max(100))
        .max(10)
        .description('Option values such as { "size": "M" }: at most 10 pairs, names and values at most 100 characters.'),
    ),
    price: t.number(productMoney().description("The variant's own price; null or absent: the product's price.")).nullable(),
    compareAtPrice: t.number(productMoney()).nullable(),
    stock: t.number(int(0, 1_000_000_000)).required(),
  })
  .rules((o) => o.label('ProductVariantInput'));

const ImageInput = t
  .object({
    url: t.string(httpUrl()).required(),
    // null and '' both mean no alt text.
    alt: t
      .string(Joi.string().max(500))
      .nullable()
      .rules((s) => s.allow('')),
  })
  .rules((o) => o.label('ProductImageInput'));

const attributeValue = () => Joi.alternatives().try(Joi.string().max(1000), Joi.number(), Joi.boolean());

const productFields = {
  title: t.string(Joi.string().trim().min(1).max(PRODUCT_TITLE_MAX)).required(),
  slug: t.string(productSlug()),
  descriptionHtml: t.string(htmlText()),
  type: t.oneOf(PRODUCT_TYPES).required(),
  status: t.oneOf(PRODUCT_STATUSES),
  price: t.number(productMoney()).required(),
  compareAtPrice: t.number(productMoney().description('null or at least the price (400 compare_at_below_price).')).nullable(),
  currency: t.string(
    currencyCode().description("ISO 4217 code (Intl.supportedValuesOf('currency')), upper case; defaults to the store's currency."),
  ),
  brandId: t.string(uuid().description('A brand of the same store (400 invalid_brand).')).nullable(),
  vendorId: t.string(uuid()).nullable(),
  vendorName: t.string(Joi.string().max(200)).nullable(),
  categoryIds: t.array(
    t.string(uuid()),
    Joi.array()
      .max(PRODUCT_MAX_CATEGORIES)
      .unique()
      .description('Up to 20 distinct categories of the same store (400 invalid_category); the first is the main one.'),
  ),
  tagIds: t.array(
    t.string(uuid()),
    Joi.array().max(PRODUCT_MAX_TAGS).unique().description('Up to 50 distinct product tags of the same store (400 invalid_tag).'),
  ),
  variants: t.array(ProductVariantInput, Joi.array().max(PRODUCT_MAX_VARIANTS)),
  images: t.array(ImageInput, Joi.array().max(PRODUCT_MAX_IMAGES).description('Up to 50 images; position is the array order.')),
  // Pattern keys with alternatives: attribute names to a string, number or boolean.
  attributes: t.custom<AttributeValues>(
    Joi.object()
      .pattern(/^.{1,100}$/, attributeValue())
      .max(PRODUCT_MAX_ATTRIBUTES)
      .description(
        "Attribute values by name (at most 100), validated against the attributes of the product's categories: an unknown name is 400 unknown_attribute, a wrong type or enum value 400 invalid_attribute. Required attributes may be missing on a draft; a published product refuses them (400 missing_required_attributes).",
      ),
  ),
  // Pattern keys: locales to a title and/or description.
  translations: t.custom<Record<string, { title?: string; descriptionHtml?: string }>>(
    Joi.object()
      .pattern(
        TRANSLATION_LOCALE_PATTERN,
        Joi.object({ title: Joi.string().trim().min(1).max(PRODUCT_TITLE_MAX), descriptionHtml: htmlText() }),
      )
      .max(PRODUCT_MAX_LOCALES)
      .description('Per locale (e.g. en, tr-TR; at most 30): title and/or descriptionHtml (sanitised like descriptionHtml).'),
  ),
};

export const CreateProductDto = typedDto(
  'CreateProductDto',
  t.object({
    storeId: t.storeId(),
    ...productFields,
    status: productFields.status.rules((s) =>
      s.description('DRAFT when left out; PUBLISHED (checks required attributes) and ARCHIVED are allowed.'),
    ),
  }),
);

export const UpdateProductDto = typedDto(
  'UpdateProductDto',
  t
    .object({
      ...productFields,
      status: productFields.status.rules((s) => s.description('Left out: the product keeps its status.')),
    })
    .rules((o) =>
      o.description(
        "The whole product: a field left out takes its default (no description, no categories, tags, variants, images, attributes or translations; the slug is kept; the currency is the store currency), except status which is kept when left out. Variants given with the id of one of the product's variants keep that id.",
      ),
    ),
);

const amount = () => Joi.number().min(0).description('Amount as a JSON number (stored as a decimal, at most 4 decimals).');

const VariantItem = Joi.object({
  id: uuid().required(),
  sku: Joi.string().allow(null).required(),
  barcode: Joi.string().allow(null).required(),
  options: Joi.object().pattern(Joi.string(), Joi.string()).required(),
  price: amount().allow(null).required(),
  compareAtPrice: amount().allow(null).required(),
  stock: Joi.number().integer().min(0).required(),
  position: Joi.number().integer().min(0).required(),
}).label('ProductVariant');

const ImageItem = Joi.object({
  id: uuid().required(),
  url: Joi.string().required(),
  alt: Joi.string().allow(null).required(),
  position: Joi.number().integer().min(0).required(),
}).label('ProductImage');

const discountPercent = () =>
  Joi.number()
    .integer()
    .min(0)
    .max(100)
    .description(
      'Whole percent off: (compareAtPrice − price) / compareAtPrice × 100 rounded half up, computed in exact decimals; 0 without a compare-at price above the price.',
    );

export const ProductItem = Joi.object({
  id: uuid().required(),
  storeId: uuid().required(),
  title: Joi.string().required(),
  slug: Joi.string().required(),
  descriptionHtml: Joi.string().allow('').required(),
  type: oneOf(PRODUCT_TYPES).required(),
  status: oneOf(PRODUCT_STATUSES).required(),
  price: amount().required(),
  compareAtPrice: amount().allow(null).required(),
  discountPercent: discountPercent().required(),
  currency: Joi.string().required(),
  brandId: uuid().allow(null).required(),
  vendorId: uuid().allow(null).required(),
  vendorName: Joi.string().allow(null).required(),
  categoryIds: Joi.array().items(uuid()).required(),
  tagIds: Joi.array().items(uuid()).required(),
  attributes: Joi.object()
    .pattern(Joi.string(), Joi.alternatives().try(Joi.string(), Joi.number(), Joi.boolean()))
    .required(),
  translations: Joi.object()
    .pattern(Joi.string(), Joi.object({ title: Joi.string(), descriptionHtml: Joi.string().allow('') }))
    .required(),
  inStock: Joi.boolean().required().description('Some variant has stock; a product without variants is not in stock.'),
  variants: Joi.array().items(VariantItem).required(),
  images: Joi.array().items(ImageItem).required(),
  rating: Joi.number().min(0).max(5).required(),
  reviewCount: Joi.number().integer().min(0).required(),
  salesCount: Joi.number().integer().min(0).required(),
  viewCount: Joi.number().integer().min(0).required(),
  publishedAt: dateTime().allow(null).required(),
  createdAt: dateTime().required(),
  updatedAt: dateTime().required(),
}).label('Product');

export const ProductResponse = dto('ProductResponse', ProductItem);

export const ProductSummary = Joi.object({
  id: uuid().required(),
  storeId: uuid().required(),
  title: Joi.string().required(),
  slug: Joi.string().required(),
  type: oneOf(PRODUCT_TYPES).required(),
  status: oneOf(PRODUCT_STATUSES).required(),
  price: amount().required(),
  compareAtPrice: amount().allow(null).required(),
  discountPercent: discountPercent().required(),
  currency: Joi.string().required(),
  brandId: uuid().allow(null).required(),
  vendorId: uuid().allow(null).required(),
  stock: Joi.number().integer().min(0).required().description('Sum of the stock of the variants.'),
  inStock: Joi.boolean().required(),
  imageUrl: Joi.string().allow(null).required().description('The first image, if any.'),
  publishedAt: dateTime().allow(null).required(),
  createdAt: dateTime().required(),
  updatedAt: dateTime().required(),
}).label('ProductSummary');

export const ProductListResponse = dto(
  'ProductListResponse',
  Joi.object({
    items: Joi.array().items(ProductSummary).max(100).required().description('Up to 100 products of the store, any status, newest first.'),
    nextCursor: Joi.string()
      .allow(null)
      .required()
      .description('Pass as cursor for the next 100; null when these are the last. Never a silent cut: follow it to read every product.'),
    total: Joi.number().integer().min(0).required().description('Every product of the store, any status.'),
  }),
);

export const ProductPageResponse = dto(
  'ProductPageResponse',
  Joi.object({
    items: Joi.array().items(ProductSummary).required(),
    nextCursor: Joi.string().allow(null).required().description('Pass as cursor for the next page; null on the last page.'),
    page: Joi.number().integer().min(1).required().description('The page asked for (1 when a cursor was given).'),
    limit: Joi.number().integer().min(1).required(),
    total: Joi.number().integer().min(0).required().description('Products matching the filters.'),
  }),
);

export const ProductSearchResponse = dto(
  'ProductSearchResponse',
  Joi.object({
    items: Joi.array().items(ProductSummary).required(),
    page: Joi.number().integer().min(1).required(),
    limit: Joi.number().integer().min(1).required(),
    total: Joi.number().integer().min(0).required(),
  }),
);

export const CategoryValueResponse = dto(
  'CategoryValueResponse',
  Joi.object({
    items: Joi.array()
      .items(
        Joi.object({
          categoryId: uuid().required(),
          name: Joi.string().required(),
          productCount: Joi.number().integer().min(0).required().description('Products in the category (directly, any status).'),
          stockValue: Joi.string()
            .pattern(/^\d+\.\d{2}$/)
            .required()
            .description(
              'Σ over the products of Σ over their variants of (variant price, else product price) × stock, summed in SQL numeric and rounded half away from zero to 2 decimals; a decimal string such as "1234.50". Amounts are added as they are, whatever their currency.',
            ),
        }).label('CategoryValue'),
      )
      .required()
      .description('Every category of the store, ordered by name.'),
  }),
);
