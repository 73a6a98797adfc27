/** DTOs of the e-mail suppression area (addresses that must not be e-mailed). */
import Joi from 'joi';
import { formDto } from '../http/route';
import { uuid } from '../http/schema-types';
import { t, typedDto, type InputOf } from '../http/typed-schema';

export const SUPPRESSION_REASONS = ['HARD_BOUNCE', 'COMPLAINT', 'UNSUBSCRIBE', 'MANUAL'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

export const RecordSuppressionDto = typedDto(
  'RecordSuppressionDto',
  t.object({
    email: t
      .string(
        Joi.string()
          .trim()
          .email({ tlds: false })
          .max(254)
          .description('The address (trimmed; compared lower-cased); only its SHA-256 hash and domain are kept.'),
      )
      .required(),
    reason: t.oneOf(SUPPRESSION_REASONS).required(),
    storeId: t.string(
      uuid().description(
        "The store the entry applies to (a tenant member must name one of the tenant's stores). Left out by platform staff: the entry applies platform-wide.",
      ),
    ),
  }),
);
export type RecordSuppressionInput = InputOf<typeof RecordSuppressionDto>;

/** The unsubscribe page's form post. */
export const UnsubscribeFormDto = formDto(
  'UnsubscribeFormDto',
  Joi.object({ token: Joi.string().min(10).max(1000).required().description('The signed token of the unsubscribe link.') }),
);
