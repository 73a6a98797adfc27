/**
 * The error codes of partner apps (an extension of the app store: listings a partner develops, their
 * versions and development installs on sandboxes). Throw sites use `partnerAppsError(code, detail,
 * errors)`; the API reference lists the codes (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const PARTNER_APPS_ERRORS = defineErrorCodes('partner-apps', {
  partner_app_not_found: { status: 404, description: "The app does not exist or is not one of the calling partner's apps." },
  partner_app_slug_taken: { status: 409, description: 'An app listing (of the catalog or of any partner) already has this slug.' },
  partner_app_limit: { status: 409, description: 'The partner has the most apps a partner may have.' },
  app_version_not_newer: {
    status: 409,
    description: 'The version is not newer (by semantic version precedence) than the latest released version of the app.',
  },
  sandbox_token_invalid: {
    status: 422,
    description: 'The sandboxToken is not the token of a sandbox (POST /sandbox creates one), or it was revoked.',
  },
  sandbox_claimed_by_other_partner: {
    status: 409,
    description: 'The sandbox is already used for development by another partner; create a sandbox of your own.',
  },
});

export const partnerAppsError = PARTNER_APPS_ERRORS.error;
