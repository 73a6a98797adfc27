/**
 * The error codes of the sponsored-listings area: each code once, with its HTTP status and what it
 * means. Throw sites use `sponsoredListingsError(code, detail, errors)`; the API reference lists
 * the codes (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const SPONSORED_LISTINGS_ERRORS = defineErrorCodes('sponsored-listings', {
  sponsored_listing_not_found: { status: 404, description: 'The sponsored listing does not exist.' },
  product_not_found: { status: 404, description: 'The product does not exist in this store.' },
  sponsored_listing_exists: {
    status: 409,
    description: 'The product already has a sponsored listing that is not ENDED; update that one instead.',
  },
  budget_not_above_spent: { status: 409, description: 'The budget must stay above what the listing has already spent.' },
  sponsored_listing_ended: {
    status: 409,
    description: 'The listing is ENDED and would end again at once (end date passed or budget spent).',
  },
});

export const sponsoredListingsError = SPONSORED_LISTINGS_ERRORS.error;
