/** Response schemas of the e-mail suppression area. */
import Joi from 'joi';
import { dto, htmlDocument } from '../http/route';
import { SUPPRESSION_REASONS } from './email-suppression.schemas';

const Entry = Joi.object({
  id: Joi.string().required(),
  storeId: Joi.string().allow(null).required(),
  appliesPlatform: Joi.boolean().required(),
  emailHash: Joi.string().hex().length(64).required(),
  emailDomain: Joi.string().required(),
  reason: Joi.string()
    .valid(...SUPPRESSION_REASONS)
    .required(),
  createdAt: Joi.string().isoDate().required(),
}).label('SuppressionEntry');

export const SuppressionEntryResponse = dto('SuppressionEntryResponse', Entry);
export const SuppressionEntryListResponse = dto('SuppressionEntryListResponse', Joi.object({ items: Joi.array().items(Entry).required() }));

const reasonCounts = Joi.object(Object.fromEntries(SUPPRESSION_REASONS.map((r) => [r, Joi.number().integer().min(0).required()])));

export const SuppressionOverviewResponse = dto(
  'SuppressionOverviewResponse',
  Joi.object({
    storeId: Joi.string().required(),
    periodDays: Joi.number().integer().valid(30).required(),
    total: Joi.number().integer().min(0).required().description('Entries of the store recorded in the period.'),
    byReason: reasonCounts.required(),
    allTime: Joi.number().integer().min(0).required().description('All entries of the store.'),
  }),
);

export const SuppressionCheckResponse = dto(
  'SuppressionCheckResponse',
  Joi.object({
    emailHash: Joi.string().hex().length(64).required(),
    suppressed: Joi.boolean().required().description('Suppressed platform-wide or for at least one of the caller’s stores.'),
    appliesPlatform: Joi.boolean().required(),
    storeIds: Joi.array().items(Joi.string()).required().description('The caller’s stores that suppress the address.'),
  }),
);

export const UnsubscribePage = htmlDocument('UnsubscribePage', 'A small page: the confirmation form, or the confirmation.');
