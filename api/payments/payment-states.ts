/**
 * The states of a payment and every move between them (docs/payments.md, "States and transitions").
 * A call whose action the payment's state does not allow answers 409 `payment_transition_refused`
 * and changes nothing.
 *
 * - PENDING_CHALLENGE: waiting for the shopper's 3-D Secure answer.
 * - AUTHORIZED: the amount is held on the card, nothing captured.
 * - PARTIALLY_CAPTURED: part of the authorized amount captured; more captures may follow.
 * - CAPTURED: the whole authorized amount captured.
 * - VOIDED: the authorization was released with nothing captured.
 * - DECLINED: the provider (or the 3-D Secure challenge) refused it.
 * - PARTIALLY_REFUNDED: part of the captured amount refunded; captures are closed.
 * - REFUNDED: everything captured refunded.
 * A pending manual refund (pendingManualRefund > 0) does not change the state; confirming it moves
 * it like a refund, cancelling it leaves the state as it is.
 */
export const PAYMENT_STATUSES = [
  'PENDING_CHALLENGE',
  'AUTHORIZED',
  'PARTIALLY_CAPTURED',
  'CAPTURED',
  'VOIDED',
  'DECLINED',
  'PARTIALLY_REFUNDED',
  'REFUNDED',
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export type PaymentAction = 'completeChallenge' | 'capture' | 'void' | 'refund' | 'confirmManualRefund' | 'cancelManualRefund';

/** From which states each action may start, and which states it may lead to. */
export const PAYMENT_TRANSITIONS: Readonly<Record<PaymentAction, { from: readonly PaymentStatus[]; to: readonly PaymentStatus[] }>> = {
  completeChallenge: { from: ['PENDING_CHALLENGE'], to: ['AUTHORIZED', 'CAPTURED', 'DECLINED'] },
  capture: { from: ['AUTHORIZED', 'PARTIALLY_CAPTURED'], to: ['PARTIALLY_CAPTURED', 'CAPTURED'] },
  void: { from: ['AUTHORIZED'], to: ['VOIDED'] },
  refund: {
    from: ['PARTIALLY_CAPTURED', 'CAPTURED', 'PARTIALLY_REFUNDED'],
    // A refund the provider leaves to be paid by hand keeps the state until it is confirmed.
    to: ['PARTIALLY_CAPTURED', 'CAPTURED', 'PARTIALLY_REFUNDED', 'REFUNDED'],
  },
  confirmManualRefund: { from: ['PARTIALLY_CAPTURED', 'CAPTURED', 'PARTIALLY_REFUNDED'], to: ['PARTIALLY_REFUNDED', 'REFUNDED'] },
  cancelManualRefund: {
    from: ['PARTIALLY_CAPTURED', 'CAPTURED', 'PARTIALLY_REFUNDED'],
    to: ['PARTIALLY_CAPTURED', 'CAPTURED', 'PARTIALLY_REFUNDED'],
  },
};

export function canStart(action: PaymentAction, status: PaymentStatus): boolean {
  return PAYMENT_TRANSITIONS[action].from.includes(status);
}

export function assertMove(action: PaymentAction, from: PaymentStatus, to: PaymentStatus): void {
  if (!canStart(action, from) || !PAYMENT_TRANSITIONS[action].to.includes(to))
    throw new Error(`payment transition ${from} -(${action})-> ${to} is not in the table`);
}

/** What the order still counts as paid or held by a payment in this state (see docs/payments.md, "Unpaid total"). */
export const HOLDS_AMOUNT: readonly PaymentStatus[] = ['PENDING_CHALLENGE', 'AUTHORIZED', 'PARTIALLY_CAPTURED'];
export const HOLDS_CAPTURED: readonly PaymentStatus[] = ['CAPTURED', 'PARTIALLY_REFUNDED', 'REFUNDED'];
