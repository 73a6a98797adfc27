/** Every entity, listed explicitly so the data source never depends on file globs (src vs dist). */
import { ApiKey } from './api-key.entity';
import { AuditEntry } from './audit-entry.entity';
import { Brand } from './brand.entity';
import { Bundle, BundleItem } from './bundle.entity';
import { Category } from './category.entity';
import { Collection, CollectionItem } from './collection.entity';
import { CategoryAttribute } from './category-attribute.entity';
import { FilterConfig } from './filter-config.entity';
import {
  Product,
  ProductCategory,
  ProductImage,
  ProductRelation,
  ProductTag,
  ProductTagAssignment,
  ProductVariant,
} from './product.entity';
import { DeviceCode } from './device-code.entity';
import { OneTimeToken } from './one-time-token.entity';
import { OutboundMessage } from './outbound-message.entity';
import { MerchantNotification } from './merchant-notification.entity';
import { SupportTicket, TicketMessage } from './support-ticket.entity';
import { IncidentBroadcastRecipient, IncidentUpdate, SupportIncident } from './support-incident.entity';
import { OnboardingHandoff, OnboardingHandoffTask } from './onboarding-handoff.entity';
import { OutboxMessage } from './outbox-message.entity';
import { PhoneOtp } from './phone-otp.entity';
import { RefreshToken } from './refresh-token.entity';
import { Session } from './session.entity';
import { Store } from './store.entity';
import { Tenant } from './tenant.entity';
import { User } from './user.entity';
import { SearchSynonym } from './search-synonym.entity';
import { SponsoredListing } from './sponsored-listing.entity';
import { ProductImageVector, VisualSearchCalibration, VisualSearchSettings } from './product-image-vector.entity';
import { ProductBulkEdit, ProductBulkEditItem } from './product-bulk-edit.entity';
import { Customer } from './customer.entity';
import { TransferJob, TransferJobChunk, TransferJobError } from './transfer-job.entity';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { WebhookAttempt, WebhookDelivery } from './webhook-delivery.entity';
import { Order, OrderItem } from './order.entity';
import { Sandbox, SandboxRefreshToken } from './sandbox.entity';
import { PricingRule } from './pricing-rule.entity';
import { FlashSaleCampaign, FlashSaleItem } from './flash-sale.entity';
import { ShippingRate } from './shipping-rate.entity';
import { ContentEntry } from './content-entry.entity';
import { Lead, LeadActivity, LeadPlanRequest, LeadStageChange } from './lead.entity';
import { AppListing, AppPurchase, StoreAppEntitlement } from './app-store.entity';
import { CheckoutSettings, WalletConfig, WalletDomainVerification } from './checkout-settings.entity';
import {
  CustomerNotificationPreference,
  EmailSuppressionEntry,
  TenantNotificationDigest,
  TenantNotificationPolicy,
} from './messaging.entity';

export const entities = [
  OutboxMessage,
  Tenant,
  User,
  Session,
  RefreshToken,
  OneTimeToken,
  PhoneOtp,
  DeviceCode,
  Store,
  ApiKey,
  AuditEntry,
  OutboundMessage,
  MerchantNotification,
  SupportTicket,
  TicketMessage,
  SupportIncident,
  IncidentUpdate,
  IncidentBroadcastRecipient,
  OnboardingHandoff,
  OnboardingHandoffTask,
  Category,
  CategoryAttribute,
  Brand,
  FilterConfig,
  Product,
  ProductVariant,
  ProductImage,
  ProductCategory,
  ProductTag,
  ProductTagAssignment,
  ProductRelation,
  Collection,
  CollectionItem,
  Bundle,
  BundleItem,
  SearchSynonym,
  SponsoredListing,
  VisualSearchSettings,
  ProductImageVector,
  VisualSearchCalibration,
  ProductBulkEdit,
  ProductBulkEditItem,
  Customer,
  TransferJob,
  TransferJobError,
  TransferJobChunk,
  Order,
  OrderItem,
  Sandbox,
  SandboxRefreshToken,
  PricingRule,
  FlashSaleCampaign,
  FlashSaleItem,
  ShippingRate,
  ContentEntry,
  WebhookEndpoint,
  WebhookDelivery,
  WebhookAttempt,
  Lead,
  LeadStageChange,
  LeadActivity,
  LeadPlanRequest,
  AppListing,
  AppPurchase,
  StoreAppEntitlement,
  CheckoutSettings,
  WalletConfig,
  WalletDomainVerification,
  EmailSuppressionEntry,
  CustomerNotificationPreference,
  TenantNotificationPolicy,
  TenantNotificationDigest,
];
export {
  ApiKey,
  AuditEntry,
  Brand,
  Category,
  CategoryAttribute,
  Collection,
  CollectionItem,
  FilterConfig,
  Product,
  ProductCategory,
  ProductImage,
  ProductRelation,
  ProductTag,
  ProductTagAssignment,
  ProductVariant,
  DeviceCode,
  OneTimeToken,
  OutboundMessage,
  MerchantNotification,
  SupportTicket,
  TicketMessage,
  SupportIncident,
  IncidentUpdate,
  IncidentBroadcastRecipient,
  OnboardingHandoff,
  OnboardingHandoffTask,
  OutboxMessage,
  PhoneOtp,
  RefreshToken,
  Session,
  Store,
  Tenant,
  User,
  Bundle,
  BundleItem,
  SearchSynonym,
  SponsoredListing,
  VisualSearchSettings,
  ProductImageVector,
  VisualSearchCalibration,
  ProductBulkEdit,
  ProductBulkEditItem,
  Customer,
  TransferJob,
  TransferJobError,
  TransferJobChunk,
  Order,
  OrderItem,
  Sandbox,
  SandboxRefreshToken,
  PricingRule,
  FlashSaleCampaign,
  FlashSaleItem,
  ShippingRate,
  ContentEntry,
  WebhookEndpoint,
  WebhookDelivery,
  WebhookAttempt,
  Lead,
  LeadStageChange,
  LeadActivity,
  LeadPlanRequest,
  AppListing,
  AppPurchase,
  StoreAppEntitlement,
  CheckoutSettings,
  WalletConfig,
  WalletDomainVerification,
  EmailSuppressionEntry,
  CustomerNotificationPreference,
  TenantNotificationPolicy,
  TenantNotificationDigest,
};
