/**
 * The error codes of webhook forwarding (an extension: the feed of a development endpoint's
 * deliveries that `svc app dev` pulls and forwards). Throw sites use `forwardingError(code, detail)`;
 * the API reference lists the codes (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const WEBHOOK_FORWARDING_ERRORS = defineErrorCodes('webhook-forwarding', {
  webhook_endpoint_not_pull: {
    status: 409,
    description: 'The endpoint is pushed by the dispatcher to its URL; only development endpoints (svc-dev://…) have a forwarding feed.',
  },
  webhook_delivery_not_pending: {
    status: 409,
    description: 'The delivery already has its outcome (DELIVERED or DEAD); replay it to forward it again.',
  },
});

export const forwardingError = WEBHOOK_FORWARDING_ERRORS.error;
