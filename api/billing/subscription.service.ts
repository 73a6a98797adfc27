/**
 * The tenant's subscription (docs/billing.md, "Subscription"). Without a row a tenant is on FREE. A
 * paid plan is bought one monthly period at a time through a plan purchase (PENDING until paid by
 * card); once paid, the subscription moves to that plan for a month (a renewal of the same plan
 * extends the running period). Cancelling keeps the plan until the period ends, then the dunning
 * scheduler moves the tenant to FREE. Choosing FREE takes effect at once.
 */
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { notifyTenant } from '../../storage/notifications';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { billingError } from './billing.errors';
import type { PlanCheckoutInput, SubscribeInput } from './billing.schemas';
import { planView, purchaseView, type PlanRow, type PurchaseRow, type PurchaseView } from './billing.views';
import { invoiceTotals, PLAN_VAT_RATE } from './invoice-math';
import { writePurchaseInvoice } from './invoices.service';
import { effectivePlan, FREE_PLAN, loadPlan } from './plans';
import { isTenantSuspended } from './suspension';

export const PURCHASE_COLUMNS =
  'id, tenant_id, plan_code, amount, currency, status, provider, provider_payment_id, installments, card_brand, card_last4, decline_code, failure_message, challenge_token, challenge_url, challenge_expires_at, invoice_id, paid_at, created_at, updated_at';

interface SubscriptionRow {
  tenant_id: string;
  plan_code: string;
  pending_plan_code: string | null;
  status: 'ACTIVE' | 'CANCELLED';
  current_period_start: Date;
  current_period_end: Date | null;
  cancel_at_period_end: boolean;
  cancelled_at: Date | null;
}

const SUBSCRIPTION_COLUMNS =
  'tenant_id, plan_code, pending_plan_code, status, current_period_start, current_period_end, cancel_at_period_end, cancelled_at';

async function subscriptionRow(ctx: RequestContext, tenantId: string, lock = false): Promise<SubscriptionRow | undefined> {
  const rows: SubscriptionRow[] = await ctx.manager.query(
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM billing_subscriptions WHERE tenant_id = $1 ${lock ? 'FOR UPDATE' : ''}`,
    [tenantId],
  );
  return rows[0];
}

/** The row, made (FREE, ACTIVE) when the tenant has none, locked for the caller's transaction. */
async function lockedSubscription(tx: RequestContext, tenantId: string): Promise<SubscriptionRow> {
  await tx.manager.query(
    `INSERT INTO billing_subscriptions (tenant_id, plan_code, status, current_period_start) VALUES ($1, $2, 'ACTIVE', now())
     ON CONFLICT (tenant_id) DO NOTHING`,
    [tenantId, FREE_PLAN],
  );
  return (await subscriptionRow(tx, tenantId, true))!;
}

const iso = (d: Date | null): string | null => (d ? new Date(d).toISOString() : null);

export async function getSubscription(ctx: RequestContext) {
  const tenantId = ctx.tenantId!;
  const row = await subscriptionRow(ctx, tenantId);
  const plan = await effectivePlan(ctx.manager, tenantId);
  let pendingPurchase: PurchaseView | null = null;
  if (row?.pending_plan_code) {
    const rows: PurchaseRow[] = await ctx.manager.query(
      `SELECT ${PURCHASE_COLUMNS} FROM billing_plan_purchases WHERE tenant_id = $1 AND plan_code = $2 AND status <> 'PAID' ORDER BY created_at DESC LIMIT 1`,
      [tenantId, row.pending_plan_code],
    );
    pendingPurchase = rows[0] ? purchaseView(rows[0]) : null;
  }
  return {
    plan: planView(plan),
    status: row?.status ?? 'ACTIVE',
    free: plan.code === FREE_PLAN,
    currentPeriodStart: iso(row?.current_period_start ?? null),
    currentPeriodEnd: iso(row?.current_period_end ?? null),
    cancelAtPeriodEnd: row?.cancel_at_period_end ?? false,
    cancelledAt: iso(row?.cancelled_at ?? null),
    pendingPlanCode: row?.pending_plan_code ?? null,
    pendingPurchase,
    suspended: await isTenantSuspended(ctx.manager, tenantId),
  };
}

/** A PENDING purchase of one period of a paid plan (the open one of that plan when there is one). */
async function pendingPurchaseOf(tx: RequestContext, tenantId: string, plan: PlanRow): Promise<PurchaseRow> {
  const open: PurchaseRow[] = await tx.manager.query(
    `SELECT ${PURCHASE_COLUMNS} FROM billing_plan_purchases WHERE tenant_id = $1 AND plan_code = $2 AND status = 'PENDING' ORDER BY created_at DESC LIMIT 1`,
    [tenantId, plan.code],
  );
  if (open[0]) return open[0];
  const amount = invoiceTotals([{ description: plan.name, quantity: 1, unitPrice: plan.monthly_price }], PLAN_VAT_RATE).total;
  const rows: PurchaseRow[] = await tx.manager.query(
    `INSERT INTO billing_plan_purchases (id, tenant_id, plan_code, amount, currency, status) VALUES ($1, $2, $3, $4, $5, 'PENDING')
     RETURNING ${PURCHASE_COLUMNS}`,
    [uuidv7(), tenantId, plan.code, amount, plan.currency],
  );
  const row = rows[0]!;
  await recordAudit(tx, { action: 'plan_purchase.create', resourceType: 'plan_purchase', resourceId: row.id, after: purchaseView(row) });
  return row;
}

export async function subscribe(ctx: RequestContext, input: SubscribeInput) {
  const tenantId = ctx.tenantId!;
  await inTransaction(ctx, async (tx) => {
    const plan = await loadPlan(tx.manager, input.plan, { publicOnly: true });
    const before = await lockedSubscription(tx, tenantId);
    const inForce = before.plan_code === plan.code && before.status === 'ACTIVE' && !before.cancel_at_period_end;
    if (plan.code === FREE_PLAN) {
      if (inForce) throw billingError('already_subscribed', 'The tenant is already on the FREE plan.');
      await tx.manager.query(
        `UPDATE billing_subscriptions SET plan_code = $2, pending_plan_code = NULL, status = 'ACTIVE', current_period_start = now(),
                current_period_end = NULL, cancel_at_period_end = false, cancelled_at = NULL, updated_at = now() WHERE tenant_id = $1`,
        [tenantId, FREE_PLAN],
      );
    } else {
      if (inForce)
        throw billingError(
          'already_subscribed',
          `The tenant is already subscribed to ${plan.code}; renew it with POST /billing/subscription/checkout.`,
        );
      await tx.manager.query('UPDATE billing_subscriptions SET pending_plan_code = $2, updated_at = now() WHERE tenant_id = $1', [
        tenantId,
        plan.code,
      ]);
      await pendingPurchaseOf(tx, tenantId, plan);
    }
    await recordAudit(tx, {
      action: 'subscription.subscribe',
      resourceType: 'subscription',
      resourceId: tenantId,
      before: { planCode: before.plan_code, pendingPlanCode: before.pending_plan_code },
      after: plan.code === FREE_PLAN ? { planCode: FREE_PLAN } : { planCode: before.plan_code, pendingPlanCode: plan.code },
    });
  });
  return getSubscription(ctx);
}

export async function checkoutPlan(ctx: RequestContext, input: PlanCheckoutInput): Promise<PurchaseView> {
  const tenantId = ctx.tenantId!;
  return inTransaction(ctx, async (tx) => {
    const plan = await loadPlan(tx.manager, input.plan, { publicOnly: true });
    if (plan.code === FREE_PLAN)
      throw billingError('plan_not_paid', 'The FREE plan is not bought: subscribe to it with POST /billing/subscription.');
    const sub = await lockedSubscription(tx, tenantId);
    if (sub.plan_code !== plan.code)
      await tx.manager.query('UPDATE billing_subscriptions SET pending_plan_code = $2, updated_at = now() WHERE tenant_id = $1', [
        tenantId,
        plan.code,
      ]);
    return purchaseView(await pendingPurchaseOf(tx, tenantId, plan));
  });
}

export async function cancelSubscription(ctx: RequestContext) {
  const tenantId = ctx.tenantId!;
  await inTransaction(ctx, async (tx) => {
    const before = await subscriptionRow(tx, tenantId, true);
    if (!before || before.plan_code === FREE_PLAN)
      throw billingError('subscription_not_cancellable', 'The tenant has no paid subscription to cancel.');
    if (before.cancel_at_period_end) throw billingError('subscription_not_cancellable', 'The subscription is already cancelled.');
    await tx.manager.query(
      `UPDATE billing_subscriptions SET status = 'CANCELLED', cancel_at_period_end = true, cancelled_at = now(), pending_plan_code = NULL,
              updated_at = now() WHERE tenant_id = $1`,
      [tenantId],
    );
    await recordAudit(tx, {
      action: 'subscription.cancel',
      resourceType: 'subscription',
      resourceId: tenantId,
      before: { planCode: before.plan_code, status: before.status },
      after: { planCode: before.plan_code, status: 'CANCELLED', cancelAtPeriodEnd: true, endsAt: iso(before.current_period_end) },
    });
    await notifyTenant(tx, {
      tenantId,
      topic: 'billing.subscription_cancelled',
      title: 'Subscription cancelled',
      body: `Your ${before.plan_code} plan stays in force until ${iso(before.current_period_end) ?? 'the end of the period'}; then you are on FREE.`,
      link: '/console/billing',
    });
  });
  return getSubscription(ctx);
}

/**
 * A plan purchase was paid (in its transaction): the subscription moves to its plan for one month
 * (a renewal of the running plan extends its period), the PAID invoice is written, the tenant told.
 * Answers the invoice id.
 */
export async function activatePurchase(tx: RequestContext, purchase: PurchaseRow): Promise<string> {
  const tenantId = purchase.tenant_id;
  const plan = await loadPlan(tx.manager, purchase.plan_code);
  const before = await lockedSubscription(tx, tenantId);
  const now = new Date();
  const extends_ =
    before.plan_code === plan.code && before.current_period_end !== null && new Date(before.current_period_end).getTime() > now.getTime();
  const start = extends_ ? new Date(before.current_period_end!) : now;
  const periods: Array<{ end: Date }> = await tx.manager.query("SELECT ($1::timestamptz + interval '1 month') AS end", [start]);
  const end = periods[0]!.end;
  await tx.manager.query(
    `UPDATE billing_subscriptions SET plan_code = $2, status = 'ACTIVE', current_period_start = $3, current_period_end = $4,
            cancel_at_period_end = false, cancelled_at = NULL,
            pending_plan_code = CASE WHEN pending_plan_code = $2 THEN NULL ELSE pending_plan_code END, updated_at = now()
      WHERE tenant_id = $1`,
    [tenantId, plan.code, extends_ ? before.current_period_start : now, end],
  );
  const invoice = await writePurchaseInvoice(tx, purchase, plan, { start, end });
  await recordAudit(tx, {
    action: 'subscription.activate',
    resourceType: 'subscription',
    resourceId: tenantId,
    tenantId,
    before: { planCode: before.plan_code, currentPeriodEnd: iso(before.current_period_end) },
    after: { planCode: plan.code, currentPeriodEnd: iso(end), purchaseId: purchase.id },
  });
  await notifyTenant(tx, {
    tenantId,
    topic: 'billing.plan_purchase_paid',
    title: `${plan.name} plan active`,
    body: `Your payment for the ${plan.name} plan was received; the plan is in force until ${end.toISOString().slice(0, 10)}. Invoice ${invoice.number}.`,
    link: '/console/billing',
    dedupeKey: `billing:purchase:${purchase.id}:paid`,
  });
  return invoice.id;
}
