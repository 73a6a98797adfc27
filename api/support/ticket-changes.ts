/**
 * Changing one ticket: loading it for the caller's view, the SLA due times of a priority, the status
 * moves of the transition table, and the notification a status change owes the merchant. Used by the
 * PATCH, the bulk update and assign-to-me; each writes one audit entry per changed ticket.
 */
import { AppError } from '../../lib/errors';
import { recordAudit } from '../../storage/audit';
import type { TicketPriority, TicketStatus } from '../../storage/entities/support-ticket.entity';
import { servicesOf, type RequestContext } from '../../storage/request-context';
import { supportError } from './support.errors';
import { SUPPORT_DESK_ROLES, type SupportView } from './support-access';
import { canMove } from './ticket-status';
import { notifyTicketEvent, ticketLabel } from './ticket-notify';
import { Params, ticketColumns, viewScope } from './tickets.sql';
import type { TicketRow } from './tickets.views';

const HOUR_MS = 3_600_000;

export const ticketNotFound = (): AppError => supportError('ticket_not_found', 'The ticket does not exist.');

/** The first-response and resolution due times of a ticket of `priority` created at `createdAt`. */
export function dueTimes(
  ctx: RequestContext,
  priority: TicketPriority,
  createdAt: Date,
): { firstResponseDueAt: Date; resolutionDueAt: Date } {
  const sla = servicesOf(ctx).config.support.sla[priority];
  return {
    firstResponseDueAt: new Date(createdAt.getTime() + sla.firstResponseHours * HOUR_MS),
    resolutionDueAt: new Date(createdAt.getTime() + sla.resolutionHours * HOUR_MS),
  };
}

/** The ticket `id` as the view may see it (404 otherwise), locked for a write when `forUpdate`. */
export async function loadTicket(ctx: RequestContext, id: string, view: SupportView, forUpdate = false): Promise<TicketRow> {
  const p = new Params();
  const where = [`t.id = ${p.add(id)}`, ...viewScope(view, p)];
  const rows: TicketRow[] = await ctx.manager.query(
    `SELECT ${ticketColumns(view)} FROM support_tickets t WHERE ${where.join(' AND ')}${forUpdate ? ' FOR UPDATE' : ''}`,
    p.values,
  );
  if (!rows[0]) throw ticketNotFound();
  return rows[0];
}

/** 400 ticket_assignee_invalid unless `userId` is platform staff of the support desk. */
export async function checkAssignee(ctx: RequestContext, userId: string | null | undefined): Promise<void> {
  if (userId === null || userId === undefined) return;
  const rows: unknown[] = await ctx.manager.query('SELECT 1 FROM users WHERE id = $1 AND platform_role = ANY($2::text[])', [
    userId,
    SUPPORT_DESK_ROLES,
  ]);
  if (rows.length === 0)
    throw supportError('ticket_assignee_invalid', 'The assignee must be a platform user with the role support_agent or platform_admin.', [
      { path: 'body.assigneeId', message: 'assigneeId is not support staff' },
    ]);
}

export interface TicketChange {
  status?: TicketStatus;
  priority?: TicketPriority;
  assigneeId?: string | null;
  subject?: string;
}

/**
 * Applies `change` to the locked ticket `row` (platform view) at `now`: 409 ticket_closed on a CLOSED
 * ticket, 409 ticket_status_transition_refused for a move the table does not allow. Answers the
 * updated row, or null when nothing would change (nothing written then).
 */
export async function applyChange(tx: RequestContext, row: TicketRow, change: TicketChange, now: Date): Promise<TicketRow | null> {
  if (row.status === 'CLOSED') throw supportError('ticket_closed', `Ticket #${row.ticket_number} is CLOSED: it takes no change.`);
  const p = new Params();
  const set: string[] = [];
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  const status = change.status !== undefined && change.status !== row.status ? change.status : undefined;
  if (status !== undefined) {
    if (!canMove(row.status, status))
      throw supportError('ticket_status_transition_refused', `Ticket #${row.ticket_number} cannot move from ${row.status} to ${status}.`, [
        { path: 'body.status', message: `${row.status} cannot move to ${status}` },
      ]);
    set.push(`status = ${p.add(status)}`);
    if (status === 'RESOLVED' || status === 'CLOSED') set.push(`resolved_at = coalesce(resolved_at, ${p.add(now)}::timestamptz)`);
    else set.push('resolved_at = NULL');
    if (status === 'CLOSED') set.push(`closed_at = ${p.add(now)}::timestamptz`);
    before.status = row.status;
    after.status = status;
  }
  if (change.priority !== undefined && change.priority !== row.priority) {
    const due = dueTimes(tx, change.priority, row.created_at);
    set.push(`priority = ${p.add(change.priority)}`);
    set.push(`first_response_due_at = ${p.add(due.firstResponseDueAt)}::timestamptz`);
    set.push(`resolution_due_at = ${p.add(due.resolutionDueAt)}::timestamptz`);
    before.priority = row.priority;
    after.priority = change.priority;
  }
  if (change.assigneeId !== undefined && change.assigneeId !== row.assignee_user_id) {
    set.push(`assignee_user_id = ${p.add(change.assigneeId)}::uuid`);
    before.assigneeId = row.assignee_user_id;
    after.assigneeId = change.assigneeId;
  }
  if (change.subject !== undefined && change.subject !== row.subject) {
    const subject = p.add(change.subject);
    set.push(`subject = ${subject}`);
    // The subject is part of the full-text vector: rebuilt from the subject and the public messages.
    set.push(
      `search = to_tsvector('simple', ${subject}) || coalesce((SELECT to_tsvector('simple', string_agg(m.body, ' ')) FROM ticket_messages m WHERE m.ticket_id = t.id AND NOT m.internal), ''::tsvector)`,
    );
    before.subject = row.subject;
    after.subject = change.subject;
  }
  if (set.length === 0) return null;
  set.push(`updated_at = ${p.add(now)}::timestamptz`);
  const [updated] = (await tx.manager.query(
    `UPDATE support_tickets t SET ${set.join(', ')} WHERE t.id = ${p.add(row.id)} RETURNING ${ticketColumns({ kind: 'platform' })}`,
    p.values,
  )) as [TicketRow[], number];
  const next = updated[0]!;
  await recordAudit(tx, {
    action: 'support_ticket.update',
    resourceType: 'support_ticket',
    resourceId: row.id,
    tenantId: row.tenant_id,
    before,
    after,
  });
  if (status === 'WAITING_ON_CUSTOMER' || status === 'RESOLVED') {
    const waiting = status === 'WAITING_ON_CUSTOMER';
    await notifyTicketEvent(tx, next, {
      topic: 'support.ticket_status_changed',
      title: `${ticketLabel(next)} ${waiting ? 'is waiting for your reply' : 'was resolved'}`,
      body: waiting
        ? 'Our support team needs more information from you. Reply to the ticket to continue.'
        : 'Our support team marked your ticket resolved. Reply to it within its lifetime to reopen it.',
      dedupeKey: `support-ticket-status:${row.id}:${status}:${now.toISOString()}`,
    });
  }
  return next;
}
