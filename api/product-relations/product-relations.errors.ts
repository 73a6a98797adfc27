/**
 * The error codes of the product-relations area: each code once, with its HTTP status and what it
 * means. Throw sites use `productRelationsError(code, detail, errors)`; the API reference lists the
 * codes (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const PRODUCT_RELATIONS_ERRORS = defineErrorCodes('product-relations', {
  product_not_found: { status: 404, description: 'The product does not exist.' },
  product_relation_not_found: { status: 404, description: 'The product relation does not exist.' },
  invalid_related_product: { status: 400, description: 'The related product is not another product of the same store.' },
  too_many_relations: { status: 409, description: 'The product already has the most relations of this kind it may have.' },
  reorder_mismatch: { status: 400, description: "A reorder must list exactly the product's relations of the kind, each once." },
});

export const productRelationsError = PRODUCT_RELATIONS_ERRORS.error;
