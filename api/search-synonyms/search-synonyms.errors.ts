/**
 * The error codes of the search-synonyms area: each code once, with its HTTP status and what it
 * means. Throw sites use `searchSynonymsError(code, detail, errors)`; the API reference lists the
 * codes (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const SEARCH_SYNONYMS_ERRORS = defineErrorCodes('search-synonyms', {
  search_synonym_not_found: { status: 404, description: 'The synonym rule does not exist.' },
  invalid_cursor: { status: 400, description: 'The cursor is not one this list returned.' },
});

export const searchSynonymsError = SEARCH_SYNONYMS_ERRORS.error;
