/**
 * The error codes of the categories area: each code once, with its HTTP status and what it means.
 * Throw sites use `categoriesError(code, detail, errors)`; the API reference lists the codes
 * (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const CATEGORIES_ERRORS = defineErrorCodes('categories', {
  category_not_found: { status: 404, description: 'The category does not exist.' },
  slug_taken: { status: 409, description: 'Another category of the store has this slug.' },
  invalid_parent: { status: 400, description: 'The parent is not a category of this store.' },
  category_cycle: { status: 400, description: 'The move, or the parents of an import, would make a category its own ancestor.' },
  category_has_children: { status: 409, description: 'The category has child categories; move or delete them first.' },
  reorder_mismatch: { status: 400, description: 'A reorder must list exactly the children of the parent, each once.' },
});

export const categoriesError = CATEGORIES_ERRORS.error;
