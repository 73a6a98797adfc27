/**
 * Dunning cases of unpaid subscription invoices, for the operator (docs/billing.md, "Dunning"): list,
 * open one by hand or change its note, move it a step (or resolve it), delete it. A SUSPENDED case
 * is resolved, not deleted, so lifting a suspension always tells the tenant.
 */
import { recordAudit } from '../../storage/audit';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { decodeCursor, encodeCursor, isUuid } from '../http/cursor';
import { billingError } from './billing.errors';
import type { AdvanceDunningInput, DunningStep, UpsertDunningInput } from './billing.schemas';
import { dunningView, updatedRows, type DunningRow, type DunningView } from './billing.views';
import { DUNNING_COLUMNS, DUNNING_TRANSITIONS, loadCase, moveCase, openCase } from './dunning-steps';
import { loadInvoice } from './invoice-store';

export interface DunningListQuery {
  limit: number;
  cursor?: string;
  tenantId?: string;
  step?: DunningStep;
}

const cursorRules = { accepts: (parts: readonly [string, string]) => parts[0] === 'dun' && isUuid(parts[1]) };

export async function listDunning(
  ctx: RequestContext,
  query: DunningListQuery,
): Promise<{ items: DunningView[]; nextCursor: string | null }> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (query.tenantId) {
    params.push(query.tenantId);
    where.push(`tenant_id = $${params.length}`);
  }
  if (query.step) {
    params.push(query.step);
    where.push(`step = $${params.length}`);
  }
  if (query.cursor) {
    const [, id] = decodeCursor(query.cursor, cursorRules);
    params.push(id);
    where.push(`id < $${params.length}`);
  }
  params.push(query.limit + 1);
  const rows: DunningRow[] = await ctx.manager.query(
    `SELECT ${DUNNING_COLUMNS} FROM billing_dunning_cases ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT $${params.length}`,
    params,
  );
  const items = rows.slice(0, query.limit);
  return {
    items: items.map(dunningView),
    nextCursor: rows.length > query.limit ? encodeCursor(['dun', items[items.length - 1]!.id]) : null,
  };
}

export async function upsertDunning(ctx: RequestContext, input: UpsertDunningInput): Promise<DunningView> {
  return inTransaction(ctx, async (tx) => {
    if (input.id) {
      const before = await loadCase(tx.manager, input.id, { lock: true });
      if (input.invoiceId && input.invoiceId !== before.invoice_id)
        throw billingError('dunning_transition_refused', 'The invoice of a dunning case cannot be changed.');
      const rows: DunningRow[] = updatedRows<DunningRow>(
        await tx.manager.query(
          `UPDATE billing_dunning_cases SET note = $2, updated_at = now() WHERE id = $1 RETURNING ${DUNNING_COLUMNS}`,
          [before.id, input.note ?? null],
        ),
      );
      const after = rows[0]!;
      await recordAudit(tx, {
        action: 'dunning_case.update',
        resourceType: 'dunning_case',
        resourceId: after.id,
        tenantId: after.tenant_id,
        before: dunningView(before),
        after: dunningView(after),
      });
      return dunningView(after);
    }
    if (!input.invoiceId)
      throw billingError('invoice_not_found', 'A new dunning case needs the invoiceId of an unpaid invoice.', [
        { path: 'body.invoiceId', message: 'invoiceId is required for a new case' },
      ]);
    const invoice = await loadInvoice(tx.manager, input.invoiceId, { lock: true });
    return dunningView(await openCase(tx, invoice, input.note ?? null));
  });
}

export async function advanceDunning(ctx: RequestContext, id: string, input: AdvanceDunningInput): Promise<DunningView> {
  return inTransaction(ctx, async (tx) => {
    const before = await loadCase(tx.manager, id, { lock: true });
    const to = input.to ?? DUNNING_TRANSITIONS[before.step][0];
    if (!to) throw billingError('dunning_transition_refused', `A ${before.step} dunning case has no next step.`);
    return dunningView(await moveCase(tx, before, to, input.note));
  });
}

export async function deleteDunning(ctx: RequestContext, id: string): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const before = await loadCase(tx.manager, id, { lock: true });
    if (before.step === 'SUSPENDED')
      throw billingError(
        'dunning_transition_refused',
        'A SUSPENDED case is resolved (POST /billing/dunning/{id}/advance with to RESOLVED), not deleted.',
      );
    await tx.manager.query('DELETE FROM billing_dunning_cases WHERE id = $1', [id]);
    await recordAudit(tx, {
      action: 'dunning_case.delete',
      resourceType: 'dunning_case',
      resourceId: id,
      tenantId: before.tenant_id,
      before: dunningView(before),
    });
  });
}
