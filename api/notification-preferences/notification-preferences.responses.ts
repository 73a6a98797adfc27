/** Response schemas of the notification preferences area. */
import Joi from 'joi';
import { dto } from '../http/route';
import { MESSAGE_CATEGORIES } from '../../storage/customer-messages';
import { DIGEST_FREQUENCIES } from './notification-preferences.schemas';

const category = () =>
  Joi.string()
    .valid(...MESSAGE_CATEGORIES)
    .required();

const CustomerPreference = Joi.object({
  category: category(),
  enabled: Joi.boolean().required().description("The customer's choice (true when never set; always true for TRANSACTIONAL)."),
  explicit: Joi.boolean().required().description('Whether the customer (or the merchant for them) set it.'),
  locked: Joi.boolean().required().description('TRANSACTIONAL: cannot be turned off.'),
  tenantPolicyEnabled: Joi.boolean().required(),
  effective: Joi.boolean().required().description('Whether messages of the category reach the customer (preference and tenant policy).'),
}).label('CustomerNotificationPreference');

export const CustomerPreferencesResponse = dto(
  'CustomerPreferencesResponse',
  Joi.object({
    customerId: Joi.string().required(),
    storeId: Joi.string().required(),
    preferences: Joi.array().items(CustomerPreference).required(),
  }),
);

const Policy = Joi.object({
  category: category(),
  enabled: Joi.boolean().required(),
  updatedAt: Joi.string().isoDate().allow(null).required().description('null: never set (enabled by default).'),
}).label('TenantNotificationPolicy');

export const TenantPolicyResponse = dto('TenantPolicyResponse', Policy);
export const TenantPolicyListResponse = dto('TenantPolicyListResponse', Joi.object({ items: Joi.array().items(Policy).required() }));

export const TenantDigestResponse = dto(
  'TenantDigestResponse',
  Joi.object({
    frequency: Joi.string()
      .valid(...DIGEST_FREQUENCIES)
      .required(),
    hour: Joi.number().integer().min(0).max(23).required(),
    timeZone: Joi.string().required(),
    lastPeriod: Joi.string().allow(null).required().description('The last period a digest was sent for (a date, or a week start).'),
    updatedAt: Joi.string().isoDate().allow(null).required(),
  }),
);
