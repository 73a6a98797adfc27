/**
 * Every operation of the specification, gathered from the area route tables. The router, the
 * OpenAPI document and the route-table fixture test all read this one list.
 */
import type { RouteDef } from '../http/route';
import { importExtensionOperationIds, importRoutes } from '../imports/imports.routes';
import { orderExtensionOperationIds, orderRoutes } from '../orders/orders.routes';
import { paymentExtensionOperationIds } from '../payments/payments.routes';
import { sandboxExtensionOperationIds, sandboxRoutes } from '../sandbox/sandbox.routes';
import { searchSynonymExtensionOperationIds } from '../search-synonyms/search-synonyms.routes';
import { storefrontCheckoutExtensionOperationIds } from '../storefront-checkout/storefront-checkout.routes';
import { emailSuppressionExtensionOperationIds } from '../email-suppression/email-suppression.routes';
import { storeIntegrationExtensionOperationIds } from '../store-integrations/store-integrations.routes';
import { themeExtensionOperationIds } from '../themes/themes.routes';
import { partnerAppExtensionOperationIds } from '../app-store/partner-apps.routes';
import { webhookExtensionOperationIds, webhookRoutes } from '../webhooks/webhooks.routes';
import { visualSearchExtensionOperationIds } from '../visual-search/visual-search.routes';
import { accountRoutes } from './accounts';
import { catalogRoutes } from './catalog';
import { merchandisingRoutes } from './merchandising';
import { platformRoutes } from './platform';

/** Integration: orders a client pushes, webhook tests, bulk import and export, the sandbox. */
const integrationRoutes: RouteDef[] = [...orderRoutes, ...webhookRoutes, ...importRoutes, ...sandboxRoutes];

/** In the order the specification lists the operations (the route-table test compares it). */
export const allRoutes: RouteDef[] = [...integrationRoutes, ...accountRoutes, ...catalogRoutes, ...merchandisingRoutes, ...platformRoutes];

/**
 * Operations beyond the specification's listing (extensions such as the progress of an import job);
 * each says "Extension" in its description. The route-table and OpenAPI tests allow exactly these.
 */
export const extensionOperationIds: ReadonlySet<string> = new Set<string>([
  ...importExtensionOperationIds,
  ...webhookExtensionOperationIds,
  ...orderExtensionOperationIds,
  ...sandboxExtensionOperationIds,
  ...paymentExtensionOperationIds,
  ...searchSynonymExtensionOperationIds,
  ...storefrontCheckoutExtensionOperationIds,
  ...emailSuppressionExtensionOperationIds,
  ...storeIntegrationExtensionOperationIds,
  ...themeExtensionOperationIds,
  ...partnerAppExtensionOperationIds,
  ...visualSearchExtensionOperationIds,
]);
