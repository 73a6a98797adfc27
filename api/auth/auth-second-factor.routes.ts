/**
 * Second factors and the command line device flow (document 2, "Authentication, sessions, command
 * line device flow, account"): TOTP two-factor, phone one-time passwords, RFC 8628 device codes.
 */
import { defineRoutes } from '../http/route';
import {
  CliDeviceCodeDto,
  CliDeviceRequestDto,
  CliDeviceTokenDto,
  SendPhoneOtpDto,
  TwoFactorActivateDto,
  TwoFactorChallengeDto,
  TwoFactorDisableDto,
  VerifyPhoneOtpDto,
} from './auth-second-factor.schemas';

export const authSecondFactorRoutes = defineRoutes({ tag: 'Auth', auth: 'public' }, [
  { operationId: 'auth.twoFactorSetup', method: 'POST', path: '/auth/2fa/setup', summary: 'Start two-factor setup: a new TOTP secret and its provisioning URI', auth: 'user', status: 200 },
  { operationId: 'auth.twoFactorActivate', method: 'POST', path: '/auth/2fa/activate', summary: 'Turn two-factor authentication on with a first valid code', auth: 'user', body: TwoFactorActivateDto, status: 200 },
  { operationId: 'auth.twoFactorChallenge', method: 'POST', path: '/auth/2fa/challenge', summary: 'Complete a sign-in that needs a second factor', body: TwoFactorChallengeDto, status: 200 },
  { operationId: 'auth.twoFactorDisable', method: 'POST', path: '/auth/2fa/disable', summary: 'Turn two-factor authentication off', auth: 'user', body: TwoFactorDisableDto, status: 200 },
  { operationId: 'auth.sendPhoneOtp', method: 'POST', path: '/auth/phone/send-otp', summary: 'Send a one-time password to a phone number', auth: 'user', body: SendPhoneOtpDto, status: 202 },
  { operationId: 'auth.verifyPhoneOtp', method: 'POST', path: '/auth/phone/verify-otp', summary: 'Verify a phone number with its one-time password', auth: 'user', body: VerifyPhoneOtpDto, status: 200 },
  { operationId: 'auth.cliDeviceCode', method: 'POST', path: '/auth/cli/device', tag: 'CliDevice', summary: 'Request a device code and user code for the command line tools', body: CliDeviceRequestDto, status: 200 },
  { operationId: 'auth.cliToken', method: 'POST', path: '/auth/cli/token', tag: 'CliDevice', summary: 'Poll for the token of an approved device code', body: CliDeviceTokenDto, status: 200 },
  { operationId: 'auth.cliApprove', method: 'POST', path: '/auth/cli/approve', tag: 'CliDevice', summary: 'Approve a device code as the signed-in user', auth: 'user', body: CliDeviceCodeDto, status: 200 },
  { operationId: 'auth.cliDeny', method: 'POST', path: '/auth/cli/deny', tag: 'CliDevice', summary: 'Deny a device code', auth: 'user', body: CliDeviceCodeDto, status: 200 },
]);
