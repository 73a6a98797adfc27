/** The error codes of idempotency keys (storage/idempotency.ts; docs/payments.md, "Idempotency"). */
import { defineErrorCodes } from '../lib/errors';

export const IDEMPOTENCY_ERRORS = defineErrorCodes('idempotency', {
  idempotency_key_invalid: { status: 400, description: 'The Idempotency-Key header is not 1 to 255 printable ASCII characters.' },
  idempotency_key_reused: {
    status: 409,
    description:
      'The Idempotency-Key was already used (within 24 hours) for a request with another body or another resource; use a new key for a new request.',
  },
});

export const idempotencyError = IDEMPOTENCY_ERRORS.error;
