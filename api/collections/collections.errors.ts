/**
 * The error codes of the collections area: each code once, with its HTTP status and what it means.
 * Throw sites use `collectionsError(code, detail, errors)`; the API reference lists the codes
 * (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const COLLECTIONS_ERRORS = defineErrorCodes('collections', {
  collection_not_found: { status: 404, description: 'The collection does not exist.' },
  slug_taken: { status: 409, description: 'Another collection of the store has this slug.' },
  reorder_mismatch: { status: 400, description: 'A reorder must list exactly the collections of the store, each once.' },
  invalid_product: { status: 400, description: "Some products are not products of the collection's store." },
});

export const collectionsError = COLLECTIONS_ERRORS.error;
