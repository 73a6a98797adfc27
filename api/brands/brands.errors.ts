/**
 * The error codes of the brands area: each code once, with its HTTP status and what it means. Throw
 * sites use `brandsError(code, detail, errors)`; the API reference lists the codes (api/error-
 * codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const BRANDS_ERRORS = defineErrorCodes('brands', {
  brand_not_found: { status: 404, description: 'The brand does not exist.' },
  slug_taken: { status: 409, description: 'Another brand of the store has this slug.' },
});

export const brandsError = BRANDS_ERRORS.error;
