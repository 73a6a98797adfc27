/** The long descriptions of the CRM route table (crm.routes.ts), kept out of its rows. Details: docs/crm.md. */
import { pagedPlainList } from '../http/route';
import { LEAD_TRANSITIONS } from './lead-stages';
import { DEMO_REQUEST_DEDUPE_HOURS, DEMO_REQUEST_LIMIT } from './demo-request.service';
import { PAY_PAGE_PATH } from './lead-payments.service';

const transitions = Object.entries(LEAD_TRANSITIONS)
  .map(([from, to]) => `${from} → ${to.join(' | ')}`)
  .join('; ');

export const writes = 'Each change records an audit entry on the lead (resourceType lead), read back by GET /crm/leads/{id}/history.';

export const LIST_LEADS = `${pagedPlainList(50, 100)} Newest first. stage filters by stage; ownerUserId by owner; followUp OVERDUE: open leads whose nextFollowUpAt has passed, MISSING: open leads without nextFollowUpAt (open: NEW, QUALIFIED, CONTACTED, DEMO_SCHEDULED, PROPOSAL_SENT, TRIAL_STARTED, EXPANSION_CANDIDATE, CHURN_RISK). cursor is the nextCursor of the previous page.`;

export const CREATE_LEAD = `A new lead starts in stage NEW, owned by the caller unless ownerUserId says otherwise (a sales_rep or platform_admin, or null). ${writes}`;

export const UPDATE_LEAD = `Changes only the fields given. A stage different from the current one moves the lead when the move is allowed, else 409 lead_stage_transition_refused and nothing changes. Allowed moves: ${transitions}. LOST needs lostReason (400 lost_reason_required); leaving LOST clears it. ${writes}`;

export const DELETE_LEAD = 'Deletes the lead with its stage changes, activities and plan requests. The audit log keeps its history.';

export const FOLLOW_UP_STATS =
  'Open leads (NEW, QUALIFIED, CONTACTED, DEMO_SCHEDULED, PROPOSAL_SENT, TRIAL_STARTED, EXPANSION_CANDIDATE, CHURN_RISK) by follow-up state: overdue (nextFollowUpAt passed), dueToday (from now to the end of today, UTC), upcoming (after today), missing (none set); overall and per owner (ownerUserId null: unowned leads).';

export const PIPELINE =
  "Every stage with its number of leads and, per currency, the number of leads and the sum of their expected values (decimal numbers; leads without one add nothing). ownerUserId (not in the specification's list) narrows to the leads of one owner.";

export const PIPELINE_OVERVIEW =
  "The funnel NEW → QUALIFIED → CONTACTED → DEMO_SCHEDULED → PROPOSAL_SENT → TRIAL_STARTED → WON → ONBOARDING_IN_PROGRESS → ACTIVATED, from the recorded stage changes: per stage, reached (leads whose furthest funnel stage is this one or later), current (leads in it now), conversionToNext (reached of the next stage / reached of this one) and lostFrom (moves from it to LOST); and per stage the time leads spent in it (completed stays only: from entering to the next change; average and median in seconds). ownerUserId (not in the specification's list) narrows to the leads of one owner.";

export const HISTORY = `${pagedPlainList(100, 200)} Oldest first: every audit entry of the lead (created, updated, stage changes, ownership, store link, invitations, plan requests), with who did it, when, the values before and after and the fields that changed.`;

export const ASSIGN_TO_ME = `Makes the caller the owner of the leads of ids (all or none: an unknown id answers 404 lead_not_found naming it). Answers the leads that changed owner. ${writes}`;

export const TRANSFER = `Gives leads to toUserId (a sales_rep or platform_admin: an unknown user answers 404 sales_user_not_found, another user 400 not_sales_team): every lead fromUserId owns, or the leads of leadIds (exactly one of the two). Answers the leads that changed owner. ${writes}`;

export const TEAM =
  'Every user with the platform role sales_rep or platform_admin, by name, with their open leads, the open leads whose follow-up is overdue, and the expected value of their open leads per currency. Not paged: the whole team.';

export const OPERATIONS_REPORT =
  'periodDays is an integer without stated bounds; 1 to 365, default 30. Over the last periodDays days: leads created, moves to WON and to LOST (from the recorded stage changes of leads that still exist) and activities completed, in total and per user who did them (demo requests have no user and count in the totals only).';

export const LIST_ACTIVITIES = `${pagedPlainList(50, 100)} The activities of one lead, newest first. leadId is listed "(r)" and is required here: it is the lead whose activities are read, like a path id, not a filter (an unknown lead answers 404 lead_not_found).`;

export const CREATE_ACTIVITY =
  'A CALL, EMAIL, MEETING or TASK of a lead, assigned to the caller unless assigneeUserId says otherwise (a sales_rep or platform_admin, or null). Recorded in the audit log (resourceType lead_activity).';

export const COMPLETE_ACTIVITY =
  'Marks the activity completed now by the caller; an activity already completed is answered as it is (safe to retry). Answers 201 as the specification lists.';

export const COMPLETE_ACTIVITIES =
  'Completes the activities of ids (all or none: an unknown id answers 404 activity_not_found naming it); those already completed are left as they are. Answers the activities completed now.';

export const ASSIGN_ACTIVITIES =
  'Makes the caller the assignee of the activities of ids (all or none: an unknown id answers 404 activity_not_found). Answers the activities that changed assignee.';

export const LINK_STORE = `Links the lead to an existing store of any tenant (unknown: 404 store_not_found). A lead has one store and a store one lead: a lead linked to another store answers 409 lead_store_already_linked (unlink first), a store linked to another lead 409 store_linked_to_other_lead; linking the same store again changes nothing. ${writes}`;

export const GET_STORE =
  'The linked store: id, name, slug, status and its tenant. A lead without a store answers 404 lead_store_not_linked.';

export const STORE_INVITATION = `E-mails the lead's contactEmail an invitation to open a store, with a link holding a random token that works once for 7 days (stored only as a hash); sending again retires the earlier invitation. A lead without contactEmail answers 409 lead_contact_email_missing, a lead that already has a store 409 lead_store_already_linked. The e-mail leaves through the outbound messages after the change commits. ${writes}`;

export const ACTIVATION =
  "The onboarding of the linked store's tenant, computed exactly as the merchant's GET /organization/onboarding-status (steps, completed, total, nextStep), with percentage (completed steps, rounded down) and activated (every step done and the store active). Steps whose areas are not built yet are never done, so activated stays false until they are. A lead without a store answers 404 lead_store_not_linked.";

export const BANK_TRANSFER = `Billing does not exist yet: this records the request (a reference such as CRM-7KQ2M9XHTA, plan, amount, currency: the lead's unless given) with status REQUESTED and returns it. No bank details are sent and nothing is charged; the sales team tells the customer how to pay and quotes the reference. ${writes}`;

export const PAYMENT_LINK = `Billing does not exist yet: this records the request like the bank transfer (status REQUESTED) and e-mails email (default the lead's contactEmail; without either 409 lead_contact_email_missing) the plan, amount, reference and a link to PUBLIC_BASE_URL${PAY_PAGE_PATH}/{reference}. That page does not take payments yet (it is the billing area's, not built): the e-mail says so, and nothing is charged. payUrl is the link. ${writes}`;

export const DEMO_REQUEST = `No token. Records a NEW lead with source DEMO_REQUEST from company, name, email, phone, message (at most 2,000 characters) and planInterest; the sales team picks it up from GET /crm/leads. A repeat from the same e-mail address within ${DEMO_REQUEST_DEDUPE_HOURS} hours adds its message to the same lead instead of a new one. At most ${DEMO_REQUEST_LIMIT.limit} requests per client address an hour: over it 429 rate_limited with Retry-After. Invalid input answers 400. Answers 202 { accepted: true } either way.`;
