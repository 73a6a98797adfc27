/**
 * DTOs, parameters and response schemas of the app store area. The provider callback body
 * (PspCallbackBodyDto) is shared with billing and lives in the payments area.
 */
import Joi from 'joi';
import { dto } from '../http/route';
import { text } from '../http/schema-types';
import { t, typedDto } from '../http/typed-schema';
import { APP_PRICING_TYPES, APP_PURCHASE_STATUSES } from '../../storage/entities/app-store.entity';
import { PAY_PURCHASE_SHAPE } from './app-purchase-payment.schemas';

export const StoreEntitlementActionDto = typedDto(
  'StoreEntitlementActionDto',
  t.object({ storeId: t.storeId() }).rules((o) => o.description('The store whose app is enabled or disabled.')),
);

export const PurchaseAppListingDto = typedDto(
  'PurchaseAppListingDto',
  t.object({ storeId: t.storeId() }).rules((o) => o.description('The store the app is bought for.')),
);

export const PayAppPurchaseDto = typedDto('PayAppPurchaseDto', PAY_PURCHASE_SHAPE);

/** An app category filter: "string, at most 60 characters" (the merchant listing); an empty value means no filter. */
export const appCategory = (): ReturnType<typeof text> => text(0, 60).allow('');

/**
 * `{idOrSlug}`: a listing's UUID or its slug. Both are letters, digits and hyphens, so one pattern
 * accepts either; 1 to 200 characters.
 */
export const listingIdOrSlugParam = text(1, 200)
  .pattern(/^[A-Za-z0-9][A-Za-z0-9-]*$/, 'UUID or slug')
  .required()
  .description("The listing's UUID or its slug.");

/** `{slug}` of the public listing. */
export const listingSlugParam = text(1, 100)
  .pattern(/^[a-z0-9][a-z0-9-]*$/, 'slug')
  .required()
  .description("The listing's slug (lower-case letters, digits, hyphens).");

// ------------------------------------------------------------------------------------------ responses

const iso = () => Joi.string().isoDate();
const isoOrNull = () => Joi.string().isoDate().allow(null).required();

const Pricing = Joi.object({
  type: Joi.string()
    .valid(...APP_PRICING_TYPES)
    .required(),
  price: Joi.number().min(0).required().description('0 for FREE; per purchase (ONE_TIME) or per 30 days (MONTHLY).'),
  currency: Joi.string().required(),
}).label('AppPricing');

const listingKeys = {
  id: Joi.string().required(),
  slug: Joi.string().required(),
  name: Joi.string().required(),
  summary: Joi.string().required(),
  description: Joi.string().required(),
  category: Joi.string().required(),
  pricing: Pricing.required(),
  developer: Joi.string().required(),
  iconUrl: Joi.string().required().description('Path of the icon, relative to the site.'),
  scopes: Joi.array().items(Joi.string()).required().description('What the app may read and change once enabled.'),
};

const PublicListing = Joi.object(listingKeys).label('AppListing');

const Entitlement = Joi.object({
  listingId: Joi.string().required(),
  storeId: Joi.string().required(),
  state: Joi.string().valid('NOT_INSTALLED', 'ENABLED', 'DISABLED').required(),
  enabled: Joi.boolean().required(),
  purchaseRequired: Joi.boolean().required().description('The app is paid and the store has no PAID purchase covering today.'),
  activePurchaseId: Joi.string().allow(null).required(),
  paidThrough: isoOrNull().description('End of the paid period of a MONTHLY app; null for ONE_TIME and FREE apps.'),
  enabledAt: isoOrNull(),
  disabledAt: isoOrNull(),
}).label('AppEntitlement');

const MerchantListing = Joi.object({ ...listingKeys, entitlement: Entitlement.required() }).label('AppListingForStore');

export const PublicListingResponse = dto('AppListingResponse', PublicListing);
export const PublicListingListResponse = dto('AppListingListResponse', Joi.object({ items: Joi.array().items(PublicListing).required() }));
export const MerchantListingResponse = dto('AppListingForStoreResponse', MerchantListing);
export const MerchantListingListResponse = dto(
  'AppListingForStoreListResponse',
  Joi.object({
    items: Joi.array().items(MerchantListing).required(),
    nextCursor: Joi.string().allow(null).required().description('Pass as cursor for the next page; null on the last page.'),
  }),
);
export const EntitlementResponse = dto('AppEntitlementResponse', Entitlement);

const EntitlementWithListing = Entitlement.keys({ listing: PublicListing.required() }).label('AppEntitlementWithListing');
export const EntitlementListResponse = dto(
  'AppEntitlementListResponse',
  Joi.object({ items: Joi.array().items(EntitlementWithListing).required() }),
);

const Purchase = Joi.object({
  id: Joi.string().required(),
  storeId: Joi.string().required(),
  listingId: Joi.string().required(),
  status: Joi.string()
    .valid(...APP_PURCHASE_STATUSES)
    .required(),
  amount: Joi.number().required(),
  currency: Joi.string().required(),
  provider: Joi.string().allow(null).required(),
  installments: Joi.number().integer().allow(null).required(),
  cardBrand: Joi.string().allow(null).required(),
  cardLast4: Joi.string().allow(null).required(),
  declineCode: Joi.string().allow(null).required(),
  failureMessage: Joi.string().allow(null).required(),
  nextAction: Joi.object({
    type: Joi.string().valid('THREE_DS_CHALLENGE').required(),
    url: Joi.string().required().description('Our 3-D Secure page of the purchase: send the buyer there.'),
    expiresAt: iso().required(),
  })
    .allow(null)
    .required()
    .description('Set while the payment waits for the 3-D Secure challenge.'),
  paidAt: isoOrNull(),
  paidThrough: isoOrNull(),
  createdAt: iso().required(),
  updatedAt: iso().required(),
}).label('AppPurchase');

export const PurchaseResponse = dto('AppPurchaseResponse', Purchase);

export const CallbackResponse = dto(
  'AppPurchaseCallbackResponse',
  Joi.object({
    received: Joi.boolean().valid(true).required(),
    applied: Joi.boolean().required().description('False for a replayed event, an unknown purchase or a change the status does not allow.'),
    purchaseId: Joi.string().allow(null).required(),
    status: Joi.string()
      .valid(...APP_PURCHASE_STATUSES)
      .allow(null)
      .required(),
  }),
);
