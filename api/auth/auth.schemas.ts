// NOTE FOR HELPER A: the {COMMON} part of your prompt is /tmp/issue3-common.md; read it in full now. (Lead will remove this line.)
/** DTOs of the authentication, sessions, command line device flow and account operations. */
import { pendingDto } from '../http/route';

export const RegisterDto = pendingDto('RegisterDto');
export const RegisterPartnerDto = pendingDto('RegisterPartnerDto');
export const LoginDto = pendingDto('LoginDto');
export const RefreshDto = pendingDto('RefreshDto');
export const VerifyEmailDto = pendingDto('VerifyEmailDto');
export const ForgotPasswordDto = pendingDto('ForgotPasswordDto');
export const ResetPasswordDto = pendingDto('ResetPasswordDto');
export const UpdateAccountProfileDto = pendingDto('UpdateAccountProfileDto');
export const ChangeAccountPasswordDto = pendingDto('ChangeAccountPasswordDto');
