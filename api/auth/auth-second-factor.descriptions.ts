/** The long descriptions of the auth second factor route table (auth-second-factor.routes.ts), kept out of its rows. */

export const TWO_FACTOR_SETUP_DESCRIPTION = [
  'Generates a new TOTP secret (RFC 6238: SHA-1, 6 digits, 30-second steps) and returns it with its `otpauth://` URI (issuer "Commerce platform", label = the e-mail address). The secret is stored encrypted and does nothing until POST /auth/2fa/activate confirms a code; calling setup again before that replaces it.',
  'Already on: 409 `two_factor_already_enabled`.',
].join('\n\n');

export const TWO_FACTOR_ACTIVATE_DESCRIPTION = [
  'Checks a code of the authenticator (±1 time step; each step is accepted once) and turns two-factor on. The answer carries 10 single-use recovery codes, shown only this once (stored hashed).',
  'Wrong code: 400 `invalid_code`; no setup first: 409 `two_factor_not_set_up`; already on: 409 `two_factor_already_enabled`. 10 attempts per 15 minutes per user (shared with disable), then 429.',
].join('\n\n');

export const TWO_FACTOR_CHALLENGE_DESCRIPTION = [
  'With two-factor on, POST /auth/login answers `{ twoFactorRequired: true, challengeToken, expiresIn }` instead of tokens. Send the challenge token with either `code` (authenticator) or `recoveryCode` (single use) to receive the token pair of a new session (method `two_factor`).',
  'Wrong or replayed code: 401 `invalid_code`. A challenge is single use, lives 5 minutes and allows 5 wrong codes; after that, or when unknown or used: 401 `challenge_expired` (sign in again). 60 attempts per 15 minutes per client address, then 429.',
].join('\n\n');

export const TWO_FACTOR_DISABLE_DESCRIPTION = [
  'Needs a current authenticator code or an unused recovery code. Deletes the secret, the recovery codes and any open sign-in challenge.',
  'Wrong code: 400 `invalid_code`; not on: 409 `two_factor_not_enabled`. 10 attempts per 15 minutes per user (shared with activate), then 429.',
].join('\n\n');

export const SEND_PHONE_OTP_DESCRIPTION = [
  'Sends a 6-digit code by SMS to the number (E.164). The code is valid 5 minutes and allows 5 wrong attempts; a new code replaces the previous one.',
  'Throttled: one code per minute and 5 per hour per user, 10 per hour per number: 429 with Retry-After.',
].join('\n\n');

export const VERIFY_PHONE_OTP_DESCRIPTION =
  "Checks the newest code sent to the number for the signed-in user and records the number as the account's verified phone. Wrong code: 400 `invalid_code`; expired, used, replaced, or after 5 wrong attempts: 400 `code_expired`.";

export const CLI_DEVICE_CODE_DESCRIPTION = [
  'RFC 8628 device authorization request. The tool shows `userCode` (`XXXX-XXXX`) and `verificationUri`, where a signed-in person approves it (POST /auth/cli/approve), then polls POST /auth/cli/token with `deviceCode` every `interval` seconds until `expiresIn` runs out.',
  '60 requests per 15 minutes per client address, then 429.',
].join('\n\n');

export const CLI_TOKEN_DESCRIPTION = [
  'RFC 8628 device access token request. Once approved, answers the token pair of a new session of the approving user (method `device_flow`); the device code is then consumed.',
  'Otherwise 400 problem+json whose `code` is the RFC 8628 error: `authorization_pending` (keep polling), `slow_down` (polled faster than the interval; the interval grows by 5 seconds), `access_denied`, `expired_token`; `invalid_grant` for an unknown or already consumed device code; `unsupported_grant_type`. 30 polls per minute per device code, then 429.',
].join('\n\n');
