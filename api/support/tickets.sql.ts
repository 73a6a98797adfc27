/**
 * SQL of the ticket reads: the columns of a ticket view, the WHERE clause of the list filters (shared
 * by the list, the export and the stats), and the keyset sorts. Every filter and sort is answered by
 * an index of the support-desk migration; the list pages by (sort value, id).
 */
import type { SupportView } from './support-access';
import type { TicketFilters, TicketSort } from './tickets.schemas';

/** Positional parameters collected while a statement is built. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** The columns of a ticket view (alias t); `merchant` counts only public messages. */
export function ticketColumns(view: SupportView): string {
  const count = view.kind === 'platform' ? 't.message_count' : 't.public_message_count';
  return `t.id, t.ticket_number::text AS ticket_number, t.tenant_id, t.store_id, t.audience, t.status, t.priority, t.subject,
    t.requester_email, t.assignee_user_id, t.incident_id, ${count} AS message_count, t.first_response_due_at,
    t.first_responded_at, t.resolution_due_at, t.resolved_at, t.closed_at, t.sla_due_at, t.sla_missed, t.last_message_at,
    t.created_at, t.updated_at`;
}

/** The scope of a view: every ticket for the platform, the tenant's (an API key: its store's) otherwise. */
export function viewScope(view: SupportView, p: Params, alias = 't'): string[] {
  if (view.kind === 'platform') return [];
  const where = [`${alias}.tenant_id = ${p.add(view.tenantId)}`];
  if (view.storeId) where.push(`${alias}.store_id = ${p.add(view.storeId)}`);
  return where;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** "Breached at $now": a deadline met late, or the next deadline of an unresolved ticket passed. */
export const breachedAt = (now: string, alias = 't'): string => `(${alias}.sla_missed OR ${alias}.sla_due_at <= ${now})`;

/** The WHERE conditions of the list filters, evaluated at `now` (docs/support.md, "Filters"). */
export function filterConditions(filters: TicketFilters, now: Date, p: Params): string[] {
  const where: string[] = [];
  if (filters.audience) where.push(`t.audience = ${p.add(filters.audience)}`);
  if (filters.status) where.push(`t.status = ${p.add(filters.status)}`);
  if (filters.priority) where.push(`t.priority = ${p.add(filters.priority)}`);
  if (filters.slaBreachHours !== undefined)
    where.push(`t.sla_due_at <= ${p.add(new Date(now.getTime() + filters.slaBreachHours * HOUR_MS))}::timestamptz`);
  if (filters.response === 'AWAITING')
    where.push(`t.first_responded_at IS NULL AND t.resolved_at IS NULL AND t.first_response_due_at > ${p.add(now)}::timestamptz`);
  if (filters.response === 'RESPONDED') where.push('t.first_responded_at IS NOT NULL');
  if (filters.response === 'BREACHED') where.push(breachedAt(`${p.add(now)}::timestamptz`));
  if (filters.assigned === true) where.push('t.assignee_user_id IS NOT NULL');
  if (filters.assigned === false) where.push('t.assignee_user_id IS NULL');
  if (filters.assigneeId) where.push(`t.assignee_user_id = ${p.add(filters.assigneeId)}`);
  if (filters.createdFrom) where.push(`t.created_at >= ${p.add(new Date(`${filters.createdFrom}T00:00:00Z`))}::timestamptz`);
  if (filters.createdTo)
    where.push(`t.created_at < ${p.add(new Date(new Date(`${filters.createdTo}T00:00:00Z`).getTime() + DAY_MS))}::timestamptz`);
  if (filters.q) where.push(`t.search @@ websearch_to_tsquery('simple', ${p.add(filters.q)})`);
  return where;
}

/** The sort column of each sort (a merchant's message count leaves internal notes out) and its direction. */
export function sortOf(sort: TicketSort, view: SupportView): { column: string; direction: 'ASC' | 'DESC' } {
  const [key, direction] = sort.split('-') as [string, 'asc' | 'desc'];
  const column =
    key === 'priority'
      ? 'priority_rank'
      : key === 'createdAt'
        ? 'created_at'
        : key === 'ticketNumber'
          ? 'ticket_number'
          : view.kind === 'platform'
            ? 'message_count'
            : 'public_message_count';
  return { column, direction: direction === 'asc' ? 'ASC' : 'DESC' };
}

/** The full-text vector of a text, as the ticket's `search` column holds it. */
export const SEARCH_VECTOR = (param: string): string => `to_tsvector('simple', ${param})`;
