/**
 * DTOs, enums and response schemas of support tickets (docs/support.md). The specification names the
 * DTOs and the enumerated values; the fields are this platform's design, documented in each schema.
 */
import Joi from 'joi';
import { csvDocument, dto } from '../http/route';
import { t, typedDto } from '../http/typed-schema';
import { bool, date, int, oneOf, text, uuid } from '../http/schema-types';

/** Ticket `audience` (the specification's enumerated values): STORE a merchant's ticket, PLATFORM one staff opened toward a merchant. */
export const TICKET_AUDIENCES = ['STORE', 'PLATFORM'] as const;
/** Ticket `status`. */
export const TICKET_STATUSES = ['OPEN', 'IN_PROGRESS', 'WAITING_ON_CUSTOMER', 'RESOLVED', 'CLOSED'] as const;
/** Ticket `priority`, lowest first. */
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
export type TicketSort = (typeof TICKET_SORTS)[number];

export const BULK_MAX = 200;
const SUBJECT_MAX = 200;
const BODY_MAX = 10_000;

/**
 * The filters of the ticket list, shared by `GET /support/tickets` and its CSV export ("same
 * filters as the ticket list without sort, cursor and limit"). `slaBreachHours` is an integer
 * without stated bounds: 1 to 720 hours (30 days).
 */
export const TICKET_FILTER_QUERY: Record<string, Joi.Schema> = {
  audience: oneOf(TICKET_AUDIENCES),
  status: oneOf(TICKET_STATUSES),
  priority: oneOf(TICKET_PRIORITIES),
  slaBreachHours: int(1, 720).description(
    'Unresolved tickets whose next SLA deadline (first response while unanswered, else resolution) is at most this many hours from now, already passed included; 1 to 720 (the specification gives no bounds).',
  ),
  response: oneOf(TICKET_RESPONSE_FILTERS).description(
    'AWAITING: unresolved, no public staff reply yet, first response not yet due. BREACHED: a deadline was missed (first response or resolution after its due time, or still missing past it). RESPONDED: a public staff reply was given.',
  ),
  assigned: bool().description('true: tickets with an assignee; false: unassigned tickets.'),
  assigneeId: uuid().description('Tickets assigned to this user.'),
  createdFrom: date().description('Created on or after this day (UTC).'),
  createdTo: date().description('Created on or before this day (UTC), inclusive.'),
  q: text(1, 120).description(
    'Full-text search over the subject and the public messages (internal notes are never searched); words as in a web search (quotes for a phrase, - to exclude).',
  ),
};

/** The validated filters (the query of the list and the export). */
export interface TicketFilters {
  audience?: (typeof TICKET_AUDIENCES)[number];
  status?: (typeof TICKET_STATUSES)[number];
  priority?: (typeof TICKET_PRIORITIES)[number];
  slaBreachHours?: number;
  response?: (typeof TICKET_RESPONSE_FILTERS)[number];
  assigned?: boolean;
  assigneeId?: string;
  createdFrom?: string;
  createdTo?: string;
  q?: string;
}

const subject = () => t.string(text(1, SUBJECT_MAX).trim().description(`1 to ${SUBJECT_MAX} characters.`));
const body = () => t.string(text(1, BODY_MAX).description(`The message, 1 to ${BODY_MAX} characters.`));
const priority = () =>
  t.oneOf(TICKET_PRIORITIES, (s) => s.description('LOW, NORMAL (default), HIGH or URGENT; sets the SLA due times.')).default('NORMAL');
const contactEmail = () =>
  t.string(
    Joi.string()
      .email({ tlds: { allow: false } })
      .max(320)
      .description('Where e-mail about the ticket goes; default the requesting user, else the tenant owner.'),
  );
const ids = (what: string) =>
  t
    .array(t.string(uuid()), Joi.array().min(1).max(BULK_MAX).unique().description(`1 to ${BULK_MAX} distinct ticket ids ${what}.`))
    .required();
const assigneeId = () =>
  t
    .string(
      uuid().description(
        'A platform user with the role support_agent or platform_admin (else 400 ticket_assignee_invalid); null unassigns.',
      ),
    )
    .nullable();

export const SubmitTicketDto = typedDto(
  'SubmitTicketDto',
  t.object({
    storeId: t.string(
      uuid().description(
        "The store the ticket is about, one of the tenant's (else 404 store_not_found); an API key's own store by default.",
      ),
    ),
    subject: subject().required(),
    body: body().required(),
    priority: priority(),
    contactEmail: contactEmail(),
  }),
);

export const OpenPlatformTicketDto = typedDto(
  'OpenPlatformTicketDto',
  t.object({
    tenantId: t.string(uuid().description('The merchant (tenant) the ticket is opened toward (404 tenant_not_found).')).required(),
    storeId: t.string(uuid().description("The tenant's store it concerns, if one (404 store_not_found for another tenant's).")),
    subject: subject().required(),
    body: body().required(),
    priority: priority(),
    contactEmail: contactEmail(),
    assigneeId: assigneeId(),
  }),
);

export const UpdateTicketDto = typedDto(
  'UpdateTicketDto',
  t
    .object({
      status: t.oneOf(TICKET_STATUSES, (s) =>
        s.description('The new status; moves the transition table does not allow answer 409 ticket_status_transition_refused.'),
      ),
      priority: t.oneOf(TICKET_PRIORITIES, (s) =>
        s.description('The new priority; the SLA due times are recomputed from the creation time.'),
      ),
      assigneeId: assigneeId(),
      subject: subject(),
    })
    .rules((o) => o.min(1).description('Changes only the fields given; at least one.')),
);

export const ReplyTicketDto = typedDto(
  'ReplyTicketDto',
  t.object({
    body: body().required(),
    internal: t
      .boolean(
        bool().description('Platform staff only: an internal note, never shown to the merchant (a merchant sending true answers 400).'),
      )
      .default(false),
  }),
);

export const AssignTicketsDto = typedDto('AssignTicketsDto', t.object({ ids: ids('to assign to the calling user') }));

export const BulkTicketUpdateDto = typedDto(
  'BulkTicketUpdateDto',
  t
    .object({
      ids: ids('to update'),
      status: t.oneOf(TICKET_STATUSES),
      priority: t.oneOf(TICKET_PRIORITIES),
      assigneeId: assigneeId(),
    })
    .rules((o) =>
      o
        .or('status', 'priority', 'assigneeId')
        .description('At least one of status, priority and assigneeId; applied to each ticket on its own.'),
    ),
);

// ---- responses ---------------------------------------------------------------------------------

const isoOrNull = () => Joi.string().allow(null).required();

const TicketFields = {
  id: Joi.string().required(),
  ticketNumber: Joi.number().integer().required().description('A plain number, unique across the platform, in creation order.'),
  tenantId: Joi.string().required(),
  storeId: Joi.string().allow(null).required(),
  audience: Joi.string()
    .valid(...TICKET_AUDIENCES)
    .required(),
  status: Joi.string()
    .valid(...TICKET_STATUSES)
    .required(),
  priority: Joi.string()
    .valid(...TICKET_PRIORITIES)
    .required(),
  subject: Joi.string().required(),
  requesterEmail: Joi.string().allow(null).required(),
  assigneeId: Joi.string().allow(null).required(),
  incidentId: Joi.string().allow(null).required(),
  messageCount: Joi.number().integer().required().description('Messages of the ticket; for a merchant without internal notes.'),
  firstResponseDueAt: Joi.string().required(),
  firstRespondedAt: isoOrNull().description('The first public staff reply.'),
  resolutionDueAt: Joi.string().required(),
  resolvedAt: isoOrNull(),
  closedAt: isoOrNull(),
  slaBreached: Joi.boolean().required().description('A deadline was missed (the BREACHED response filter), now.'),
  lastMessageAt: Joi.string().required(),
  createdAt: Joi.string().required(),
  updatedAt: Joi.string().required(),
};
const TicketItem = Joi.object(TicketFields);
const MessageItem = Joi.object({
  id: Joi.string().required(),
  authorKind: Joi.string().valid('MERCHANT', 'STAFF', 'SYSTEM').required(),
  authorUserId: Joi.string().allow(null).required(),
  internal: Joi.boolean().required(),
  body: Joi.string().required(),
  createdAt: Joi.string().required(),
});

export const TicketResponse = dto(
  'SupportTicketResponse',
  Joi.object({ ...TicketFields, messages: Joi.array().items(MessageItem).required().description('Oldest first.') }),
);
export const TicketListResponse = dto(
  'SupportTicketListResponse',
  Joi.object({
    items: Joi.array().items(TicketItem).required(),
    nextCursor: Joi.string().allow(null).required().description('The id of the last ticket when there are more; pass it as cursor.'),
  }),
);
export const TicketReplyResponse = dto(
  'SupportTicketReplyResponse',
  Joi.object({ message: MessageItem.required(), ticket: TicketItem.required() }),
);
export const TicketBatchResponse = dto(
  'SupportTicketBatchResponse',
  Joi.object({
    updated: Joi.number().integer().required().description('Tickets changed.'),
    failed: Joi.number().integer().required().description('Tickets not found or refused.'),
    results: Joi.array()
      .items(
        Joi.object({
          id: Joi.string().required(),
          outcome: Joi.string().valid('updated', 'unchanged', 'not_found', 'refused').required(),
          code: Joi.string().allow(null).required().description('The error code of a not_found or refused ticket.'),
          detail: Joi.string().allow(null).required(),
          ticket: TicketItem.allow(null).required(),
        }),
      )
      .required()
      .description('One per id, in the order given.'),
  }),
);

const byStatus = Joi.object(Object.fromEntries(TICKET_STATUSES.map((s) => [s, Joi.number().integer().required()])));
const byPriority = Joi.object(Object.fromEntries(TICKET_PRIORITIES.map((p) => [p, Joi.number().integer().required()])));
const durations = Joi.object({
  median: Joi.number().allow(null).required(),
  average: Joi.number().allow(null).required(),
  count: Joi.number().integer().required(),
}).description('Minutes, over the tickets of the period that have one; null when none.');

export const TicketStatsResponse = dto(
  'SupportTicketStatsResponse',
  Joi.object({
    periodDays: Joi.number().integer().required(),
    from: Joi.string().required().description('The period is [from, to): the last periodDays × 24 hours.'),
    to: Joi.string().required(),
    created: Joi.number().integer().required().description('Tickets created in the period.'),
    resolved: Joi.number().integer().required().description('Tickets resolved (or closed) in the period.'),
    open: Joi.object({ total: Joi.number().integer().required(), byStatus: byStatus.required(), byPriority: byPriority.required() })
      .required()
      .description('Unresolved tickets now (OPEN, IN_PROGRESS, WAITING_ON_CUSTOMER), whenever created.'),
    firstResponseMinutes: durations.required().description('Created in the period and answered: minutes to the first public staff reply.'),
    resolutionMinutes: durations.required().description('Created in the period and resolved: minutes to resolution.'),
    breached: Joi.object({
      open: Joi.number().integer().required().description('Unresolved tickets breached now.'),
      period: Joi.number().integer().required().description('Tickets created in the period that are breached (BREACHED filter) now.'),
    }).required(),
  }),
);

export const TicketWorkloadResponse = dto(
  'SupportTicketWorkloadResponse',
  Joi.object({
    items: Joi.array()
      .items(
        Joi.object({
          assigneeId: Joi.string().allow(null).required().description('null: the unassigned tickets.'),
          name: Joi.string().allow(null).required(),
          email: Joi.string().allow(null).required(),
          open: Joi.number().integer().required(),
          inProgress: Joi.number().integer().required(),
          waitingOnCustomer: Joi.number().integer().required(),
          total: Joi.number().integer().required(),
          breached: Joi.number().integer().required(),
          oldestOpenCreatedAt: Joi.string().allow(null).required(),
        }),
      )
      .required(),
  }),
);

export const SupportTicketsCsv = csvDocument(
  'SupportTicketsCsv',
  'The tickets matching the filters, newest first, one row per ticket, with a header row: ticketNumber, id, tenantId, storeId, audience, status, priority, subject, requesterEmail, assigneeId, incidentId, messageCount, slaBreached, firstResponseDueAt, firstRespondedAt, resolutionDueAt, resolvedAt, closedAt, createdAt, updatedAt. Cells that a spreadsheet would read as a formula start with an apostrophe.',
);
