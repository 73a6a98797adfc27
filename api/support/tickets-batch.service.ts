/**
 * Changes to many tickets at once (platform staff): assign-to-me and the bulk update. Each ticket is
 * changed in a transaction of its own and answered on its own (updated, unchanged, not_found or
 * refused with the code a single change would answer), so one bad ticket never blocks the batch.
 */
import { AppError } from '../../lib/errors';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import type { InputOf } from '../http/typed-schema';
import { supportNow } from './support-access';
import { applyChange, checkAssignee, loadTicket, type TicketChange } from './ticket-changes';
import type { AssignTicketsDto, BulkTicketUpdateDto } from './tickets.schemas';
import { ticketView, type TicketBatchResult } from './tickets.views';

export type AssignTicketsInput = InputOf<typeof AssignTicketsDto>;
export type BulkTicketUpdateInput = InputOf<typeof BulkTicketUpdateDto>;

export interface TicketBatchView {
  updated: number;
  failed: number;
  results: TicketBatchResult[];
}

async function changeOne(ctx: RequestContext, id: string, change: TicketChange): Promise<TicketBatchResult> {
  try {
    return await inTransaction(ctx, async (tx) => {
      const now = supportNow(tx);
      const row = await loadTicket(tx, id, { kind: 'platform' }, true);
      const next = await applyChange(tx, row, change, now);
      return { id, outcome: next ? 'updated' : 'unchanged', code: null, detail: null, ticket: ticketView(next ?? row, now) };
    });
  } catch (error) {
    if (!(error instanceof AppError) || error.status >= 500) throw error;
    return { id, outcome: error.status === 404 ? 'not_found' : 'refused', code: error.code, detail: error.message, ticket: null };
  }
}

async function changeAll(ctx: RequestContext, ids: readonly string[], change: TicketChange): Promise<TicketBatchView> {
  const results: TicketBatchResult[] = [];
  for (const id of ids) results.push(await changeOne(ctx, id, change));
  return {
    updated: results.filter((r) => r.outcome === 'updated').length,
    failed: results.filter((r) => r.outcome === 'not_found' || r.outcome === 'refused').length,
    results,
  };
}

/** Assigns each ticket to the calling staff member (a CLOSED ticket is refused with ticket_closed). */
export function assignTicketsToMe(ctx: RequestContext, body: AssignTicketsInput): Promise<TicketBatchView> {
  return changeAll(ctx, body.ids, { assigneeId: ctx.actor.id! });
}

/** Applies the status, priority and assignee given to each ticket on its own. */
export async function bulkUpdateTickets(ctx: RequestContext, body: BulkTicketUpdateInput): Promise<TicketBatchView> {
  await checkAssignee(ctx, body.assigneeId);
  return changeAll(ctx, body.ids, { status: body.status, priority: body.priority, assigneeId: body.assigneeId });
}
