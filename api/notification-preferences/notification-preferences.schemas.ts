/** DTOs and parameters of the notification preferences area (customer opt-ins, tenant policies and digest). */
import Joi from 'joi';
import { dto } from '../http/route';
import { int, text } from '../http/schema-types';
import { t, typedDto, type InputOf } from '../http/typed-schema';
import { MESSAGE_CATEGORIES } from '../../storage/customer-messages';

export const DIGEST_FREQUENCIES = ['DAILY', 'WEEKLY', 'OFF'] as const;
export type DigestFrequency = (typeof DIGEST_FREQUENCIES)[number];

export const UpdateNotificationPreferenceDto = dto(
  'UpdateNotificationPreferenceDto',
  Joi.object({ enabled: Joi.boolean().required().description('Whether the customer receives messages of the category.') }),
);

const policy = () =>
  t.object({
    category: t.oneOf(MESSAGE_CATEGORIES).required(),
    enabled: t
      .boolean(Joi.boolean().description('false: the tenant sends no message of the category (TRANSACTIONAL cannot be turned off).'))
      .required(),
  });

export const UpsertTenantNotificationPolicyDto = typedDto('UpsertTenantNotificationPolicyDto', policy());
export type PolicyInput = InputOf<typeof UpsertTenantNotificationPolicyDto>;
export const UpsertTenantNotificationPoliciesDto = typedDto(
  'UpsertTenantNotificationPoliciesDto',
  t.object({
    policies: t
      .array(
        policy(),
        Joi.array()
          .min(1)
          .max(MESSAGE_CATEGORIES.length)
          .unique('category')
          .description('One entry per category, each category at most once; all are applied or none.'),
      )
      .required(),
  }),
);
export type PoliciesInput = InputOf<typeof UpsertTenantNotificationPoliciesDto>;

export const UpsertTenantNotificationDigestDto = typedDto(
  'UpsertTenantNotificationDigestDto',
  t.object({
    frequency: t.oneOf(DIGEST_FREQUENCIES).required(),
    hour: t.number(int(0, 23).description('The hour of the day (in timeZone) the digest is sent.')).required(),
    timeZone: t.string(text(1, 64).description('An IANA time zone name, e.g. Europe/Istanbul or UTC.')).required(),
  }),
);
export type DigestInput = InputOf<typeof UpsertTenantNotificationDigestDto>;

/**
 * `{category}`: a notification category key (for example `marketing` or `order-updates`): a letter,
 * then letters, digits, `_`, `-` or `.`; 1 to 64 characters (the specification does not type it).
 */
export const notificationCategoryParam = text(1, 64)
  .pattern(/^[A-Za-z][A-Za-z0-9_.-]*$/, 'category key')
  .required()
  .description(
    'Notification category key (a letter, then letters, digits, _, - or .; 1 to 64 characters): one of TRANSACTIONAL, ORDER_UPDATES, MARKETING, NEWSLETTER, case-insensitive, `-` for `_` accepted (404 notification_category_unknown otherwise).',
  );
