/**
 * The storefront checkout's one door to the payments area: pays an order with a card through
 * authorizeOrderPayment and settles a 3-D Secure return through completeChallengeReturn (both of
 * api/payments/payments.service.ts), and says how each ended in the checkout's own words (PAID,
 * CHALLENGE_REQUIRED, DECLINED). The storefront captures at once (captureNow): a card that passes is
 * charged the order's total in the same step, and a passed challenge captures too; should a provider
 * only authorize, the capture follows here before the order counts as paid.
 */
import { authorizeOrderPayment, capturePayment, completeChallengeReturn, type PaymentView } from '../payments/payments.service';
import type { RequestContext } from '../../storage/request-context';
import type { InputOf } from '../http/typed-schema';
import type { CHECKOUT_PROVIDERS, PlaceCheckoutDto } from './storefront-checkout.schemas';

export type CheckoutProvider = (typeof CHECKOUT_PROVIDERS)[number];

/** The card of the checkout's body, as validated. */
export type CardInput = InputOf<typeof PlaceCheckoutDto>['payment']['card'];

export type PaymentResult =
  | { outcome: 'PAID'; paymentId: string }
  | { outcome: 'CHALLENGE_REQUIRED'; paymentId: string; challengeUrl: string }
  | { outcome: 'DECLINED'; paymentId: string | null; declineCode: string };

/** Captures what an authorization holds when it was not captured with it. */
async function captured(ctx: RequestContext, payment: PaymentView): Promise<PaymentView> {
  return payment.status === 'AUTHORIZED' ? capturePayment(ctx, payment.id, {}) : payment;
}

/** Pays the order's total; `ctx` is the checkout's transaction, so the payment commits (or not) with the order. */
export async function payOrder(
  ctx: RequestContext,
  input: { storeId: string; orderId: string; provider: CheckoutProvider; card: CardInput; installments: number; returnUrl: string },
): Promise<PaymentResult> {
  const payment = await captured(ctx, await authorizeOrderPayment(ctx, { ...input, captureNow: true }));
  if (payment.status === 'PENDING_CHALLENGE' && payment.challenge)
    return { outcome: 'CHALLENGE_REQUIRED', paymentId: payment.id, challengeUrl: payment.challenge.url };
  if (payment.status === 'CAPTURED') return { outcome: 'PAID', paymentId: payment.id };
  return { outcome: 'DECLINED', paymentId: payment.id, declineCode: payment.declineCode ?? 'declined' };
}

/** Applies the provider's signed return query to the payment (once) and says how the challenge ended. */
export async function settleChallengeReturn(
  ctx: RequestContext,
  provider: CheckoutProvider,
  query: Record<string, string>,
): Promise<{ orderId: string; paymentId: string; outcome: 'PAID' | 'DECLINED'; declineCode: string | null }> {
  const { payment } = await completeChallengeReturn(ctx, provider, query);
  const settled = await captured(ctx, payment);
  return settled.status === 'CAPTURED'
    ? { orderId: settled.orderId, paymentId: settled.id, outcome: 'PAID', declineCode: null }
    : { orderId: settled.orderId, paymentId: settled.id, outcome: 'DECLINED', declineCode: settled.declineCode ?? 'three_ds_failed' };
}
