/**
 * The error codes of the auth area: each code once, with its HTTP status and what it means. Throw
 * sites use `authError(code, detail, errors)`; the API reference lists the codes (api/error-
 * codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const AUTH_ERRORS = defineErrorCodes('auth', {
  invalid_credentials: { status: 401, description: 'Sign-in: the e-mail address or the password is wrong.' },
  token_expired: { status: 401, description: 'The access token has expired; refresh it.' },
  invalid_token: [
    { status: 401, description: 'The access token is invalid (bad signature, unknown user).' },
    { status: 400, description: 'An e-mail token (verification, password reset, e-mail change) is invalid, already used or expired.' },
  ],
  session_revoked: { status: 401, description: 'The session of the access token has ended (signed out or revoked); sign in again.' },
  invalid_api_key: { status: 401, description: 'The API key is invalid, expired or revoked.' },
  api_key_not_allowed: { status: 403, description: 'API keys cannot call this operation.' },
  insufficient_scope: { status: 403, description: 'The API key lacks the scope the operation needs.' },
  platform_role_required: {
    status: 403,
    description: "The operation is for other platform roles than the caller's (its route lists them: x-platform-roles).",
  },
  invalid_refresh_token: { status: 401, description: 'The refresh token is invalid or expired.' },
  refresh_token_reused: {
    status: 401,
    description: 'The refresh token was already used; its session has been revoked (replay protection).',
  },
  email_taken: { status: 409, description: 'An account with this e-mail address already exists.' },
  registration_closed: { status: 403, description: 'Self-registration is closed on this platform.' },
  invalid_password: { status: 400, description: 'The current password is wrong.' },
  code_expired: {
    status: 400,
    description: 'Phone sign-in: no valid code for the number (expired, used, or too many wrong attempts); request a new one.',
  },
  invalid_code: [
    {
      status: 400,
      description:
        'A one-time code (phone sign-in, activating or disabling two-factor authentication) is wrong, already used, or outside its time window.',
    },
    { status: 401, description: 'Two-factor sign-in: the code of the challenge is wrong, already used, or outside its time window.' },
  ],
  two_factor_already_enabled: { status: 409, description: 'Two-factor authentication is already on.' },
  two_factor_not_set_up: { status: 409, description: 'Two-factor authentication was not set up: POST /auth/2fa/setup first.' },
  two_factor_not_enabled: { status: 409, description: 'Two-factor authentication is not on.' },
  challenge_expired: { status: 401, description: 'The two-factor sign-in challenge is unknown, used or expired; sign in again.' },
  device_code_not_found: { status: 404, description: 'No pending device request has this user code (it may have expired).' },
  unsupported_grant_type: {
    status: 400,
    description: 'Device flow token request: only the device code grant type is supported (RFC 8628).',
  },
  invalid_grant: {
    status: 400,
    description: 'Device flow token request: the device code is unknown, or its tokens were already issued (RFC 8628).',
  },
  access_denied: { status: 400, description: 'Device flow token request: the user denied the request (RFC 8628).' },
  expired_token: { status: 400, description: 'Device flow token request: the device code has expired; start again (RFC 8628).' },
  authorization_pending: {
    status: 400,
    description: 'Device flow token request: the user has not approved the request yet; keep polling (RFC 8628).',
  },
  slow_down: {
    status: 400,
    description: 'Device flow token request: polling faster than the interval; wait longer between requests (RFC 8628).',
  },
});

export const authError = AUTH_ERRORS.error;
