/**
 * The error codes of the app store area: each code once, with its HTTP status and what it means.
 * Throw sites use `appStoreError(code, detail, errors)`; the API reference lists the codes (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const APP_STORE_ERRORS = defineErrorCodes('app-store', {
  app_listing_not_found: { status: 404, description: 'The app listing does not exist or is not published.' },
  app_purchase_not_found: { status: 404, description: 'The app purchase does not exist (or belongs to another tenant).' },
  app_purchase_required: {
    status: 409,
    description: 'The app is paid: enabling it needs a PAID purchase for the store that still covers today (POST …/purchase, then …/pay).',
  },
  app_is_free: { status: 409, description: 'The app is free: enable it directly, there is nothing to purchase.' },
  app_already_purchased: { status: 409, description: 'The store already has a PAID purchase of this app that still covers today.' },
  app_purchase_state_refused: {
    status: 409,
    description: 'The purchase cannot do this in its current status (docs/app-store.md, "Purchase states").',
  },
  payment_provider_unknown: {
    status: 404,
    description: 'The {provider} of the path is not one of the payment providers (iyzico, stripe, adyen).',
  },
  three_ds_page_not_found: { status: 404, description: 'The 3-D Secure page does not exist or the challenge is no longer waiting.' },
});

export const appStoreError = APP_STORE_ERRORS.error;
