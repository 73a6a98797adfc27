/**
 * DTOs and enums of the sponsored listings area. The specification names the DTOs but not their
 * fields; the fields below are this platform's design, documented in each schema description.
 * Amounts are decimals in the store's currency (at most 4 decimals).
 */
import Joi from 'joi';
import { dto } from '../http/route';
import { t, typedDto } from '../http/typed-schema';
import { dateTime, money, text, uuid } from '../http/schema-types';
import { normaliseSearchText } from '../../domain/sponsored-keywords';

/** Sponsored listing status: the specification's enumerated values. */
export const SPONSORED_LISTING_STATUSES = ['ACTIVE', 'PAUSED', 'ENDED'] as const;
/** Why a listing is ENDED: its end date passed, its budget was spent, or the merchant ended it. */
export const SPONSORED_LISTING_END_REASONS = ['END_DATE', 'BUDGET', 'MANUAL'] as const;

export const KEYWORDS_MAX = 20;
export const KEYWORD_MAX_LENGTH = 60;

const keyword = (): Joi.StringSchema =>
  Joi.string()
    .min(1)
    .max(200)
    .custom((value: string, helpers) => {
      const normalised = normaliseSearchText(value);
      if (normalised.length === 0) return helpers.error('keyword.empty');
      if (normalised.length > KEYWORD_MAX_LENGTH) return helpers.error('keyword.long');
      return normalised;
    }, 'keyword normalisation')
    .messages({
      'keyword.empty': '{{#label}} must contain a letter or a digit',
      'keyword.long': `{{#label}} must be at most ${KEYWORD_MAX_LENGTH} characters after normalisation`,
    });

// keyword() normalises the keyword (its custom rule converts), still to a string.
const keywords = () =>
  t.array(
    t.custom<string>(keyword()),
    Joi.array()
      .max(KEYWORDS_MAX)
      .unique()
      .description(
        `0 to ${KEYWORDS_MAX} keywords, each 1 to ${KEYWORD_MAX_LENGTH} characters after normalisation: Unicode NFKC, lowercase, and every run of characters that are not letters or digits becomes one space ("T-Shirt" is stored as "t shirt"); a keyword with no letter or digit, and a duplicate after normalisation, answer 400. The listing is shown for a search whose normalised query contains one of its keywords as whole word(s) (the keyword "red shoe" matches the query "Cheap RED shoe" but not "red shoes" or "shoe red"). No keywords: shown for every search of the store, an empty query included.`,
      ),
  );

/** Amounts are exact: more than 4 decimals is a 400, never silently rounded. */
const exactMoney = (): Joi.NumberSchema => money().prefs({ convert: false });
const costPerClick = () =>
  t.number(exactMoney().description("What one counted click costs, 0 to 1,000,000,000 (at most 4 decimals), in the store's currency."));
const budget = () =>
  t
    .number(
      exactMoney()
        .greater(0)
        .description(
          "Total the listing may spend, greater than 0 (at most 4 decimals), in the store's currency; null means no limit. The click that reaches the budget is charged only what is left and ends the listing (endedReason BUDGET). On update it must stay greater than what is already spent (409 budget_not_above_spent).",
        ),
    )
    .nullable();
const endsAt = () =>
  t
    .date(
      dateTime()
        .greater('now')
        .description(
          'ISO 8601 date-time in the future and after startsAt, or null for no end. When it passes the listing is ENDED (endedReason END_DATE).',
        ),
    )
    .nullable();

export const CreateSponsoredListingDto = typedDto(
  'CreateSponsoredListingDto',
  t.object({
    storeId: t.storeId(),
    productId: t
      .string(
        uuid().description(
          "The product to promote: a product of the store (another store's or tenant's product answers 404 product_not_found). Only a published product appears in storefront results. A product can have one listing that is not ENDED at a time (409 sponsored_listing_exists).",
        ),
      )
      .required(),
    status: t
      .oneOf(['ACTIVE', 'PAUSED'] as const, (s) => s.description('ACTIVE (default) or PAUSED; a listing is never created ENDED.'))
      .default('ACTIVE'),
    keywords: keywords().default([]),
    startsAt: t.date(
      dateTime().description(
        'ISO 8601 date-time from which the listing is shown; default now. May be in the future (scheduled) or the past.',
      ),
    ),
    endsAt: endsAt(),
    budget: budget(),
    costPerClick: costPerClick().required(),
  }),
);

export const UpdateSponsoredListingDto = typedDto(
  'UpdateSponsoredListingDto',
  t
    .object({
      status: t.oneOf(SPONSORED_LISTING_STATUSES, (s) =>
        s.description(
          'ACTIVE and PAUSED switch between each other. ENDED ends the listing now (endedReason MANUAL). An ENDED listing is reactivated by asking for ACTIVE or PAUSED, only when, with the other fields of the same request applied, its end date is in the future (or removed) and its budget is above what it spent (or removed); otherwise 409 sponsored_listing_ended. Reactivating clears endedAt and endedReason, and answers 409 sponsored_listing_exists when the product has another listing that is not ENDED. Changing other fields of an ENDED listing without a status keeps it ENDED.',
        ),
      ),
      keywords: keywords(),
      startsAt: t.date(dateTime().description('ISO 8601 date-time from which the listing is shown; must stay before endsAt.')),
      endsAt: endsAt(),
      budget: budget(),
      costPerClick: costPerClick(),
    })
    .rules((o) => o.min(1).description('Changes only the fields given; at least one. The product of a listing cannot change.')),
);

export const TrackSponsoredClickDto = typedDto(
  'TrackSponsoredClickDto',
  t.object({
    listingId: t
      .string(uuid().description('The sponsored listing that was clicked (the listingId of the sponsored search result).'))
      .required(),
    storeId: t.storeId(),
    productId: t.string(
      uuid().description("The product that was clicked; when given it must be the listing's product or the click is not counted."),
    ),
    visitorId: t.string(
      text(1, 100).description(
        'An anonymous visitor id of the storefront (e.g. a first-party cookie value). Repeated clicks on one listing from the same visitor and client address within 30 seconds count once; without it the user agent stands in for the visitor.',
      ),
    ),
    query: t.string(
      Joi.string().max(200).allow('').description('The search query that showed the listing (at most 200 characters); informational.'),
    ),
  }),
);

const ListingItem = Joi.object({
  id: Joi.string().required(),
  storeId: Joi.string().required(),
  productId: Joi.string().required(),
  status: Joi.string()
    .valid(...SPONSORED_LISTING_STATUSES)
    .required(),
  keywords: Joi.array().items(Joi.string()).required().description('Normalised keywords; empty = shown for every search.'),
  startsAt: Joi.string().required(),
  endsAt: Joi.string().allow(null).required(),
  budget: Joi.number().allow(null).required().description('Null: no limit.'),
  costPerClick: Joi.number().required(),
  spent: Joi.number().required().description('Sum charged for counted clicks; never above budget.'),
  remainingBudget: Joi.number().allow(null).required().description('budget − spent; null when there is no budget.'),
  clicks: Joi.number().integer().required().description('Counted clicks.'),
  endedAt: Joi.string()
    .allow(null)
    .required()
    .description('When the listing ended: its end date, the click that spent the budget, or the manual end.'),
  endedReason: Joi.string()
    .valid(...SPONSORED_LISTING_END_REASONS)
    .allow(null)
    .required(),
  createdAt: Joi.string().required(),
  updatedAt: Joi.string().required(),
});

export const SponsoredListingResponse = dto('SponsoredListingResponse', ListingItem);
export const SponsoredListingListResponse = dto(
  'SponsoredListingListResponse',
  Joi.object({
    items: Joi.array().items(ListingItem).required(),
    nextCursor: Joi.string().allow(null).required().description('The id of the last item when there are more; pass it as cursor.'),
  }),
);
