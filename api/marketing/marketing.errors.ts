/**
 * The error codes of the marketing area: each code once, with its HTTP status and what it means.
 * Throw sites use `marketingError(code, detail, errors)`; the API reference lists the codes.
 */
import { defineErrorCodes } from '../../lib/errors';

export const MARKETING_ERRORS = defineErrorCodes('marketing', {
  campaign_not_found: { status: 404, description: 'The campaign does not exist.' },
  campaign_state_refused: {
    status: 409,
    description:
      'The campaign cannot do this in its current status (docs/marketing.md, "Campaign states"): only DRAFT and SCHEDULED campaigns change, are deleted or are sent.',
  },
  automation_not_found: { status: 404, description: 'The automation does not exist.' },
  automation_run_not_found: { status: 404, description: 'The automation run does not exist.' },
  automation_run_finished: { status: 409, description: 'The run has already completed or been cancelled.' },
  automation_inactive: { status: 409, description: 'The automation is inactive: it starts no runs.' },
  automation_customer_not_found: { status: 404, description: "The customer does not exist in the automation's store." },
});

export const marketingError = MARKETING_ERRORS.error;
