/**
 * The error codes of the domain rules shared by the areas (store access, product rules, pricing):
 * each code once, with its HTTP status and what it means. Throw sites use `domainError(code,
 * detail, errors)`; the API reference lists the codes (api/error-codes.ts).
 */
import { defineErrorCodes } from '../lib/errors';

export const DOMAIN_ERRORS = defineErrorCodes('domain', {
  store_not_found: { status: 404, description: 'The store does not exist (or is archived, for public reads).' },
  store_archived: { status: 409, description: 'The store is archived; it takes no changes.' },
  api_key_not_allowed: { status: 403, description: 'API keys cannot perform this operation; sign in as a member of the tenant.' },
  insufficient_role: { status: 403, description: 'The operation needs another role in the tenant (owner or admin).' },
  invalid_currency: { status: 400, description: 'The currency is not an ISO 4217 currency code.' },
  invalid_brand: { status: 400, description: 'The brand is not a brand of the store.' },
  invalid_category: { status: 400, description: 'Some categories are not categories of the store.' },
  invalid_tag: { status: 400, description: 'Some tags are not product tags of the store.' },
  unknown_attribute: { status: 400, description: "An attribute is not an attribute of the product's categories." },
  invalid_attribute: { status: 400, description: 'Some attribute values are invalid for their attribute.' },
  missing_required_attributes: { status: 400, description: 'A published product lacks required attributes of its categories.' },
  product_not_found: { status: 404, description: 'A line names a product that does not exist in the store.' },
  variant_not_found: { status: 404, description: 'A line names a variant that does not exist for its product.' },
  mixed_currencies: { status: 400, description: 'The items are not all priced in one currency.' },
});

export const domainError = DOMAIN_ERRORS.error;
