/**
 * The error codes of the store integrations area: each code once, with its HTTP status and what it
 * means. Throw sites use `storeIntegrationsError(code, detail, errors)`; the API reference lists the
 * codes (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const STORE_INTEGRATIONS_ERRORS = defineErrorCodes('store-integrations', {
  integration_not_found: { status: 404, description: 'The catalog has no integration with this slug.' },
  store_integration_not_found: {
    status: 404,
    description: 'The connected integration does not exist (or belongs to another tenant, or to another store than the API key’s).',
  },
  store_integration_settings_invalid: {
    status: 400,
    description:
      'The settings do not match the integration’s settings schema (GET /store-integrations/catalog): an unknown key, a missing required or secret field, or a value of the wrong type, pattern or length.',
  },
  store_integration_disabled: {
    status: 409,
    description: 'A disabled integration cannot be made the default of its kind; enable it first.',
  },
  product_feed_not_found: {
    status: 404,
    description:
      'No product feed here: the store or the integration does not exist, the integration is disabled or disconnected, it is not a product feed, or the feed is private and the token is missing or wrong.',
  },
});

export const storeIntegrationsError = STORE_INTEGRATIONS_ERRORS.error;
