/**
 * The error codes of the payments area (payments, the provider port, the payment simulator): each
 * code once, with its HTTP status and what it means. Throw sites use `paymentsError(code, detail)`.
 */
import { defineErrorCodes } from '../../lib/errors';

export const PAYMENTS_ERRORS = defineErrorCodes('payments', {
  payment_not_found: { status: 404, description: 'The payment does not exist (or belongs to another tenant).' },
  order_not_found: { status: 404, description: 'The order to pay does not exist (or belongs to another tenant).' },
  order_not_payable: { status: 409, description: 'The order is cancelled, or nothing of its total is left unpaid.' },
  amount_exceeds_unpaid: {
    status: 409,
    description: 'The amount is above what is left unpaid of the order (its total minus what live payments already hold).',
  },
  amount_invalid: { status: 400, description: "The amount has more decimals than the currency's minor unit, or is zero." },
  payment_transition_refused: {
    status: 409,
    description: 'The payment cannot do this in its current state (docs/payments.md, "States and transitions").',
  },
  capture_exceeds_authorized: { status: 409, description: 'The capture would take more than the authorized amount not yet captured.' },
  refund_exceeds_captured: {
    status: 409,
    description: 'The refund is above what was captured minus what was refunded and what waits as a manual refund.',
  },
  no_pending_manual_refund: { status: 409, description: 'The payment has no manual refund waiting for confirmation.' },
  manual_refund_amount_mismatch: { status: 409, description: 'The confirmed amount is not the amount of the pending manual refund.' },
  provider_callback_invalid: {
    status: 400,
    description: 'A payment-provider callback or 3-D Secure return whose signature, timestamp or content does not check out.',
  },
  provider_refused: { status: 409, description: 'The payment provider refused the operation (its state differs from ours).' },
  card_not_saved: {
    status: 402,
    description: 'The payment provider would not keep the card for later charges (invalid, expired, unsupported or declined).',
  },
  payment_simulator_refused: {
    status: 500,
    description:
      'The payment simulator is not allowed here (production without PAYMENT_SIMULATOR_ALLOWED=true), and no real provider is registered.',
  },
  challenge_not_found: { status: 404, description: 'The 3-D Secure challenge does not exist.' },
  challenge_closed: { status: 409, description: 'The 3-D Secure challenge was already answered, or expired (15 minutes).' },
});

export const paymentsError = PAYMENTS_ERRORS.error;
