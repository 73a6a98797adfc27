/**
 * The storefront checkout (docs/storefront.md, "Cart and checkout"): public extension operations the
 * storefront's cart and checkout pages are built on, usable by any storefront client.
 */
import { defineRoutes, idempotencyKeyOf, type RouteRequest } from '../http/route';
import { storeId, uuid } from '../http/schema-types';
import { AppError } from '../../lib/errors';
import {
  CHECKOUT_PROVIDERS,
  ChallengeReturnResponse,
  CheckoutOptionsResponse,
  CheckoutQuoteDto,
  CheckoutQuoteResponse,
  CheckoutReturnDto,
  PlaceCheckoutDto,
  PlaceCheckoutResponse,
  PublicOrderResponse,
  viewKeyQuery,
} from './storefront-checkout.schemas';
import {
  checkoutOptions,
  completeCheckoutReturn,
  getPublicOrder,
  placeCheckout,
  quoteCheckout,
  type CheckoutQuoteInput,
  type CheckoutReturnInput,
  type PlaceCheckoutInput,
} from './storefront-checkout.service';
import { checkoutError } from './storefront-checkout.errors';
import type { CheckoutProvider } from './order-payment';
import { oneOf } from '../http/schema-types';
import {
  OPTIONS_DESCRIPTION,
  ORDER_DESCRIPTION,
  PLACE_DESCRIPTION,
  QUOTE_DESCRIPTION,
  RETURN_DESCRIPTION,
} from './storefront-checkout.descriptions';

type Params = Record<string, string>;

/** Every operation of this table is an extension (the specification lists no storefront checkout). */
export const storefrontCheckoutExtensionOperationIds = [
  'storefrontCheckout.options',
  'storefrontCheckout.quote',
  'storefrontCheckout.place',
  'storefrontCheckout.return',
  'storefrontCheckout.order',
] as const;

const storeParam = { storeId: storeId() };

export const storefrontCheckoutRoutes = defineRoutes({ tag: 'storefront', auth: 'public' }, [
  {
    operationId: 'storefrontCheckout.options',
    method: 'GET',
    path: '/storefront/stores/{storeId}/checkout/options',
    summary: 'What the checkout of a store offers: payment providers, installments, sandbox test cards (extension)',
    description: OPTIONS_DESCRIPTION,
    params: storeParam,
    response: CheckoutOptionsResponse,
    status: 200,
    problems: [429],
    handler: (req: RouteRequest<Params>) => checkoutOptions(req.context, req.params.storeId!),
  },
  {
    operationId: 'storefrontCheckout.quote',
    method: 'POST',
    path: '/storefront/stores/{storeId}/checkout/quote',
    summary: 'Price a cart with its shipping options and total (extension)',
    description: QUOTE_DESCRIPTION,
    params: storeParam,
    body: CheckoutQuoteDto,
    response: CheckoutQuoteResponse,
    status: 200,
    problems: [404, 409, 429],
    handler: (req: RouteRequest<Params, Params, CheckoutQuoteInput>) => quoteCheckout(req.context, req.params.storeId!, req.body),
  },
  {
    operationId: 'storefrontCheckout.place',
    method: 'POST',
    path: '/storefront/stores/{storeId}/checkout',
    summary: 'Place an order and pay it by card (extension)',
    description: PLACE_DESCRIPTION,
    params: storeParam,
    body: PlaceCheckoutDto,
    response: PlaceCheckoutResponse,
    status: 201,
    idempotencyKey: true,
    problems: [404, 409, 429],
    handler: async (req: RouteRequest<Params, Params, PlaceCheckoutInput>) => {
      const outcome = await placeCheckout(req.context, req.params.storeId!, req.body, idempotencyKeyOf(req));
      if (outcome.status === 'DECLINED') throw declined(outcome.declineCode);
      return outcome;
    },
  },
  {
    operationId: 'storefrontCheckout.return',
    method: 'POST',
    path: '/storefront/stores/{storeId}/checkout/return/{provider}',
    summary: 'Settle a 3-D Secure challenge from its signed return (extension)',
    description: RETURN_DESCRIPTION,
    params: { ...storeParam, provider: oneOf(CHECKOUT_PROVIDERS).required().description('The payment provider of the checkout.') },
    body: CheckoutReturnDto,
    response: ChallengeReturnResponse,
    status: 200,
    problems: [404, 429],
    handler: (req: RouteRequest<Params, Params, CheckoutReturnInput>) =>
      completeCheckoutReturn(req.context, req.params.storeId!, req.params.provider as CheckoutProvider, req.body),
  },
  {
    operationId: 'storefrontCheckout.order',
    method: 'GET',
    path: '/storefront/stores/{storeId}/orders/{orderId}',
    summary: 'The public view of an order placed at the checkout, with its view key (extension)',
    description: ORDER_DESCRIPTION,
    params: { ...storeParam, orderId: uuid().required() },
    query: viewKeyQuery,
    response: PublicOrderResponse,
    status: 200,
    problems: [404, 429],
    handler: (req: RouteRequest<Params, Params>) => getPublicOrder(req.context, req.params.storeId!, req.params.orderId!, req.query.key!),
  },
]);

/** 402 payment_declined: the decline code in the detail and as errors[0].message. */
function declined(declineCode: string): AppError {
  return checkoutError('payment_declined', `The card was declined (${declineCode}); the order was cancelled and nothing was charged.`, [
    { path: 'body.payment.card', message: declineCode },
  ]);
}
