/**
 * What a merchant hears about their ticket (docs/support.md, "Notifications"): one in-app notification
 * for the tenant and one e-mail to the ticket's requester, both written in the transaction of the
 * event (the e-mail leaves after commit, through the outbound messages). Internal notes never cause
 * either. The dedupe key makes a retried event notify once.
 */
import { notifyTenant } from '../../storage/notifications';
import { servicesOf, type RequestContext } from '../../storage/request-context';

export interface NotifiedTicket {
  id: string;
  tenant_id: string;
  store_id: string | null;
  ticket_number: string;
  subject: string;
  requester_email: string | null;
}

export interface TicketEvent {
  topic: 'support.ticket_opened' | 'support.ticket_replied' | 'support.ticket_status_changed';
  title: string;
  body: string;
  /** Unique per event (a message id, a status change of one ticket at one time). */
  dedupeKey: string;
}

export const ticketLink = (id: string): string => `/api/v1/support/tickets/${id}`;
export const ticketLabel = (ticket: Pick<NotifiedTicket, 'ticket_number' | 'subject'>): string =>
  `Ticket #${ticket.ticket_number} "${ticket.subject}"`;

export async function notifyTicketEvent(tx: RequestContext, ticket: NotifiedTicket, event: TicketEvent): Promise<void> {
  const fresh = await notifyTenant(tx, {
    tenantId: ticket.tenant_id,
    storeId: ticket.store_id,
    topic: event.topic,
    title: event.title,
    body: event.body,
    link: ticketLink(ticket.id),
    dedupeKey: event.dedupeKey,
  });
  if (!fresh || !ticket.requester_email) return;
  await servicesOf(tx).outbound.send(tx.manager, {
    channel: 'email',
    to: ticket.requester_email,
    template: event.topic,
    subject: event.title,
    body: `${event.body}\n\n${ticketLabel(ticket)}: ${ticketLink(ticket.id)}`,
    tenantId: ticket.tenant_id,
  });
}
