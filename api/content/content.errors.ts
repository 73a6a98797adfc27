/**
 * The error codes of the content area: each code once, with its HTTP status and what it means.
 * Throw sites use `contentError(code, detail, errors)`; the API reference lists the codes
 * (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const CONTENT_ERRORS = defineErrorCodes('content', {
  content_not_found: { status: 404, description: 'The page or post does not exist.' },
  slug_taken: { status: 409, description: 'Another page (or post) of the store has this slug.' },
  invalid_cursor: { status: 400, description: 'The cursor is not one this list returned.' },
});

export const contentError = CONTENT_ERRORS.error;
