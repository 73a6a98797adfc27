/** The error codes of the notification preferences area (api/error-codes.ts lists them in the API reference). */
import { defineErrorCodes } from '../../lib/errors';

export const NOTIFICATION_PREFERENCES_ERRORS = defineErrorCodes('notification-preferences', {
  customer_not_found: { status: 404, description: "The customer does not exist (or is another tenant's)." },
  notification_category_unknown: {
    status: 404,
    description:
      'The category is none of TRANSACTIONAL, ORDER_UPDATES, MARKETING, NEWSLETTER (case-insensitive; `order-updates` is accepted).',
  },
  transactional_required: {
    status: 409,
    description: 'TRANSACTIONAL messages (receipts, password resets, order confirmations) cannot be turned off.',
  },
  time_zone_unknown: { status: 400, description: '`timeZone` is not an IANA time zone name this server knows (e.g. Europe/Istanbul).' },
});

export const preferencesError = NOTIFICATION_PREFERENCES_ERRORS.error;
