/**
 * The error codes of the storefront area: each code once, with its HTTP status and what it means.
 * Throw sites use `storefrontError(code, detail, errors)`; the API reference lists the codes
 * (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const STOREFRONT_ERRORS = defineErrorCodes('storefront', {
  product_not_found: { status: 404, description: 'The product does not exist in the store, or is not published.' },
  category_not_found: { status: 404, description: 'The category does not exist in the store, or is not active.' },
  brand_not_found: { status: 404, description: 'The brand does not exist in the store, or is not active.' },
  collection_not_found: { status: 404, description: 'The collection does not exist in the store, or is not active.' },
  bundle_not_found: { status: 404, description: 'The bundle does not exist in the store, or is not active.' },
  invalid_cursor: { status: 400, description: 'The cursor is not one this feed returned.' },
});

export const storefrontError = STOREFRONT_ERRORS.error;
