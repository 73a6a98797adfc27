/**
 * DTOs of the pricing area (price rules and price computation). The specification names the DTOs but
 * not their fields; the fields below are this platform's design, documented in each description.
 * Amounts are decimals (at most 4 decimals) in the store's currency; percentages 0 to 100 with at most
 * 2 decimals.
 */
import Joi from 'joi';
import { dto } from '../http/route';
import { t, typedDto } from '../http/typed-schema';
import { bool, dateTime, int, text, uuid } from '../http/schema-types';

export const PRICING_RULE_TYPES = ['PERCENT', 'FIXED_AMOUNT', 'FIXED_PRICE'] as const;
export const PRICING_RULE_SCOPES = ['ALL', 'PRODUCTS', 'CATEGORIES', 'BRANDS', 'COLLECTIONS'] as const;
export const PRICING_RULE_STATES = ['ACTIVE', 'SCHEDULED', 'EXPIRED', 'INACTIVE'] as const;
export const TARGETS_MAX = 500;
export const GROUPS_MAX = 20;
export const TIERS_MAX = 20;
export const COMPUTE_ITEMS_MAX = 100;
export const QUANTITY_MAX = 100_000;

export const STACKING_POLICY =
  "Stacking policy: the rules that apply to a line (active, inside their window, scope and customer groups matching) are ordered by priority (higher first), then by id (older first). Non-stackable rules are alternatives: the one that gives the lowest price wins. Stackable rules are applied one after the other in that order, each to the price the previous one left. The buyer gets the lower of the two results (the single rule on a tie); they are never combined. A running flash sale wins when its price is lower or equal, and rules never stack on a flash price. Prices never go below 0; the unit price is computed in exact decimals and rounded half up to the currency's minor unit once, at the end.";

/** A rule value: one number schema for every type (percent bounds are checked against the type: 400). */
const ruleValue = (): Joi.NumberSchema =>
  Joi.number()
    .min(0)
    .max(1_000_000_000)
    .precision(4)
    .prefs({ convert: false })
    .description(
      "PERCENT: percent taken off, 0 to 100 with at most 2 decimals. FIXED_AMOUNT: amount taken off each unit, 0 to 1,000,000,000 (at most 4 decimals). FIXED_PRICE: the unit price set, 0 to 1,000,000,000 (applies only when lower than the price). FIXED_AMOUNT and FIXED_PRICE are in the store's currency and apply only to products priced in it. A value outside the bounds of its type answers 400.",
    );

const tiers = () =>
  t.array(
    t.object({
      minQuantity: t.number(int(2, QUANTITY_MAX).description(`From this many units on one line (2 to ${QUANTITY_MAX}).`)).required(),
      value: t.number(ruleValue()).required(),
    }),
    Joi.array()
      .max(TIERS_MAX)
      .unique('minQuantity')
      .description(
        `0 to ${TIERS_MAX} quantity tiers, minQuantity unique. On a line of N units the rule uses the value of the tier with the largest minQuantity ≤ N, else its own value (so a rule with value 0 and tiers discounts only from the first tier). Bounds of each value as for value.`,
      ),
  );

const targetIds = () =>
  t.array(
    t.string(uuid()),
    Joi.array()
      .max(TARGETS_MAX)
      .unique()
      .description(
        `Ids of the products, categories, brands or collections of the store the scope names (1 to ${TARGETS_MAX}); must be empty or absent for ALL. An id that is not of the store answers 404 target_not_found. CATEGORIES reach every product of the category and of its whole subtree.`,
      ),
  );

const customerGroups = () =>
  t.array(
    t.string(
      Joi.string()
        .trim()
        .lowercase()
        .min(1)
        .max(50)
        .description('A customer group: a customer tag of the store (compared case-insensitively).'),
    ),
    Joi.array()
      .max(GROUPS_MAX)
      .unique()
      .description(
        `0 to ${GROUPS_MAX} customer groups (customer tags, case-insensitive). Empty (default): the rule applies to everyone, the public storefront price included. Otherwise only to buyers in one of the groups (computed with customerGroups or customerId), never to the public price or the search index.`,
      ),
  );

const window = {
  startsAt: t
    .date(dateTime().description('ISO 8601 date-time from which the rule applies; null or absent: already. Inclusive.'))
    .nullable(),
  endsAt: t
    .date(
      dateTime().description(
        'ISO 8601 date-time at which the rule stops applying (exclusive), after startsAt; null or absent: no end. The search index follows both ends on time (the jobs role re-indexes the products when a window opens or closes).',
      ),
    )
    .nullable(),
};

const ruleFields = {
  name: t.string(text(1, 120).trim().description('1 to 120 characters, shown in compute results.')),
  type: t.oneOf(PRICING_RULE_TYPES, (s) => s.description('PERCENT, FIXED_AMOUNT (off each unit) or FIXED_PRICE (the unit price).')),
  value: t.number(ruleValue()),
  scope: t.oneOf(PRICING_RULE_SCOPES, (s) =>
    s.description(
      'What products the rule reaches: ALL, or those named by targetIds (PRODUCTS, CATEGORIES with their subtrees, BRANDS, COLLECTIONS).',
    ),
  ),
  targetIds: targetIds(),
  customerGroups: customerGroups(),
  tiers: tiers(),
  ...window,
  priority: t.number(int(0, 1000).description('0 to 1000; higher first in the stacking order (ties: older rule first).')),
  stackable: t.boolean(
    bool().description(
      'false (default): an alternative, the best single rule wins; true: applied in sequence with the other stackable rules.',
    ),
  ),
  isActive: t.boolean(bool().description('false switches the rule off without deleting it.')),
};

export const CreatePricingRuleDto = typedDto(
  'CreatePricingRuleDto',
  t
    .object({
      storeId: t.storeId(),
      ...ruleFields,
      name: ruleFields.name.required(),
      type: ruleFields.type.required(),
      value: ruleFields.value.required(),
      scope: ruleFields.scope.default('ALL'),
      targetIds: ruleFields.targetIds.default([]),
      customerGroups: ruleFields.customerGroups.default([]),
      tiers: ruleFields.tiers.default([]),
      priority: ruleFields.priority.default(0),
      stackable: ruleFields.stackable.default(false),
      isActive: ruleFields.isActive.default(true),
    })
    .rules((o) => o.description(`A price rule of the store. ${STACKING_POLICY}`)),
);

export const UpdatePricingRuleDto = typedDto(
  'UpdatePricingRuleDto',
  t
    .object(ruleFields)
    .rules((o) =>
      o
        .min(1)
        .description(
          'Changes only the fields given (at least one); the result is checked as a whole (value against type, targetIds against scope, endsAt after startsAt). targetIds, customerGroups and tiers are replaced as a whole.',
        ),
    ),
);

export const ComputeProductPriceDto = typedDto(
  'ComputeProductPriceDto',
  t
    .object({
      storeId: t.storeId(),
      items: t
        .array(
          t.object({
            productId: t
              .string(uuid().description('A product of the store (404 product_not_found otherwise; drafts can be priced).'))
              .required(),
            variantId: t.string(
              uuid().description('A variant of that product (404 variant_not_found otherwise); its own price when it has one.'),
            ),
            quantity: t
              .number(int(1, QUANTITY_MAX).description(`1 to ${QUANTITY_MAX} (default 1); chooses the tier of each rule.`))
              .default(1),
          }),
          Joi.array()
            .min(1)
            .max(COMPUTE_ITEMS_MAX)
            .description(`1 to ${COMPUTE_ITEMS_MAX} lines, all priced in one currency (400 mixed_currencies otherwise).`),
        )
        .required(),
      customerGroups: customerGroups().rules((s) =>
        s.description(
          `The buyer's customer groups (0 to ${GROUPS_MAX}, case-insensitive): rules limited to groups apply when one matches.`,
        ),
      ),
      customerId: t.string(
        uuid().description('A customer of the store (404 customer_not_found otherwise): its tags are added to customerGroups.'),
      ),
      at: t.date(
        dateTime().description(
          'Price as at this ISO 8601 date-time (default now): which windows of rules and flash sales are open. Flash-sale stock caps use the current sold counts.',
        ),
      ),
    })
    .rules((o) => o.description(`Prices cart lines as a shopper would pay them. ${STACKING_POLICY}`)),
);

const RuleItem = Joi.object({
  id: Joi.string().required(),
  storeId: Joi.string().required(),
  name: Joi.string().required(),
  type: Joi.string()
    .valid(...PRICING_RULE_TYPES)
    .required(),
  value: Joi.number().required(),
  scope: Joi.string()
    .valid(...PRICING_RULE_SCOPES)
    .required(),
  targetIds: Joi.array().items(Joi.string()).required(),
  customerGroups: Joi.array().items(Joi.string()).required(),
  tiers: Joi.array()
    .items(Joi.object({ minQuantity: Joi.number().integer().required(), value: Joi.number().required() }))
    .required()
    .description('Sorted by minQuantity.'),
  startsAt: Joi.string().allow(null).required(),
  endsAt: Joi.string().allow(null).required(),
  priority: Joi.number().integer().required(),
  stackable: Joi.boolean().required(),
  isActive: Joi.boolean().required(),
  state: Joi.string()
    .valid(...PRICING_RULE_STATES)
    .required()
    .description('Now: INACTIVE (isActive false), SCHEDULED (startsAt ahead), EXPIRED (endsAt passed) or ACTIVE.'),
  createdAt: Joi.string().required(),
  updatedAt: Joi.string().required(),
});

export const PricingRuleResponse = dto('PricingRuleResponse', RuleItem);
export const PricingRuleListResponse = dto(
  'PricingRuleListResponse',
  Joi.object({
    items: Joi.array().items(RuleItem).required(),
    nextCursor: Joi.string().allow(null).required().description('The id of the last item when there are more; pass it as cursor.'),
  }),
);

const Adjustment = Joi.object({
  kind: Joi.string().valid('PRICING_RULE', 'FLASH_SALE').required(),
  id: Joi.string().required().description('The rule or the flash-sale campaign.'),
  name: Joi.string().required(),
  type: Joi.string().valid('PERCENT', 'FIXED_AMOUNT', 'FIXED_PRICE', 'SALE_PRICE').required(),
  value: Joi.number().required().description("The value used: the rule's at this quantity, the sale price, or the percent."),
  amount: Joi.number().required().description('Taken off one unit, in the minor unit of the currency; base − Σ amounts = unitPrice.'),
});

const FlashSaleMatch = Joi.object({
  campaignId: Joi.string().required(),
  name: Joi.string().required(),
  slug: Joi.string().required(),
  endsAt: Joi.string().required(),
  kind: Joi.string().valid('PRODUCT', 'CATEGORY').required(),
  stockCap: Joi.number().integer().allow(null).required(),
  soldCount: Joi.number().integer().required(),
})
  .allow(null)
  .description('The flash sale that sets the price, null when none does.');

export const ComputedPriceResponse = dto(
  'ComputedPriceResponse',
  Joi.object({
    storeId: Joi.string().required(),
    currency: Joi.string().required(),
    at: Joi.string().required().description('The moment priced.'),
    customerGroups: Joi.array().items(Joi.string()).required().description("The groups used (given and the customer's)."),
    items: Joi.array()
      .items(
        Joi.object({
          productId: Joi.string().required(),
          variantId: Joi.string().allow(null).required(),
          quantity: Joi.number().integer().required(),
          baseUnitPrice: Joi.number().required().description('The stored price, rounded to the minor unit.'),
          unitPrice: Joi.number().required().description('After rules or flash sale.'),
          compareAtPrice: Joi.number().allow(null).required(),
          lineTotal: Joi.number().required().description('unitPrice × quantity.'),
          discountTotal: Joi.number().required().description('(baseUnitPrice − unitPrice) × quantity.'),
          applied: Joi.array()
            .items(Adjustment)
            .required()
            .description('Every rule applied, in the order applied (or the one flash sale).'),
          flashSale: FlashSaleMatch.required(),
        }),
      )
      .required(),
    totals: Joi.object({
      subtotal: Joi.number().required().description('Σ baseUnitPrice × quantity.'),
      discount: Joi.number().required(),
      total: Joi.number().required().description('Σ lineTotal.'),
    }).required(),
  }),
);
