/**
 * The error codes of the shipping-rates area: each code once, with its HTTP status and what it
 * means. Throw sites use `shippingRatesError(code, detail, errors)`; the API reference lists the
 * codes (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const SHIPPING_RATES_ERRORS = defineErrorCodes('shipping-rates', {
  shipping_rate_not_found: { status: 404, description: 'The shipping rate does not exist.' },
  invalid_item: { status: 400, description: 'Some items are not published products of the store.' },
  invalid_cursor: { status: 400, description: 'The cursor is not one this list returned.' },
});

export const shippingRatesError = SHIPPING_RATES_ERRORS.error;
