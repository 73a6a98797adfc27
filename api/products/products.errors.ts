/**
 * The error codes of the products area: each code once, with its HTTP status and what it means.
 * Throw sites use `productsError(code, detail, errors)`; the API reference lists the codes
 * (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const PRODUCTS_ERRORS = defineErrorCodes('products', {
  product_not_found: { status: 404, description: 'The product does not exist.' },
  slug_taken: { status: 409, description: 'Another product of the store has this slug.' },
  sku_taken: { status: 409, description: 'A SKU is already used in the store.' },
  compare_at_below_price: { status: 400, description: 'A compare-at price is below its price.' },
  invalid_variant: { status: 400, description: 'Some variant ids are not variants of this product.' },
  invalid_cursor: { status: 400, description: 'The cursor is not one this list returned, or was made for another sort.' },
  invalid_range: { status: 400, description: 'A range filter has its minimum above its maximum.' },
});

export const productsError = PRODUCTS_ERRORS.error;
