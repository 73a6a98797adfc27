/**
 * The steps of a dunning case (docs/billing.md, "Dunning"): REMINDER → GRACE → SUSPENDED, and
 * RESOLVED from any of them when the invoice is paid (or by hand). Each step is written with its
 * audit entry and tells the tenant twice in the same transaction: an in-app notification (one per
 * case and step: dedupeKey) and an e-mail to the owners through the outbound port. The delay before
 * the next step comes from the configuration (BILLING_DUNNING_GRACE_AFTER_MS,
 * BILLING_DUNNING_SUSPEND_AFTER_MS); the jobs worker takes due cases one step on
 * (dunning-scheduler.ts), an operator can do it by hand (POST /billing/dunning/{id}/advance).
 */
import type { EntityManager } from 'typeorm';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { notifyTenant } from '../../storage/notifications';
import { servicesOf, type RequestContext } from '../../storage/request-context';
import { billingError } from './billing.errors';
import type { DunningStep } from './billing.schemas';
import { dunningView, updatedRows, type DunningRow, type InvoiceRow } from './billing.views';
import { ownerEmails } from './invoice-store';
import { twoDecimals } from './invoice-math';

export const DUNNING_COLUMNS = 'id, tenant_id, invoice_id, step, note, step_entered_at, next_step_at, resolved_at, created_at, updated_at';

/** Allowed moves of a case by step; the first entry is "the next step". */
export const DUNNING_TRANSITIONS: Record<DunningStep, readonly DunningStep[]> = {
  REMINDER: ['GRACE', 'SUSPENDED', 'RESOLVED'],
  GRACE: ['SUSPENDED', 'RESOLVED'],
  SUSPENDED: ['RESOLVED'],
  RESOLVED: [],
};

const MESSAGES: Record<DunningStep, { title: string; body: (invoice: string) => string }> = {
  REMINDER: {
    title: 'Your subscription invoice is unpaid',
    body: (invoice) => `${invoice} is not paid yet. Please pay it to keep your shop running.`,
  },
  GRACE: {
    title: 'Grace period: your shop will be suspended',
    body: (invoice) => `${invoice} is still unpaid. Your shop will be suspended at the end of the grace period unless it is paid.`,
  },
  SUSPENDED: {
    title: 'Your shop is suspended',
    body: (invoice) =>
      `${invoice} is unpaid, so your shop is suspended: changes are refused and your storefront shows a temporarily unavailable page until it is paid.`,
  },
  RESOLVED: {
    title: 'Your subscription is in good standing',
    body: (invoice) => `${invoice} is settled. Thank you; every suspension is lifted.`,
  },
};

/** When a case that entered `step` at `at` moves on by itself; null for SUSPENDED and RESOLVED (a person or a payment ends them). */
export function nextStepAt(ctx: RequestContext, step: DunningStep, at: Date): Date | null {
  const { dunningGraceAfterMs, dunningSuspendAfterMs } = servicesOf(ctx).config.billing;
  if (step === 'REMINDER') return new Date(at.getTime() + dunningGraceAfterMs);
  if (step === 'GRACE') return new Date(at.getTime() + dunningSuspendAfterMs);
  return null;
}

export async function loadCase(manager: EntityManager, id: string, options: { lock?: boolean } = {}): Promise<DunningRow> {
  const rows: DunningRow[] = await manager.query(
    `SELECT ${DUNNING_COLUMNS} FROM billing_dunning_cases WHERE id = $1 ${options.lock ? 'FOR UPDATE' : ''}`,
    [id],
  );
  if (!rows[0]) throw billingError('dunning_case_not_found', 'The dunning case does not exist.');
  return rows[0];
}

async function tell(tx: RequestContext, row: DunningRow, step: DunningStep): Promise<void> {
  const invoices: Array<{ number: string | null; total: string; currency: string }> = await tx.manager.query(
    'SELECT number, total, currency FROM billing_invoices WHERE id = $1',
    [row.invoice_id],
  );
  const invoice = invoices[0];
  const label = invoice
    ? `Invoice ${invoice.number ?? row.invoice_id} (${twoDecimals(invoice.total)} ${invoice.currency})`
    : 'Your invoice';
  const message = MESSAGES[step];
  const fresh = await notifyTenant(tx, {
    tenantId: row.tenant_id,
    topic: `billing.dunning_${step.toLowerCase()}`,
    title: message.title,
    body: message.body(label),
    link: '/console/billing',
    dedupeKey: `billing:dunning:${row.id}:${step}`,
  });
  if (!fresh) return;
  const outbound = servicesOf(tx).outbound;
  for (const to of await ownerEmails(tx.manager, row.tenant_id))
    await outbound.send(tx.manager, {
      channel: 'email',
      to,
      template: `billing.dunning_${step.toLowerCase()}`,
      subject: message.title,
      body: message.body(label),
      tenantId: row.tenant_id,
    });
}

/** Opens a REMINDER case for an unpaid invoice (409 dunning_case_exists when it has an open one). */
export async function openCase(tx: RequestContext, invoice: InvoiceRow, note: string | null = null): Promise<DunningRow> {
  if (invoice.status !== 'OPEN' && invoice.status !== 'FAILED')
    throw billingError('dunning_invoice_not_unpaid', `The invoice is ${invoice.status}; a dunning case needs an OPEN or FAILED invoice.`);
  const open: unknown[] = await tx.manager.query("SELECT 1 FROM billing_dunning_cases WHERE invoice_id = $1 AND step <> 'RESOLVED'", [
    invoice.id,
  ]);
  if (open.length) throw billingError('dunning_case_exists', 'The invoice already has an open dunning case.');
  const now = new Date();
  const rows: DunningRow[] = await tx.manager.query(
    `INSERT INTO billing_dunning_cases (id, tenant_id, invoice_id, step, note, step_entered_at, next_step_at)
     VALUES ($1, $2, $3, 'REMINDER', $4, $5, $6) RETURNING ${DUNNING_COLUMNS}`,
    [uuidv7(), invoice.tenant_id, invoice.id, note, now, nextStepAt(tx, 'REMINDER', now)],
  );
  const row = rows[0]!;
  await recordAudit(tx, {
    action: 'dunning_case.open',
    resourceType: 'dunning_case',
    resourceId: row.id,
    tenantId: row.tenant_id,
    after: dunningView(row),
  });
  await tell(tx, row, 'REMINDER');
  return row;
}

/** Moves a (locked) case to `to`; 409 dunning_transition_refused when its step does not allow it. */
export async function moveCase(tx: RequestContext, row: DunningRow, to: DunningStep, note?: string): Promise<DunningRow> {
  if (!DUNNING_TRANSITIONS[row.step].includes(to))
    throw billingError('dunning_transition_refused', `A dunning case cannot move from ${row.step} to ${to}.`);
  const now = new Date();
  const rows: DunningRow[] = updatedRows<DunningRow>(
    await tx.manager.query(
      `UPDATE billing_dunning_cases
        SET step = $2, step_entered_at = $3, next_step_at = $4, resolved_at = $5, note = coalesce($6, note), updated_at = $3
      WHERE id = $1 RETURNING ${DUNNING_COLUMNS}`,
      [row.id, to, now, nextStepAt(tx, to, now), to === 'RESOLVED' ? now : null, note ?? null],
    ),
  );
  const after = rows[0]!;
  await recordAudit(tx, {
    action: `dunning_case.${to.toLowerCase()}`,
    resourceType: 'dunning_case',
    resourceId: row.id,
    tenantId: row.tenant_id,
    before: dunningView(row),
    after: dunningView(after),
  });
  await tell(tx, after, to);
  return after;
}

/** Resolves the open case of an invoice that was paid (none: nothing to do). */
export async function resolveCasesOfInvoice(tx: RequestContext, invoiceId: string): Promise<void> {
  const rows: DunningRow[] = await tx.manager.query(
    `SELECT ${DUNNING_COLUMNS} FROM billing_dunning_cases WHERE invoice_id = $1 AND step <> 'RESOLVED' FOR UPDATE`,
    [invoiceId],
  );
  for (const row of rows) await moveCase(tx, row, 'RESOLVED');
}
