/**
 * The storefront's wallet charge (docs/checkout.md, "Wallet charge"): a shopper paid an order with
 * the wallet; the storefront posts the wallet's payment token, and the order's unpaid total is charged
 * through the payments area (authorizeOrderPayment, captured at once) with the store's default
 * payment provider.
 *
 * The wallet is simulated: a token `wallet-pay:tok_<outcome>` stands for the sandbox test card of the
 * provider with that outcome (WALLET_TOKENS). Public, so bounded per client address
 * (WALLET_CHARGE_LIMIT, 429 with Retry-After); the amount must equal the unpaid total (409
 * wallet_amount_mismatch), so a storefront showing a stale total charges nothing.
 */
import { TEST_CARDS, type TestCardFlow } from '../sandbox/sandbox.cards';
import { toUnits } from '../../domain/money';
import { clientKey } from '../../storage/rate-limit';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import { authorizeOrderPayment } from '../payments/payments.service';
import { HOLDS_AMOUNT, HOLDS_CAPTURED } from '../payments/payment-states';
import type { PaymentProviderName } from '../payments/providers/port';
import type { InputOf } from '../http/typed-schema';
import { checkoutError } from './checkout.errors';
import { CHECKOUT_DEFAULTS } from './checkout-settings.defaults';
import type { WalletChargeDto } from './checkout.schemas';

/** Charges per client address and minute. */
export const WALLET_CHARGE_LIMIT = { limit: 10, windowSeconds: 60 } as const;

/** The simulated wallet tokens and the test card flow each stands for. */
export const WALLET_TOKENS: Readonly<Record<string, TestCardFlow>> = {
  'wallet-pay:tok_success': 'SUCCESS',
  'wallet-pay:tok_fraud': 'FRAUD_DECLINE',
};

export type WalletChargeInput = InputOf<typeof WalletChargeDto>;

export interface WalletChargeView {
  orderId: string;
  paymentId: string;
  status: 'PAID' | 'DECLINED';
  provider: PaymentProviderName;
  amount: number;
  currency: string;
  declineCode: string | null;
}

export async function chargeWallet(ctx: RequestContext, input: WalletChargeInput): Promise<WalletChargeView> {
  await servicesOf(ctx).rateLimiter.hit(`wallet-charge:${clientKey(ctx.client?.ip)}`, WALLET_CHARGE_LIMIT);
  const flow = WALLET_TOKENS[input.token];
  if (!flow)
    throw checkoutError('wallet_token_invalid', 'The wallet token is not one this wallet issues.', [
      { path: 'body.token', message: 'token is not a known wallet token' },
    ]);
  const [store] = (await ctx.manager.query(
    `SELECT s.id, s.tenant_id, c.default_provider, c.enabled_providers FROM stores s
       JOIN wallet_configs w ON w.store_id = s.id AND w.provider = 'wallet-pay' AND w.enabled
       LEFT JOIN checkout_settings c ON c.store_id = s.id
      WHERE s.id = $1 AND s.status = 'active'`,
    [input.storeId],
  )) as Array<{ id: string; tenant_id: string; default_provider: string | null; enabled_providers: string[] | null }>;
  if (!store) throw checkoutError('wallet_not_configured', 'The store does not offer wallet-pay.');
  const provider = (store.default_provider ?? store.enabled_providers?.[0] ?? CHECKOUT_DEFAULTS.defaultProvider) as PaymentProviderName;
  const card = TEST_CARDS.find((c) => c.provider === provider && c.flow === flow)!;
  const storeCtx: RequestContext = { ...ctx, tenantId: store.tenant_id };
  return inTransaction(storeCtx, async (tx) => {
    const [order] = (await tx.manager.query(
      'SELECT id, status, currency, total FROM orders WHERE id = $1 AND tenant_id = $2 AND store_id = $3 FOR UPDATE',
      [input.orderId, store.tenant_id, store.id],
    )) as Array<{ id: string; status: string; currency: string; total: string }>;
    if (!order) throw checkoutError('wallet_order_not_found', 'The order does not exist in this store.');
    const [held] = (await tx.manager.query(
      `SELECT COALESCE(SUM(CASE WHEN status = ANY($2) THEN amount WHEN status = ANY($3) THEN captured ELSE 0 END), 0)::text AS held
         FROM payments WHERE order_id = $1`,
      [order.id, HOLDS_AMOUNT, HOLDS_CAPTURED],
    )) as Array<{ held: string }>;
    const unpaid = toUnits(order.total) - toUnits(held!.held);
    if (order.status !== 'PLACED' || unpaid <= 0n) throw checkoutError('wallet_order_not_payable', 'The order is not waiting for payment.');
    if (toUnits(input.amount) !== unpaid)
      throw checkoutError('wallet_amount_mismatch', "The amount is not the order's unpaid total.", [
        { path: 'body.amount', message: 'amount must equal the unpaid total of the order' },
      ]);
    const payment = await authorizeOrderPayment(tx, {
      storeId: store.id,
      orderId: order.id,
      provider,
      card: { number: card.number, expiryMonth: card.expiryMonth, expiryYear: card.expiryYear, cvc: card.cvc, holderName: card.holderName },
      installments: 1,
      captureNow: true,
      returnUrl: `${servicesOf(tx).config.publicBaseUrl}/api/v1/payments/3ds-return/${provider}`,
    });
    return {
      orderId: order.id,
      paymentId: payment.id,
      status: payment.status === 'DECLINED' ? 'DECLINED' : 'PAID',
      provider,
      amount: payment.amount,
      currency: payment.currency,
      declineCode: payment.declineCode ?? null,
    };
  });
}
