/** DTOs of two-factor sign-in, phone one-time passwords and the command line device flow. */
import Joi from 'joi';
import { dto } from '../http/route';
import { t, typedDto } from '../http/typed-schema';
import { int, uuid } from '../http/schema-types';
import { UserSummary } from './auth.schemas';

const totpCode = (): Joi.StringSchema =>
  Joi.string()
    .trim()
    .pattern(/^\d{6}$/, 'totp')
    .messages({ 'string.pattern.name': '{{#label}} must be the 6-digit code shown by the authenticator app' })
    .description('The current 6-digit code of the authenticator app (TOTP, 30-second steps).');

const recoveryCode = (): Joi.StringSchema =>
  Joi.string()
    .trim()
    .min(12)
    .max(20)
    .pattern(/^[A-Za-z0-9 -]+$/, 'recovery code')
    .messages({ 'string.pattern.name': '{{#label}} must be a recovery code such as abcd-efgh-jkmn' })
    .description('One of the recovery codes shown when two-factor was turned on (single use; case and hyphens do not matter).');

/** E.164: a plus, a country code and up to 15 digits in all. */
const e164 = (): Joi.StringSchema =>
  Joi.string()
    .trim()
    .pattern(/^\+[1-9]\d{6,14}$/, 'E.164')
    .messages({ 'string.pattern.name': '{{#label}} must be a phone number in E.164 form, e.g. +905551234567' })
    .description('Phone number in E.164 form, e.g. `+905551234567`.');

const userCode = (): Joi.StringSchema =>
  Joi.string()
    .trim()
    .pattern(/^[A-Za-z]{4}-?[A-Za-z]{4}$/, 'user code')
    .messages({ 'string.pattern.name': '{{#label}} must be the 8-letter code shown by the command line tool, e.g. BCDF-GHJK' })
    .description('The code shown by the command line tool, `XXXX-XXXX`; case and the hyphen do not matter.');

const opaque = (description: string): Joi.StringSchema => Joi.string().min(16).max(512).description(description);

// ---------------------------------------------------------------------------------------------
// Requests

export const TwoFactorActivateDto = dto('TwoFactorActivateDto', Joi.object({ code: totpCode().required() }));

export const TwoFactorChallengeDto = typedDto(
  'TwoFactorChallengeDto',
  t
    .object({
      challengeToken: t.string(opaque('The challengeToken of the login answer (single use, 5 minutes).')).required(),
      code: t.string(totpCode()),
      recoveryCode: t.string(recoveryCode()),
    })
    .rules((o) =>
      o.xor('code', 'recoveryCode').description('Exactly one of `code` and `recoveryCode`.').messages({
        'object.missing': '{{#label}} must contain code or recoveryCode',
        'object.xor': '{{#label}} must contain code or recoveryCode, not both',
      }),
    ),
);

export const TwoFactorDisableDto = dto(
  'TwoFactorDisableDto',
  Joi.object({
    code: Joi.string()
      .trim()
      .min(6)
      .max(20)
      .pattern(/^[A-Za-z0-9 -]+$/, 'code')
      .messages({ 'string.pattern.name': '{{#label}} must be an authenticator code or a recovery code' })
      .required()
      .description('The current 6-digit authenticator code, or an unused recovery code.'),
  }),
);

export const SendPhoneOtpDto = dto('SendPhoneOtpDto', Joi.object({ phone: e164().required() }));

export const VerifyPhoneOtpDto = dto(
  'VerifyPhoneOtpDto',
  Joi.object({
    phone: e164().required().description('The number the code was sent to.'),
    code: Joi.string()
      .trim()
      .pattern(/^\d{6}$/, 'code')
      .messages({ 'string.pattern.name': '{{#label}} must be the 6-digit code of the SMS' })
      .required(),
  }),
);

export const CliDeviceRequestDto = dto(
  'CliDeviceRequestDto',
  Joi.object({
    clientName: Joi.string().trim().min(1).max(100).required().description('Shown to the person approving, e.g. `commerce-cli on laptop`.'),
    scopes: Joi.array()
      .items(
        Joi.string()
          .pattern(/^[a-z0-9][a-z0-9._-]*(:[a-z0-9._*-]+)?$|^\*$/, 'scope')
          .max(100)
          .messages({ 'string.pattern.name': '{{#label}} must be a scope such as products:read' }),
      )
      .max(50)
      .description('Scopes the tool asks for; recorded with the request and shown in the audit log.'),
  }),
);

export const CliDeviceTokenDto = dto(
  'CliDeviceTokenDto',
  Joi.object({
    deviceCode: opaque('The deviceCode of POST /auth/cli/device.').required(),
    grantType: Joi.string()
      .max(200)
      .description(
        'RFC 8628 grant type; only `urn:ietf:params:oauth:grant-type:device_code` (the default) is supported, others answer 400 `unsupported_grant_type`.',
      ),
  }),
);

export const CliDeviceCodeDto = dto('CliDeviceCodeDto', Joi.object({ userCode: userCode().required() }));

// ---------------------------------------------------------------------------------------------
// Responses

const tokenPairFields = {
  tokenType: Joi.string().valid('Bearer').required(),
  accessToken: Joi.string().required().description('JWT; send as `Authorization: Bearer <accessToken>`.'),
  expiresIn: int(1).required().description('Seconds until the access token expires.'),
  refreshToken: Joi.string().required().description('Opaque; single use: POST /auth/refresh returns a new one.'),
  refreshExpiresIn: int(1).required().description('Seconds until the refresh token (and its session) expires.'),
  sessionId: uuid().required(),
};

export const TwoFactorSetupResponse = dto(
  'TwoFactorSetupResponse',
  Joi.object({
    secret: Joi.string()
      .pattern(/^[A-Z2-7]+=*$/)
      .required()
      .description('The TOTP secret in base32, for typing into an authenticator app; shown only here.'),
    otpauthUri: Joi.string()
      .required()
      .description('`otpauth://totp/…` provisioning URI (issuer "Commerce platform", label = e-mail address), usually shown as a QR code.'),
  }),
);

export const TwoFactorActivateResponse = dto(
  'TwoFactorActivateResponse',
  Joi.object({
    enabled: Joi.boolean().valid(true).required(),
    recoveryCodes: Joi.array()
      .items(Joi.string())
      .length(10)
      .required()
      .description('10 single-use recovery codes, shown only here; each replaces a code once.'),
  }),
);

export const TwoFactorDisableResponse = dto('TwoFactorDisableResponse', Joi.object({ enabled: Joi.boolean().valid(false).required() }));

export const TwoFactorChallengeResponse = dto(
  'TwoFactorChallengeResponse',
  Joi.object({ ...tokenPairFields, user: UserSummary.required() }),
);

export const SendPhoneOtpResponse = dto(
  'SendPhoneOtpResponse',
  Joi.object({ expiresIn: int(1).required().description('Seconds the code stays valid (300).') }),
);

export const VerifyPhoneOtpResponse = dto(
  'VerifyPhoneOtpResponse',
  Joi.object({ phone: Joi.string().required(), verified: Joi.boolean().valid(true).required() }),
);

export const CliDeviceResponse = dto(
  'CliDeviceResponse',
  Joi.object({
    deviceCode: Joi.string().required().description('Secret of the tool: poll POST /auth/cli/token with it.'),
    userCode: Joi.string()
      .pattern(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/)
      .required()
      .description('Shown to the person, who enters it at verificationUri.'),
    verificationUri: Joi.string().required(),
    verificationUriComplete: Joi.string().required().description('verificationUri with the user code filled in (for a QR code or a link).'),
    expiresIn: int(1).required().description('Seconds until the device code and user code expire.'),
    interval: int(1).required().description('Minimum seconds between two polls.'),
  }),
);

export const CliTokenResponse = dto('CliTokenResponse', Joi.object({ ...tokenPairFields, user: UserSummary.required() }));

export const CliApproveResponse = dto('CliApproveResponse', Joi.object({ approved: Joi.boolean().valid(true).required() }));

export const CliDenyResponse = dto('CliDenyResponse', Joi.object({ denied: Joi.boolean().valid(true).required() }));
