/** Response shapes of the public storefront reads. */
import Joi from 'joi';
import { dto } from '../http/route';
import { dateTime, uuid } from '../http/schema-types';

const nullableText = (): Joi.StringSchema => Joi.string().allow(null).required();
/** A price field: present when the visitor may see the store's prices (price visibility), absent otherwise. */
const HIDDEN_PRICE = 'Absent when the store does not show prices to this visitor (price visibility).';
const ref = (label: string): Joi.ObjectSchema =>
  Joi.object({ id: uuid().required(), name: Joi.string().required(), slug: Joi.string().required() }).label(label);

const categoryFields = {
  id: uuid().required(),
  name: Joi.string().required(),
  slug: Joi.string().required(),
  description: nullableText(),
  imageUrl: nullableText(),
  children: Joi.array()
    .items(Joi.object().unknown(true).description('A child category, of the same shape (id, name, slug, description, imageUrl, children).'))
    .required()
    .description('Active child categories in display order.'),
};

const PublicCategory = Joi.object(categoryFields).label('PublicCategory');

export const PublicCategoryTreeResponse = dto(
  'PublicCategoryTreeResponse',
  Joi.object({ items: Joi.array().items(PublicCategory).required() }),
);

export const PublicCategoryResponse = dto(
  'PublicCategoryResponse',
  Joi.object({
    ...categoryFields,
    ancestors: Joi.array()
      .items(ref('CategoryBreadcrumb'))
      .required()
      .description('The path from the root category down to the parent (breadcrumb); empty for a root.'),
  }),
);

const PublicBrand = Joi.object({
  id: uuid().required(),
  name: Joi.string().required(),
  slug: Joi.string().required(),
  description: nullableText(),
  logoUrl: nullableText(),
  websiteUrl: nullableText(),
}).label('PublicBrand');

export const PublicBrandResponse = dto('PublicBrandResponse', PublicBrand);
export const PublicBrandListResponse = dto('PublicBrandListResponse', Joi.object({ items: Joi.array().items(PublicBrand).required() }));

const productCardFields = {
  id: uuid().required(),
  title: Joi.string().required(),
  slug: Joi.string().required(),
  price: Joi.number().description(HIDDEN_PRICE),
  compareAtPrice: Joi.number().allow(null).description(`null without a compare-at price. ${HIDDEN_PRICE}`),
  discountPercent: Joi.number()
    .integer()
    .min(0)
    .max(100)
    .description(`Whole percent below the compare-at price; 0 without one. ${HIDDEN_PRICE}`),
  badge: Joi.string()
    .valid('FLASH_SALE')
    .allow(null)
    .description(`FLASH_SALE while a running flash sale sets the price, else null. ${HIDDEN_PRICE}`),
  flashSaleEndsAt: Joi.string().allow(null).description(`When that flash sale ends (ISO 8601). ${HIDDEN_PRICE}`),
  imageUrl: nullableText().description('The first image.'),
  inStock: Joi.boolean().required().description('Some variant has stock.'),
};
const ProductCard = Joi.object(productCardFields).label('PublicProductCard');

export const PublicRelatedProductsResponse = dto(
  'PublicRelatedProductsResponse',
  Joi.object({
    items: Joi.array()
      .items(
        Joi.object({ ...productCardFields, kind: Joi.string().valid('RELATED', 'UPSELL', 'CROSS_SELL').required() }).label(
          'PublicRelatedProduct',
        ),
      )
      .required(),
  }),
);

const PublicCollection = {
  id: uuid().required(),
  name: Joi.string().required(),
  slug: Joi.string().required(),
  description: nullableText(),
  imageUrl: nullableText(),
};
export const PublicCollectionListResponse = dto(
  'PublicCollectionListResponse',
  Joi.object({ items: Joi.array().items(Joi.object(PublicCollection).label('PublicCollection')).required() }),
);
export const PublicCollectionResponse = dto(
  'PublicCollectionResponse',
  Joi.object({
    ...PublicCollection,
    products: Joi.array().items(ProductCard).required().description('Published products of the collection in its order.'),
  }),
);

export const PublicProductResponse = dto(
  'PublicProductResponse',
  Joi.object({
    id: uuid().required(),
    title: Joi.string().required(),
    slug: Joi.string().required(),
    descriptionHtml: Joi.string().allow('').required(),
    translations: Joi.object().unknown(true).required(),
    type: Joi.string().required(),
    price: Joi.number().description(HIDDEN_PRICE),
    compareAtPrice: Joi.number().allow(null).description(`null without a compare-at price. ${HIDDEN_PRICE}`),
    discountPercent: Joi.number().integer().min(0).max(100).description(HIDDEN_PRICE),
    badge: Joi.string()
      .valid('FLASH_SALE')
      .allow(null)
      .description(`FLASH_SALE while a running flash sale sets the price, else null. ${HIDDEN_PRICE}`),
    flashSaleEndsAt: Joi.string().allow(null).description(`When that flash sale ends (ISO 8601). ${HIDDEN_PRICE}`),
    currency: Joi.string().length(3).description(HIDDEN_PRICE),
    brand: ref('PublicBrandRef').allow(null).required(),
    vendorName: nullableText(),
    categories: Joi.array().items(ref('PublicCategoryRef')).required(),
    attributes: Joi.object().unknown(true).required(),
    images: Joi.array()
      .items(Joi.object({ url: Joi.string().required(), alt: nullableText() }).label('PublicProductImage'))
      .required(),
    variants: Joi.array()
      .items(
        Joi.object({
          id: uuid().required(),
          sku: nullableText(),
          options: Joi.object().pattern(Joi.string(), Joi.string()).required(),
          price: Joi.number().description(`The variant's price, or the product's when the variant has none. ${HIDDEN_PRICE}`),
          compareAtPrice: Joi.number().allow(null).description(HIDDEN_PRICE),
          inStock: Joi.boolean().required().description('Stock above zero; exact stock levels are not public.'),
        }).label('PublicVariant'),
      )
      .required(),
    inStock: Joi.boolean().required(),
    rating: Joi.number().required(),
    reviewCount: Joi.number().integer().required(),
    publishedAt: dateTime().allow(null).required(),
    updatedAt: dateTime().required(),
  }),
);

export const PublicBundleResponse = dto(
  'PublicBundleResponse',
  Joi.object({
    items: Joi.array()
      .items(
        Joi.object()
          .unknown(true)
          .description(
            "An active bundle as the bundle read returns it (id, productId, name, slug, pricing, items with unit prices, currency, itemsTotal, bundlePrice, savings, savingsPercent, updatedAt). When the store does not show prices to this visitor (price visibility), pricing, currency, itemsTotal, bundlePrice, savings, savingsPercent and the items' unitPrice and productCurrency are absent.",
          ),
      )
      .required(),
  }),
);

export const SitemapFeedResponse = dto(
  'SitemapFeedResponse',
  Joi.object({
    items: Joi.array()
      .items(Joi.object({ slug: Joi.string().required(), updatedAt: dateTime().required() }).label('SitemapEntry'))
      .required(),
    nextCursor: uuid().allow(null).required().description('Pass as cursor for the next page; null on the last page.'),
  }),
);

export const PriceVisibilityResponse = dto(
  'PriceVisibilityResponse',
  Joi.object({
    storeId: uuid().required(),
    priceVisibility: Joi.string()
      .valid('EVERYONE', 'SIGNED_IN', 'HIDDEN')
      .required()
      .description('The store setting: prices shown to EVERYONE, only to SIGNED_IN visitors, or HIDDEN from everyone.'),
    pricesShown: Joi.boolean()
      .required()
      .description(
        'Whether this request sees prices: true for EVERYONE; for SIGNED_IN only when the request carries a valid access token of a signed-in user (a missing, invalid or expired token is simply not signed in); false for HIDDEN.',
      ),
    open: Joi.boolean()
      .required()
      .description(
        'Whether the shop is open: false while its tenant is suspended for an unpaid subscription invoice (docs/billing.md, "Suspension"); the storefront then shows a temporarily-unavailable page.',
      ),
  }),
);
