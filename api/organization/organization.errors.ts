/**
 * The error codes of the organization area: each code once, with its HTTP status and what it means.
 * Throw sites use `organizationError(code, detail, errors)`; the API reference lists the codes
 * (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const ORGANIZATION_ERRORS = defineErrorCodes('organization', {
  tenant_not_found: { status: 404, description: 'The tenant does not exist.' },
  slug_taken: { status: 409, description: 'The slug is already taken; GET /organization/public/check-slug suggests a free one.' },
  slug_reserved: { status: 400, description: 'The slug is a reserved word.' },
  default_store_exists: { status: 409, description: 'The tenant already has a default store.' },
  default_store_in_use: { status: 409, description: 'The default store cannot be archived while the tenant has other active stores.' },
});

export const organizationError = ORGANIZATION_ERRORS.error;
