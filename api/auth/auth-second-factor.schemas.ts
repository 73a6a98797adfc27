/** DTOs of two-factor sign-in, phone one-time passwords and the command line device flow. */
import { pendingDto } from '../http/route';

export const TwoFactorActivateDto = pendingDto('TwoFactorActivateDto');
export const TwoFactorChallengeDto = pendingDto('TwoFactorChallengeDto');
export const TwoFactorDisableDto = pendingDto('TwoFactorDisableDto');
export const SendPhoneOtpDto = pendingDto('SendPhoneOtpDto');
export const VerifyPhoneOtpDto = pendingDto('VerifyPhoneOtpDto');
export const CliDeviceRequestDto = pendingDto('CliDeviceRequestDto');
export const CliDeviceTokenDto = pendingDto('CliDeviceTokenDto');
export const CliDeviceCodeDto = pendingDto('CliDeviceCodeDto');
