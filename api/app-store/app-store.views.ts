/** What the app store answers: listings, a store's entitlement of an app, purchases. */
import { formatUnits, toUnits } from '../../domain/money';
import type {
  AppListing,
  AppPricingType,
  AppPurchase,
  AppPurchaseStatus,
  StoreAppEntitlement,
} from '../../storage/entities/app-store.entity';

export interface AppListingView {
  id: string;
  slug: string;
  name: string;
  summary: string;
  description: string;
  category: string;
  pricing: { type: AppPricingType; price: number; currency: string };
  developer: string;
  iconUrl: string;
  scopes: string[];
}

export type EntitlementState = 'NOT_INSTALLED' | 'ENABLED' | 'DISABLED';

export interface AppEntitlementView {
  listingId: string;
  storeId: string;
  state: EntitlementState;
  enabled: boolean;
  purchaseRequired: boolean;
  activePurchaseId: string | null;
  paidThrough: string | null;
  enabledAt: string | null;
  disabledAt: string | null;
}

export type AppListingForStoreView = AppListingView & { entitlement: AppEntitlementView };

export interface AppPurchaseView {
  id: string;
  storeId: string;
  listingId: string;
  status: AppPurchaseStatus;
  amount: number;
  currency: string;
  provider: string | null;
  installments: number | null;
  cardBrand: string | null;
  cardLast4: string | null;
  declineCode: string | null;
  failureMessage: string | null;
  nextAction: { type: 'THREE_DS_CHALLENGE'; url: string; expiresAt: string } | null;
  paidAt: string | null;
  paidThrough: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A stored amount as a JSON number with at most 4 decimals (docs/decisions.md, Money). */
export const amountNumber = (value: string): number => Number(formatUnits(toUnits(value), 4));

export function listingView(listing: AppListing): AppListingView {
  return {
    id: listing.id,
    slug: listing.slug,
    name: listing.name,
    summary: listing.summary,
    description: listing.description,
    category: listing.category,
    pricing: { type: listing.pricingType, price: amountNumber(listing.price), currency: listing.currency },
    developer: listing.developer,
    iconUrl: listing.iconPath,
    scopes: listing.scopes,
  };
}

export function entitlementView(
  storeId: string,
  listing: AppListing,
  entitlement: StoreAppEntitlement | null,
  activePurchase: AppPurchase | null,
): AppEntitlementView {
  return {
    listingId: listing.id,
    storeId,
    state: entitlement === null ? 'NOT_INSTALLED' : entitlement.enabled ? 'ENABLED' : 'DISABLED',
    enabled: entitlement?.enabled ?? false,
    purchaseRequired: listing.pricingType !== 'FREE' && activePurchase === null,
    activePurchaseId: activePurchase?.id ?? null,
    paidThrough: activePurchase?.paidThrough?.toISOString() ?? null,
    enabledAt: entitlement?.enabledAt?.toISOString() ?? null,
    disabledAt: entitlement?.disabledAt?.toISOString() ?? null,
  };
}

/** `threeDsUrl`: where the buyer completes a waiting challenge (our page), given while the purchase waits for it. */
export function purchaseView(purchase: AppPurchase, threeDsUrl: string | null): AppPurchaseView {
  return {
    id: purchase.id,
    storeId: purchase.storeId,
    listingId: purchase.listingId,
    status: purchase.status,
    amount: amountNumber(purchase.amount),
    currency: purchase.currency,
    provider: purchase.provider,
    installments: purchase.installments,
    cardBrand: purchase.cardBrand,
    cardLast4: purchase.cardLast4,
    declineCode: purchase.declineCode,
    failureMessage: purchase.failureMessage,
    nextAction:
      purchase.status === 'CHALLENGE_REQUIRED' && threeDsUrl && purchase.challengeExpiresAt
        ? { type: 'THREE_DS_CHALLENGE', url: threeDsUrl, expiresAt: purchase.challengeExpiresAt.toISOString() }
        : null,
    paidAt: purchase.paidAt?.toISOString() ?? null,
    paidThrough: purchase.paidThrough?.toISOString() ?? null,
    createdAt: purchase.createdAt.toISOString(),
    updatedAt: purchase.updatedAt.toISOString(),
  };
}
