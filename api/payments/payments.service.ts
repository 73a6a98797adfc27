/**
 * Payments of orders (docs/payments.md). Services take the request context first; every write runs
 * in one transaction with its ledger rows (payment_operations), its audit entry and its outbox events
 * (payment.captured and payment.refunded webhooks after commit).
 *
 * Functions other areas call:
 * - `authorizeOrderPayment(ctx, { storeId, orderId, provider, card, installments, returnUrl, captureNow? })`:
 *   the storefront checkout's charge of an order (no Idempotency-Key; the checkout keeps its own
 *   attempt). `returnUrl` is the checkout's page the shopper's browser comes back to after a 3-D
 *   Secure challenge; that page calls `completeChallengeReturn`. Answers the payment view (status
 *   AUTHORIZED, CAPTURED, DECLINED, or PENDING_CHALLENGE with `challenge.url` to send the shopper to).
 * - `completeChallengeReturn(ctx, provider, query)`: checks the provider's signed return query and
 *   applies the challenge's outcome to the payment (once; a later return or callback changes nothing).
 *   Works without a tenant (a public page); answers the payment view and its tenant id.
 * - `handlePaymentCallback(ctx, provider, headers, rawBody)`: a provider callback for a payment.
 */
import { uuidv7 } from '../../storage/ids';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import { idempotent } from '../../storage/idempotency';
import { recordAudit } from '../../storage/audit';
import { requireStore } from '../../domain/store-access';
import { formatUnits, minorUnit, toUnits, unitsToNumber, SCALE } from '../../domain/money';
import { emitEvent } from '../webhooks/events';
import { cancelOrder } from '../orders/orders.service';
import { paymentsError } from './payments.errors';
import { paymentProvider, recordCallbackOnce, type CardDetails, type PaymentProviderName, type ReturnOutcome } from './providers';
import { assertMove, canStart, HOLDS_AMOUNT, HOLDS_CAPTURED, type PaymentAction, type PaymentStatus } from './payment-states';
import type { CapturePaymentInput, ConfirmManualRefundInput, CreatePaymentInput, RefundPaymentInput } from './payments.schemas';

export interface PaymentRow {
  id: string;
  tenant_id: string;
  store_id: string;
  order_id: string;
  provider: PaymentProviderName;
  provider_payment_id: string | null;
  status: PaymentStatus;
  currency: string;
  amount: string;
  captured: string;
  refunded: string;
  pending_manual_refund: string;
  installments: number;
  card_brand: string | null;
  card_last4: string | null;
  decline_code: string | null;
  decline_message: string | null;
  challenge_url: string | null;
  challenge_expires_at: Date | null;
  return_url: string | null;
  created_at: Date;
  updated_at: Date;
}

interface OperationRow {
  id: string;
  kind: string;
  amount: string;
  provider_reference: string | null;
  note: string | null;
  created_at: Date;
}

const num = (value: string | bigint): number => unitsToNumber(typeof value === 'bigint' ? value : toUnits(value), SCALE);
const units = (value: string | number): bigint => toUnits(typeof value === 'number' ? String(value) : value);
const dec = (value: bigint): string => formatUnits(value, SCALE);

export type PaymentView = ReturnType<typeof paymentView>;

export function paymentView(p: PaymentRow, operations: OperationRow[]) {
  const captured = units(p.captured);
  const refunded = units(p.refunded);
  const pending = units(p.pending_manual_refund);
  const capturable = canStart('capture', p.status) ? units(p.amount) - captured : 0n;
  const refundable = canStart('refund', p.status) ? captured - refunded - pending : 0n;
  return {
    id: p.id,
    orderId: p.order_id,
    storeId: p.store_id,
    provider: p.provider,
    providerPaymentId: p.provider_payment_id,
    status: p.status,
    currency: p.currency.trim(),
    amount: num(p.amount),
    captured: num(captured),
    refunded: num(refunded),
    pendingManualRefund: num(pending),
    capturable: num(capturable),
    refundable: num(refundable),
    installments: p.installments,
    card: p.card_brand && p.card_last4 ? { brand: p.card_brand, last4: p.card_last4 } : null,
    declineCode: p.decline_code,
    declineMessage: p.decline_message,
    challenge:
      p.status === 'PENDING_CHALLENGE' && p.challenge_url && p.challenge_expires_at
        ? { url: p.challenge_url, expiresAt: p.challenge_expires_at }
        : null,
    operations: operations.map((o) => ({
      id: o.id,
      kind: o.kind,
      amount: num(o.amount),
      providerReference: o.provider_reference,
      note: o.note,
      createdAt: o.created_at,
    })),
    createdAt: p.created_at,
    updatedAt: p.updated_at,
  };
}

async function viewOf(tx: RequestContext, id: string): Promise<PaymentView> {
  const [p] = (await tx.manager.query('SELECT * FROM payments WHERE id = $1', [id])) as PaymentRow[];
  const ops = (await tx.manager.query(
    'SELECT id, kind, amount, provider_reference, note, created_at FROM payment_operations WHERE payment_id = $1 ORDER BY created_at, id',
    [id],
  )) as OperationRow[];
  return paymentView(p!, ops);
}

async function ledger(
  tx: RequestContext,
  p: Pick<PaymentRow, 'id' | 'tenant_id'>,
  kind: string,
  amount: bigint,
  reference?: string | null,
  note?: string | null,
) {
  await tx.manager.query(
    `INSERT INTO payment_operations (id, tenant_id, payment_id, kind, amount, provider_reference, note, actor_type, actor_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [uuidv7(), p.tenant_id, p.id, kind, dec(amount), reference ?? null, note ?? null, tx.actor.type, tx.actor.id ?? null],
  );
}

/** Amount of the DTO as units, checked against the currency's minor unit. */
function amountUnits(value: number, currency: string): bigint {
  const u = units(value);
  const step = 10n ** BigInt(SCALE - Math.min(SCALE, minorUnit(currency)));
  if (u <= 0n || u % step !== 0n)
    throw paymentsError('amount_invalid', `The amount must be above 0 with at most ${minorUnit(currency)} decimals for ${currency}.`);
  return u;
}

async function lockPayment(tx: RequestContext, id: string): Promise<PaymentRow> {
  if (!tx.tenantId) throw paymentsError('payment_not_found', 'The payment does not exist.');
  const [p] = (await tx.manager.query('SELECT * FROM payments WHERE id = $1 AND tenant_id = $2 FOR UPDATE', [
    id,
    tx.tenantId,
  ])) as PaymentRow[];
  if (!p) throw paymentsError('payment_not_found', 'The payment does not exist.');
  if (tx.actor.type === 'api_key' && tx.actor.storeId !== p.store_id)
    throw paymentsError('payment_not_found', 'The payment does not exist.');
  return p;
}

function refuse(p: PaymentRow, action: PaymentAction): never {
  throw paymentsError(
    'payment_transition_refused',
    `A payment in state ${p.status} cannot ${action.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)}.`,
  );
}

async function setStatus(
  tx: RequestContext,
  p: PaymentRow,
  action: PaymentAction,
  to: PaymentStatus,
  columns: Record<string, string | null>,
) {
  assertMove(action, p.status, to);
  const names = Object.keys(columns);
  await tx.manager.query(
    `UPDATE payments SET status = $2, updated_at = now()${names.map((n, i) => `, ${n} = $${i + 3}`).join('')} WHERE id = $1`,
    [p.id, to, ...names.map((n) => columns[n])],
  );
}

async function audit(tx: RequestContext, action: string, before: PaymentRow | null, after: PaymentView, tenantId?: string) {
  await recordAudit(tx, {
    action: `payment.${action}`,
    resourceType: 'payment',
    resourceId: after.id,
    before: before
      ? { status: before.status, captured: before.captured, refunded: before.refunded, pendingManualRefund: before.pending_manual_refund }
      : null,
    after: {
      status: after.status,
      amount: after.amount,
      captured: after.captured,
      refunded: after.refunded,
      pendingManualRefund: after.pendingManualRefund,
    },
    ...(tenantId ? { tenantId } : {}),
  });
}

/** The webhook data of payment.captured and payment.refunded (docs/payments.md, "Webhooks"). */
function webhookData(view: PaymentView, amount: bigint, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    paymentId: view.id,
    orderId: view.orderId,
    storeId: view.storeId,
    provider: view.provider,
    status: view.status,
    currency: view.currency,
    amount: num(amount),
    capturedTotal: view.captured,
    refundedTotal: view.refunded,
    ...extra,
  };
}

// ------------------------------------------------------------------------------------ authorize

export interface AuthorizeOrderPaymentInput {
  storeId?: string;
  orderId: string;
  provider: PaymentProviderName;
  card: CardDetails;
  installments?: number;
  amount?: number;
  /** Where the shopper's browser returns after a 3-D Secure challenge (default: this platform's GET /payments/3ds-return/{provider}). */
  returnUrl?: string;
  /** Where the browser goes after our own return page applied the outcome (POST /payments returnUrl). */
  afterReturnUrl?: string;
  callbackUrl?: string;
  captureNow?: boolean;
}

async function authorizeIn(tx: RequestContext, input: AuthorizeOrderPaymentInput): Promise<PaymentView> {
  if (!tx.tenantId) throw paymentsError('order_not_found', 'The order does not exist.');
  const [order] = (await tx.manager.query(
    'SELECT id, store_id, status, currency, total FROM orders WHERE id = $1 AND tenant_id = $2 FOR UPDATE',
    [input.orderId, tx.tenantId],
  )) as Array<{ id: string; store_id: string; status: string; currency: string; total: string }>;
  if (!order || (input.storeId !== undefined && input.storeId !== order.store_id))
    throw paymentsError('order_not_found', 'The order does not exist.');
  if (tx.actor.type === 'api_key' && tx.actor.storeId !== order.store_id)
    throw paymentsError('order_not_found', 'The order does not exist.');
  await requireStore(tx, order.store_id, { forWrite: true });
  if (order.status === 'CANCELLED') throw paymentsError('order_not_payable', 'The order is cancelled.');
  const currency = order.currency.trim();
  const [held] = (await tx.manager.query(
    `SELECT COALESCE(SUM(CASE WHEN status = ANY($2) THEN amount WHEN status = ANY($3) THEN captured ELSE 0 END), 0)::text AS held
       FROM payments WHERE order_id = $1`,
    [order.id, HOLDS_AMOUNT, HOLDS_CAPTURED],
  )) as Array<{ held: string }>;
  const decimals = Math.min(SCALE, minorUnit(currency));
  const step = 10n ** BigInt(SCALE - decimals);
  // The unpaid total, in whole minor units (an order total with more decimals is rounded down to them).
  const unpaidRaw = units(order.total) - units(held!.held);
  const unpaid = unpaidRaw > 0n ? (unpaidRaw / step) * step : 0n;
  if (unpaid <= 0n) throw paymentsError('order_not_payable', 'Nothing of the order total is left unpaid.');
  const amount = input.amount === undefined ? unpaid : amountUnits(input.amount, currency);
  if (amount > unpaid)
    throw paymentsError('amount_exceeds_unpaid', `The amount is above the unpaid total of the order (${dec(unpaid)} ${currency}).`);

  const id = uuidv7();
  const base = servicesOf(tx).config.publicBaseUrl;
  const provider = paymentProvider(tx, input.provider);
  const outcome = await provider.authorize({
    reference: id,
    amount: formatUnits(amount / step, decimals),
    currency,
    card: input.card,
    installments: input.installments ?? 1,
    captureNow: input.captureNow ?? false,
    returnUrl: input.returnUrl ?? `${base}/api/v1/payments/3ds-return/${input.provider}`,
    callbackUrl: input.callbackUrl ?? `${base}/api/v1/payments/callbacks/${input.provider}`,
  });
  const status: PaymentStatus =
    outcome.status === 'CHALLENGE_REQUIRED' ? 'PENDING_CHALLENGE' : outcome.status === 'CAPTURED' ? 'CAPTURED' : outcome.status;
  const row = {
    tenant_id: tx.tenantId,
  };
  await tx.manager.query(
    `INSERT INTO payments (id, tenant_id, store_id, order_id, provider, provider_payment_id, status, currency, amount, captured,
       installments, card_brand, card_last4, decline_code, decline_message, challenge_url, challenge_expires_at, return_url)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
    [
      id,
      row.tenant_id,
      order.store_id,
      order.id,
      input.provider,
      outcome.providerPaymentId,
      status,
      currency,
      dec(amount),
      status === 'CAPTURED' ? dec(amount) : '0',
      input.installments ?? 1,
      outcome.status === 'AUTHORIZED' || outcome.status === 'CAPTURED' ? outcome.cardBrand : null,
      outcome.status === 'AUTHORIZED' || outcome.status === 'CAPTURED' ? outcome.cardLast4 : input.card.number.slice(-4),
      outcome.status === 'DECLINED' ? outcome.declineCode : null,
      outcome.status === 'DECLINED' ? outcome.message : null,
      outcome.status === 'CHALLENGE_REQUIRED' ? outcome.challengeUrl : null,
      outcome.status === 'CHALLENGE_REQUIRED' ? outcome.expiresAt : null,
      input.afterReturnUrl ?? null,
    ],
  );
  const p = { id, tenant_id: tx.tenantId };
  if (status === 'DECLINED')
    await ledger(tx, p, 'DECLINE', amount, outcome.providerPaymentId, outcome.status === 'DECLINED' ? outcome.declineCode : null);
  else if (status !== 'PENDING_CHALLENGE') await ledger(tx, p, 'AUTHORIZE', amount, outcome.providerPaymentId);
  if (status === 'CAPTURED') await ledger(tx, p, 'CAPTURE', amount, outcome.providerPaymentId);
  const view = await viewOf(tx, id);
  await audit(tx, 'authorize', null, view);
  if (status === 'CAPTURED') await emitEvent(tx, { topic: 'payment.captured', data: webhookData(view, amount) });
  return view;
}

/** POST /payments: with an Idempotency-Key, a retry with the same body answers the same payment. */
export function createPayment(ctx: RequestContext, input: CreatePaymentInput, idempotencyKey: string | undefined): Promise<PaymentView> {
  return idempotent(ctx, 'payments.authorize', idempotencyKey, input, (tx) =>
    authorizeIn(tx, { ...input, afterReturnUrl: input.returnUrl, returnUrl: undefined }),
  );
}

/** The storefront checkout's charge of an order (see the file comment). */
export function authorizeOrderPayment(
  ctx: RequestContext,
  input: {
    storeId: string;
    orderId: string;
    provider: PaymentProviderName;
    card: CardDetails;
    installments?: number;
    returnUrl: string;
    captureNow?: boolean;
  },
): Promise<PaymentView> {
  return inTransaction(ctx, (tx) => authorizeIn(tx, input));
}

// ------------------------------------------------------------------------------ capture, void

export function capturePayment(ctx: RequestContext, id: string, input: CapturePaymentInput): Promise<PaymentView> {
  return inTransaction(ctx, async (tx) => {
    const p = await lockPayment(tx, id);
    if (!canStart('capture', p.status)) refuse(p, 'capture');
    const left = units(p.amount) - units(p.captured);
    const amount = input.amount === undefined ? left : amountUnits(input.amount, p.currency.trim());
    if (amount > left) throw paymentsError('capture_exceeds_authorized', `At most ${dec(left)} ${p.currency.trim()} is left to capture.`);
    const { captureId } = await paymentProvider(tx, p.provider).capture(p.provider_payment_id!, dec(amount));
    const captured = units(p.captured) + amount;
    await setStatus(tx, p, 'capture', captured === units(p.amount) ? 'CAPTURED' : 'PARTIALLY_CAPTURED', { captured: dec(captured) });
    await ledger(tx, p, 'CAPTURE', amount, captureId);
    const view = await viewOf(tx, id);
    await audit(tx, 'capture', p, view);
    await emitEvent(tx, { topic: 'payment.captured', data: webhookData(view, amount) });
    return view;
  });
}

export function voidPayment(ctx: RequestContext, id: string): Promise<PaymentView> {
  return inTransaction(ctx, async (tx) => {
    const p = await lockPayment(tx, id);
    if (!canStart('void', p.status) || units(p.captured) !== 0n) refuse(p, 'void');
    await paymentProvider(tx, p.provider).void(p.provider_payment_id!);
    await setStatus(tx, p, 'void', 'VOIDED', {});
    await ledger(tx, p, 'VOID', units(p.amount), p.provider_payment_id);
    const view = await viewOf(tx, id);
    await audit(tx, 'void', p, view);
    await releaseUnpaidOrder(tx, p.order_id);
    return view;
  });
}

/**
 * A voided payment gives the order's stock back when nothing else pays for the order: with no other
 * payment holding money (authorized, waiting for 3-D Secure, or captured), the order is cancelled
 * as POST /orders/{id}/cancel would (stock returned, order.cancelled emitted).
 */
async function releaseUnpaidOrder(tx: RequestContext, orderId: string): Promise<void> {
  const [other] = (await tx.manager.query('SELECT 1 FROM payments WHERE order_id = $1 AND (status = ANY($2) OR status = ANY($3)) LIMIT 1', [
    orderId,
    HOLDS_AMOUNT,
    HOLDS_CAPTURED,
  ])) as unknown[];
  if (!other) await cancelOrder(tx, orderId);
}

// ------------------------------------------------------------------------------------- refunds

const afterRefund = (p: PaymentRow, refunded: bigint): PaymentStatus =>
  refunded === units(p.captured) ? 'REFUNDED' : 'PARTIALLY_REFUNDED';

export function refundPayment(ctx: RequestContext, id: string, input: RefundPaymentInput): Promise<PaymentView> {
  return inTransaction(ctx, async (tx) => {
    const p = await lockPayment(tx, id);
    if (!canStart('refund', p.status)) refuse(p, 'refund');
    const left = units(p.captured) - units(p.refunded) - units(p.pending_manual_refund);
    const amount = input.amount === undefined ? left : amountUnits(input.amount, p.currency.trim());
    if (amount > left || amount <= 0n)
      throw paymentsError('refund_exceeds_captured', `At most ${dec(left > 0n ? left : 0n)} ${p.currency.trim()} may be refunded.`);
    const answer = await paymentProvider(tx, p.provider).refund(p.provider_payment_id!, dec(amount));
    if (answer.status === 'MANUAL_REFUND_REQUIRED') {
      const pending = units(p.pending_manual_refund) + amount;
      await setStatus(tx, p, 'refund', p.status, { pending_manual_refund: dec(pending) });
      await ledger(tx, p, 'MANUAL_REFUND_REQUESTED', amount, answer.refundId, input.reason);
      const view = await viewOf(tx, id);
      await audit(tx, 'refund_manual_required', p, view);
      return view;
    }
    const refunded = units(p.refunded) + amount;
    await setStatus(tx, p, 'refund', afterRefund(p, refunded), { refunded: dec(refunded) });
    await ledger(tx, p, 'REFUND', amount, answer.refundId, input.reason);
    const view = await viewOf(tx, id);
    await audit(tx, 'refund', p, view);
    await emitEvent(tx, { topic: 'payment.refunded', data: webhookData(view, amount, { manual: false }) });
    return view;
  });
}

export function confirmManualRefund(ctx: RequestContext, id: string, input: ConfirmManualRefundInput): Promise<PaymentView> {
  return inTransaction(ctx, async (tx) => {
    const p = await lockPayment(tx, id);
    const pending = units(p.pending_manual_refund);
    if (!canStart('confirmManualRefund', p.status)) refuse(p, 'confirmManualRefund');
    if (pending === 0n) throw paymentsError('no_pending_manual_refund', 'The payment has no manual refund waiting for confirmation.');
    if (amountUnits(input.amount, p.currency.trim()) !== pending)
      throw paymentsError('manual_refund_amount_mismatch', `The pending manual refund is ${dec(pending)} ${p.currency.trim()}.`);
    const refunded = units(p.refunded) + pending;
    await setStatus(tx, p, 'confirmManualRefund', afterRefund(p, refunded), { refunded: dec(refunded), pending_manual_refund: '0' });
    await ledger(tx, p, 'MANUAL_REFUND_CONFIRMED', pending, null, input.reference);
    const view = await viewOf(tx, id);
    await audit(tx, 'refund_manual_confirm', p, view);
    await emitEvent(tx, { topic: 'payment.refunded', data: webhookData(view, pending, { manual: true }) });
    return view;
  });
}

export function cancelManualRefund(ctx: RequestContext, id: string): Promise<PaymentView> {
  return inTransaction(ctx, async (tx) => {
    const p = await lockPayment(tx, id);
    const pending = units(p.pending_manual_refund);
    if (!canStart('cancelManualRefund', p.status)) refuse(p, 'cancelManualRefund');
    if (pending === 0n) throw paymentsError('no_pending_manual_refund', 'The payment has no manual refund waiting for confirmation.');
    await setStatus(tx, p, 'cancelManualRefund', p.status, { pending_manual_refund: '0' });
    await ledger(tx, p, 'MANUAL_REFUND_CANCELLED', pending);
    const view = await viewOf(tx, id);
    await audit(tx, 'refund_manual_cancel', p, view);
    return view;
  });
}

// ------------------------------------------------------------------- 3-D Secure and callbacks

/** Applies a challenge's outcome to a PENDING_CHALLENGE payment; false when it was applied before. Needs the payment locked. */
async function applyChallengeOutcome(
  tx: RequestContext,
  p: PaymentRow,
  outcome: ReturnOutcome['outcome'],
  declineCode?: string,
): Promise<boolean> {
  if (p.status !== 'PENDING_CHALLENGE') return false;
  const scoped: RequestContext = { ...tx, tenantId: p.tenant_id };
  const amount = units(p.amount);
  const to: PaymentStatus = outcome;
  await setStatus(scoped, p, 'completeChallenge', to, {
    captured: to === 'CAPTURED' ? dec(amount) : '0',
    decline_code: to === 'DECLINED' ? (declineCode ?? 'three_ds_failed') : null,
    decline_message: to === 'DECLINED' ? 'The 3-D Secure challenge failed.' : null,
    challenge_url: null,
    challenge_expires_at: null,
  });
  if (to === 'DECLINED') await ledger(scoped, p, 'DECLINE', amount, p.provider_payment_id, declineCode ?? 'three_ds_failed');
  else await ledger(scoped, p, 'AUTHORIZE', amount, p.provider_payment_id);
  if (to === 'CAPTURED') await ledger(scoped, p, 'CAPTURE', amount, p.provider_payment_id);
  const view = await viewOf(scoped, p.id);
  await audit(scoped, 'challenge_complete', p, view, p.tenant_id);
  if (to === 'CAPTURED') await emitEvent(scoped, { topic: 'payment.captured', data: webhookData(view, amount) });
  return true;
}

/**
 * Declines a payment of the context's tenant whose 3-D Secure challenge expired unanswered
 * (`challenge_expired`): the shopper left. Answers false when the payment is no longer waiting.
 */
export async function expirePendingChallenge(tx: RequestContext, paymentId: string): Promise<boolean> {
  const p = await lockPayment(tx, paymentId).catch(() => undefined);
  if (!p) return false;
  return applyChallengeOutcome(tx, p, 'DECLINED', 'challenge_expired');
}

async function lockByProviderId(
  tx: RequestContext,
  provider: PaymentProviderName,
  providerPaymentId: string,
): Promise<PaymentRow | undefined> {
  const [p] = (await tx.manager.query('SELECT * FROM payments WHERE provider = $1 AND provider_payment_id = $2 FOR UPDATE', [
    provider,
    providerPaymentId,
  ])) as PaymentRow[];
  return p;
}

/** The storefront's (and our own return page's) 3-D Secure return: see the file comment. */
export function completeChallengeReturn(
  ctx: RequestContext,
  provider: PaymentProviderName,
  query: Record<string, string | undefined>,
): Promise<{ payment: PaymentView; tenantId: string; afterReturnUrl: string | null }> {
  const outcome = paymentProvider(ctx, provider).verifyReturn(query);
  return inTransaction(ctx, async (tx) => {
    const p = await lockByProviderId(tx, provider, outcome.providerPaymentId);
    if (!p || p.id !== outcome.reference) throw paymentsError('payment_not_found', 'The payment of this return does not exist.');
    await applyChallengeOutcome(tx, p, outcome.outcome, outcome.declineCode);
    return { payment: await viewOf(tx, p.id), tenantId: p.tenant_id, afterReturnUrl: p.return_url };
  });
}

export interface CallbackAnswer {
  received: true;
  duplicate: boolean;
  applied: boolean;
  paymentId: string | null;
}

/** A provider callback for a payment: verified, recorded once, applied when it completes a challenge. */
export function handlePaymentCallback(
  ctx: RequestContext,
  provider: PaymentProviderName,
  headers: Record<string, string | undefined>,
  rawBody: Buffer,
): Promise<CallbackAnswer> {
  const callback = paymentProvider(ctx, provider).verifyCallback(headers, rawBody);
  return inTransaction(ctx, async (tx) => {
    if (!(await recordCallbackOnce(tx, provider, callback.eventId)))
      return { received: true, duplicate: true, applied: false, paymentId: null };
    const p = await lockByProviderId(tx, provider, callback.providerPaymentId);
    if (!p || p.id !== callback.reference) return { received: true, duplicate: false, applied: false, paymentId: null };
    const outcome =
      callback.type === 'payment.authorized'
        ? 'AUTHORIZED'
        : callback.type === 'payment.captured'
          ? 'CAPTURED'
          : callback.type === 'payment.declined'
            ? 'DECLINED'
            : undefined;
    const applied = outcome ? await applyChallengeOutcome(tx, p, outcome, callback.declineCode) : false;
    return { received: true, duplicate: false, applied, paymentId: p.id };
  });
}
