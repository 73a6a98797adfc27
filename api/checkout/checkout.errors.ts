/**
 * The error codes of checkout settings, the storefront wallet checkout and the merchant wallets:
 * each code once, with its HTTP status and what it means (api/error-codes.ts lists them).
 */
import { defineErrorCodes } from '../../lib/errors';

export const CHECKOUT_ERRORS = defineErrorCodes('checkout', {
  wallet_not_configured: { status: 404, description: 'The store has no wallet configuration for this provider, or it is disabled.' },
  wallet_no_domains: {
    status: 409,
    description: 'The wallet configuration names no domain to verify; add domains first (PUT /merchant-wallets).',
  },
  wallet_token_invalid: {
    status: 400,
    description: 'The wallet token is not a simulated wallet token (`wallet-pay:tok_<outcome>`; docs/checkout.md, "Wallet tokens").',
  },
  wallet_order_not_payable: {
    status: 409,
    description: 'The order is not waiting for payment (already paid, cancelled) or belongs to another store.',
  },
  wallet_amount_mismatch: { status: 409, description: "The amount is not the order's unpaid total." },
  wallet_order_not_found: { status: 404, description: 'The order does not exist in this store.' },
});

export const checkoutError = CHECKOUT_ERRORS.error;
