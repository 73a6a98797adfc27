/**
 * DTOs, enums and shared query parameters of the support area: tickets, platform incidents,
 * onboarding handoffs.
 */
import Joi from 'joi';
import { csvDocument, pendingDto } from '../http/route';
import { bool, date, int, oneOf, text, uuid } from '../http/schema-types';

/** Ticket `audience` (the specification's enumerated values). */
export const TICKET_AUDIENCES = ['STORE', 'PLATFORM'] as const;
/** Ticket `status`. */
export const TICKET_STATUSES = ['OPEN', 'IN_PROGRESS', 'WAITING_ON_CUSTOMER', 'RESOLVED', 'CLOSED'] as const;
/** Ticket `priority`. */
export const TICKET_PRIORITIES = ['LOW', 'NORMAL', 'HIGH', 'URGENT'] as const;
/** Ticket `response` filter. */
export const TICKET_RESPONSE_FILTERS = ['AWAITING', 'BREACHED', 'RESPONDED'] as const;
/** Ticket `sort`. */
export const TICKET_SORTS = [
  'priority-desc',
  'priority-asc',
  'createdAt-desc',
  'createdAt-asc',
  'messages-desc',
  'messages-asc',
  'ticketNumber-desc',
  'ticketNumber-asc',
] as const;
/** Support handoff `status`. */
export const HANDOFF_STATUSES = ['PENDING', 'ASSIGNED', 'ACCEPTED', 'INFO_MISSING', 'COMPLETED'] as const;

export const LinkTicketsIncidentDto = pendingDto('LinkTicketsIncidentDto');
export const IncidentBroadcastDto = pendingDto('IncidentBroadcastDto');
export const SubmitTicketDto = pendingDto('SubmitTicketDto');
export const OpenPlatformTicketDto = pendingDto('OpenPlatformTicketDto');
export const UpdateTicketDto = pendingDto('UpdateTicketDto');
export const ReplyTicketDto = pendingDto('ReplyTicketDto');
export const AssignTicketsDto = pendingDto('AssignTicketsDto');
export const BulkTicketUpdateDto = pendingDto('BulkTicketUpdateDto');
export const RequestHandoffInfoDto = pendingDto('RequestHandoffInfoDto');
export const CompleteHandoffTaskDto = pendingDto('CompleteHandoffTaskDto');

export const SupportTicketsCsv = csvDocument(
  'SupportTicketsCsv',
  'The tickets matching the filters, one row per ticket, with a header row.',
);

/**
 * The filters of the ticket list, shared by `GET /support/tickets` and its CSV export ("same
 * filters as the ticket list without sort, cursor and limit"). `slaBreachHours` is an integer
 * without stated bounds: 1 to 720 hours (30 days).
 */
export const TICKET_FILTER_QUERY: Record<string, Joi.Schema> = {
  audience: oneOf(TICKET_AUDIENCES),
  status: oneOf(TICKET_STATUSES),
  priority: oneOf(TICKET_PRIORITIES),
  slaBreachHours: int(1, 720).description('SLA breach window in hours, 1 to 720 (the specification gives no bounds).'),
  response: oneOf(TICKET_RESPONSE_FILTERS),
  assigned: bool(),
  assigneeId: uuid(),
  createdFrom: date(),
  createdTo: date(),
  q: text(1, 120),
};
