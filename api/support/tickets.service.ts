/**
 * Support tickets, one at a time: a merchant submits one (audience STORE), platform staff open one
 * toward a merchant (PLATFORM), either side reads and replies, staff change it (docs/support.md).
 * Every write records one audit entry in its transaction; what the merchant is told is written in
 * the same transaction (ticket-notify.ts). "Now" is the desk's clock (support-access.ts).
 */
import { ValidationError } from '../../lib/errors';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { requireStore } from '../../domain/store-access';
import type { TicketAudience, TicketAuthorKind, TicketPriority } from '../../storage/entities/support-ticket.entity';
import type { InputOf } from '../http/typed-schema';
import { supportError } from './support.errors';
import { supportNow, supportView, type SupportView } from './support-access';
import { applyChange, checkAssignee, dueTimes, loadTicket } from './ticket-changes';
import { afterMerchantReply } from './ticket-status';
import { notifyTicketEvent, ticketLabel } from './ticket-notify';
import { ticketColumns } from './tickets.sql';
import type { OpenPlatformTicketDto, ReplyTicketDto, SubmitTicketDto, UpdateTicketDto } from './tickets.schemas';
import {
  messageView,
  ticketView,
  type MessageRow,
  type TicketDetailView,
  type TicketMessageView,
  type TicketRow,
  type TicketView,
} from './tickets.views';

export type SubmitTicketInput = InputOf<typeof SubmitTicketDto>;
export type OpenPlatformTicketInput = InputOf<typeof OpenPlatformTicketDto>;
export type UpdateTicketInput = InputOf<typeof UpdateTicketDto>;
export type ReplyTicketInput = InputOf<typeof ReplyTicketDto>;

const PLATFORM: SupportView = { kind: 'platform' };

/** The e-mail of a user, or of the tenant's owner when `userId` is absent. */
async function emailOf(ctx: RequestContext, tenantId: string, userId: string | undefined): Promise<{ id: string; email: string } | null> {
  const rows: Array<{ id: string; email: string }> = userId
    ? await ctx.manager.query('SELECT id, email FROM users WHERE id = $1', [userId])
    : await ctx.manager.query(
        "SELECT id, email FROM users WHERE tenant_id = $1 AND tenant_role = 'owner' ORDER BY created_at, id LIMIT 1",
        [tenantId],
      );
  return rows[0] ?? null;
}

interface NewTicket {
  tenantId: string;
  storeId: string | null;
  audience: TicketAudience;
  priority: TicketPriority;
  subject: string;
  body: string;
  requesterUserId: string | null;
  requesterEmail: string | null;
  assigneeId: string | null;
  authorKind: TicketAuthorKind;
}

/** Inserts the ticket and its first message (one public message; a PLATFORM ticket starts answered). */
async function insertTicket(tx: RequestContext, ticket: NewTicket): Promise<TicketRow> {
  const now = supportNow(tx);
  const due = dueTimes(tx, ticket.priority, now);
  const id = uuidv7();
  const fromStaff = ticket.authorKind === 'STAFF';
  const rows: TicketRow[] = await tx.manager.query(
    `INSERT INTO support_tickets AS t (id, tenant_id, store_id, audience, status, priority, subject, requester_user_id, requester_email,
       created_by_user_id, assignee_user_id, message_count, public_message_count, first_response_due_at, first_responded_at,
       resolution_due_at, last_message_at, created_at, updated_at, search)
     VALUES ($1, $2, $3, $4, 'OPEN', $5, $6, $7, $8, $9, $10, 1, 1, $11, $12, $13, $14, $14, $14,
       to_tsvector('simple', $6) || to_tsvector('simple', $15))
     RETURNING ${ticketColumns(PLATFORM)}`,
    [
      id,
      ticket.tenantId,
      ticket.storeId,
      ticket.audience,
      ticket.priority,
      ticket.subject,
      ticket.requesterUserId,
      ticket.requesterEmail,
      tx.actor.type === 'user' ? tx.actor.id : null,
      ticket.assigneeId,
      due.firstResponseDueAt,
      fromStaff ? now : null,
      due.resolutionDueAt,
      now,
      ticket.body,
    ],
  );
  await tx.manager.query(
    'INSERT INTO ticket_messages (id, ticket_id, author_user_id, author_kind, internal, body, created_at) VALUES ($1, $2, $3, $4, false, $5, $6)',
    [uuidv7(), id, tx.actor.type === 'user' ? tx.actor.id : null, ticket.authorKind, ticket.body, now],
  );
  await recordAudit(tx, {
    action: 'support_ticket.create',
    resourceType: 'support_ticket',
    resourceId: id,
    tenantId: ticket.tenantId,
    after: { audience: ticket.audience, storeId: ticket.storeId, priority: ticket.priority, subject: ticket.subject },
  });
  return rows[0]!;
}

export async function submitTicket(ctx: RequestContext, body: SubmitTicketInput): Promise<TicketDetailView> {
  return inTransaction(ctx, async (tx) => {
    const tenantId = tx.tenantId!;
    const keyStore = tx.actor.type === 'api_key' ? (tx.actor.storeId ?? null) : null;
    const storeId = body.storeId ?? keyStore ?? null;
    if (storeId !== null) await requireStore(tx, storeId);
    const requester = tx.actor.type === 'user' ? await emailOf(tx, tenantId, tx.actor.id) : await emailOf(tx, tenantId, undefined);
    const row = await insertTicket(tx, {
      tenantId,
      storeId,
      audience: 'STORE',
      priority: body.priority,
      subject: body.subject,
      body: body.body,
      requesterUserId: tx.actor.type === 'user' ? (tx.actor.id ?? null) : null,
      requesterEmail: body.contactEmail ?? requester?.email ?? null,
      assigneeId: null,
      authorKind: 'MERCHANT',
    });
    return getTicketIn(tx, row.id, supportView(tx));
  });
}

export async function openPlatformTicket(ctx: RequestContext, body: OpenPlatformTicketInput): Promise<TicketDetailView> {
  return inTransaction(ctx, async (tx) => {
    const tenant: unknown[] = await tx.manager.query('SELECT 1 FROM tenants WHERE id = $1', [body.tenantId]);
    if (tenant.length === 0) throw supportError('tenant_not_found', 'The tenant does not exist.');
    if (body.storeId !== undefined) await requireStore({ ...tx, tenantId: body.tenantId, actor: { type: 'system' } }, body.storeId);
    await checkAssignee(tx, body.assigneeId);
    const owner = await emailOf(tx, body.tenantId, undefined);
    const row = await insertTicket(tx, {
      tenantId: body.tenantId,
      storeId: body.storeId ?? null,
      audience: 'PLATFORM',
      priority: body.priority,
      subject: body.subject,
      body: body.body,
      requesterUserId: owner?.id ?? null,
      requesterEmail: body.contactEmail ?? owner?.email ?? null,
      assigneeId: body.assigneeId ?? null,
      authorKind: 'STAFF',
    });
    await notifyTicketEvent(tx, row, {
      topic: 'support.ticket_opened',
      title: `${ticketLabel(row)} was opened by our support team`,
      body: body.body,
      dedupeKey: `support-ticket-opened:${row.id}`,
    });
    return getTicketIn(tx, row.id, PLATFORM);
  });
}

async function getTicketIn(ctx: RequestContext, id: string, view: SupportView): Promise<TicketDetailView> {
  const row = await loadTicket(ctx, id, view);
  const messages: MessageRow[] = await ctx.manager.query(
    `SELECT id, author_kind, author_user_id, internal, body, created_at FROM ticket_messages
      WHERE ticket_id = $1 ${view.kind === 'platform' ? '' : 'AND NOT internal'} ORDER BY created_at, id`,
    [id],
  );
  return { ...ticketView(row, supportNow(ctx)), messages: messages.map(messageView) };
}

/** One ticket with its messages; a merchant sees their tenant's tickets only and never an internal note. */
export function getTicket(ctx: RequestContext, id: string): Promise<TicketDetailView> {
  return getTicketIn(ctx, id, supportView(ctx));
}

export async function updateTicket(ctx: RequestContext, id: string, body: UpdateTicketInput): Promise<TicketDetailView> {
  return inTransaction(ctx, async (tx) => {
    await checkAssignee(tx, body.assigneeId);
    const row = await loadTicket(tx, id, PLATFORM, true);
    await applyChange(tx, row, body, supportNow(tx));
    return getTicketIn(tx, id, PLATFORM);
  });
}

/**
 * A reply. Staff: public or an internal note; the first public staff reply sets firstRespondedAt and
 * tells the merchant. Merchant: always public; it moves WAITING_ON_CUSTOMER to IN_PROGRESS and
 * RESOLVED to OPEN. A CLOSED ticket takes no reply (409 ticket_closed).
 */
export async function replyToTicket(
  ctx: RequestContext,
  id: string,
  body: ReplyTicketInput,
): Promise<{ message: TicketMessageView; ticket: TicketView }> {
  const view = supportView(ctx);
  const staff = view.kind === 'platform';
  if (!staff && body.internal)
    throw new ValidationError('Only platform staff write internal notes.', [
      { path: 'body.internal', message: 'internal is for platform staff' },
    ]);
  return inTransaction(ctx, async (tx) => {
    const row = await loadTicket(tx, id, view, true);
    if (row.status === 'CLOSED') throw supportError('ticket_closed', `Ticket #${row.ticket_number} is CLOSED: it takes no reply.`);
    const now = supportNow(tx);
    const messageId = uuidv7();
    const author = tx.actor.type === 'user' ? (tx.actor.id ?? null) : null;
    const internal = staff && body.internal;
    const [message] = (await tx.manager.query(
      `INSERT INTO ticket_messages (id, ticket_id, author_user_id, author_kind, internal, body, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id, author_kind, author_user_id, internal, body, created_at`,
      [messageId, id, author, staff ? 'STAFF' : 'MERCHANT', internal, body.body, now],
    )) as MessageRow[];
    const status = staff ? row.status : afterMerchantReply(row.status);
    const [updated] = (await tx.manager.query(
      `UPDATE support_tickets t SET
         message_count = message_count + 1,
         public_message_count = public_message_count + CASE WHEN $2 THEN 0 ELSE 1 END,
         search = CASE WHEN $2 THEN search ELSE search || to_tsvector('simple', $3) END,
         first_responded_at = CASE WHEN $4 AND NOT $2 THEN coalesce(first_responded_at, $5::timestamptz) ELSE first_responded_at END,
         status = $6,
         resolved_at = CASE WHEN $6 IN ('RESOLVED', 'CLOSED') THEN resolved_at ELSE NULL END,
         last_message_at = $5, updated_at = $5
       WHERE t.id = $1 RETURNING ${ticketColumns(view)}`,
      [id, internal, body.body, staff, now, status],
    )) as [TicketRow[], number];
    const next = updated[0]!;
    await recordAudit(tx, {
      action: 'support_ticket.reply',
      resourceType: 'support_ticket',
      resourceId: id,
      tenantId: row.tenant_id,
      after: { messageId, internal, authorKind: staff ? 'STAFF' : 'MERCHANT', status },
    });
    if (staff && !internal)
      await notifyTicketEvent(tx, next, {
        topic: 'support.ticket_replied',
        title: `Our support team replied to ${ticketLabel(next)}`,
        body: body.body,
        dedupeKey: `support-ticket-message:${messageId}`,
      });
    return { message: messageView(message!), ticket: ticketView(next, now) };
  });
}
