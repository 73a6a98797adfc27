/**
 * Payments: authorize, capture, void and refund (docs/payments.md), plus the extensions the flows
 * need: the provider callback endpoint and the 3-D Secure return page of payments, and the payment
 * simulator's challenge page.
 */
import Joi from 'joi';
import { defineRoutes, idempotencyKeyOf, rawBodyOf, SeeOther, type RouteRequest } from '../http/route';
import { text, uuid } from '../http/schema-types';
import {
  captureAmountParam,
  ChallengeAnswerDto,
  ChallengePage,
  ConfirmManualRefundDto,
  CreatePaymentDto,
  knownProviderParam,
  PaymentView,
  ProviderCallbackAnswer,
  PspCallbackBodyDto,
  RefundPaymentDto,
  ReturnPage,
  threeDsTokenParam,
  type CapturePaymentInput,
  type ConfirmManualRefundInput,
  type CreatePaymentInput,
  type RefundPaymentInput,
} from './payments.schemas';
import {
  cancelManualRefund,
  capturePayment,
  completeChallengeReturn,
  confirmManualRefund,
  createPayment,
  handlePaymentCallback,
  refundPayment,
  voidPayment,
} from './payments.service';
import { answerChallenge, showChallenge } from './providers/simulator';
import { challengePageHtml, returnPageHtml } from './payments.pages';
import { inTransaction } from '../../storage/request-context';
import type { PaymentProviderName } from './providers';

type Params = Record<string, string>;
const providerOf = (req: RouteRequest<Params>): PaymentProviderName => req.params.provider as PaymentProviderName;

/** The operations of this table that the specification does not list (extensions; their descriptions say so). */
export const paymentExtensionOperationIds = [
  'payments.providerCallback',
  'payments.challengeReturn',
  'payments.simulatorChallenge',
  'payments.simulatorChallengeAnswer',
] as const;

const STATES =
  'States and moves: docs/payments.md, "States and transitions"; a call the state does not allow answers 409 payment_transition_refused and changes nothing.';

export const paymentsRoutes = defineRoutes({ tag: 'payments', auth: 'merchant' }, [
  {
    operationId: 'payments.authorize',
    method: 'POST',
    path: '/payments',
    summary: 'Authorize a payment',
    description: `Authorizes an amount of an order on a card with the chosen provider (default amount: the order's unpaid total). The answer is the payment: AUTHORIZED, DECLINED (with declineCode: invalid_card_number, expired_card, card_not_supported, installments_not_available, fraud_suspected), or PENDING_CHALLENGE with challenge.url, the provider's 3-D Secure page to send the shopper to; after it the shopper comes back through GET /payments/3ds-return/{provider}, which updates the payment and sends the browser on to returnUrl. With an Idempotency-Key a retry with the same body answers the same payment (201 again). ${STATES}`,
    body: CreatePaymentDto,
    response: PaymentView,
    status: 201,
    idempotencyKey: true,
    problems: [404, 409],
    handler: (req: RouteRequest<Record<string, string>, Record<string, string>, CreatePaymentInput>) =>
      createPayment(req.context, req.body, idempotencyKeyOf(req)),
  },
  {
    operationId: 'payments.capture',
    method: 'POST',
    path: '/payments/{id}/capture',
    summary: 'Capture an authorized payment',
    description: `Captures all that is left of the authorization, or the query parameter amount of it (the specification lists no body: a partial capture names its amount in the query; several partial captures up to the authorized amount, beyond answers 409 capture_exceeds_authorized). Emits the payment.captured webhook. ${STATES}`,
    query: { amount: captureAmountParam },
    response: PaymentView,
    status: 201,
    handler: (req: RouteRequest<Params, CapturePaymentInput>) => capturePayment(req.context, req.params.id!, req.query),
  },
  {
    operationId: 'payments.void',
    method: 'POST',
    path: '/payments/{id}/void',
    summary: 'Void an authorized payment that was not captured',
    description: `Releases the authorization; only an AUTHORIZED payment with nothing captured. When no other payment of the order holds money, the order is cancelled and its stock goes back (as POST /orders/{id}/cancel). ${STATES}`,
    response: PaymentView,
    status: 201,
    handler: (req: RouteRequest<Params>) => voidPayment(req.context, req.params.id!),
  },
  {
    operationId: 'payments.refund',
    method: 'POST',
    path: '/payments/{id}/refund',
    summary: 'Refund a captured payment, in full or in part',
    description: `Refunds an amount (send {} for all that is refundable: captured − refunded − pendingManualRefund; more answers 409 refund_exceeds_captured). Emits payment.refunded. When the provider leaves the refund to be paid back by hand, the amount becomes pendingManualRefund (no webhook yet) until confirm-manual or cancel-manual. ${STATES}`,
    body: RefundPaymentDto,
    response: PaymentView,
    status: 201,
    handler: (req: RouteRequest<Params, Params, RefundPaymentInput>) => refundPayment(req.context, req.params.id!, req.body),
  },
  {
    operationId: 'payments.confirmManualRefund',
    method: 'POST',
    path: '/payments/{id}/refund/confirm-manual',
    summary: 'Confirm that a pending manual refund was paid back outside the provider',
    description: `Books the pending manual refund as refunded (the amount must equal it) and emits payment.refunded with manual: true. ${STATES}`,
    body: ConfirmManualRefundDto,
    response: PaymentView,
    status: 201,
    handler: (req: RouteRequest<Params, Params, ConfirmManualRefundInput>) => confirmManualRefund(req.context, req.params.id!, req.body),
  },
  {
    operationId: 'payments.cancelManualRefund',
    method: 'POST',
    path: '/payments/{id}/refund/cancel-manual',
    summary: 'Cancel a pending manual refund',
    description: `Drops the pending manual refund; the amount is refundable again. ${STATES}`,
    response: PaymentView,
    status: 201,
    handler: (req: RouteRequest<Params>) => cancelManualRefund(req.context, req.params.id!),
  },
  {
    operationId: 'payments.providerCallback',
    method: 'POST',
    path: '/payments/callbacks/{provider}',
    auth: 'public',
    summary: 'Receive a payment-provider callback for a payment',
    description:
      'Extension. Where providers post their signed asynchronous callbacks about payments (header X-Provider-Signature; bad signature or a timestamp more than 5 minutes off answers 400 provider_callback_invalid). An event id seen before changes nothing (duplicate: true); a callback of an unknown payment is acknowledged without effect (applied: false).',
    params: { provider: knownProviderParam },
    body: PspCallbackBodyDto,
    response: ProviderCallbackAnswer,
    status: 200,
    handler: (req: RouteRequest<Params>) =>
      handlePaymentCallback(req.context, providerOf(req), req.koa.headers as Record<string, string | undefined>, rawBodyOf(req)),
  },
  {
    operationId: 'payments.challengeReturn',
    method: 'GET',
    path: '/payments/3ds-return/{provider}',
    auth: 'public',
    summary: 'Return page of a 3-D Secure challenge of a payment',
    description:
      "Extension. The provider sends the shopper's browser here after its 3-D Secure challenge, with a signed query (provider_payment_id, reference, outcome, decline_code, t, sig; a bad signature answers 400 provider_callback_invalid). Updates the payment once (the provider's callback may have done so already), then answers 303 to the returnUrl given when the payment was created (with paymentId and status appended), or an HTML page with the outcome.",
    params: { provider: knownProviderParam },
    query: {
      provider_payment_id: text(1, 200).required(),
      reference: uuid().required(),
      outcome: Joi.string().valid('AUTHORIZED', 'CAPTURED', 'DECLINED').required(),
      decline_code: text(1, 100),
      t: Joi.string()
        .pattern(/^\d{1,12}$/)
        .required(),
      sig: Joi.string()
        .pattern(/^[0-9a-f]{64}$/)
        .required(),
    },
    response: ReturnPage,
    status: 200,
    handler: async (req: RouteRequest<Params, Params>) => {
      const { payment, afterReturnUrl } = await completeChallengeReturn(req.context, providerOf(req), req.query);
      if (afterReturnUrl) {
        const next = new URL(afterReturnUrl);
        next.searchParams.set('paymentId', payment.id);
        next.searchParams.set('status', payment.status);
        return new SeeOther(next.toString());
      }
      return returnPageHtml(payment);
    },
  },
  {
    operationId: 'payments.simulatorChallenge',
    method: 'GET',
    path: '/sandbox-provider/{provider}/challenge/{token}',
    auth: 'public',
    summary: "The payment simulator's 3-D Secure challenge page",
    description:
      "Extension. The built-in payment simulator's challenge page (challengeUrl of a CHALLENGE_REQUIRED authorization): the charge and a form asking for the one-time code. 404 challenge_not_found for an unknown token; 409 challenge_closed once answered or after 15 minutes.",
    params: { provider: knownProviderParam, token: threeDsTokenParam },
    response: ChallengePage,
    status: 200,
    handler: async (req: RouteRequest<Params>) =>
      challengePageHtml(await showChallenge(req.context, providerOf(req), req.params.token!), req.koa.path),
  },
  {
    operationId: 'payments.simulatorChallengeAnswer',
    method: 'POST',
    path: '/sandbox-provider/{provider}/challenge/{token}',
    auth: 'public',
    summary: "Answer the payment simulator's 3-D Secure challenge",
    description:
      "Extension. The challenge form's post (application/x-www-form-urlencoded, field code). Single use: the card's 3-D Secure code authorizes (captures, for a charge asking for capture at once), any other code declines (three_ds_failed). Answers 303 See Other to the charge's returnUrl with a signed query, and queues the signed callback to its callbackUrl.",
    params: { provider: knownProviderParam, token: threeDsTokenParam },
    body: ChallengeAnswerDto,
    response: ChallengePage,
    status: 200,
    handler: async (req: RouteRequest<Params, Params, { code: string }>) =>
      new SeeOther(await inTransaction(req.context, (tx) => answerChallenge(tx, providerOf(req), req.params.token!, req.body.code))),
  },
]);
