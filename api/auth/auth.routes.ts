/**
 * Authentication, sessions and the own account (docs/accounts.md; how clients authenticate:
 * docs/api-conventions.md, "Authentication"). Sign-up and sign-in steps are public;
 * everything a signed-in user does to their own account is 'user'. The second factors and the
 * command line device flow are in auth-second-factor.routes.ts.
 */
import { defineRoutes, type RouteRequest } from '../http/route';
import { uuid } from '../http/schema-types';
import {
  AcceptedResponse,
  AccountResponse,
  ChangeAccountPasswordDto,
  ChangePasswordResponse,
  ForgotPasswordDto,
  LoginDto,
  LoginResponse,
  PasswordRulesResponse,
  RefreshDto,
  RegisterDto,
  RegisterPartnerDto,
  RegisterResponse,
  RegistrationOptionsResponse,
  ResetPasswordDto,
  ResetPasswordResponse,
  RevokedSessionsResponse,
  SessionListResponse,
  TokenPairResponse,
  UpdateAccountProfileDto,
  VerifyEmailDto,
  VerifyEmailResponse,
} from './auth.schemas';
import { login, logout, passwordRules, refresh, register, registrationOptions, type RegisterInput } from './auth.service';
import { forgotPassword, resendVerification, resetPassword, verifyEmail } from './email-tokens.service';
import { changePassword, getAccount, listSessions, revokeOneSession, revokeOtherSessions, updateAccount } from './account.service';

const PASSWORD_RULES_NOTE =
  'The password must satisfy GET /auth/password-rules; every broken rule is listed in `errors` (400 `validation_failed`).';

export const authRoutes = defineRoutes({ tag: 'Auth', auth: 'public' }, [
  {
    operationId: 'auth.passwordRules',
    method: 'GET',
    path: '/auth/password-rules',
    summary: 'The rules a new password must satisfy',
    description:
      'The very rules that registration, password reset and password change enforce, and the size of the shipped list of common passwords that are refused.',
    response: PasswordRulesResponse,
    status: 200,
    handler: async () => passwordRules(),
  },
  {
    operationId: 'auth.registration',
    method: 'GET',
    path: '/auth/registration',
    summary: 'Registration options shown before sign-up (whether it is open, what it asks for)',
    description:
      'Whether self-registration is open (configuration REGISTRATION_OPEN), the fields of RegisterDto and RegisterPartnerDto (read from the validators), and where the password rules are.',
    response: RegistrationOptionsResponse,
    status: 200,
    handler: async (req) => registrationOptions(req.context),
  },
  {
    operationId: 'auth.register',
    method: 'POST',
    path: '/auth/register',
    summary: 'Register a new merchant account',
    description: [
      'Creates a merchant tenant named `companyName` and its owner (`name`, `email`, `password`, optional `locale`) in one transaction, signs the owner in (the answer carries a token pair) and e-mails a verification link; verifying is separate and does not block signing in.',
      'Stores are not created here: use the organization operations (e.g. POST /organization/stores/default).',
      PASSWORD_RULES_NOTE,
      'An address that already has an account answers 409 `email_taken` (a person signing up must be told); registration is limited to 10 per hour per client address (429 with Retry-After), which keeps that answer from being used to test addresses in bulk.',
      'When self-registration is closed: 403 `registration_closed`.',
    ].join('\n\n'),
    body: RegisterDto,
    response: RegisterResponse,
    status: 201,
    handler: async (req: RouteRequest<object, object, RegisterInput>) => register(req.context, req.body, 'merchant'),
  },
  {
    operationId: 'auth.registerPartner',
    method: 'POST',
    path: '/auth/partner-register',
    summary: 'Register a partner account',
    description: [
      'Like POST /auth/register, but the tenant is a partner account (it builds apps for other tenants); `website` is optional.',
      PASSWORD_RULES_NOTE,
      '409 `email_taken`, 403 `registration_closed` and the rate limit are as for POST /auth/register.',
    ].join('\n\n'),
    body: RegisterPartnerDto,
    response: RegisterResponse,
    status: 201,
    handler: async (req: RouteRequest<object, object, RegisterInput>) => register(req.context, req.body, 'partner'),
  },
  {
    operationId: 'auth.login',
    method: 'POST',
    path: '/auth/login',
    summary: 'Sign in with e-mail and password; returns tokens or a two-factor challenge',
    description: [
      'Answers a token pair and the user. When the account has two-factor authentication on, no tokens are issued: the answer is `{ twoFactorRequired: true, challengeToken, expiresIn }`, completed with POST /auth/2fa/challenge.',
      'An unknown address and a wrong password answer alike: 401 `invalid_credentials`, with the same body and timing.',
      'Limited to 10 attempts per 15 minutes per client address and e-mail, and 100 per 15 minutes per client address (429 with Retry-After). A successful sign-in clears the first count.',
    ].join('\n\n'),
    body: LoginDto,
    response: LoginResponse,
    status: 200,
    handler: async (req: RouteRequest<object, object, { email: string; password: string }>) => login(req.context, req.body),
  },
  {
    operationId: 'auth.refresh',
    method: 'POST',
    path: '/auth/refresh',
    summary: 'Exchange a refresh token for a new token pair',
    description:
      'Refresh tokens are single use: each refresh answers a new pair for the same session. Presenting a token that was already used revokes the whole session (401 `refresh_token_reused`; its access tokens stop working at once). Unknown, expired or revoked: 401 `invalid_refresh_token`.',
    body: RefreshDto,
    response: TokenPairResponse,
    status: 200,
    handler: async (req: RouteRequest<object, object, { refreshToken: string }>) => refresh(req.context, req.body.refreshToken),
  },
  {
    operationId: 'auth.logout',
    method: 'POST',
    path: '/auth/logout',
    summary: 'Sign out by revoking the refresh token in the body',
    description:
      'Public: the body carries the refresh token that identifies the session, so an expired access token can still sign out. Revokes the session (its access tokens stop at once). Idempotent: an unknown or already revoked token answers 204 too, so the answer reveals nothing.',
    body: RefreshDto,
    status: 204,
    handler: async (req: RouteRequest<object, object, { refreshToken: string }>) => logout(req.context, req.body.refreshToken),
  },
  {
    operationId: 'auth.verifyEmail',
    method: 'POST',
    path: '/auth/verify-email',
    summary: 'Confirm an e-mail address with the token sent to it',
    description: `The token is single use and expires (EMAIL_TOKEN_TTL_SECONDS); only the latest one sent works. Unknown, used or expired: 400 \`invalid_token\`.`,
    body: VerifyEmailDto,
    response: VerifyEmailResponse,
    status: 200,
    handler: async (req: RouteRequest<object, object, { token: string }>) => verifyEmail(req.context, req.body.token),
  },
  {
    operationId: 'auth.forgotPassword',
    method: 'POST',
    path: '/auth/forgot-password',
    summary: 'Send a password reset link to an e-mail address',
    description:
      'Answers 202 `{ accepted: true }` whether or not the address belongs to an account, in the same time, so accounts cannot be discovered. The link is valid for one hour and once. Limited to 20 per hour per client address (429); beyond 3 per hour for one address the answer is the same but nothing more is sent.',
    body: ForgotPasswordDto,
    response: AcceptedResponse,
    status: 202,
    handler: async (req: RouteRequest<object, object, { email: string }>) => forgotPassword(req.context, req.body.email),
  },
  {
    operationId: 'auth.resetPassword',
    method: 'POST',
    path: '/auth/reset-password',
    summary: 'Set a new password with a reset token',
    description: [
      'Sets the password, spends the token and signs the account out everywhere (every session is revoked). The token was e-mailed, so an unverified address becomes verified. Unknown, used or expired token: 400 `invalid_token`.',
      `${PASSWORD_RULES_NOTE} A password that breaks a rule does not spend the token.`,
    ].join('\n\n'),
    body: ResetPasswordDto,
    response: ResetPasswordResponse,
    status: 200,
    handler: async (req: RouteRequest<object, object, { token: string; password: string }>) =>
      resetPassword(req.context, req.body.token, req.body.password),
  },
  {
    operationId: 'auth.resendVerification',
    method: 'POST',
    path: '/auth/resend-verification',
    summary: 'Send the e-mail verification message again',
    description:
      'Answers 202 `{ accepted: true }`; an already verified address gets nothing. Once per minute per user (429 with Retry-After). The new link retires the earlier ones.',
    auth: 'user',
    response: AcceptedResponse,
    status: 202,
    handler: async (req) => resendVerification(req.context),
  },
  {
    operationId: 'auth.listSessions',
    method: 'GET',
    path: '/auth/sessions',
    tag: 'Sessions',
    summary: 'Active sessions of the signed-in user',
    description:
      'Every live (not revoked, not expired) session of the caller, most recently used first; `current` marks the one of the access token. Not paginated: a user has few live sessions.',
    auth: 'user',
    response: SessionListResponse,
    status: 200,
    handler: async (req) => listSessions(req.context),
  },
  {
    operationId: 'auth.revokeOtherSessions',
    method: 'DELETE',
    path: '/auth/sessions/others',
    tag: 'Sessions',
    summary: 'Revoke every session except the current one',
    description: 'Answers how many sessions were revoked; their access tokens stop working at once.',
    auth: 'user',
    response: RevokedSessionsResponse,
    status: 200,
    handler: async (req) => revokeOtherSessions(req.context),
  },
  {
    operationId: 'auth.revokeSession',
    method: 'DELETE',
    path: '/auth/sessions/{id}',
    tag: 'Sessions',
    summary: 'Revoke one session',
    description:
      "Revokes one live session of the caller (the current one too: that signs out). Another user's session, or one already ended, answers 404.",
    auth: 'user',
    params: { id: uuid().required().description('Session id (from GET /auth/sessions).') },
    status: 204,
    handler: async (req) => revokeOneSession(req.context, req.params.id as string),
  },
  {
    operationId: 'auth.getAccount',
    method: 'GET',
    path: '/auth/account',
    tag: 'Account',
    summary: 'Profile of the signed-in user',
    auth: 'user',
    response: AccountResponse,
    status: 200,
    handler: async (req) => getAccount(req.context),
  },
  {
    operationId: 'auth.updateAccount',
    method: 'PATCH',
    path: '/auth/account',
    tag: 'Account',
    summary: 'Update the profile of the signed-in user',
    description:
      'Changes `name` and/or `locale` (at least one; `locale: null` clears it). The phone number changes through the phone one-time-password operations, the e-mail address is not changed here.',
    auth: 'user',
    body: UpdateAccountProfileDto,
    response: AccountResponse,
    status: 200,
    handler: async (req: RouteRequest<object, object, { name?: string; locale?: string | null }>) => updateAccount(req.context, req.body),
  },
  {
    operationId: 'auth.changePassword',
    method: 'POST',
    path: '/auth/account/password',
    tag: 'Account',
    summary: 'Change the password of the signed-in user',
    description: [
      'Needs the current password: wrong answers 400 `invalid_password`; 5 attempts per 15 minutes per user (429). The new password must satisfy GET /auth/password-rules (400 `validation_failed`) and differ from the current one.',
      'Every other session of the account is revoked; the current one stays signed in. Answers `{ changed: true, revokedSessions }`.',
    ].join('\n\n'),
    auth: 'user',
    body: ChangeAccountPasswordDto,
    response: ChangePasswordResponse,
    status: 200,
    handler: async (req: RouteRequest<object, object, { currentPassword: string; newPassword: string }>) =>
      changePassword(req.context, req.body),
  },
]);
