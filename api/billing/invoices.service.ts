/**
 * Subscription invoices (docs/billing.md, "Invoices"): the operator writes DRAFT invoices and moves
 * them through their states; the tenant reads its own (never a DRAFT) and downloads them as PDF. A
 * plan purchase that is paid writes its own PAID invoice (`writePurchaseInvoice`).
 *
 * States: DRAFT → OPEN (numbered, issued) → PAID | FAILED | VOID; FAILED → OPEN | PAID | VOID;
 * PAID and VOID are final. Only a DRAFT is replaced or deleted. An invoice that becomes FAILED gets a
 * dunning case (unless it has an open one); one that becomes PAID resolves its case.
 */
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { notifyTenant } from '../../storage/notifications';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { decodeCursor, encodeCursor, isUuid } from '../http/cursor';
import { billingError } from './billing.errors';
import type { AdvanceInvoiceInput, InvoiceStatus, UpsertInvoiceInput } from './billing.schemas';
import { invoiceView, updatedRows, type InvoiceRow, type InvoiceView, type PurchaseRow } from './billing.views';
import { openCase, resolveCasesOfInvoice } from './dunning-steps';
import { invoiceTotals, PLAN_VAT_RATE, twoDecimals } from './invoice-math';
import { INVOICE_COLUMNS, loadInvoice, nextInvoiceNumber } from './invoice-store';
import { renderInvoicePdf } from './invoice-pdf';

/** Allowed moves of an invoice by state. */
export const INVOICE_TRANSITIONS: Record<InvoiceStatus, readonly InvoiceStatus[]> = {
  DRAFT: ['OPEN'],
  OPEN: ['PAID', 'FAILED', 'VOID'],
  FAILED: ['OPEN', 'PAID', 'VOID'],
  PAID: [],
  VOID: [],
};

export interface ListQuery {
  limit: number;
  cursor?: string;
  tenantId?: string;
  status?: InvoiceStatus;
}

const cursorRules = { accepts: (parts: readonly [string, string]) => parts[0] === 'inv' && isUuid(parts[1]) };

async function page(
  ctx: RequestContext,
  where: string[],
  params: unknown[],
  query: ListQuery,
): Promise<{ items: InvoiceView[]; nextCursor: string | null }> {
  if (query.cursor) {
    const [, id] = decodeCursor(query.cursor, cursorRules);
    params.push(id);
    where.push(`id < $${params.length}`);
  }
  params.push(query.limit + 1);
  const rows: InvoiceRow[] = await ctx.manager.query(
    `SELECT ${INVOICE_COLUMNS} FROM billing_invoices ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT $${params.length}`,
    params,
  );
  const items = rows.slice(0, query.limit);
  return {
    items: items.map(invoiceView),
    nextCursor: rows.length > query.limit ? encodeCursor(['inv', items[items.length - 1]!.id]) : null,
  };
}

/** The tenant's invoices, newest first, DRAFTs left out. */
export function listMyInvoices(ctx: RequestContext, query: ListQuery) {
  return page(ctx, ['tenant_id = $1', "status <> 'DRAFT'"], [ctx.tenantId], query);
}

/** Every tenant's invoices (operator), newest first, optionally of one tenant or status. */
export function listInvoices(ctx: RequestContext, query: ListQuery) {
  const where: string[] = [];
  const params: unknown[] = [];
  if (query.tenantId) {
    params.push(query.tenantId);
    where.push(`tenant_id = $${params.length}`);
  }
  if (query.status) {
    params.push(query.status);
    where.push(`status = $${params.length}`);
  }
  return page(ctx, where, params, query);
}

export async function myInvoicePdf(ctx: RequestContext, id: string): Promise<Buffer> {
  const invoice = await loadInvoice(ctx.manager, id, { tenantId: ctx.tenantId! });
  if (invoice.status === 'DRAFT') throw billingError('invoice_not_found', 'The invoice does not exist.');
  const tenants: Array<{ name: string }> = await ctx.manager.query('SELECT name FROM tenants WHERE id = $1', [invoice.tenant_id]);
  return renderInvoicePdf(invoice, tenants[0]?.name ?? '');
}

export async function upsertInvoice(ctx: RequestContext, input: UpsertInvoiceInput): Promise<InvoiceView> {
  return inTransaction(ctx, async (tx) => {
    const tenants: unknown[] = await tx.manager.query('SELECT 1 FROM tenants WHERE id = $1', [input.tenantId]);
    if (!tenants.length) throw billingError('tenant_not_found', 'The tenant does not exist.');
    if (input.planCode) {
      const plans: unknown[] = await tx.manager.query('SELECT 1 FROM billing_plans WHERE code = $1', [input.planCode]);
      if (!plans.length) throw billingError('plan_not_found', `There is no plan ${input.planCode}.`);
    }
    const totals = invoiceTotals(input.lines, input.vatRate);
    const values = [
      input.tenantId,
      input.planCode ?? null,
      input.currency,
      JSON.stringify(totals.lines),
      String(input.vatRate),
      totals.subtotal,
      totals.vatAmount,
      totals.total,
      input.periodStart ?? null,
      input.periodEnd ?? null,
      input.dueAt ?? null,
    ];
    if (input.id) {
      const before = await loadInvoice(tx.manager, input.id, { lock: true });
      if (before.status !== 'DRAFT')
        throw billingError('invoice_transition_refused', `The invoice is ${before.status}; only a DRAFT invoice can be changed.`);
      const rows: InvoiceRow[] = updatedRows<InvoiceRow>(
        await tx.manager.query(
          `UPDATE billing_invoices SET tenant_id = $2, plan_code = $3, currency = $4, lines = $5::jsonb, vat_rate = $6, subtotal = $7,
                vat_amount = $8, total = $9, period_start = $10, period_end = $11, due_at = $12, updated_at = now()
          WHERE id = $1 RETURNING ${INVOICE_COLUMNS}`,
          [input.id, ...values],
        ),
      );
      const after = rows[0]!;
      await recordAudit(tx, {
        action: 'subscription_invoice.update',
        resourceType: 'subscription_invoice',
        resourceId: after.id,
        tenantId: after.tenant_id,
        before: invoiceView(before),
        after: invoiceView(after),
      });
      return invoiceView(after);
    }
    const rows: InvoiceRow[] = await tx.manager.query(
      `INSERT INTO billing_invoices (id, status, tenant_id, plan_code, currency, lines, vat_rate, subtotal, vat_amount, total, period_start, period_end, due_at)
       VALUES ($1, 'DRAFT', $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10, $11, $12) RETURNING ${INVOICE_COLUMNS}`,
      [uuidv7(), ...values],
    );
    const row = rows[0]!;
    await recordAudit(tx, {
      action: 'subscription_invoice.create',
      resourceType: 'subscription_invoice',
      resourceId: row.id,
      tenantId: row.tenant_id,
      after: invoiceView(row),
    });
    return invoiceView(row);
  });
}

/**
 * Moves a locked invoice to `to` (in the caller's transaction): numbers it when it leaves DRAFT,
 * opens a dunning case when it fails, resolves it when it is paid; audited.
 */
export async function moveInvoice(
  tx: RequestContext,
  before: InvoiceRow,
  to: InvoiceStatus,
  options: { reason?: string; attempted?: boolean } = {},
): Promise<InvoiceRow> {
  if (!INVOICE_TRANSITIONS[before.status].includes(to))
    throw billingError('invoice_transition_refused', `An invoice cannot move from ${before.status} to ${to}.`);
  const now = new Date();
  const number = before.number ?? (await nextInvoiceNumber(tx, before.tenant_id, now));
  const rows: InvoiceRow[] = updatedRows<InvoiceRow>(
    await tx.manager.query(
      `UPDATE billing_invoices
        SET status = $2, number = $3, issued_at = coalesce(issued_at, $4), paid_at = CASE WHEN $2 = 'PAID' THEN $4 ELSE paid_at END,
            last_error = CASE WHEN $2 = 'FAILED' THEN coalesce($5, last_error) WHEN $2 = 'PAID' THEN NULL ELSE last_error END,
            attempts = attempts + $6, updated_at = $4
      WHERE id = $1 RETURNING ${INVOICE_COLUMNS}`,
      [before.id, to, number, now, options.reason ?? null, options.attempted ? 1 : 0],
    ),
  );
  const after = rows[0]!;
  await recordAudit(tx, {
    action: `subscription_invoice.${to.toLowerCase()}`,
    resourceType: 'subscription_invoice',
    resourceId: after.id,
    tenantId: after.tenant_id,
    before: invoiceView(before),
    after: { ...invoiceView(after), ...(options.reason ? { reason: options.reason } : {}) },
  });
  if (to === 'OPEN' && before.status === 'DRAFT')
    await notifyTenant(tx, {
      tenantId: after.tenant_id,
      topic: 'billing.invoice_issued',
      title: `Invoice ${number} issued`,
      body: `Invoice ${number} of ${twoDecimals(after.total)} ${after.currency} is issued.`,
      link: '/console/billing',
      dedupeKey: `billing:invoice:${after.id}:issued`,
    });
  if (to === 'FAILED') {
    const open: unknown[] = await tx.manager.query("SELECT 1 FROM billing_dunning_cases WHERE invoice_id = $1 AND step <> 'RESOLVED'", [
      after.id,
    ]);
    if (!open.length) await openCase(tx, after);
  }
  if (to === 'PAID') await resolveCasesOfInvoice(tx, after.id);
  return after;
}

export async function advanceInvoice(ctx: RequestContext, id: string, input: AdvanceInvoiceInput): Promise<InvoiceView> {
  return inTransaction(ctx, async (tx) => {
    const before = await loadInvoice(tx.manager, id, { lock: true });
    return invoiceView(await moveInvoice(tx, before, input.to, { reason: input.reason }));
  });
}

export async function deleteInvoice(ctx: RequestContext, id: string): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const before = await loadInvoice(tx.manager, id, { lock: true });
    if (before.status !== 'DRAFT')
      throw billingError(
        'invoice_transition_refused',
        `The invoice is ${before.status}; only a DRAFT invoice can be deleted (its number must stay).`,
      );
    await tx.manager.query('DELETE FROM billing_invoices WHERE id = $1', [id]);
    await recordAudit(tx, {
      action: 'subscription_invoice.delete',
      resourceType: 'subscription_invoice',
      resourceId: id,
      tenantId: before.tenant_id,
      before: invoiceView(before),
    });
  });
}

/** The PAID invoice of a plan purchase that was just paid (in its transaction): one line, the plan's period, VAT on top. */
export async function writePurchaseInvoice(
  tx: RequestContext,
  purchase: PurchaseRow,
  plan: { code: string; name: string; monthly_price: string },
  period: { start: Date; end: Date },
): Promise<InvoiceRow> {
  const totals = invoiceTotals(
    [{ description: `${plan.name} plan, one month`, quantity: 1, unitPrice: plan.monthly_price }],
    PLAN_VAT_RATE,
  );
  const now = new Date();
  const number = await nextInvoiceNumber(tx, purchase.tenant_id, now);
  const rows: InvoiceRow[] = await tx.manager.query(
    `INSERT INTO billing_invoices (id, tenant_id, number, status, plan_code, currency, lines, vat_rate, subtotal, vat_amount, total,
                                   period_start, period_end, due_at, issued_at, paid_at, purchase_id, attempts)
     VALUES ($1, $2, $3, 'PAID', $4, $5, $6::jsonb, $7, $8, $9, $10, $11, $12, $13, $13, $13, $14, 1) RETURNING ${INVOICE_COLUMNS}`,
    [
      uuidv7(),
      purchase.tenant_id,
      number,
      plan.code,
      purchase.currency,
      JSON.stringify(totals.lines),
      PLAN_VAT_RATE,
      totals.subtotal,
      totals.vatAmount,
      totals.total,
      period.start,
      period.end,
      now,
      purchase.id,
    ],
  );
  const row = rows[0]!;
  await recordAudit(tx, {
    action: 'subscription_invoice.create',
    resourceType: 'subscription_invoice',
    resourceId: row.id,
    tenantId: row.tenant_id,
    after: invoiceView(row),
  });
  return row;
}
