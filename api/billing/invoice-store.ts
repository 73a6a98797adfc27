/**
 * Subscription invoice rows (docs/billing.md, "Invoices"): reading them, numbering them and the
 * people to tell. The number is taken when an invoice leaves DRAFT (or is written PAID for a plan
 * purchase) from a counter row per tenant and year, in the same transaction: the counter's row lock
 * orders concurrent numberings, a rolled-back write gives its number back, and a numbered invoice is
 * never deleted, so the numbers of a tenant and year have no gaps.
 */
import type { EntityManager } from 'typeorm';
import type { RequestContext } from '../../storage/request-context';
import { billingError } from './billing.errors';
import type { InvoiceRow } from './billing.views';

export const INVOICE_COLUMNS =
  'id, tenant_id, number, status, plan_code, currency, lines, vat_rate, subtotal, vat_amount, total, period_start, period_end, due_at, issued_at, paid_at, purchase_id, attempts, last_error, created_at, updated_at';

/** INV-<year>-<6 digits>: the next number of the tenant's counter for `year`, in the caller's transaction. */
export async function nextInvoiceNumber(tx: RequestContext, tenantId: string, at: Date = new Date()): Promise<string> {
  if (!tx.inTransaction) throw new Error('invoice numbers are taken inside the transaction of the invoice');
  const year = at.getUTCFullYear();
  const rows: Array<{ last_number: number }> = await tx.manager.query(
    `INSERT INTO billing_invoice_counters (tenant_id, year, last_number) VALUES ($1, $2, 1)
     ON CONFLICT (tenant_id, year) DO UPDATE SET last_number = billing_invoice_counters.last_number + 1
     RETURNING last_number`,
    [tenantId, year],
  );
  return `INV-${year}-${String(rows[0]!.last_number).padStart(6, '0')}`;
}

/** The invoice, locked with `lock`; for a tenant only its own (`tenantId`); 404 invoice_not_found otherwise. */
export async function loadInvoice(
  manager: EntityManager,
  id: string,
  options: { lock?: boolean; tenantId?: string } = {},
): Promise<InvoiceRow> {
  const params: unknown[] = [id];
  let where = 'id = $1';
  if (options.tenantId) {
    params.push(options.tenantId);
    where += ' AND tenant_id = $2';
  }
  const rows: InvoiceRow[] = await manager.query(
    `SELECT ${INVOICE_COLUMNS} FROM billing_invoices WHERE ${where} ${options.lock ? 'FOR UPDATE' : ''}`,
    params,
  );
  if (!rows[0]) throw billingError('invoice_not_found', 'The invoice does not exist.');
  return rows[0];
}

/** The e-mail addresses of the tenant's owners (billing messages go to them). */
export async function ownerEmails(manager: EntityManager, tenantId: string): Promise<string[]> {
  const rows: Array<{ email: string }> = await manager.query(
    "SELECT email FROM users WHERE tenant_id = $1 AND tenant_role = 'owner' AND email IS NOT NULL ORDER BY created_at",
    [tenantId],
  );
  return rows.map((r) => r.email);
}
