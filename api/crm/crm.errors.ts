/**
 * The error codes of the CRM area: each code once, with its HTTP status and what it means. Throw
 * sites use `crmError(code, detail, errors)`; the API reference lists the codes (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const CRM_ERRORS = defineErrorCodes('crm', {
  lead_not_found: { status: 404, description: 'The lead does not exist.' },
  activity_not_found: { status: 404, description: 'The activity does not exist.' },
  lead_stage_transition_refused: {
    status: 409,
    description: 'The lead cannot move from its current stage to the stage asked for (docs/crm.md, "Stages and transitions").',
  },
  lost_reason_required: { status: 400, description: 'Moving a lead to LOST needs a lostReason.' },
  lost_reason_not_lost: { status: 400, description: 'A lostReason can only be set on a lead that is, or is moved to, LOST.' },
  sales_user_not_found: { status: 404, description: 'The user named as owner, assignee or transfer target does not exist.' },
  not_sales_team: {
    status: 400,
    description: 'The user named as owner, assignee or transfer target is not a sales_rep or platform_admin.',
  },
  lead_store_not_linked: { status: 404, description: 'The lead is not linked to a store.' },
  lead_store_already_linked: {
    status: 409,
    description: 'The lead is already linked to another store (unlink it first), or has a store so an invitation makes no sense.',
  },
  store_linked_to_other_lead: { status: 409, description: 'The store is already linked to another lead.' },
  invitation_invalid: {
    status: 400,
    description: 'The store invitation token given at registration is unknown, already used or expired, or its lead already has a store.',
  },
  lead_contact_email_missing: { status: 409, description: 'The lead has no contact e-mail address to send to; set contactEmail first.' },
});

export const crmError = CRM_ERRORS.error;
