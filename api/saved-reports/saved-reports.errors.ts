/**
 * The error codes of the saved reports area: each code once, with its HTTP status and what it means.
 * Throw sites use `savedReportsError(code, detail, errors)`; the API reference lists the codes.
 */
import { defineErrorCodes } from '../../lib/errors';

export const SAVED_REPORTS_ERRORS = defineErrorCodes('saved-reports', {
  saved_report_not_found: { status: 404, description: 'The saved report does not exist.' },
  saved_report_limit_reached: {
    status: 409,
    description: 'The store already keeps the most saved reports it may (100); delete one first.',
  },
  saved_report_schedule_invalid: {
    status: 400,
    description: 'A scheduled report (DAILY, WEEKLY, MONTHLY) needs an hour; a report with schedule NONE takes neither hour nor timeZone.',
  },
  saved_report_period_invalid: { status: 400, description: 'The parameters of a PROFIT_LOSS report end (to) before they start (from).' },
});

export const savedReportsError = SAVED_REPORTS_ERRORS.error;
