/**
 * The error codes of the pricing area: each code once, with its HTTP status and what it means.
 * Throw sites use `pricingError(code, detail, errors)`; the API reference lists the codes
 * (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const PRICING_ERRORS = defineErrorCodes('pricing', {
  pricing_rule_not_found: { status: 404, description: 'The price rule does not exist.' },
  target_not_found: {
    status: 404,
    description: 'Some targetIds are not products, categories, brands or collections (by the scope) of the store.',
  },
  customer_not_found: { status: 404, description: 'The customer does not exist in this store.' },
});

export const pricingError = PRICING_ERRORS.error;
