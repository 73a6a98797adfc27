/**
 * Collecting an OPEN or FAILED subscription invoice again (operator, docs/billing.md, "Invoices"):
 * the tenant's saved card (kept by the provider, which gave us its token, when a plan purchase was
 * paid with saveCard) is charged for the
 * invoice total through its provider, captured at once. Captured: the invoice is PAID (its dunning
 * case resolved). Declined, or a card that asks for a 3-D Secure challenge (nobody is there to
 * answer it): the invoice is FAILED with the reason, attempts counted (its dunning case opened or
 * kept). Runs under the Idempotency-Key, so a retried request charges once.
 */
import { idempotent } from '../../storage/idempotency';
import { recordAudit } from '../../storage/audit';
import { servicesOf, type RequestContext } from '../../storage/request-context';
import { isPaymentProviderName, paymentProvider } from '../payments/providers';
import { billingError } from './billing.errors';
import { invoiceView, updatedRows, type InvoiceRow, type InvoiceView } from './billing.views';
import { twoDecimals } from './invoice-math';
import { INVOICE_COLUMNS, loadInvoice } from './invoice-store';
import { moveInvoice } from './invoices.service';

export async function retryInvoice(ctx: RequestContext, id: string, key: string | undefined): Promise<InvoiceView> {
  return idempotent(ctx, 'billing.retryInvoice', key, { id }, async (tx) => {
    const before = await loadInvoice(tx.manager, id, { lock: true });
    if (before.status !== 'OPEN' && before.status !== 'FAILED')
      throw billingError(
        'invoice_transition_refused',
        `The invoice is ${before.status}; only an OPEN or FAILED invoice is collected again.`,
      );
    const methods: Array<{ provider: string; card_token: string }> = await tx.manager.query(
      'SELECT provider, card_token FROM billing_payment_methods WHERE tenant_id = $1',
      [before.tenant_id],
    );
    const method = methods[0];
    if (!method || !isPaymentProviderName(method.provider))
      throw billingError('no_payment_method', 'The tenant has no saved card; it pays a plan purchase with saveCard first.');
    const config = servicesOf(tx).config;
    const as = { ...tx, tenantId: before.tenant_id };
    const provider = paymentProvider(as, method.provider);
    const back = `${config.publicBaseUrl}/api/v1/billing/plan-purchases/callback/${method.provider}`;
    const outcome = await provider.authorize({
      reference: before.id,
      amount: twoDecimals(before.total),
      currency: before.currency,
      card: { savedCardToken: method.card_token },
      captureNow: true,
      returnUrl: back,
      callbackUrl: back,
    });
    if (outcome.status === 'CAPTURED' || outcome.status === 'AUTHORIZED') {
      if (outcome.status === 'AUTHORIZED') await provider.capture(outcome.providerPaymentId, twoDecimals(before.total));
      return invoiceView(
        await moveInvoice(as, before, 'PAID', { attempted: true, reason: `collected by ${method.provider} ${outcome.providerPaymentId}` }),
      );
    }
    const reason =
      outcome.status === 'DECLINED'
        ? `${outcome.declineCode}: ${outcome.message}`
        : 'authentication_required: the card asks for 3-D Secure';
    if (before.status === 'OPEN') return invoiceView(await moveInvoice(as, before, 'FAILED', { attempted: true, reason }));
    const rows: InvoiceRow[] = updatedRows<InvoiceRow>(
      await tx.manager.query(
        `UPDATE billing_invoices SET attempts = attempts + 1, last_error = $2, updated_at = now() WHERE id = $1 RETURNING ${INVOICE_COLUMNS}`,
        [before.id, reason],
      ),
    );
    const after = rows[0]!;
    await recordAudit(as, {
      action: 'subscription_invoice.retry_failed',
      resourceType: 'subscription_invoice',
      resourceId: after.id,
      before: invoiceView(before),
      after: invoiceView(after),
    });
    return invoiceView(after);
  });
}
