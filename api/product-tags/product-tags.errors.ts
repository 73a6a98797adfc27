/**
 * The error codes of the product-tags area: each code once, with its HTTP status and what it means.
 * Throw sites use `productTagsError(code, detail, errors)`; the API reference lists the codes
 * (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const PRODUCT_TAGS_ERRORS = defineErrorCodes('product-tags', {
  product_tag_not_found: { status: 404, description: 'The product tag does not exist.' },
  product_not_found: { status: 404, description: 'The product does not exist.' },
  slug_taken: { status: 409, description: 'Another tag of the store has this slug.' },
  invalid_product: { status: 400, description: "Some products are not products of the tag's store." },
  assignment_not_found: { status: 404, description: 'The tag is not assigned to this product.' },
});

export const productTagsError = PRODUCT_TAGS_ERRORS.error;
