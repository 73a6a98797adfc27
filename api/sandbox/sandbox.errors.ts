/**
 * The error codes of the sandbox area: each code once, with its HTTP status and what it means.
 * Throw sites use `sandboxError(code, detail, errors)`; the API reference lists the codes
 * (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const SANDBOX_ERRORS = defineErrorCodes('sandbox', {
  sandbox_not_found: { status: 404, description: 'The caller is not a sandbox: use the token of a sandbox (POST /sandbox creates one).' },
  invalid_refresh_token: { status: 401, description: 'The sandbox refresh token is invalid or expired.' },
  refresh_token_reused: { status: 401, description: 'The sandbox refresh token was already used; the token issued from it is revoked.' },
  image_not_found: { status: 404, description: 'There is no such seed image.' },
});

export const sandboxError = SANDBOX_ERRORS.error;
