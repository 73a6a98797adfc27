/**
 * App store: listings, a store's entitlements (enable, disable, purchase) and app purchase payments
 * (merchant); provider callbacks, 3-D Secure pages and the public listing (public).
 */
import { defineRoutes, listedRequired } from '../http/route';
import { int, storeId, uuid } from '../http/schema-types';
import { PspCallbackBodyDto, pspProviderParam, threeDsTokenParam } from '../payments/payments.schemas';
import {
  appCategory,
  listingIdOrSlugParam,
  PayAppPurchaseDto,
  PurchaseAppListingDto,
  StoreEntitlementActionDto,
} from './app-store.schemas';

export const appStoreRoutes = defineRoutes({ tag: 'app-store', auth: 'merchant' }, [
  {
    operationId: 'appStore.purchaseCallback',
    method: 'POST',
    path: '/app-store/purchases/callback/{provider}',
    auth: 'public',
    summary: 'Payment provider callback for an app purchase',
    description: 'Called by the payment provider without a token; the service verifies the callback with the provider.',
    params: { provider: pspProviderParam },
    body: PspCallbackBodyDto,
    status: 201,
  },
  {
    operationId: 'appStore.purchaseRedirect',
    method: 'GET',
    path: '/app-store/purchases/callback/{provider}',
    auth: 'public',
    summary: 'Redirect back from the payment provider after an app purchase payment',
    params: { provider: pspProviderParam },
    status: 200,
  },
  {
    operationId: 'appStore.purchase3ds',
    method: 'GET',
    path: '/app-store/purchases/3ds/{token}',
    auth: 'public',
    summary: 'The 3-D Secure page of an app purchase payment',
    description: "Opened by the buyer's browser without a token; the path token identifies the payment.",
    params: { token: threeDsTokenParam },
    status: 200,
  },
  {
    operationId: 'appStore.listListings',
    method: 'GET',
    path: '/app-store/listings',
    summary: 'App listings, with what the store has enabled or purchased',
    query: { storeId: storeId(), cursor: uuid(), limit: int(1, 200).default(50), category: appCategory() },
    status: 200,
  },
  {
    operationId: 'appStore.getListing',
    method: 'GET',
    path: '/app-store/listings/{idOrSlug}',
    summary: 'One app listing by id or slug, with its state for the store',
    params: { idOrSlug: listingIdOrSlugParam },
    query: { storeId: storeId() },
    status: 200,
  },
  {
    operationId: 'appStore.listEntitlements',
    method: 'GET',
    path: '/app-store/stores/{storeId}/entitlements',
    summary: 'Apps enabled or purchased for a store',
    status: 200,
  },
  {
    operationId: 'appStore.enable',
    method: 'POST',
    path: '/app-store/listings/{id}/enable',
    summary: 'Enable an app for a store',
    body: StoreEntitlementActionDto,
    status: 200,
  },
  {
    operationId: 'appStore.disable',
    method: 'POST',
    path: '/app-store/listings/{id}/disable',
    summary: 'Disable an app for a store',
    body: StoreEntitlementActionDto,
    status: 200,
  },
  {
    operationId: 'appStore.purchase',
    method: 'POST',
    path: '/app-store/listings/{id}/purchase',
    summary: 'Start the purchase of a paid app for a store',
    body: PurchaseAppListingDto,
    status: 200,
  },
  {
    operationId: 'appStore.payPurchase',
    method: 'POST',
    path: '/app-store/purchases/{id}/pay',
    summary: 'Pay an app purchase',
    body: PayAppPurchaseDto,
    status: 200,
  },
  {
    operationId: 'appStore.purchaseStatus',
    method: 'GET',
    path: '/app-store/purchases/{id}/status',
    summary: 'Payment status of an app purchase',
    status: 200,
  },
  {
    operationId: 'appStore.listPublicListings',
    method: 'GET',
    path: '/app-store/public-listings',
    auth: 'public',
    summary: 'Published app listings of a category, for the public website',
    description: 'category is not typed by the specification; like the merchant listing, at most 60 characters.',
    query: { category: listedRequired(appCategory()) },
    status: 200,
  },
  {
    operationId: 'appStore.getPublicListing',
    method: 'GET',
    path: '/app-store/public-listings/{slug}',
    auth: 'public',
    summary: 'One published app listing by its slug',
    status: 200,
  },
]);
