/** The error codes of the e-mail suppression area (api/error-codes.ts lists them in the API reference). */
import { defineErrorCodes } from '../../lib/errors';

export const EMAIL_SUPPRESSION_ERRORS = defineErrorCodes('email-suppression', {
  suppression_entry_exists: {
    status: 409,
    description: 'The address is already suppressed for that store (or platform-wide, for a platform-wide entry).',
  },
  platform_suppression_forbidden: {
    status: 403,
    description: 'Only platform staff record platform-wide entries; a tenant member names one of its stores (storeId).',
  },
  unsubscribe_token_invalid: { status: 400, description: 'The unsubscribe link is not one this platform signed, or is damaged.' },
});

export const suppressionError = EMAIL_SUPPRESSION_ERRORS.error;
