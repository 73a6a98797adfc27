/** The error codes of the communications area (api/error-codes.ts lists them in the API reference). */
import { defineErrorCodes } from '../../lib/errors';

export const COMMUNICATIONS_ERRORS = defineErrorCodes('communications', {
  notification_not_found: { status: 404, description: "The notification does not exist (or is another tenant's, or another member's)." },
});

export const communicationsError = COMMUNICATIONS_ERRORS.error;
