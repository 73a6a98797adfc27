/**
 * The error codes of the flash-sales area: each code once, with its HTTP status and what it means.
 * Throw sites use `flashSalesError(code, detail, errors)`; the API reference lists the codes
 * (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const FLASH_SALES_ERRORS = defineErrorCodes('flash-sales', {
  flash_sale_not_found: { status: 404, description: 'The flash sale campaign does not exist.' },
  slug_taken: { status: 409, description: 'Another flash sale campaign of the store has this slug.' },
  flash_sale_archived: { status: 409, description: 'The flash sale campaign is archived; it takes no changes.' },
  flash_sale_sold_out: {
    status: 409,
    description: 'The flash sale has not enough units left at its price for a line; price the cart again.',
  },
  product_not_found: { status: 404, description: 'A product of the campaign is not a product of the store.' },
  category_not_found: { status: 404, description: 'A category of the campaign is not a category of the store.' },
});

export const flashSalesError = FLASH_SALES_ERRORS.error;
