/**
 * Paying a purchase by card through the payment-provider port (docs/app-store.md, "Paying"): the
 * pay operation, the 3-D Secure page, the provider's signed callbacks and the 3-D Secure return.
 * Nothing here knows what is bought: what a paid (or refunded) purchase does, and its title on the
 * pages, come from the caller's `PurchaseHooks`; the only thing specific is the table it writes
 * (app_purchases) and the paths of its pages.
 *
 * Purchase states (PURCHASE_TRANSITIONS): PENDING → PAID | CHALLENGE_REQUIRED | FAILED;
 * CHALLENGE_REQUIRED → PAID | FAILED; FAILED → PAID | CHALLENGE_REQUIRED | FAILED (paying again);
 * PAID → REFUNDED. Any other change answers 409 app_purchase_state_refused (an operation) or is
 * ignored with `applied: false` (a callback, which must not make the provider retry).
 *
 * The charge is authorized and captured in one step (captureNow). The card is never stored: only its
 * brand and last four digits, as the provider reports them.
 */
import { createHash, randomBytes } from 'node:crypto';
import { formatUnits, minorUnit, rescale, toUnits } from '../../domain/money';
import { requireStore } from '../../domain/store-access';
import { AppPurchase } from '../../storage/entities';
import type { AppPurchaseStatus } from '../../storage/entities/app-store.entity';
import { recordAudit } from '../../storage/audit';
import { idempotent } from '../../storage/idempotency';
import { servicesOf, inTransaction, type RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { UUID_PATTERN } from '../http/schema-types';
import type { InputOf } from '../http/typed-schema';
import {
  PAYMENT_PROVIDERS,
  paymentProvider,
  recordCallbackOnce,
  type AuthorizeOutcome,
  type PaymentProviderName,
} from '../payments/providers';
import { appStoreError } from './app-store.errors';
import type { PAY_PURCHASE_SHAPE } from './app-purchase-payment.schemas';
import { purchaseView, type AppPurchaseView } from './app-store.views';

export const PURCHASE_TRANSITIONS: Readonly<Record<AppPurchaseStatus, readonly AppPurchaseStatus[]>> = {
  PENDING: ['PAID', 'CHALLENGE_REQUIRED', 'FAILED'],
  CHALLENGE_REQUIRED: ['PAID', 'FAILED'],
  FAILED: ['PAID', 'CHALLENGE_REQUIRED', 'FAILED'],
  PAID: ['REFUNDED'],
  REFUNDED: [],
};

/** The states a purchase may be paid from. */
const PAYABLE: readonly AppPurchaseStatus[] = ['PENDING', 'FAILED'];

export interface PurchaseHooks {
  /** The purchase just became PAID (in its transaction, tenant set): apply it; may return fields of the purchase to store with it. */
  onPaid(tx: RequestContext, purchase: AppPurchase): Promise<Partial<AppPurchase>>;
  /** The purchase was refunded by the provider. */
  onRefunded(tx: RequestContext, purchase: AppPurchase): Promise<void>;
  /** What the pages call the purchase ("App: SEO Booster"). */
  title(tx: RequestContext, purchase: AppPurchase): Promise<string>;
}

/** Under /api/v1: our 3-D Secure page and the provider's callback and return. */
const BASE = '/app-store/purchases';
const apiUrl = (ctx: RequestContext, path: string): string => `${servicesOf(ctx).config.publicBaseUrl}/api/v1${BASE}${path}`;

export const threeDsPageUrl = (ctx: RequestContext, token: string): string => apiUrl(ctx, `/3ds/${token}`);

const stateRefused = (purchase: AppPurchase, action: string) =>
  appStoreError(
    'app_purchase_state_refused',
    `The purchase is ${purchase.status}; it cannot ${action} (docs/app-store.md, "Purchase states").`,
  );

/** A stored amount with the currency's decimals, written out ("149.90"): what the provider charges and the pages show. */
function amountText(stored: string, currency: string): string {
  const decimals = minorUnit(currency);
  const [whole, fraction = ''] = formatUnits(rescale(toUnits(stored), 4, decimals), decimals).split('.');
  return decimals ? `${whole}.${fraction.padEnd(decimals, '0')}` : whole!;
}

export type PayPurchaseInput = InputOf<typeof PAY_PURCHASE_SHAPE>;

/** What the idempotency fingerprint covers: the purchase and the request, the card only as a hash. */
function payFingerprint(purchaseId: string, input: PayPurchaseInput): unknown {
  const card = createHash('sha256').update(JSON.stringify(input.card)).digest('base64url');
  return { purchaseId: purchaseId.toLowerCase(), provider: input.provider, installments: input.installments, card };
}

/** Moves the purchase to `to` (checked against the table), with its other changed fields; audited. */
async function transition(
  tx: RequestContext,
  purchase: AppPurchase,
  to: AppPurchaseStatus,
  fields: Partial<AppPurchase>,
  hooks: PurchaseHooks,
  via: string,
): Promise<AppPurchase> {
  if (!PURCHASE_TRANSITIONS[purchase.status].includes(to)) throw stateRefused(purchase, `become ${to}`);
  const now = new Date();
  let next: AppPurchase = { ...purchase, ...fields, status: to, updatedAt: now };
  if (to === 'PAID') {
    next.paidAt = now;
    next.threeDsToken = null;
    next.challengeUrl = null;
    next = { ...next, ...(await hooks.onPaid(tx, next)) };
  }
  if (to === 'FAILED') {
    next.threeDsToken = null;
    next.challengeUrl = null;
  }
  const { id: _id, tenantId: _t, ...changes } = next;
  await tenantRepository(tx, AppPurchase).update({ id: purchase.id }, changes);
  if (to === 'REFUNDED') await hooks.onRefunded(tx, next);
  await recordAudit(tx, {
    action: `app_purchase.${to.toLowerCase()}`,
    resourceType: 'app_purchase',
    resourceId: purchase.id,
    before: { status: purchase.status },
    after: {
      status: to,
      via,
      provider: next.provider,
      providerPaymentId: next.providerPaymentId,
      declineCode: next.declineCode,
      cardBrand: next.cardBrand,
      cardLast4: next.cardLast4,
      paidThrough: next.paidThrough,
    },
  });
  return next;
}

/** The outcome of the provider's authorize as the purchase's next state. */
async function applyOutcome(
  tx: RequestContext,
  purchase: AppPurchase,
  outcome: AuthorizeOutcome,
  hooks: PurchaseHooks,
): Promise<AppPurchase> {
  const base = { providerPaymentId: outcome.providerPaymentId, declineCode: null, failureMessage: null };
  switch (outcome.status) {
    case 'AUTHORIZED':
    case 'CAPTURED':
      return transition(tx, purchase, 'PAID', { ...base, cardBrand: outcome.cardBrand, cardLast4: outcome.cardLast4 }, hooks, 'pay');
    case 'CHALLENGE_REQUIRED':
      return transition(
        tx,
        purchase,
        'CHALLENGE_REQUIRED',
        {
          ...base,
          threeDsToken: randomBytes(24).toString('base64url'),
          challengeUrl: outcome.challengeUrl,
          challengeExpiresAt: outcome.expiresAt,
        },
        hooks,
        'pay',
      );
    case 'DECLINED':
      return transition(
        tx,
        purchase,
        'FAILED',
        { ...base, declineCode: outcome.declineCode, failureMessage: outcome.message },
        hooks,
        'pay',
      );
  }
}

/** Pays a PENDING or FAILED purchase of the caller's tenant; the same Idempotency-Key and body give back the first answer. */
export async function payPurchase(
  ctx: RequestContext,
  purchaseId: string,
  input: PayPurchaseInput,
  idempotencyKey: string | undefined,
  hooks: PurchaseHooks,
): Promise<AppPurchaseView> {
  return idempotent(ctx, 'app_purchase.pay', idempotencyKey, payFingerprint(purchaseId, input), async (tx) => {
    const purchase = await tenantRepository(tx, AppPurchase, notFound).findOne({
      where: { id: purchaseId },
      lock: { mode: 'pessimistic_write' },
    });
    if (!purchase) throw notFound();
    await requireStore(tx, purchase.storeId, { forWrite: true }).catch((error: unknown) => {
      throw (error as { status?: number }).status === 404 ? notFound() : error;
    });
    if (!PAYABLE.includes(purchase.status)) throw stateRefused(purchase, 'be paid');
    const paying: AppPurchase = { ...purchase, provider: input.provider, installments: input.installments };
    const outcome = await paymentProvider(tx, input.provider).authorize({
      reference: purchase.id,
      amount: amountText(purchase.amount, purchase.currency),
      currency: purchase.currency,
      card: input.card,
      installments: input.installments,
      captureNow: true,
      returnUrl: apiUrl(tx, `/callback/${input.provider}`),
      callbackUrl: apiUrl(tx, `/callback/${input.provider}`),
    });
    const next = await applyOutcome(tx, paying, outcome, hooks);
    return purchaseView(next, next.threeDsToken ? threeDsPageUrl(tx, next.threeDsToken) : null);
  });
}

const notFound = () => appStoreError('app_purchase_not_found', 'The app purchase does not exist.');

/** The provider's name from the path, or 404 (a key this platform does not use). */
export function providerName(name: string): PaymentProviderName {
  if (!(PAYMENT_PROVIDERS as readonly string[]).includes(name))
    throw appStoreError('payment_provider_unknown', `No payment provider is called ${name}.`);
  return name as PaymentProviderName;
}

/** A purchase found by the provider's reference (our id) and payment id, locked, with the tenant of its row set on the context. */
async function purchaseOfProvider(
  tx: RequestContext,
  provider: PaymentProviderName,
  reference: string,
  providerPaymentId: string,
): Promise<{ purchase: AppPurchase; tx: RequestContext } | null> {
  if (!UUID_PATTERN.test(reference)) return null;
  const purchase = await tx.manager
    .getRepository(AppPurchase)
    .findOne({ where: { id: reference, provider, providerPaymentId }, lock: { mode: 'pessimistic_write' } });
  if (!purchase) return null;
  return { purchase, tx: { ...tx, tenantId: purchase.tenantId, actor: { type: 'system', id: `payment-provider:${provider}` } } };
}

type Settlement = 'AUTHORIZED' | 'CAPTURED' | 'DECLINED' | 'REFUNDED';

/** Applies what the provider says happened, when the state table allows it; false when it changes nothing. */
async function settle(
  tx: RequestContext,
  purchase: AppPurchase,
  what: Settlement,
  declineCode: string | undefined,
  hooks: PurchaseHooks,
  via: string,
): Promise<AppPurchase | null> {
  const to: AppPurchaseStatus = what === 'DECLINED' ? 'FAILED' : what === 'REFUNDED' ? 'REFUNDED' : 'PAID';
  // A purchase that already is where the provider says stays as it is (a callback after the return, or the other way round).
  if (purchase.status === to || !PURCHASE_TRANSITIONS[purchase.status].includes(to)) return null;
  if (to !== 'REFUNDED' && purchase.status !== 'CHALLENGE_REQUIRED') return null;
  return transition(
    tx,
    purchase,
    to,
    to === 'FAILED' ? { declineCode: declineCode ?? 'declined', failureMessage: 'The payment was declined.' } : {},
    hooks,
    via,
  );
}

export interface CallbackAnswer {
  received: true;
  applied: boolean;
  purchaseId: string | null;
  status: AppPurchaseStatus | null;
}

const CALLBACK_SETTLEMENTS: Record<string, Settlement | undefined> = {
  'payment.authorized': 'AUTHORIZED',
  'payment.captured': 'CAPTURED',
  'payment.declined': 'DECLINED',
  'payment.refunded': 'REFUNDED',
};

/**
 * A provider's signed callback: checked over the raw body (400 provider_callback_invalid, nothing
 * changes), recorded once by its event id (a replay changes nothing), then applied to the purchase it
 * names. An unknown purchase or an event the state does not take answers 201 with applied false.
 */
export async function handleCallback(
  ctx: RequestContext,
  provider: string,
  headers: Record<string, string | undefined>,
  rawBody: Buffer,
  hooks: PurchaseHooks,
): Promise<CallbackAnswer> {
  const name = providerName(provider);
  const callback = paymentProvider(ctx, name).verifyCallback(headers, rawBody);
  return inTransaction(ctx, async (tx) => {
    const ignored: CallbackAnswer = { received: true, applied: false, purchaseId: null, status: null };
    if (!(await recordCallbackOnce(tx, name, callback.eventId))) return ignored;
    const found = await purchaseOfProvider(tx, name, callback.reference, callback.providerPaymentId);
    if (!found) return ignored;
    const what = CALLBACK_SETTLEMENTS[callback.type];
    const next = what ? await settle(found.tx, found.purchase, what, callback.declineCode, hooks, `callback:${callback.type}`) : null;
    return { received: true, applied: next !== null, purchaseId: found.purchase.id, status: (next ?? found.purchase).status };
  });
}

/** The buyer's browser back from the challenge: the signed query checked, then applied like the callback. */
export async function handleReturn(
  ctx: RequestContext,
  provider: string,
  query: Record<string, string | undefined>,
  hooks: PurchaseHooks,
): Promise<string> {
  const name = providerName(provider);
  const result = paymentProvider(ctx, name).verifyReturn(query);
  const { purchase, title } = await inTransaction(ctx, async (tx) => {
    const found = await purchaseOfProvider(tx, name, result.reference, result.providerPaymentId);
    if (!found) throw notFound();
    const next = (await settle(found.tx, found.purchase, result.outcome, result.declineCode, hooks, 'return')) ?? found.purchase;
    return { purchase: next, title: await hooks.title(found.tx, next) };
  });
  const paid = purchase.status === 'PAID';
  return page(
    paid ? 'Payment complete' : 'Payment not completed',
    `<h1>${paid ? 'Payment complete' : 'Payment not completed'}</h1>
<p>${escapeHtml(title)}: ${escapeHtml(amountText(purchase.amount, purchase.currency))} ${escapeHtml(purchase.currency)}</p>
<p>${paid ? 'Thank you. The purchase is paid; you can close this page.' : `The payment was declined (${escapeHtml(purchase.declineCode ?? 'declined')}). You can try again from the app store.`}</p>`,
  );
}

/** Our 3-D Secure page of a purchase waiting for its challenge: the summary and the way on to the provider's check. */
export async function threeDsPage(ctx: RequestContext, token: string, hooks: PurchaseHooks): Promise<string> {
  const purchase = await ctx.manager.getRepository(AppPurchase).findOneBy({ threeDsToken: token });
  if (
    !purchase ||
    purchase.status !== 'CHALLENGE_REQUIRED' ||
    !purchase.challengeUrl ||
    (purchase.challengeExpiresAt && purchase.challengeExpiresAt <= new Date())
  )
    throw appStoreError('three_ds_page_not_found', 'This 3-D Secure page does not exist or the payment no longer waits for its challenge.');
  const title = await hooks.title({ ...ctx, tenantId: purchase.tenantId }, purchase);
  return page(
    'Confirm your payment',
    `<h1>Confirm your payment</h1>
<dl>
<dt>Purchase</dt><dd>${escapeHtml(title)}</dd>
<dt>Amount</dt><dd>${escapeHtml(amountText(purchase.amount, purchase.currency))} ${escapeHtml(purchase.currency)}</dd>
<dt>Paid with</dt><dd>${escapeHtml(purchase.provider ?? '')}</dd>
</dl>
<p>Your bank asks you to confirm this payment.</p>
<p><a id="challenge" href="${escapeHtml(purchase.challengeUrl)}">Continue to your bank's check</a></p>`,
  );
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head>
<body>
${body}
</body>
</html>
`;
}
