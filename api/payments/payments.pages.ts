/** The HTML of the payment simulator's challenge page and of the payments' 3-D Secure return page. */
import { escapeHtml, htmlPage } from './providers/html';
import type { ChallengeView } from './providers/simulator';
import type { PaymentView } from './payments.service';

export function challengePageHtml(view: ChallengeView, action: string): string {
  const card = view.cardBrand ? `${view.cardBrand} ending ${view.cardLast4 ?? ''}` : 'your card';
  return htmlPage(
    `${view.provider} 3-D Secure`,
    `<p>Payment simulator: confirm the payment of <strong>${escapeHtml(view.amount.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, ''))} ${escapeHtml(view.currency.trim())}</strong> with ${escapeHtml(card)}.</p>
<p>Enter the one-time code of the test card (sandbox test cards list it). This page expires at ${escapeHtml(view.expiresAt.toISOString())}.</p>
<form method="post" action="${escapeHtml(action)}">
<label for="code">Code</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="12" required>
<button type="submit">Confirm</button>
</form>`,
  );
}

export function returnPageHtml(payment: PaymentView): string {
  const ok = payment.status !== 'DECLINED';
  return htmlPage(
    ok ? 'Payment confirmed' : 'Payment declined',
    `<p>Payment <code>${escapeHtml(payment.id)}</code> of ${escapeHtml(String(payment.amount))} ${escapeHtml(payment.currency)}: <strong>${escapeHtml(payment.status)}</strong>${
      payment.declineCode ? ` (${escapeHtml(payment.declineCode)})` : ''
    }.</p>`,
  );
}
