/** Every migration in order. Add new ones at the end (file name: <unix-ms>-<what>.ts). */
import { Outbox1795000000000 } from './1795000000000-outbox';
import { Accounts1795000000001 } from './1795000000001-accounts';
import { TotpLastStep1795000000020 } from './1795000000020-totp-last-step';
import { CatalogTaxonomy1795000000100 } from './1795000000100-catalog-taxonomy';
import { Products1795000000200 } from './1795000000200-products';
import { Collections1795000000300 } from './1795000000300-collections';
import { Bundles1795000000400 } from './1795000000400-bundles';
import { SearchSynonyms1795000000500 } from './1795000000500-search-synonyms';
import { SponsoredListings1795000000600 } from './1795000000600-sponsored-listings';
import { PriceVisibilityZeroResults1795000000700 } from './1795000000700-price-visibility-zero-results';
import { ProductBulkEdits1795000000800 } from './1795000000800-product-bulk-edits';
import { VisualSearch1795000000900 } from './1795000000900-visual-search';
import { Customers1795000001000 } from './1795000001000-customers';
import { TransferJobs1795000001100 } from './1795000001100-transfer-jobs';
import { Webhooks1795000001200 } from './1795000001200-webhooks';
import { OrdersSandboxes1795000001300 } from './1795000001300-orders-sandboxes';
import { PricingFlashSales1795000001400 } from './1795000001400-pricing-flash-sales';
import { ShippingContent1795000001500 } from './1795000001500-shipping-content';
import { OutboxNotify1795000001600 } from './1795000001600-outbox-notify';
import { ProductChildKeys1795000001700 } from './1795000001700-product-child-keys';
import { ExportCursor1795000001800 } from './1795000001800-export-cursor';
import { SandboxRefreshFamilies1795000001900 } from './1795000001900-sandbox-refresh-families';
import { WeakResultsSearchReady1795000002000 } from './1795000002000-weak-results-search-ready';
import { SearchDocumentVersion1795000002100 } from './1795000002100-search-document-version';
import { SearchDocumentPriceCell1795000002200 } from './1795000002200-search-document-price-cell';
import { NotificationsOutboundDelivery1795000002250 } from './1795000002250-notifications-outbound-delivery';
import { Crm1795000002300 } from './1795000002300-crm';
import { OnboardingHandoffs1795000002400 } from './1795000002400-onboarding-handoffs';
import { SupportDesk1795000002500 } from './1795000002500-support-desk';
import { LeadInvitations1795000002600 } from './1795000002600-lead-invitations';
import { Payments1795000002700 } from './1795000002700-payments';
import { Billing1795000002800 } from './1795000002800-billing';
import { AppStoreCheckout1795000002900 } from './1795000002900-app-store-checkout';
import { StorefrontCheckout1795000003000 } from './1795000003000-storefront-checkout';
import { Messaging1795000003100 } from './1795000003100-messaging';
import { Marketing1795000003200 } from './1795000003200-marketing';
import { Insight1795000003300 } from './1795000003300-insight';
import { InsightRollups1795000003400 } from './1795000003400-insight-rollups';
import { Community1795000003500 } from './1795000003500-community';
import { ClientErrors1795000003600 } from './1795000003600-client-errors';
import { StoreIntegrations1795000003700 } from './1795000003700-store-integrations';
import { Themes1795000003800 } from './1795000003800-themes';
import { PartnerApps1795000003900 } from './1795000003900-partner-apps';
import { SearchPlacements1795000004000 } from './1795000004000-search-placements';
import { VisualRanking1795000004100 } from './1795000004100-visual-ranking';

export const migrations = [
  Outbox1795000000000,
  Accounts1795000000001,
  TotpLastStep1795000000020,
  CatalogTaxonomy1795000000100,
  Products1795000000200,
  Collections1795000000300,
  Bundles1795000000400,
  SearchSynonyms1795000000500,
  SponsoredListings1795000000600,
  PriceVisibilityZeroResults1795000000700,
  ProductBulkEdits1795000000800,
  VisualSearch1795000000900,
  Customers1795000001000,
  TransferJobs1795000001100,
  Webhooks1795000001200,
  OrdersSandboxes1795000001300,
  PricingFlashSales1795000001400,
  ShippingContent1795000001500,
  OutboxNotify1795000001600,
  ProductChildKeys1795000001700,
  ExportCursor1795000001800,
  SandboxRefreshFamilies1795000001900,
  WeakResultsSearchReady1795000002000,
  SearchDocumentVersion1795000002100,
  SearchDocumentPriceCell1795000002200,
  NotificationsOutboundDelivery1795000002250,
  Crm1795000002300,
  OnboardingHandoffs1795000002400,
  SupportDesk1795000002500,
  LeadInvitations1795000002600,
  Payments1795000002700,
  Billing1795000002800,
  AppStoreCheckout1795000002900,
  StorefrontCheckout1795000003000,
  Messaging1795000003100,
  Marketing1795000003200,
  Insight1795000003300,
  InsightRollups1795000003400,
  Community1795000003500,
  ClientErrors1795000003600,
  StoreIntegrations1795000003700,
  Themes1795000003800,
  PartnerApps1795000003900,
  SearchPlacements1795000004000,
  VisualRanking1795000004100,
];
