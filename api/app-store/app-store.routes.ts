/**
 * App store (docs/app-store.md): listings, a store's entitlements (enable, disable, purchase) and app
 * purchase payments (merchant); provider callbacks, the 3-D Secure pages and the public listing
 * (public).
 */
import Joi from 'joi';
import { defineRoutes, htmlDocument, idempotencyKeyOf, listedRequired, rawBodyOf, type RouteRequest } from '../http/route';
import { int, storeId, uuid } from '../http/schema-types';
import type { InputOf } from '../http/typed-schema';
import { PspCallbackBodyDto, pspProviderParam, threeDsTokenParam } from '../payments/payments.schemas';
import {
  appCategory,
  CallbackResponse,
  EntitlementListResponse,
  EntitlementResponse,
  listingIdOrSlugParam,
  listingSlugParam,
  MerchantListingListResponse,
  MerchantListingResponse,
  PayAppPurchaseDto,
  PublicListingListResponse,
  PublicListingResponse,
  PurchaseAppListingDto,
  PurchaseResponse,
  StoreEntitlementActionDto,
} from './app-store.schemas';
import {
  appPurchaseTitle,
  disableApp,
  enableApp,
  getListing,
  getPublicListing,
  listEntitlements,
  listListings,
  listPublicListings,
  onAppPurchasePaid,
  onAppPurchaseRefunded,
  purchaseApp,
  purchaseStatus,
  type ListListingsQuery,
} from './app-store.service';
import { handleCallback, handleReturn, payPurchase, threeDsPage, type PurchaseHooks } from './app-purchase-payment';
import * as D from './app-store.descriptions';
import { partnerAppRoutes } from './partner-apps.routes';

type Params = Record<string, string>;
type StoreBody = { storeId: string };

const hooks: PurchaseHooks = { onPaid: onAppPurchasePaid, onRefunded: onAppPurchaseRefunded, title: appPurchaseTitle };

const headersOf = (req: RouteRequest): Record<string, string | undefined> => {
  const out: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(req.koa.headers)) out[key] = Array.isArray(value) ? value.join(', ') : value;
  return out;
};

/** The signed query of the 3-D Secure return: short printable values the provider checks (verifyReturn). */
const returnParam = () =>
  Joi.string()
    .max(512)
    .pattern(/^[\x20-\x7E]*$/, 'printable text');
const RETURN_QUERY = {
  provider_payment_id: returnParam().description("The provider's payment id."),
  reference: returnParam().description('Our id of the purchase.'),
  outcome: returnParam().description('How the challenge ended (AUTHORIZED, CAPTURED, DECLINED).'),
  decline_code: returnParam().description('Why it was declined.'),
  t: returnParam().description('Signing time (unix seconds).'),
  sig: returnParam().description("The provider's signature over the other parameters."),
};

export const appStoreRoutes = defineRoutes({ tag: 'app-store', auth: 'merchant' }, [
  {
    operationId: 'appStore.purchaseCallback',
    method: 'POST',
    path: '/app-store/purchases/callback/{provider}',
    auth: 'public',
    summary: 'Payment provider callback for an app purchase',
    description: D.CALLBACK,
    params: { provider: pspProviderParam },
    body: PspCallbackBodyDto,
    response: CallbackResponse,
    status: 201,
    handler: (req: RouteRequest<Params>) => handleCallback(req.context, req.params.provider!, headersOf(req), rawBodyOf(req), hooks),
  },
  {
    operationId: 'appStore.purchaseRedirect',
    method: 'GET',
    path: '/app-store/purchases/callback/{provider}',
    auth: 'public',
    summary: 'Redirect back from the payment provider after an app purchase payment',
    description: D.RETURN,
    params: { provider: pspProviderParam },
    query: RETURN_QUERY,
    response: htmlDocument('AppPurchaseReturnPage', 'A page saying whether the payment went through.'),
    status: 200,
    handler: (req: RouteRequest<Params, Record<string, string | undefined>>) =>
      handleReturn(req.context, req.params.provider!, req.query, hooks),
  },
  {
    operationId: 'appStore.purchase3ds',
    method: 'GET',
    path: '/app-store/purchases/3ds/{token}',
    auth: 'public',
    summary: 'The 3-D Secure page of an app purchase payment',
    description: D.THREE_DS_PAGE,
    params: { token: threeDsTokenParam },
    response: htmlDocument('AppPurchaseThreeDsPage', 'The purchase summary and a link on to the challenge.'),
    status: 200,
    handler: (req: RouteRequest<Params>) => threeDsPage(req.context, req.params.token!, hooks),
  },
  {
    operationId: 'appStore.listListings',
    method: 'GET',
    path: '/app-store/listings',
    summary: 'App listings, with what the store has enabled or purchased',
    description: D.LIST_LISTINGS,
    query: {
      storeId: storeId(),
      cursor: uuid().description('The nextCursor of the previous page.'),
      limit: int(1, 200).default(50),
      category: appCategory(),
    },
    response: MerchantListingListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listListings(req.context, req.query as ListListingsQuery),
  },
  {
    operationId: 'appStore.getListing',
    method: 'GET',
    path: '/app-store/listings/{idOrSlug}',
    summary: 'One app listing by id or slug, with its state for the store',
    params: { idOrSlug: listingIdOrSlugParam },
    query: { storeId: storeId() },
    response: MerchantListingResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params>) => getListing(req.context, req.params.idOrSlug!, req.query.storeId!),
  },
  {
    operationId: 'appStore.listEntitlements',
    method: 'GET',
    path: '/app-store/stores/{storeId}/entitlements',
    summary: 'Apps enabled or purchased for a store',
    description:
      'Every app the store has enabled at some time (disabled ones included), oldest first, with its listing and purchase state.',
    response: EntitlementListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listEntitlements(req.context, req.params.storeId!),
  },
  {
    operationId: 'appStore.enable',
    method: 'POST',
    path: '/app-store/listings/{id}/enable',
    summary: 'Enable an app for a store',
    description: D.ENABLE,
    body: StoreEntitlementActionDto,
    response: EntitlementResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, StoreBody>) => enableApp(req.context, req.params.id!, req.body.storeId),
  },
  {
    operationId: 'appStore.disable',
    method: 'POST',
    path: '/app-store/listings/{id}/disable',
    summary: 'Disable an app for a store',
    description: D.DISABLE,
    body: StoreEntitlementActionDto,
    response: EntitlementResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, StoreBody>) => disableApp(req.context, req.params.id!, req.body.storeId),
  },
  {
    operationId: 'appStore.purchase',
    method: 'POST',
    path: '/app-store/listings/{id}/purchase',
    summary: 'Start the purchase of a paid app for a store',
    description: D.PURCHASE,
    body: PurchaseAppListingDto,
    response: PurchaseResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, StoreBody>) => purchaseApp(req.context, req.params.id!, req.body.storeId),
  },
  {
    operationId: 'appStore.payPurchase',
    method: 'POST',
    path: '/app-store/purchases/{id}/pay',
    summary: 'Pay an app purchase',
    description: D.PAY,
    body: PayAppPurchaseDto,
    response: PurchaseResponse,
    idempotencyKey: true,
    status: 200,
    handler: (req: RouteRequest<Params, Params, InputOf<typeof PayAppPurchaseDto>>) =>
      payPurchase(req.context, req.params.id!, req.body, idempotencyKeyOf(req), hooks),
  },
  {
    operationId: 'appStore.purchaseStatus',
    method: 'GET',
    path: '/app-store/purchases/{id}/status',
    summary: 'Payment status of an app purchase',
    description: 'The purchase with its status; nextAction while it waits for the 3-D Secure challenge.',
    response: PurchaseResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => purchaseStatus(req.context, req.params.id!),
  },
  {
    operationId: 'appStore.listPublicListings',
    method: 'GET',
    path: '/app-store/public-listings',
    auth: 'public',
    summary: 'Published app listings of a category, for the public website',
    description:
      'Every published app, by name; category (exact, at most 60 characters, like the merchant listing) narrows it. The catalog is small, so the list is not paged.',
    query: { category: listedRequired(appCategory()) },
    response: PublicListingListResponse,
    status: 200,
    handler: (req: RouteRequest<Params, { category?: string }>) => listPublicListings(req.context, req.query),
  },
  {
    operationId: 'appStore.getPublicListing',
    method: 'GET',
    path: '/app-store/public-listings/{slug}',
    auth: 'public',
    summary: 'One published app listing by its slug',
    params: { slug: listingSlugParam },
    response: PublicListingResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => getPublicListing(req.context, req.params.slug!),
  },
  ...partnerAppRoutes,
]);
