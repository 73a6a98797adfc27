/**
 * Ticket statuses and the moves between them (docs/support.md, "Statuses"). A change the table does
 * not allow answers 409 ticket_status_transition_refused and changes nothing; a CLOSED ticket takes
 * no change and no reply (409 ticket_closed).
 */
import type { TicketStatus } from '../../storage/entities/support-ticket.entity';

export const TICKET_TRANSITIONS: Readonly<Record<TicketStatus, readonly TicketStatus[]>> = {
  OPEN: ['IN_PROGRESS', 'WAITING_ON_CUSTOMER', 'RESOLVED', 'CLOSED'],
  IN_PROGRESS: ['OPEN', 'WAITING_ON_CUSTOMER', 'RESOLVED', 'CLOSED'],
  WAITING_ON_CUSTOMER: ['IN_PROGRESS', 'RESOLVED', 'CLOSED'],
  RESOLVED: ['OPEN', 'CLOSED'],
  CLOSED: [],
};

export function canMove(from: TicketStatus, to: TicketStatus): boolean {
  return TICKET_TRANSITIONS[from].includes(to);
}

/** Statuses of a ticket that is still being worked on (SLA clocks running). */
export const UNRESOLVED_STATUSES: readonly TicketStatus[] = ['OPEN', 'IN_PROGRESS', 'WAITING_ON_CUSTOMER'];

/**
 * Where a merchant's reply moves a ticket: waiting on the merchant → IN_PROGRESS (the desk has its
 * answer), RESOLVED → OPEN (reopened); other statuses stay.
 */
export function afterMerchantReply(status: TicketStatus): TicketStatus {
  if (status === 'WAITING_ON_CUSTOMER') return 'IN_PROGRESS';
  if (status === 'RESOLVED') return 'OPEN';
  return status;
}

/** The one-line table of the docs and descriptions. */
export const TRANSITIONS_TEXT = Object.entries(TICKET_TRANSITIONS)
  .map(([from, to]) => `${from} → ${to.length ? to.join('|') : 'nothing'}`)
  .join('; ');
