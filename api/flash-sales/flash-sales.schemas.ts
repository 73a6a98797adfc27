/**
 * DTOs of the flash-sale campaigns area. The specification names the DTOs but not their fields; the
 * fields below are this platform's design, documented in each description. Amounts are decimals (at
 * most 4 decimals) in the product's currency; percentages greater than 0, at most 100, 2 decimals.
 */
import Joi from 'joi';
import { dto } from '../http/route';
import { t, typedDto } from '../http/typed-schema';
import { catalogSlug } from '../../domain/slugs';
import { dateTime, int, text, uuid } from '../http/schema-types';

export const FLASH_SALE_STATUSES = ['DRAFT', 'PUBLISHED', 'ARCHIVED'] as const;
export const FLASH_SALE_PHASES = ['UPCOMING', 'RUNNING', 'ENDED'] as const;
export const CAMPAIGN_PRODUCTS_MAX = 500;
export const CAMPAIGN_CATEGORIES_MAX = 100;
export const STOCK_CAP_MAX = 1_000_000;

export const PRECEDENCE =
  "Precedence: while a PUBLISHED campaign runs (startsAt ≤ now < endsAt) its products, and every product of its categories and their subtrees, cost the sale price (or the percent off the base price); several offers for one product: the lowest wins. The flash price wins over the price after pricing rules when it is lower or equal, and pricing rules never stack on a flash price; otherwise the rule price stands. A capped product's offer stops once soldCount reaches stockCap (an order line gets it only when its whole quantity fits). The search index follows on time: effective price, compareAtPrice, discounted, the discount sort and the FLASH_SALE badge change at startsAt and back at endsAt, without a manual reindex.";

const percent = (): Joi.NumberSchema =>
  Joi.number()
    .greater(0)
    .max(100)
    .precision(2)
    .prefs({ convert: false })
    .description('Percent off the base price: greater than 0, at most 100, at most 2 decimals.');

const salePrice = (): Joi.NumberSchema =>
  Joi.number()
    .min(0)
    .max(1_000_000_000)
    .precision(4)
    .prefs({ convert: false })
    .description(
      "The sale unit price in the product's currency, 0 to 1,000,000,000 (at most 4 decimals); every variant costs at most this. Not below the product's price: no offer (the product keeps its price).",
    );

/** A product of a campaign's body (ProductInput of the service). */
export const CampaignProductInput = t
  .object({
    productId: t.string(uuid().description('A product of the store (404 product_not_found otherwise), at most once.')).required(),
    salePrice: t.number(salePrice()),
    discountPercent: t.number(percent()),
    stockCap: t
      .number(
        int(1, STOCK_CAP_MAX).description(
          `How many units may sell at the flash price (1 to ${STOCK_CAP_MAX}); null or absent: no cap. Once soldCount reaches it the product goes back to its normal price (and is re-indexed).`,
        ),
      )
      .nullable(),
  })
  .rules((o) => o.xor('salePrice', 'discountPercent').description('Exactly one of salePrice and discountPercent (400 otherwise).'));

const products = () =>
  t.array(
    CampaignProductInput,
    Joi.array()
      .max(CAMPAIGN_PRODUCTS_MAX)
      .unique('productId')
      .description(
        `0 to ${CAMPAIGN_PRODUCTS_MAX} products on sale. On update the list is replaced as a whole; products that stay keep their soldCount.`,
      ),
  );

/** A category of a campaign's body (CategoryInput of the service). */
export const CampaignCategoryInput = t.object({
  categoryId: t
    .string(
      uuid().description(
        'A category of the store (404 category_not_found otherwise): all its products and those of its subtree, at most once.',
      ),
    )
    .required(),
  discountPercent: t.number(percent()).required(),
});

const categories = () =>
  t.array(
    CampaignCategoryInput,
    Joi.array()
      .max(CAMPAIGN_CATEGORIES_MAX)
      .unique('categoryId')
      .description(
        `0 to ${CAMPAIGN_CATEGORIES_MAX} categories on sale by percentage (no stock caps). On update the list is replaced as a whole.`,
      ),
  );

const fields = {
  name: t.string(text(1, 120).trim().description('1 to 120 characters.')),
  slug: t.string(
    catalogSlug().description(
      'Lowercase letters, digits and single hyphens (1 to 120); derived from the name when left out on create (with -2, -3, … until free). Unique per store among all its campaigns, archived ones included, case-insensitively (409 slug_taken).',
    ),
  ),
  description: t
    .string(Joi.string().max(2000).allow('').description('Plain text shown on the storefront, at most 2000 characters.'))
    .nullable(),
  status: t.oneOf(['DRAFT', 'PUBLISHED'] as const, (s) =>
    s.description(
      'DRAFT (default on create: not live, not public) or PUBLISHED (live during its window, readable publicly). ARCHIVED is reached only by DELETE.',
    ),
  ),
  startsAt: t.date(dateTime().description('ISO 8601 date-time at which the sale starts (inclusive).')),
  endsAt: t.date(
    dateTime().description('ISO 8601 date-time at which the sale ends (exclusive): after startsAt, and in the future when set.'),
  ),
  products: products(),
  categories: categories(),
};

export const CreateFlashSaleCampaignDto = typedDto(
  'CreateFlashSaleCampaignDto',
  t
    .object({
      storeId: t.storeId(),
      ...fields,
      name: fields.name.required(),
      status: fields.status.default('DRAFT'),
      startsAt: fields.startsAt.required(),
      endsAt: fields.endsAt.required(),
      products: fields.products.default([]),
      categories: fields.categories.default([]),
    })
    .rules((o) => o.description(`A flash-sale campaign of the store. ${PRECEDENCE}`)),
);

export const UpdateFlashSaleCampaignDto = typedDto(
  'UpdateFlashSaleCampaignDto',
  t
    .object(fields)
    .rules((o) =>
      o
        .min(1)
        .description(
          'Changes only the fields given (at least one); the window is checked as a whole (endsAt after startsAt; a changed endsAt in the future). An archived campaign takes no changes (409 flash_sale_archived).',
        ),
    ),
);

const ProductItem = Joi.object({
  productId: Joi.string().required(),
  salePrice: Joi.number().allow(null).required(),
  discountPercent: Joi.number().allow(null).required(),
  stockCap: Joi.number().integer().allow(null).required(),
  soldCount: Joi.number().integer().required().description('Units sold at the flash price (orders).'),
  remaining: Joi.number().integer().allow(null).required().description('stockCap − soldCount; null without a cap.'),
  soldOut: Joi.boolean().required().description('The cap is reached: the product is back at its normal price.'),
});

const CategoryItem = Joi.object({ categoryId: Joi.string().required(), discountPercent: Joi.number().required() });

const Campaign = Joi.object({
  id: Joi.string().required(),
  storeId: Joi.string().required(),
  name: Joi.string().required(),
  slug: Joi.string().required(),
  description: Joi.string().allow(null).required(),
  status: Joi.string()
    .valid(...FLASH_SALE_STATUSES)
    .required(),
  phase: Joi.string()
    .valid(...FLASH_SALE_PHASES)
    .required()
    .description('Where now is in the window: UPCOMING, RUNNING or ENDED (whatever the status).'),
  live: Joi.boolean().required().description('PUBLISHED and RUNNING: its prices apply now.'),
  startsAt: Joi.string().required(),
  endsAt: Joi.string().required(),
  products: Joi.array().items(ProductItem).required(),
  categories: Joi.array().items(CategoryItem).required(),
  archivedAt: Joi.string().allow(null).required(),
  createdAt: Joi.string().required(),
  updatedAt: Joi.string().required(),
});

export const FlashSaleCampaignResponse = dto('FlashSaleCampaignResponse', Campaign);
export const FlashSaleCampaignListResponse = dto(
  'FlashSaleCampaignListResponse',
  Joi.object({
    items: Joi.array().items(Campaign).required(),
    nextCursor: Joi.string().allow(null).required().description('The id of the last item when there are more; pass it as cursor.'),
  }),
);

const HIDDEN = 'Left out when the store does not show prices to this visitor (price visibility).';

const PublicProduct = Joi.object({
  productId: Joi.string().required(),
  slug: Joi.string().required(),
  title: Joi.string().required(),
  imageUrl: Joi.string().allow(null).required(),
  currency: Joi.string().description(HIDDEN),
  price: Joi.number().description(`The normal price. ${HIDDEN}`),
  salePrice: Joi.number().description(
    `The flash price now (the effective price; the normal price once sold out or before the start). ${HIDDEN}`,
  ),
  discountPercent: Joi.number().integer().description(`Whole percent saved. ${HIDDEN}`),
  stockCap: Joi.number().integer().allow(null).required(),
  remaining: Joi.number().integer().allow(null).required(),
  soldOut: Joi.boolean().required(),
});

const PublicCampaign = Joi.object({
  id: Joi.string().required(),
  storeId: Joi.string().required(),
  name: Joi.string().required(),
  slug: Joi.string().required(),
  description: Joi.string().allow(null).required(),
  phase: Joi.string().valid('UPCOMING', 'RUNNING').required(),
  startsAt: Joi.string().required(),
  endsAt: Joi.string().required(),
  products: Joi.array()
    .items(PublicProduct)
    .required()
    .description(
      'The published products listed by the campaign, in its order (products reached through categories are not listed; see categories).',
    ),
  categories: Joi.array()
    .items(
      Joi.object({
        categoryId: Joi.string().required(),
        name: Joi.string().required(),
        slug: Joi.string().required(),
        discountPercent: Joi.number().description(`Percent off in the category. ${HIDDEN}`),
      }),
    )
    .required()
    .description('Active categories on sale.'),
});

export const PublicFlashSaleCampaignResponse = dto('PublicFlashSaleCampaignResponse', PublicCampaign);
export const PublicFlashSaleCampaignListResponse = dto(
  'PublicFlashSaleCampaignListResponse',
  Joi.object({ items: Joi.array().items(PublicCampaign).required() }),
);
