/**
 * Every error code of the API in one list, generated from the registries that define them (each code
 * once, with its status and meaning: lib/errors.ts defineErrorCodes). The OpenAPI document carries
 * the list (`x-error-codes`, and a table in its description shown by GET /docs), and
 * docs/error-codes.md is this list as written by `npm run error-codes -- --write`
 * (test/unit/error-codes.test.ts fails when it is out of date, or when a registry is missing here).
 */
import { COMMON_ERRORS, type ErrorCodeRow, type ErrorRegistry } from '../lib/errors';
import { DOMAIN_ERRORS } from '../domain/domain.errors';
import { HTTP_ERRORS } from './http/http.errors';
import { API_KEYS_ERRORS } from './api-keys/api-keys.errors';
import { APP_STORE_ERRORS } from './app-store/app-store.errors';
import { PARTNER_APPS_ERRORS } from './app-store/partner-apps.errors';
import { WEBHOOK_FORWARDING_ERRORS } from './webhooks/webhook-forwarding.errors';
import { AUDIT_LOG_ERRORS } from './audit-log/audit-log.errors';
import { AUTH_ERRORS } from './auth/auth.errors';
import { BILLING_ERRORS } from './billing/billing.errors';
import { BI_ERRORS } from './bi/bi.errors';
import { BRANDS_ERRORS } from './brands/brands.errors';
import { BUNDLES_ERRORS } from './bundles/bundles.errors';
import { CATEGORIES_ERRORS } from './categories/categories.errors';
import { CHECKOUT_ERRORS } from './checkout/checkout.errors';
import { CLIENT_ERRORS_ERRORS } from './client-errors/client-errors.errors';
import { COLLECTIONS_ERRORS } from './collections/collections.errors';
import { COMMUNITY_ERRORS } from './community/community.errors';
import { CONTENT_ERRORS } from './content/content.errors';
import { CRM_ERRORS } from './crm/crm.errors';
import { MARKETING_ERRORS } from './marketing/marketing.errors';
import { FLASH_SALES_ERRORS } from './flash-sales/flash-sales.errors';
import { IMPORTS_ERRORS } from './imports/imports.errors';
import { JOBS_ERRORS } from './jobs/jobs.errors';
import { HANDOFFS_ERRORS } from './onboarding-handoffs/handoffs.errors';
import { ORDERS_ERRORS } from './orders/orders.errors';
import { ORGANIZATION_ERRORS } from './organization/organization.errors';
import { PAYMENTS_ERRORS } from './payments/payments.errors';
import { IDEMPOTENCY_ERRORS } from '../storage/idempotency.errors';
import { PRICING_ERRORS } from './pricing/pricing.errors';
import { PRODUCT_BULK_EDITS_ERRORS } from './product-bulk-edits/product-bulk-edits.errors';
import { PRODUCT_RELATIONS_ERRORS } from './product-relations/product-relations.errors';
import { PRODUCT_TAGS_ERRORS } from './product-tags/product-tags.errors';
import { PRODUCTS_ERRORS } from './products/products.errors';
import { SANDBOX_ERRORS } from './sandbox/sandbox.errors';
import { SAVED_REPORTS_ERRORS } from './saved-reports/saved-reports.errors';
import { SEARCH_SYNONYMS_ERRORS } from './search-synonyms/search-synonyms.errors';
import { SHIPPING_RATES_ERRORS } from './shipping-rates/shipping-rates.errors';
import { SPONSORED_LISTINGS_ERRORS } from './sponsored-listings/sponsored-listings.errors';
import { STOREFRONT_ERRORS } from './storefront/storefront.errors';
import { STOREFRONT_CHECKOUT_ERRORS } from './storefront-checkout/storefront-checkout.errors';
import { STORE_INTEGRATIONS_ERRORS } from './store-integrations/store-integrations.errors';
import { SUPPORT_ERRORS } from './support/support.errors';
import { VISUAL_SEARCH_ERRORS } from './visual-search/visual-search.errors';
import { WEBHOOKS_ERRORS } from './webhooks/webhooks.errors';
import { EMAIL_SUPPRESSION_ERRORS } from './email-suppression/email-suppression.errors';
import { NOTIFICATION_PREFERENCES_ERRORS } from './notification-preferences/notification-preferences.errors';
import { COMMUNICATIONS_ERRORS } from './communications/communications.errors';
import { THEMES_ERRORS } from './themes/themes.errors';

/** Every registry: the shared ones first (common, http, domain), then the API areas by name. */
export const ERROR_REGISTRIES: readonly ErrorRegistry[] = [
  COMMON_ERRORS,
  HTTP_ERRORS,
  DOMAIN_ERRORS,
  API_KEYS_ERRORS,
  APP_STORE_ERRORS,
  PARTNER_APPS_ERRORS,
  WEBHOOK_FORWARDING_ERRORS,
  AUDIT_LOG_ERRORS,
  AUTH_ERRORS,
  BILLING_ERRORS,
  BI_ERRORS,
  BRANDS_ERRORS,
  BUNDLES_ERRORS,
  CATEGORIES_ERRORS,
  CHECKOUT_ERRORS,
  CLIENT_ERRORS_ERRORS,
  COLLECTIONS_ERRORS,
  COMMUNITY_ERRORS,
  CONTENT_ERRORS,
  CRM_ERRORS,
  MARKETING_ERRORS,
  FLASH_SALES_ERRORS,
  IMPORTS_ERRORS,
  JOBS_ERRORS,
  HANDOFFS_ERRORS,
  ORDERS_ERRORS,
  ORGANIZATION_ERRORS,
  PAYMENTS_ERRORS,
  IDEMPOTENCY_ERRORS,
  PRICING_ERRORS,
  PRODUCT_BULK_EDITS_ERRORS,
  PRODUCT_RELATIONS_ERRORS,
  PRODUCT_TAGS_ERRORS,
  PRODUCTS_ERRORS,
  SANDBOX_ERRORS,
  SAVED_REPORTS_ERRORS,
  SEARCH_SYNONYMS_ERRORS,
  SHIPPING_RATES_ERRORS,
  SPONSORED_LISTINGS_ERRORS,
  STOREFRONT_ERRORS,
  STOREFRONT_CHECKOUT_ERRORS,
  STORE_INTEGRATIONS_ERRORS,
  SUPPORT_ERRORS,
  VISUAL_SEARCH_ERRORS,
  WEBHOOKS_ERRORS,
  EMAIL_SUPPRESSION_ERRORS,
  NOTIFICATION_PREFERENCES_ERRORS,
  COMMUNICATIONS_ERRORS,
  THEMES_ERRORS,
];

/** The list: one row per code and status of each registry, in registry order. */
export function errorCodeList(registries: readonly ErrorRegistry[] = ERROR_REGISTRIES): ErrorCodeRow[] {
  return registries.flatMap((registry) => registry.rows());
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The list as a Markdown table (code, status, area, meaning). */
export function errorCodeTable(rows: readonly ErrorCodeRow[] = errorCodeList()): string {
  const lines = ['| Code | Status | Area | Meaning |', '| --- | --- | --- | --- |'];
  for (const row of rows) lines.push(`| \`${row.code}\` | ${row.status} ${row.title} | ${row.area} | ${cell(row.description)} |`);
  return lines.join('\n');
}
