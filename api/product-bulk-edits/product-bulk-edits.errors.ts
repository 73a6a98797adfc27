/**
 * The error codes of the product-bulk-edits area: each code once, with its HTTP status and what it
 * means. Throw sites use `productBulkEditsError(code, detail, errors)`; the API reference lists the
 * codes (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const PRODUCT_BULK_EDITS_ERRORS = defineErrorCodes('product-bulk-edits', {
  bulk_edit_not_found: { status: 404, description: 'The bulk edit does not exist.' },
  product_not_found: { status: 404, description: 'A product of the bulk edit no longer exists.' },
  invalid_product: { status: 400, description: 'Some product ids are not products of the store; nothing was changed.' },
  invalid_category: { status: 400, description: 'The category is not a category of the store.' },
  too_many_tags: { status: 400, description: 'The edit would give a product more tags than it may hold.' },
  negative_price: { status: 400, description: 'The price change would make a price negative.' },
  price_too_high: { status: 400, description: 'The price change would make a price larger than the maximum.' },
  compare_at_below_price: { status: 400, description: 'The change would put a price above its compare-at price.' },
  changed_since_edit: { status: 409, description: 'A product changed after the bulk edit, so it was not reverted.' },
  bulk_edit_conflict: {
    status: 409,
    description: 'Products changed after the bulk edit; the problem lists them in productIds and errors, and nothing was reverted.',
  },
  bulk_edit_running: { status: 409, description: 'The bulk edit is still running; revert it once it has finished.' },
  not_revertible: { status: 409, description: 'A revert cannot be reverted.' },
  already_reverted: { status: 409, description: 'The bulk edit was already reverted.' },
  nothing_to_revert: { status: 409, description: 'The bulk edit changed no product; there is nothing to revert.' },
});

export const productBulkEditsError = PRODUCT_BULK_EDITS_ERRORS.error;
