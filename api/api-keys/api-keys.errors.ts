/**
 * The error codes of the api-keys area: each code once, with its HTTP status and what it means.
 * Throw sites use `apiKeysError(code, detail, errors)`; the API reference lists the codes
 * (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const API_KEYS_ERRORS = defineErrorCodes('api-keys', {
  api_key_not_found: { status: 404, description: "The API key does not exist in the caller's tenant." },
});

export const apiKeysError = API_KEYS_ERRORS.error;
