/**
 * The payment-provider port (docs/payments.md, "The provider port"): what payments, plan purchases
 * and app purchases ask of a payment provider. The built-in simulator (simulator.ts) implements it
 * for iyzico, stripe and adyen; a real provider implements the same interface and is registered in
 * providers/index.ts.
 */
export const PAYMENT_PROVIDERS = ['iyzico', 'stripe', 'adyen'] as const;
export type PaymentProviderName = (typeof PAYMENT_PROVIDERS)[number];

export function isPaymentProviderName(name: string): name is PaymentProviderName {
  return (PAYMENT_PROVIDERS as readonly string[]).includes(name);
}

export interface CardDetails {
  number: string;
  expiryMonth: number;
  expiryYear: number;
  cvc: string;
  holderName: string;
}

/**
 * A card the provider keeps for us (`saveCard`): charged later without the cardholder (merchant-
 * initiated, no CVC). Only the provider holds the card; we keep its token, brand and last 4 digits.
 */
export interface SavedCardRef {
  savedCardToken: string;
}

export interface SavedCard {
  cardToken: string;
  cardBrand: string;
  cardLast4: string;
}

export interface AuthorizeInput {
  /** Our id of the charge (a payment, plan purchase or app purchase id). */
  reference: string;
  /** Decimal string, e.g. "149.90". */
  amount: string;
  /** ISO 4217. */
  currency: string;
  /** The cardholder's card, or a saved card's token (no cardholder present: a card that needs 3-D Secure is declined authentication_required). */
  card: CardDetails | SavedCardRef;
  /** 1 (default) = single payment. */
  installments?: number;
  /** True: authorize and capture in one step (plan and app purchases). */
  captureNow?: boolean;
  /** Absolute URL the shopper's browser returns to after a 3DS challenge (GET, with signed query parameters). */
  returnUrl: string;
  /** Absolute URL the provider POSTs its signed asynchronous callbacks to. */
  callbackUrl: string;
}

export type AuthorizeOutcome =
  | { status: 'AUTHORIZED' | 'CAPTURED'; providerPaymentId: string; cardBrand: string; cardLast4: string }
  | { status: 'CHALLENGE_REQUIRED'; providerPaymentId: string; challengeUrl: string; expiresAt: Date }
  | { status: 'DECLINED'; providerPaymentId: string; declineCode: string; message: string };

export type ProviderCallbackType =
  'payment.authorized' | 'payment.captured' | 'payment.declined' | 'payment.refunded' | 'refund.manual_required';

export interface ProviderCallback {
  eventId: string;
  type: ProviderCallbackType;
  providerPaymentId: string;
  reference: string;
  amount?: string;
  declineCode?: string;
}

export interface InstallmentOption {
  count: number;
  /** Each installment but the last; the last carries the rounding difference (total − perInstallment × (count − 1)). */
  perInstallment: string;
  total: string;
}

export interface ReturnOutcome {
  providerPaymentId: string;
  reference: string;
  outcome: 'AUTHORIZED' | 'CAPTURED' | 'DECLINED';
  declineCode?: string;
}

export interface PaymentProvider {
  readonly name: PaymentProviderName;
  authorize(input: AuthorizeInput): Promise<AuthorizeOutcome>;
  /** Keeps a card in the provider's vault for later charges; throws a 402-style decline (AppError) for a card it would not accept. */
  saveCard(card: CardDetails): Promise<SavedCard>;
  capture(providerPaymentId: string, amount: string): Promise<{ captureId: string }>;
  void(providerPaymentId: string): Promise<void>;
  refund(providerPaymentId: string, amount: string): Promise<{ refundId: string; status: 'REFUNDED' | 'MANUAL_REFUND_REQUIRED' }>;
  installmentOptions(bin: string, amount: string, currency: string): Promise<InstallmentOption[]>;
  /** Checks a callback POST (signature over the raw body with the provider's secret, timestamp tolerance); throws a 400 AppError (code provider_callback_invalid) otherwise. */
  verifyCallback(headers: Record<string, string | undefined>, rawBody: Buffer): ProviderCallback;
  /** Checks the signed query of a 3DS return (returnUrl) and says how the challenge ended. */
  verifyReturn(query: Record<string, string | undefined>): ReturnOutcome;
}
