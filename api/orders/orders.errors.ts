/**
 * The error codes of the orders area: each code once, with its HTTP status and what it means. Throw
 * sites use `ordersError(code, detail, errors)`; the API reference lists the codes (api/error-
 * codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const ORDERS_ERRORS = defineErrorCodes('orders', {
  order_not_found: { status: 404, description: 'The order does not exist.' },
  customer_not_found: { status: 404, description: 'The customer is not a customer of this store.' },
  variant_not_found: { status: 404, description: 'A variant is not a variant of a product of this store.' },
  product_unavailable: { status: 409, description: 'An archived product cannot be ordered.' },
  insufficient_stock: { status: 409, description: 'Not enough stock for every line; nothing was reserved.' },
  mixed_currencies: { status: 409, description: 'The products are priced in different currencies; place one order per currency.' },
});

export const ordersError = ORDERS_ERRORS.error;
