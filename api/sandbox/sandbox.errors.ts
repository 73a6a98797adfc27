/**
 * The error codes of the sandbox area: each code once, with its HTTP status and what it means.
 * Throw sites use `sandboxError(code, detail, errors)`; the API reference lists the codes
 * (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const SANDBOX_ERRORS = defineErrorCodes('sandbox', {
  sandbox_not_found: { status: 404, description: 'The caller is not a sandbox: use the token of a sandbox (POST /sandbox creates one).' },
  invalid_refresh_token: { status: 401, description: 'The sandbox refresh token is invalid, expired, or revoked with its refresh family.' },
  refresh_token_reused: {
    status: 401,
    description: 'The sandbox refresh token was already used; every token and refresh token of its chain (its refresh family) is revoked.',
  },
  scope_not_held: {
    status: 403,
    description: 'The token simulator mints only scopes the calling token holds itself (a * token may mint any scope).',
  },
  token_lifetime_exceeded: {
    status: 403,
    description: 'The token simulator cannot mint a token that outlives the calling credential (its expiry or session end).',
  },
  image_not_found: { status: 404, description: 'There is no such seed image.' },
});

export const sandboxError = SANDBOX_ERRORS.error;
