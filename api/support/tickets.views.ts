/** What the ticket operations answer (matching the response schemas of tickets.schemas.ts), and the mappers from rows. */
import type { TicketAudience, TicketAuthorKind, TicketPriority, TicketStatus } from '../../storage/entities/support-ticket.entity';

export interface TicketView {
  id: string;
  ticketNumber: number;
  tenantId: string;
  storeId: string | null;
  audience: TicketAudience;
  status: TicketStatus;
  priority: TicketPriority;
  subject: string;
  requesterEmail: string | null;
  assigneeId: string | null;
  incidentId: string | null;
  messageCount: number;
  firstResponseDueAt: string;
  firstRespondedAt: string | null;
  resolutionDueAt: string;
  resolvedAt: string | null;
  closedAt: string | null;
  slaBreached: boolean;
  lastMessageAt: string;
  createdAt: string;
  updatedAt: string;
}

export interface TicketMessageView {
  id: string;
  authorKind: TicketAuthorKind;
  authorUserId: string | null;
  internal: boolean;
  body: string;
  createdAt: string;
}

export interface TicketDetailView extends TicketView {
  messages: TicketMessageView[];
}

export interface TicketBatchResult {
  id: string;
  outcome: 'updated' | 'unchanged' | 'not_found' | 'refused';
  code: string | null;
  detail: string | null;
  ticket: TicketView | null;
}

/** A row of `ticketColumns` (snake_case, as PostgreSQL answers it). */
export interface TicketRow {
  id: string;
  ticket_number: string;
  tenant_id: string;
  store_id: string | null;
  audience: TicketAudience;
  status: TicketStatus;
  priority: TicketPriority;
  subject: string;
  requester_email: string | null;
  assignee_user_id: string | null;
  incident_id: string | null;
  message_count: number;
  first_response_due_at: Date;
  first_responded_at: Date | null;
  resolution_due_at: Date;
  resolved_at: Date | null;
  closed_at: Date | null;
  sla_due_at: Date | null;
  sla_missed: boolean;
  last_message_at: Date;
  created_at: Date;
  updated_at: Date;
}

export interface MessageRow {
  id: string;
  author_kind: TicketAuthorKind;
  author_user_id: string | null;
  internal: boolean;
  body: string;
  created_at: Date;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** Breached at `now`: a deadline met late, or the next deadline of an unresolved ticket passed (tickets.sql.ts, breachedAt). */
export function isBreached(row: Pick<TicketRow, 'sla_missed' | 'sla_due_at'>, now: Date): boolean {
  return row.sla_missed || (row.sla_due_at !== null && row.sla_due_at.getTime() <= now.getTime());
}

export function ticketView(row: TicketRow, now: Date): TicketView {
  return {
    id: row.id,
    ticketNumber: Number(row.ticket_number),
    tenantId: row.tenant_id,
    storeId: row.store_id,
    audience: row.audience,
    status: row.status,
    priority: row.priority,
    subject: row.subject,
    requesterEmail: row.requester_email,
    assigneeId: row.assignee_user_id,
    incidentId: row.incident_id,
    messageCount: Number(row.message_count),
    firstResponseDueAt: row.first_response_due_at.toISOString(),
    firstRespondedAt: iso(row.first_responded_at),
    resolutionDueAt: row.resolution_due_at.toISOString(),
    resolvedAt: iso(row.resolved_at),
    closedAt: iso(row.closed_at),
    slaBreached: isBreached(row, now),
    lastMessageAt: row.last_message_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function messageView(row: MessageRow): TicketMessageView {
  return {
    id: row.id,
    authorKind: row.author_kind,
    authorUserId: row.author_user_id,
    internal: row.internal,
    body: row.body,
    createdAt: row.created_at.toISOString(),
  };
}
