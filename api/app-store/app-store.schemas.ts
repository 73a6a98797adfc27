/**
 * DTOs and shared parameters of the app store area. The provider callback body
 * (PspCallbackBodyDto) is shared with billing and lives in the payments area.
 */
import { pendingDto } from '../http/route';
import { text } from '../http/schema-types';

export const StoreEntitlementActionDto = pendingDto('StoreEntitlementActionDto');
export const PurchaseAppListingDto = pendingDto('PurchaseAppListingDto');
export const PayAppPurchaseDto = pendingDto('PayAppPurchaseDto');

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
