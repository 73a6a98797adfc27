/**
 * Plan purchases paid by card through the payment-provider port (docs/billing.md, "Plan purchases").
 *
 * States: PENDING → PAID | REQUIRES_ACTION | FAILED (pay); REQUIRES_ACTION → PAID | FAILED (the 3-D
 * Secure return or the provider's callback, whichever comes first; the other changes nothing);
 * FAILED → PAID | REQUIRES_ACTION | FAILED (pay again with another card); PAID is final. Any other
 * call answers 409 plan_purchase_transition_refused.
 *
 * Pay runs under the Idempotency-Key (storage/idempotency.ts): a retried request answers the first
 * result and charges nothing twice. The provider is called inside the purchase's transaction, so the
 * simulator's own rows commit or roll back with it.
 */
import { randomBytes } from 'node:crypto';
import { idempotent } from '../../storage/idempotency';
import { recordAudit } from '../../storage/audit';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import { isPaymentProviderName, paymentProvider, recordCallbackOnce, type PaymentProviderName } from '../payments/providers';
import { billingError } from './billing.errors';
import type { PayPlanPurchaseInput } from './billing.schemas';
import { purchaseView, updatedRows, type PurchaseRow, type PurchaseView } from './billing.views';
import { twoDecimals } from './invoice-math';
import { activatePurchase, PURCHASE_COLUMNS } from './subscription.service';

/** The provider installments are quoted with when the query names none (installments are an iyzico feature in Türkiye). */
export const INSTALLMENTS_PROVIDER: PaymentProviderName = 'iyzico';

export function providerName(name: string): PaymentProviderName {
  if (!isPaymentProviderName(name)) throw billingError('payment_provider_unknown', `There is no payment provider ${name}.`);
  return name;
}

export async function planInstallments(ctx: RequestContext, query: { amount: number; currency: string; binNumber?: string }) {
  const amount = twoDecimals(String(query.amount));
  const options = await paymentProvider(ctx, INSTALLMENTS_PROVIDER).installmentOptions(query.binNumber ?? '', amount, query.currency);
  return {
    provider: INSTALLMENTS_PROVIDER,
    amount: Number(amount),
    currency: query.currency,
    options: options.map((o) => ({ count: o.count, perInstallment: Number(o.perInstallment), total: Number(o.total) })),
  };
}

async function lockPurchase(tx: RequestContext, where: string, params: unknown[]): Promise<PurchaseRow | undefined> {
  const rows: PurchaseRow[] = await tx.manager.query(
    `SELECT ${PURCHASE_COLUMNS} FROM billing_plan_purchases WHERE ${where} FOR UPDATE`,
    params,
  );
  return rows[0];
}

async function update(tx: RequestContext, id: string, sets: Record<string, unknown>): Promise<PurchaseRow> {
  const keys = Object.keys(sets);
  const rows: PurchaseRow[] = updatedRows<PurchaseRow>(
    await tx.manager.query(
      `UPDATE billing_plan_purchases SET ${keys.map((k, i) => `${k} = $${i + 2}`).join(', ')}, updated_at = now() WHERE id = $1 RETURNING ${PURCHASE_COLUMNS}`,
      [id, ...keys.map((k) => sets[k])],
    ),
  );
  return rows[0]!;
}

/** Marks a locked purchase PAID, activates its plan and writes its invoice; audited. */
async function markPaid(
  tx: RequestContext,
  before: PurchaseRow,
  card: { brand: string | null; last4: string | null },
): Promise<PurchaseRow> {
  const paid = await update(tx, before.id, {
    status: 'PAID',
    paid_at: new Date(),
    card_brand: card.brand ?? before.card_brand,
    card_last4: card.last4 ?? before.card_last4,
    decline_code: null,
    failure_message: null,
    challenge_token: null,
  });
  const invoiceId = await activatePurchase(tx, paid);
  const after = await update(tx, paid.id, { invoice_id: invoiceId });
  await recordAudit(tx, {
    action: 'plan_purchase.paid',
    resourceType: 'plan_purchase',
    resourceId: after.id,
    tenantId: after.tenant_id,
    before: purchaseView(before),
    after: purchaseView(after),
  });
  return after;
}

async function markFailed(tx: RequestContext, before: PurchaseRow, declineCode: string, message: string): Promise<PurchaseRow> {
  const after = await update(tx, before.id, {
    status: 'FAILED',
    decline_code: declineCode,
    failure_message: message,
    challenge_token: null,
  });
  await recordAudit(tx, {
    action: 'plan_purchase.failed',
    resourceType: 'plan_purchase',
    resourceId: after.id,
    tenantId: after.tenant_id,
    before: purchaseView(before),
    after: purchaseView(after),
  });
  return after;
}

export async function payPlanPurchase(
  ctx: RequestContext,
  id: string,
  input: PayPlanPurchaseInput,
  key: string | undefined,
): Promise<PurchaseView> {
  const tenantId = ctx.tenantId!;
  return idempotent(ctx, 'billing.payPlanPurchase', key, { id, input }, async (tx) => {
    const before = await lockPurchase(tx, 'id = $1 AND tenant_id = $2', [id, tenantId]);
    if (!before) throw billingError('plan_purchase_not_found', 'The plan purchase does not exist.');
    if (before.status !== 'PENDING' && before.status !== 'FAILED')
      throw billingError(
        'plan_purchase_transition_refused',
        `The plan purchase is ${before.status}; only a PENDING or FAILED purchase is paid.`,
      );
    const config = servicesOf(tx).config;
    const provider = paymentProvider(tx, input.provider);
    const back = `${config.publicBaseUrl}/api/v1/billing/plan-purchases/callback/${input.provider}`;
    const amount = twoDecimals(before.amount);
    const outcome = await provider.authorize({
      reference: before.id,
      amount,
      currency: before.currency,
      card: input.card,
      installments: input.installments,
      captureNow: input.captureNow,
      returnUrl: back,
      callbackUrl: back,
    });
    const started = await update(tx, before.id, {
      provider: input.provider,
      provider_payment_id: outcome.providerPaymentId,
      installments: input.installments,
      card_last4: input.card.number.slice(-4),
    });
    let after: PurchaseRow;
    if (outcome.status === 'AUTHORIZED' || outcome.status === 'CAPTURED') {
      if (outcome.status === 'AUTHORIZED') await provider.capture(outcome.providerPaymentId, amount);
      after = await markPaid(tx, started, { brand: outcome.cardBrand, last4: outcome.cardLast4 });
      if (input.saveCard) {
        // The provider keeps the card; we keep its token (no card number or CVC on our side).
        const saved = await provider.saveCard(input.card);
        await tx.manager.query(
          `INSERT INTO billing_payment_methods (tenant_id, provider, card_brand, card_last4, card_token) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (tenant_id) DO UPDATE SET provider = $2, card_brand = $3, card_last4 = $4, card_token = $5, updated_at = now()`,
          [tenantId, input.provider, saved.cardBrand, saved.cardLast4, saved.cardToken],
        );
      }
    } else if (outcome.status === 'CHALLENGE_REQUIRED') {
      after = await update(tx, before.id, {
        status: 'REQUIRES_ACTION',
        challenge_token: randomBytes(24).toString('base64url'),
        challenge_url: outcome.challengeUrl,
        challenge_expires_at: outcome.expiresAt,
        decline_code: null,
        failure_message: null,
      });
      await recordAudit(tx, {
        action: 'plan_purchase.challenge',
        resourceType: 'plan_purchase',
        resourceId: after.id,
        before: purchaseView(before),
        after: purchaseView(after),
      });
    } else {
      const declined = outcome as Extract<typeof outcome, { status: 'DECLINED' }>;
      after = await markFailed(tx, started, declined.declineCode, declined.message);
    }
    return purchaseView(after);
  });
}

export async function planPurchaseStatus(ctx: RequestContext, id: string): Promise<PurchaseView> {
  const rows: PurchaseRow[] = await ctx.manager.query(
    `SELECT ${PURCHASE_COLUMNS} FROM billing_plan_purchases WHERE id = $1 AND tenant_id = $2`,
    [id, ctx.tenantId],
  );
  if (!rows[0]) throw billingError('plan_purchase_not_found', 'The plan purchase does not exist.');
  return purchaseView(rows[0]);
}

/**
 * Settles a purchase waiting for its 3-D Secure challenge with what the provider says (return or
 * callback). Answers whether anything changed: an unknown purchase, another provider payment, or a
 * purchase no longer waiting change nothing (the second of return and callback, a replay).
 */
async function settle(
  tx: RequestContext,
  provider: PaymentProviderName,
  event: { reference: string; providerPaymentId: string; outcome: 'AUTHORIZED' | 'CAPTURED' | 'DECLINED'; declineCode?: string },
): Promise<{ changed: boolean; purchase?: PurchaseRow }> {
  if (!/^[0-9a-f-]{36}$/i.test(event.reference)) return { changed: false };
  const before = await lockPurchase(tx, 'id = $1 AND provider = $2 AND provider_payment_id = $3', [
    event.reference,
    provider,
    event.providerPaymentId,
  ]);
  if (!before) return { changed: false };
  if (before.status !== 'REQUIRES_ACTION') return { changed: false, purchase: before };
  const as = { ...tx, tenantId: before.tenant_id };
  if (event.outcome === 'DECLINED')
    return {
      changed: true,
      purchase: await markFailed(as, before, event.declineCode ?? 'three_ds_failed', 'The 3-D Secure challenge failed.'),
    };
  if (event.outcome === 'AUTHORIZED') await paymentProvider(as, provider).capture(event.providerPaymentId, twoDecimals(before.amount));
  return { changed: true, purchase: await markPaid(as, before, { brand: null, last4: null }) };
}

/** POST callback: verified over the raw body, each event id once (a replay changes nothing). */
export async function planPurchaseCallback(
  ctx: RequestContext,
  name: string,
  headers: Record<string, string | undefined>,
  rawBody: Buffer,
): Promise<{ received: true; changed: boolean }> {
  const provider = providerName(name);
  const event = paymentProvider(ctx, provider).verifyCallback(headers, rawBody);
  return inTransaction(ctx, async (tx) => {
    if (!(await recordCallbackOnce(tx, provider, event.eventId))) return { received: true as const, changed: false };
    const outcome =
      event.type === 'payment.captured'
        ? 'CAPTURED'
        : event.type === 'payment.authorized'
          ? 'AUTHORIZED'
          : event.type === 'payment.declined'
            ? 'DECLINED'
            : undefined;
    if (!outcome) return { received: true as const, changed: false };
    const { changed } = await settle(tx, provider, { ...event, outcome });
    return { received: true as const, changed };
  });
}

/** GET return of the 3-D Secure challenge: the signed query settles the purchase like the callback would. */
export async function planPurchaseReturn(
  ctx: RequestContext,
  name: string,
  query: Record<string, string | undefined>,
): Promise<PurchaseRow | undefined> {
  const provider = providerName(name);
  const result = paymentProvider(ctx, provider).verifyReturn(query);
  return inTransaction(ctx, async (tx) => (await settle(tx, provider, result)).purchase);
}

/** The purchase waiting for its challenge behind a 3-D Secure page token; 404 three_ds_page_not_found otherwise. */
export async function purchaseOfToken(ctx: RequestContext, token: string): Promise<PurchaseRow> {
  const rows: PurchaseRow[] = await ctx.manager.query(
    `SELECT ${PURCHASE_COLUMNS} FROM billing_plan_purchases WHERE challenge_token = $1 AND status = 'REQUIRES_ACTION'`,
    [token],
  );
  if (!rows[0]) throw billingError('three_ds_page_not_found', 'This 3-D Secure page is unknown or no longer waiting for a challenge.');
  return rows[0];
}
