/**
 * The error codes of the client errors area: each code once, with its HTTP status and what it means.
 * Throw sites use `clientErrorsError(code, detail, errors)`; the API reference lists the codes.
 */
import { defineErrorCodes } from '../../lib/errors';

export const CLIENT_ERRORS_ERRORS = defineErrorCodes('client-errors', {
  client_error_group_not_found: { status: 404, description: 'No client error group has this fingerprint (or it was pruned).' },
  client_error_comment_limit_reached: {
    status: 409,
    description: 'The client error group already has the most comments it keeps (500).',
  },
});

export const clientErrorsError = CLIENT_ERRORS_ERRORS.error;
