/** The long descriptions of the auth route table (auth.routes.ts), kept out of its rows. */

export const PASSWORD_RULES_NOTE =
  'The password must satisfy GET /auth/password-rules; every broken rule is listed in `errors` (400 `validation_failed`).';

export const REGISTER_DESCRIPTION = [
  'Creates a merchant tenant named `companyName` and its owner (`name`, `email`, `password`, optional `locale`) in one transaction, signs the owner in (the answer carries a token pair) and e-mails a verification link; verifying is separate and does not block signing in.',
  'Stores are not created here: use the organization operations (e.g. POST /organization/stores/default).',
  PASSWORD_RULES_NOTE,
  'An address that already has an account answers 409 `email_taken` (a person signing up must be told); registration is limited to 10 per hour per client address (429 with Retry-After), which keeps that answer from being used to test addresses in bulk.',
  'When self-registration is closed: 403 `registration_closed`.',
].join('\n\n');

export const REGISTER_PARTNER_DESCRIPTION = [
  'Like POST /auth/register, but the tenant is a partner account (it builds apps for other tenants); `website` is optional.',
  PASSWORD_RULES_NOTE,
  '409 `email_taken`, 403 `registration_closed` and the rate limit are as for POST /auth/register.',
].join('\n\n');

export const LOGIN_DESCRIPTION = [
  'Answers a token pair and the user. When the account has two-factor authentication on, no tokens are issued: the answer is `{ twoFactorRequired: true, challengeToken, expiresIn }`, completed with POST /auth/2fa/challenge.',
  'An unknown address and a wrong password answer alike: 401 `invalid_credentials`, with the same body and timing.',
  'Limited to 10 attempts per 15 minutes per client address and e-mail, and 100 per 15 minutes per client address (429 with Retry-After). A successful sign-in clears the first count.',
].join('\n\n');

export const REFRESH_DESCRIPTION =
  'Refresh tokens are single use: each refresh answers a new pair for the same session. Presenting a token that was already used revokes the whole session (401 `refresh_token_reused`; its access tokens stop working at once). Unknown, expired or revoked: 401 `invalid_refresh_token`.';

export const LOGOUT_DESCRIPTION =
  'Public: the body carries the refresh token that identifies the session, so an expired access token can still sign out. Revokes the session (its access tokens stop at once). Idempotent: an unknown or already revoked token answers 204 too, so the answer reveals nothing.';

export const FORGOT_PASSWORD_DESCRIPTION =
  'Answers 202 `{ accepted: true }` whether or not the address belongs to an account, in the same time, so accounts cannot be discovered. The link is valid for one hour and once. Limited to 20 per hour per client address (429); beyond 3 per hour for one address the answer is the same but nothing more is sent.';

export const RESET_PASSWORD_DESCRIPTION = [
  'Sets the password, spends the token and signs the account out everywhere (every session is revoked). The token was e-mailed, so an unverified address becomes verified. Unknown, used or expired token: 400 `invalid_token`.',
  `${PASSWORD_RULES_NOTE} A password that breaks a rule does not spend the token.`,
].join('\n\n');

export const CHANGE_PASSWORD_DESCRIPTION = [
  'Needs the current password: wrong answers 400 `invalid_password`; 5 attempts per 15 minutes per user (429). The new password must satisfy GET /auth/password-rules (400 `validation_failed`) and differ from the current one.',
  'Every other session of the account is revoked; the current one stays signed in. Answers `{ changed: true, revokedSessions }`.',
].join('\n\n');
