/** DTOs of the authentication, sessions and account operations (the command line device flow is in auth-second-factor.schemas.ts). */
import Joi from 'joi';
import { dto, type NamedSchema } from '../http/route';
import { t, typedDto } from '../http/typed-schema';
import { dateTime, httpUrl, int, languageTag, oneOf, uuid } from '../http/schema-types';

/**
 * An e-mail address, trimmed and lower-cased (accounts are unique by lower-cased address). Top-level
 * domains are not checked against a list, so reserved ones such as `.test` work in development.
 */
export const email = (): Joi.StringSchema =>
  Joi.string()
    .trim()
    .lowercase()
    .max(254)
    .email({ tlds: { allow: false } });

/**
 * A password as the transport sees it: any string up to 1024 characters. The password rules
 * (GET /auth/password-rules) are checked by the service, which reports each broken rule.
 */
const password = (): Joi.StringSchema => Joi.string().min(1).max(1024);

/** A person's display name. */
const personName = (): Joi.StringSchema => Joi.string().trim().min(1).max(120);

/** An opaque token received by e-mail (verification, reset). */
const emailToken = (): Joi.StringSchema => Joi.string().min(16).max(512);

export const RegisterDto = typedDto(
  'RegisterDto',
  t.object({
    email: t.string(email()).required(),
    password: t.string(password().description('Must satisfy GET /auth/password-rules.')).required(),
    name: t.string(personName().description('Name of the person registering (the owner).')).required(),
    companyName: t.string(Joi.string().trim().min(1).max(200).description('Name of the merchant tenant that is created.')).required(),
    locale: t.string(languageTag()),
    invitationToken: t.string(
      Joi.string()
        .min(16)
        .max(512)
        .description(
          "The token of a store invitation sent by the platform's sales team (its e-mailed link carries it): spent by this registration, and the tenant's first store is then linked to the sales lead. Unknown, used or expired: 400 invitation_invalid, and nothing is registered.",
        ),
    ),
  }),
);

export const RegisterPartnerDto = typedDto(
  'RegisterPartnerDto',
  t.object({
    email: t.string(email()).required(),
    password: t.string(password().description('Must satisfy GET /auth/password-rules.')).required(),
    name: t.string(personName()).required(),
    companyName: t.string(Joi.string().trim().min(1).max(200).description('Name of the partner tenant that is created.')).required(),
    website: t.string(httpUrl()),
    locale: t.string(languageTag()),
  }),
);

export const LoginDto = dto('LoginDto', Joi.object({ email: email().required(), password: password().required() }));

export const RefreshDto = dto('RefreshDto', Joi.object({ refreshToken: Joi.string().min(1).max(512).required() }));

export const VerifyEmailDto = dto('VerifyEmailDto', Joi.object({ token: emailToken().required() }));

export const ForgotPasswordDto = dto('ForgotPasswordDto', Joi.object({ email: email().required() }));

export const ResetPasswordDto = dto(
  'ResetPasswordDto',
  Joi.object({ token: emailToken().required(), password: password().required().description('Must satisfy GET /auth/password-rules.') }),
);

export const UpdateAccountProfileDto = dto(
  'UpdateAccountProfileDto',
  Joi.object({ name: personName(), locale: languageTag().allow(null).description('null clears it.') })
    .min(1)
    .messages({ 'object.min': 'give at least one of name, locale' })
    .description('Phone numbers change through POST /auth/phone/send-otp and verify-otp, not here.'),
);

export const ChangeAccountPasswordDto = dto(
  'ChangeAccountPasswordDto',
  Joi.object({
    currentPassword: password().required(),
    newPassword: password().required().description('Must satisfy GET /auth/password-rules.'),
  }),
);

// ---------------------------------------------------------------------------------------------
// Responses

export const PasswordRulesResponse = dto(
  'PasswordRulesResponse',
  Joi.object({
    minLength: int(1).required(),
    maxLength: int(1).required(),
    requireLowercase: Joi.boolean().required(),
    requireUppercase: Joi.boolean().required(),
    requireDigit: Joi.boolean().required(),
    requireSymbol: Joi.boolean().required(),
    notContainingEmail: Joi.boolean().required(),
    notCommon: Joi.boolean().required(),
    commonPasswordCount: int(0).required().description('How many passwords are on the shipped list of common passwords.'),
  }),
);

const RegistrationField = Joi.object({
  name: Joi.string().required(),
  required: Joi.boolean().required(),
  type: Joi.string().required(),
  description: Joi.string(),
});

export const RegistrationOptionsResponse = dto(
  'RegistrationOptionsResponse',
  Joi.object({
    open: Joi.boolean().required().description('Whether self-registration is open (REGISTRATION_OPEN).'),
    kinds: Joi.array()
      .items(Joi.object({ kind: oneOf(['merchant', 'partner']).required(), path: Joi.string().required() }))
      .required(),
    fields: Joi.array().items(RegistrationField).required().description('Fields of RegisterDto.'),
    partnerFields: Joi.array().items(RegistrationField).required().description('Fields of RegisterPartnerDto.'),
    passwordRules: Joi.string().required().description('Path of the password rules (GET /auth/password-rules).'),
    emailVerification: Joi.string()
      .valid('after_sign_up')
      .required()
      .description('An e-mail is sent after sign-up; signing in does not wait for it.'),
  }),
);

/**
 * One of `values`, or null. Written as alternatives because the OpenAPI generator renders
 * `valid(..., null)` as a string enum containing null, which OpenAPI linting refuses.
 */
const nullableEnum = (values: readonly string[]): Joi.AlternativesSchema => Joi.alternatives().try(oneOf(values), Joi.any().valid(null));

const TENANT_ROLES = ['owner', 'admin', 'staff'] as const;
const PLATFORM_ROLES = ['platform_admin', 'support_agent', 'sales_rep'] as const;

export const UserSummary = Joi.object({
  id: uuid().required(),
  email: Joi.string().required(),
  name: Joi.string().required(),
  locale: Joi.string().allow(null).required(),
  emailVerified: Joi.boolean().required(),
  twoFactorEnabled: Joi.boolean().required(),
  tenantId: uuid().allow(null).required(),
  tenantRole: nullableEnum(TENANT_ROLES).required(),
  platformRole: nullableEnum(PLATFORM_ROLES).required(),
  createdAt: dateTime().required(),
}).label('UserSummary');

export const TenantSummary = Joi.object({
  id: uuid().required(),
  name: Joi.string().required(),
  kind: oneOf(['merchant', 'partner', 'sandbox']).required(),
  website: Joi.string().allow(null),
  createdAt: dateTime().required(),
}).label('TenantSummary');

const tokenPairFields = {
  tokenType: Joi.string().valid('Bearer').required(),
  accessToken: Joi.string().required().description('JWT (HS256); send as `Authorization: Bearer <accessToken>`.'),
  expiresIn: int(1).required().description('Seconds until the access token expires.'),
  refreshToken: Joi.string().required().description('Opaque; single use: POST /auth/refresh returns a new one.'),
  refreshExpiresIn: int(1).required().description('Seconds until the refresh token (and its session) expires.'),
  sessionId: uuid().required(),
};

export const TokenPairResponse = dto('TokenPairResponse', Joi.object(tokenPairFields));

export const RegisterResponse = dto(
  'RegisterResponse',
  Joi.object({ ...tokenPairFields, user: UserSummary.required(), tenant: TenantSummary.required() }),
);

export const LoginResponse: NamedSchema = {
  name: 'LoginResponse',
  contentType: 'application/json',
  pending: false,
  schema: Joi.alternatives()
    .try(
      Joi.object({ ...tokenPairFields, user: UserSummary.required() }).label('LoginTokens'),
      Joi.object({
        twoFactorRequired: Joi.boolean().valid(true).required(),
        challengeToken: Joi.string().required().description('Send it with a code to POST /auth/2fa/challenge.'),
        expiresIn: int(1).required().description('Seconds the challenge token stays valid.'),
      }).label('LoginTwoFactorChallenge'),
    )
    .description('Tokens, or a two-factor challenge when the account has two-factor authentication on.')
    .label('LoginResponse'),
};

export const VerifyEmailResponse = dto(
  'VerifyEmailResponse',
  Joi.object({ verified: Joi.boolean().valid(true).required(), email: Joi.string().required() }),
);

export const AcceptedResponse = dto('AcceptedResponse', Joi.object({ accepted: Joi.boolean().valid(true).required() }));

export const ResetPasswordResponse = dto(
  'ResetPasswordResponse',
  Joi.object({
    reset: Joi.boolean().valid(true).required(),
    revokedSessions: int(0).required().description('Sessions ended by the reset (all of the account).'),
  }),
);

export const SessionItem = Joi.object({
  id: uuid().required(),
  current: Joi.boolean().required().description('True for the session of the access token making this request.'),
  ip: Joi.string().allow(null).required(),
  userAgent: Joi.string().allow(null).required(),
  method: Joi.string().required().description('How it was opened: password, two_factor, device_flow.'),
  createdAt: dateTime().required(),
  lastSeenAt: dateTime().required(),
  expiresAt: dateTime().required(),
}).label('SessionItem');

export const SessionListResponse = dto('SessionListResponse', Joi.object({ items: Joi.array().items(SessionItem).required() }));

export const RevokedSessionsResponse = dto('RevokedSessionsResponse', Joi.object({ revoked: int(0).required() }));

export const AccountResponse = dto(
  'AccountResponse',
  Joi.object({
    id: uuid().required(),
    email: Joi.string().required(),
    name: Joi.string().required(),
    locale: Joi.string().allow(null).required(),
    phone: Joi.string().allow(null).required(),
    phoneVerified: Joi.boolean().required(),
    emailVerified: Joi.boolean().required(),
    twoFactorEnabled: Joi.boolean().required(),
    tenant: Joi.object({
      id: uuid().required(),
      name: Joi.string().required(),
      kind: oneOf(['merchant', 'partner', 'sandbox']).required(),
      role: oneOf(TENANT_ROLES).required(),
    })
      .allow(null)
      .required(),
    platformRole: nullableEnum(PLATFORM_ROLES).required(),
    createdAt: dateTime().required(),
    updatedAt: dateTime().required(),
  }),
);

export const ChangePasswordResponse = dto(
  'ChangePasswordResponse',
  Joi.object({
    changed: Joi.boolean().valid(true).required(),
    revokedSessions: int(0).required().description('Other sessions ended by the change.'),
  }),
);
