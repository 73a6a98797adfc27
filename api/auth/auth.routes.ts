// NOTE FOR HELPER A: the {COMMON} part of your prompt is /tmp/issue3-common.md; read it in full now. (Lead will remove this line.)
/**
 * Authentication, sessions, the command line device flow and the own account (document 2,
 * "Authentication, sessions, command line device flow, account"; document 1 "Authentication").
 * Sign-up and sign-in steps are public; everything a signed-in user does to their own account is 'user'.
 */
import { defineRoutes } from '../http/route';
import {
  ChangeAccountPasswordDto,
  ForgotPasswordDto,
  LoginDto,
  RefreshDto,
  RegisterDto,
  RegisterPartnerDto,
  ResetPasswordDto,
  UpdateAccountProfileDto,
  VerifyEmailDto,
} from './auth.schemas';

export const authRoutes = defineRoutes({ tag: 'Auth', auth: 'public' }, [
  { operationId: 'auth.passwordRules', method: 'GET', path: '/auth/password-rules', summary: 'The rules a new password must satisfy', status: 200 },
  { operationId: 'auth.registration', method: 'GET', path: '/auth/registration', summary: 'Registration options shown before sign-up (whether it is open, what it asks for)', status: 200 },
  { operationId: 'auth.register', method: 'POST', path: '/auth/register', summary: 'Register a new merchant account', body: RegisterDto, status: 201 },
  { operationId: 'auth.registerPartner', method: 'POST', path: '/auth/partner-register', summary: 'Register a partner account', body: RegisterPartnerDto, status: 201 },
  { operationId: 'auth.login', method: 'POST', path: '/auth/login', summary: 'Sign in with e-mail and password; returns tokens or a two-factor challenge', body: LoginDto, status: 200 },
  { operationId: 'auth.refresh', method: 'POST', path: '/auth/refresh', summary: 'Exchange a refresh token for a new token pair', body: RefreshDto, status: 200 },
  {
    operationId: 'auth.logout',
    method: 'POST',
    path: '/auth/logout',
    summary: 'Sign out by revoking the refresh token in the body',
    description: 'Public: the body carries the refresh token that identifies the session, so an expired access token can still sign out.',
    body: RefreshDto,
    status: 204,
  },
  { operationId: 'auth.verifyEmail', method: 'POST', path: '/auth/verify-email', summary: 'Confirm an e-mail address with the token sent to it', body: VerifyEmailDto, status: 200 },
  {
    operationId: 'auth.forgotPassword',
    method: 'POST',
    path: '/auth/forgot-password',
    summary: 'Send a password reset link to an e-mail address',
    description: 'Answers 202 whether or not the address belongs to an account, so accounts cannot be discovered.',
    body: ForgotPasswordDto,
    status: 202,
  },
  { operationId: 'auth.resetPassword', method: 'POST', path: '/auth/reset-password', summary: 'Set a new password with a reset token', body: ResetPasswordDto, status: 200 },
  { operationId: 'auth.resendVerification', method: 'POST', path: '/auth/resend-verification', summary: 'Send the e-mail verification message again', auth: 'user', status: 202 },
  { operationId: 'auth.listSessions', method: 'GET', path: '/auth/sessions', tag: 'Sessions', summary: 'Active sessions of the signed-in user', auth: 'user', status: 200 },
  { operationId: 'auth.revokeOtherSessions', method: 'DELETE', path: '/auth/sessions/others', tag: 'Sessions', summary: 'Revoke every session except the current one', auth: 'user', status: 200 },
  { operationId: 'auth.revokeSession', method: 'DELETE', path: '/auth/sessions/{id}', tag: 'Sessions', summary: 'Revoke one session', auth: 'user', status: 204 },
  { operationId: 'auth.getAccount', method: 'GET', path: '/auth/account', tag: 'Account', summary: 'Profile of the signed-in user', auth: 'user', status: 200 },
  { operationId: 'auth.updateAccount', method: 'PATCH', path: '/auth/account', tag: 'Account', summary: 'Update the profile of the signed-in user', auth: 'user', body: UpdateAccountProfileDto, status: 200 },
  { operationId: 'auth.changePassword', method: 'POST', path: '/auth/account/password', tag: 'Account', summary: 'Change the password of the signed-in user', auth: 'user', body: ChangeAccountPasswordDto, status: 200 },
]);
