/**
 * The error codes of the webhooks area: each code once, with its HTTP status and what it means.
 * Throw sites use `webhooksError(code, detail, errors)`; the API reference lists the codes
 * (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const WEBHOOKS_ERRORS = defineErrorCodes('webhooks', {
  webhook_endpoint_not_found: { status: 404, description: 'The webhook endpoint does not exist.' },
  webhook_endpoint_url_taken: { status: 409, description: 'The tenant already has an endpoint with this URL.' },
  webhook_endpoint_limit: { status: 409, description: 'The tenant has the most webhook endpoints it may have.' },
  webhook_delivery_not_found: { status: 404, description: 'The webhook delivery does not exist.' },
  webhook_delivery_pending: { status: 409, description: 'The delivery is still pending; it is attempted on its schedule.' },
  invalid_cursor: { status: 400, description: 'The cursor is not one this list returned.' },
});

export const webhooksError = WEBHOOKS_ERRORS.error;
