/**
 * The HTML pages of plan purchases (docs/billing.md, "3-D Secure"): the page the buyer is sent to
 * when the card asks for a challenge (the purchase summary and a button to the provider's challenge
 * page), and the page the provider's return lands on (paid or failed, with a link back to the
 * console). Plain HTML without scripts or inline styles (the page security headers allow none);
 * every value is escaped.
 */
import type { RequestContext } from '../../storage/request-context';
import { twoDecimals } from './invoice-math';
import type { PurchaseRow } from './billing.views';
import { loadPlan } from './plans';
import { purchaseOfToken } from './purchases.service';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const CONSOLE_BILLING = '/console';

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export async function threeDsPage(ctx: RequestContext, token: string): Promise<string> {
  const purchase = await purchaseOfToken(ctx, token);
  const plan = await loadPlan(ctx.manager, purchase.plan_code);
  const amount = `${twoDecimals(purchase.amount)} ${purchase.currency}`;
  return page(
    'Confirm your payment',
    `<h1>Confirm your payment</h1>
<p>Plan: <strong>${escapeHtml(plan.name)}</strong> (${escapeHtml(plan.code)}), one month</p>
<p>Amount: <strong data-amount="${escapeHtml(twoDecimals(purchase.amount))}">${escapeHtml(amount)}</strong>${purchase.installments > 1 ? ` in ${purchase.installments} installments` : ''}</p>
<p>Card: ${escapeHtml(purchase.card_brand ?? 'card')} ending in ${escapeHtml(purchase.card_last4 ?? '----')}</p>
<p>Your bank asks you to confirm this payment (3-D Secure).</p>
<p><a id="challenge" href="${escapeHtml(purchase.challenge_url ?? '#')}">Continue to your bank</a></p>`,
  );
}

export function returnPage(purchase: PurchaseRow | undefined): string {
  if (purchase?.status === 'PAID')
    return page(
      'Payment received',
      `<h1 data-status="PAID">Payment received</h1>
<p>Your ${escapeHtml(purchase.plan_code)} plan is active. Amount paid: ${escapeHtml(`${twoDecimals(purchase.amount)} ${purchase.currency}`)}.</p>
<p><a href="${CONSOLE_BILLING}">Back to the console</a></p>`,
    );
  return page(
    'Payment failed',
    `<h1 data-status="FAILED">Payment failed</h1>
<p>${purchase ? `The payment for the ${escapeHtml(purchase.plan_code)} plan did not go through${purchase.decline_code ? ` (${escapeHtml(purchase.decline_code)})` : ''}.` : 'The payment could not be confirmed.'} You can try again with another card.</p>
<p><a href="${CONSOLE_BILLING}">Back to the console</a></p>`,
  );
}
