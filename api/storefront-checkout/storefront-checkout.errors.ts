/**
 * The error codes of the storefront checkout: each code once, with its HTTP status and what it
 * means. Throw sites use `checkoutError(code, detail, errors)`; the API reference lists the codes
 * (api/error-codes.ts). Stock, unknown variants and archived products answer the orders area's codes
 * (insufficient_stock, variant_not_found, product_unavailable), since the order is placed by it.
 */
import { defineErrorCodes } from '../../lib/errors';

export const STOREFRONT_CHECKOUT_ERRORS = defineErrorCodes('storefront-checkout', {
  payment_declined: {
    status: 402,
    description:
      'The card payment was declined; the order was cancelled and its stock released. `errors[0].message` is the decline code (e.g. fraud_suspected).',
  },
  checkout_unavailable: {
    status: 409,
    description:
      'The store does not sell through the storefront checkout now: its prices are not shown to everyone, or no payment provider is enabled.',
  },
  provider_not_enabled: { status: 409, description: "The payment provider chosen is not enabled in the store's checkout settings." },
  guest_checkout_disabled: {
    status: 409,
    description:
      "The shop's checkout settings allow only signed-in customers (guestCheckout false), and the storefront has no customer accounts yet.",
  },
  terms_not_accepted: { status: 400, description: 'The shop has terms and acceptTerms is not true; nothing was ordered.' },
  installments_below_minimum: {
    status: 409,
    description: "Installments were asked for a total below the shop's installment minimum (installments.minAmount); nothing was ordered.",
  },
  shipping_rate_unavailable: {
    status: 409,
    description: 'The shipping option chosen is not offered for this cart and address (quote again and pick one of its options).',
  },
  checkout_total_changed: {
    status: 409,
    description:
      'The total to pay is not the expectedTotal sent (a price or shipping charge changed since the quote); nothing was ordered.',
  },
  checkout_key_reused: {
    status: 409,
    description: 'The idempotency key was already used for a checkout with another body; send a new key for a new checkout.',
  },
  order_not_found: { status: 404, description: 'No order of this store has this id and view key.' },
  return_not_recognised: { status: 404, description: 'The 3-D Secure return names no pending checkout of this store.' },
});

export const checkoutError = STOREFRONT_CHECKOUT_ERRORS.error;
