/**
 * The ticket list and its CSV export (docs/support.md, "Filters and sorts"). Keyset pages by the
 * sort value and the id: the cursor is the id of the previous page's last ticket, whose sort values
 * are read back in the same statement (a cursor that is no visible ticket answers 400 naming
 * query.cursor). A merchant sees their tenant's tickets only (an API key its store's), message counts
 * without internal notes.
 */
import type { RequestContext } from '../../storage/request-context';
import { invalidListCursor } from '../http/cursor';
import { attachment, streamedCsv, type CsvColumn, type CsvDownload } from '../http/csv';
import { supportNow, supportView, type SupportView } from './support-access';
import { filterConditions, Params, sortOf, ticketColumns, viewScope } from './tickets.sql';
import type { TicketFilters, TicketSort } from './tickets.schemas';
import { ticketView, type TicketRow, type TicketView } from './tickets.views';

export interface ListTicketsQuery extends TicketFilters {
  sort?: TicketSort;
  cursor?: string;
  limit: number;
}

const DEFAULT_SORT: TicketSort = 'createdAt-desc';

/** One page of tickets of `view`, after `cursor`, in `sort` order. */
async function page(
  ctx: RequestContext,
  view: SupportView,
  filters: TicketFilters,
  sort: TicketSort,
  limit: number,
  cursor?: string,
): Promise<TicketRow[]> {
  const now = supportNow(ctx);
  const p = new Params();
  const where = [...viewScope(view, p), ...filterConditions(filters, now, p)];
  const { column, direction } = sortOf(sort, view);
  if (cursor !== undefined) {
    const scope = new Params();
    const cursorWhere = [`t.id = ${scope.add(cursor)}`, ...viewScope(view, scope)];
    const found: unknown[] = await ctx.manager.query(`SELECT 1 FROM support_tickets t WHERE ${cursorWhere.join(' AND ')}`, scope.values);
    if (found.length === 0) throw invalidListCursor();
    const c = p.add(cursor);
    where.push(
      `(t.${column}, t.id) ${direction === 'DESC' ? '<' : '>'} (SELECT c.${column}, c.id FROM support_tickets c WHERE c.id = ${c})`,
    );
  }
  return ctx.manager.query(
    `SELECT ${ticketColumns(view)} FROM support_tickets t
      ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY t.${column} ${direction}, t.id ${direction}
      LIMIT ${p.add(limit)}`,
    p.values,
  );
}

export async function listTickets(
  ctx: RequestContext,
  query: ListTicketsQuery,
): Promise<{ items: TicketView[]; nextCursor: string | null }> {
  const view = supportView(ctx);
  const rows = await page(ctx, view, query, query.sort ?? DEFAULT_SORT, query.limit + 1, query.cursor);
  const items = rows.slice(0, query.limit);
  const now = supportNow(ctx);
  return { items: items.map((row) => ticketView(row, now)), nextCursor: rows.length > query.limit ? items[items.length - 1]!.id : null };
}

const EXPORT_BATCH = 1_000;

const CSV_COLUMNS: CsvColumn<TicketView>[] = [
  { header: 'ticketNumber', value: (t) => t.ticketNumber },
  { header: 'id', value: (t) => t.id },
  { header: 'tenantId', value: (t) => t.tenantId },
  { header: 'storeId', value: (t) => t.storeId },
  { header: 'audience', value: (t) => t.audience },
  { header: 'status', value: (t) => t.status },
  { header: 'priority', value: (t) => t.priority },
  { header: 'subject', value: (t) => t.subject },
  { header: 'requesterEmail', value: (t) => t.requesterEmail },
  { header: 'assigneeId', value: (t) => t.assigneeId },
  { header: 'incidentId', value: (t) => t.incidentId },
  { header: 'messageCount', value: (t) => t.messageCount },
  { header: 'slaBreached', value: (t) => t.slaBreached },
  { header: 'firstResponseDueAt', value: (t) => t.firstResponseDueAt },
  { header: 'firstRespondedAt', value: (t) => t.firstRespondedAt },
  { header: 'resolutionDueAt', value: (t) => t.resolutionDueAt },
  { header: 'resolvedAt', value: (t) => t.resolvedAt },
  { header: 'closedAt', value: (t) => t.closedAt },
  { header: 'createdAt', value: (t) => t.createdAt },
  { header: 'updatedAt', value: (t) => t.updatedAt },
];

/** Every ticket matching the filters (platform staff), newest first, streamed in batches of 1000. */
export async function exportTickets(ctx: RequestContext, filters: TicketFilters): Promise<CsvDownload> {
  const view: SupportView = { kind: 'platform' };
  const now = supportNow(ctx);
  const batch = async (after?: string) =>
    (await page(ctx, view, filters, DEFAULT_SORT, EXPORT_BATCH, after)).map((row) => ticketView(row, now));
  const first = await batch();
  const body = streamedCsv(ctx, first, batch, { columns: CSV_COLUMNS, batchSize: EXPORT_BATCH, label: 'support ticket' });
  return { body, disposition: attachment(`support-tickets-${now.toISOString().slice(0, 10)}.csv`) };
}
