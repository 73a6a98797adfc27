/**
 * The error codes of the bundles area: each code once, with its HTTP status and what it means.
 * Throw sites use `bundlesError(code, detail, errors)`; the API reference lists the codes
 * (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const BUNDLES_ERRORS = defineErrorCodes('bundles', {
  bundle_not_found: { status: 404, description: 'The bundle does not exist.' },
  product_not_found: { status: 404, description: 'The product does not exist.' },
  slug_taken: { status: 409, description: 'Another bundle of the store has this slug.' },
  product_has_bundle: { status: 409, description: 'The product already sells another bundle.' },
  mixed_currency: { status: 409, description: "The bundle's items are not all priced in the store currency." },
  invalid_product: { status: 400, description: 'An item, or the bundle product, is not a (BUNDLE) product of the store.' },
  invalid_variant: { status: 400, description: 'An item names a variant that is not of its product.' },
  item_not_in_bundle: { status: 400, description: 'A quantity names a line that is not in the bundle.' },
});

export const bundlesError = BUNDLES_ERRORS.error;
