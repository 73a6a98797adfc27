/**
 * The platform around the catalog: community, CRM, billing, the app store, payments and wallets,
 * integrations, client errors, support, communications, reports, notifications and marketing, in
 * the order the specification lists them.
 */
import type { RouteDef } from '../http/route';
import { appStoreRoutes } from '../app-store/app-store.routes';
import { biRoutes } from '../bi/bi.routes';
import { billingRoutes } from '../billing/billing.routes';
import { checkoutRoutes } from '../checkout/checkout.routes';
import { clientErrorsRoutes } from '../client-errors/client-errors.routes';
import { communicationsRoutes } from '../communications/communications.routes';
import { communityRoutes } from '../community/community.routes';
import { crmRoutes } from '../crm/crm.routes';
import { emailSuppressionRoutes } from '../email-suppression/email-suppression.routes';
import { marketingRoutes } from '../marketing/marketing.routes';
import { crmHandoffRoutes, onboardingPlanRoutes, supportHandoffRoutes } from '../onboarding-handoffs/handoffs.routes';
import { notificationPreferencesRoutes } from '../notification-preferences/notification-preferences.routes';
import { paymentsRoutes } from '../payments/payments.routes';
import { savedReportsRoutes } from '../saved-reports/saved-reports.routes';
import { storeIntegrationsRoutes } from '../store-integrations/store-integrations.routes';
import { storefrontCheckoutRoutes } from '../storefront-checkout/storefront-checkout.routes';
import { supportRoutes } from '../support/support.routes';
import { walletsRoutes } from '../wallets/wallets.routes';

export const platformRoutes: RouteDef[] = [
  ...communityRoutes, // 22
  ...crmRoutes, // 26
  ...crmHandoffRoutes, // 4: onboarding handoffs, sales side
  ...billingRoutes, // 24
  ...appStoreRoutes, // 13
  ...paymentsRoutes, // 6
  ...checkoutRoutes, // 4: checkout settings, storefront wallet checkout
  ...walletsRoutes, // 3
  ...storefrontCheckoutRoutes, // 5 extensions: the storefront's cart and checkout
  ...storeIntegrationsRoutes, // 7
  ...clientErrorsRoutes, // 7
  ...supportRoutes, // 15: tickets and incidents
  ...supportHandoffRoutes, // 8: onboarding handoffs, support side
  ...onboardingPlanRoutes, // 1: the merchant's onboarding plan
  ...communicationsRoutes, // 3
  ...savedReportsRoutes, // 3
  ...biRoutes, // 7
  ...notificationPreferencesRoutes, // 7
  ...marketingRoutes, // 14
  ...emailSuppressionRoutes, // 4
];
