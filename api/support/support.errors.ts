/**
 * The error codes of the support desk (tickets and incidents): each code once, with its HTTP status
 * and what it means. Throw sites use `supportError(code, detail, errors)`; the API reference lists the
 * codes (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const SUPPORT_ERRORS = defineErrorCodes('support', {
  ticket_not_found: { status: 404, description: "The ticket does not exist (or is another tenant's, or another store's for an API key)." },
  incident_not_found: { status: 404, description: 'The incident does not exist (or, for a merchant, does not affect them).' },
  tenant_not_found: { status: 404, description: 'The tenant a platform ticket is opened toward does not exist.' },
  ticket_status_transition_refused: {
    status: 409,
    description: 'The ticket cannot move from its status to the one asked for (docs/support.md, "Statuses"); nothing changed.',
  },
  ticket_closed: { status: 409, description: 'The ticket is CLOSED: it takes no reply and no change.' },
  ticket_assignee_invalid: {
    status: 400,
    description: 'The assignee is not a platform user with the role support_agent or platform_admin.',
  },
  incident_broadcast_key_reused: {
    status: 409,
    description: 'The idempotencyKey was already used for another broadcast of this incident with a different message or status.',
  },
});

export const supportError = SUPPORT_ERRORS.error;
