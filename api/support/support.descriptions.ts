/** The long descriptions of the ticket and incident rows (tickets.routes.ts, incidents.routes.ts); docs/support.md has the whole story. */
import { pagedPlainList } from '../http/route';
import { TRANSITIONS_TEXT } from './ticket-status';

const views =
  "A merchant (a member of the tenant, or an API key with support:read/support:write) sees their tenant's tickets only (an API key: its store's), never an internal note; another tenant's ticket answers 404 ticket_not_found. Support staff (support_agent, platform_admin) see every tenant's tickets with internal notes.";

const sla =
  'SLA: firstResponseDueAt and resolutionDueAt are the creation time plus the hours of the priority (SUPPORT_SLA_<PRIORITY>, defaults URGENT 1/8, HIGH 4/24, NORMAL 8/48, LOW 24/120). slaBreached: a deadline was missed (first response or resolution after its due time, or still missing past it).';

export const LIST_TICKETS_DESCRIPTION = `${views} Filters: audience, status, priority; response AWAITING (unresolved, no public staff reply, first response not yet due), BREACHED (a deadline missed, as slaBreached), RESPONDED (a public staff reply given); slaBreachHours (1 to 720): unresolved tickets whose next deadline is at most that many hours away, passed ones included; assigned, assigneeId; createdFrom and createdTo, dates (YYYY-MM-DD, UTC), both inclusive; q (1 to 120 characters): full text over the subject and public messages. Sorts: priority (URGENT > HIGH > NORMAL > LOW), createdAt, messages (message count), ticketNumber, each -asc or -desc; default createdAt-desc; ties by id. cursor is the nextCursor of the previous page (the id of its last ticket); a cursor that is no ticket the caller sees answers 400. limit 1 to 200, default 50. ${sla}`;

export const GET_TICKET_DESCRIPTION = `${views} Messages oldest first.`;

export const SUBMIT_TICKET_DESCRIPTION =
  "A member of the tenant or an API key with support:write. Opens a STORE ticket (OPEN) about the tenant or one of its stores, its body the first message. The requester is the calling member (contactEmail overrides the e-mail). A store that is not the tenant's answers 404 store_not_found. Answers the ticket with its messages.";

export const OPEN_PLATFORM_TICKET_DESCRIPTION =
  'Support staff open a PLATFORM ticket toward a merchant (tenantId, optionally one of its stores), its body the first message (a staff message, so the ticket starts answered: firstRespondedAt is its creation). The requester is the tenant owner (contactEmail overrides the e-mail); the merchant gets an in-app notification and an e-mail.';

export const UPDATE_TICKET_DESCRIPTION = `Changes status, priority, assignee or subject. Status moves: ${TRANSITIONS_TEXT}; any other answers 409 ticket_status_transition_refused and changes nothing; a CLOSED ticket answers 409 ticket_closed. RESOLVED and CLOSED set resolvedAt (CLOSED also closedAt); moving back to OPEN clears it. A new priority recomputes both due times from the creation time. Moving to WAITING_ON_CUSTOMER or RESOLVED notifies the merchant (in-app and e-mail).`;

export const REPLY_TICKET_DESCRIPTION = `${views} Adds a message (201). Staff may write an internal note (internal: true), which the merchant never sees or hears of; the first public staff reply sets firstRespondedAt, and every public staff reply notifies the merchant (in-app and e-mail). A merchant reply moves WAITING_ON_CUSTOMER to IN_PROGRESS and RESOLVED to OPEN (reopened); internal: true from a merchant answers 400. A CLOSED ticket answers 409 ticket_closed.`;

export const BATCH_DESCRIPTION =
  'Each ticket is changed on its own, in the order given, as a single change would be: one result per id (updated, unchanged, not_found, or refused with the code, e.g. ticket_status_transition_refused or ticket_closed), so one bad ticket never blocks the others.';

export const STATS_DESCRIPTION =
  'The last periodDays × 24 hours up to now: tickets created and resolved, median and average minutes to the first public staff reply and to resolution (tickets created in the period), tickets of the period breached now; and the unresolved tickets of now by status and priority, with how many are breached.';

export const WORKLOAD_DESCRIPTION =
  'Unresolved tickets (OPEN, IN_PROGRESS, WAITING_ON_CUSTOMER) per assignee, with the unassigned ones as assigneeId null: counts per status, breached now, and the creation time of the oldest; most loaded first, at most 500 assignees.';

export const EXPORT_DESCRIPTION =
  'Takes the filters of GET /support/tickets, without sort, cursor and limit. Every matching ticket of every tenant, newest first, as CSV (header row, CRLF); cells a spreadsheet would read as a formula start with an apostrophe.';

const incidentViews =
  'Support staff see every incident; a merchant sees the incidents linked to a ticket of theirs (linkedTicketCount counts their own tickets, affectedMerchantCount is null); another incident answers 404 incident_not_found.';

export const LIST_INCIDENTS_DESCRIPTION = `${pagedPlainList(50, 200)} ${incidentViews} Newest first; cursor is the nextCursor of the previous page (the id of its last incident).`;

export const GET_INCIDENT_DESCRIPTION = `${incidentViews} With its broadcast updates, oldest first.`;

export const LINK_INCIDENT_DESCRIPTION =
  'Links tickets of any tenant to an incident: an existing one (incidentId) or a new one created by this request (incident: title, severity, status); this is how incidents come to exist. A ticket linked to another incident moves to this one. The tenants of the linked tickets are the merchants the incident affects.';

export const BROADCAST_DESCRIPTION =
  'Posts an update of the incident (optionally changing its status) and tells every affected merchant (the tenants of its linked tickets) once: one in-app notification and one e-mail to each owner. With idempotencyKey, a retry answers the same update (replayed: true) and notifies only affected merchants not reached yet; the key with another message or status answers 409 incident_broadcast_key_reused. notified counts merchants reached by this request, alreadyNotified those reached before.';
