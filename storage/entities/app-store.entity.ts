import { Column, Entity, PrimaryColumn } from 'typeorm';

export const APP_PRICING_TYPES = ['FREE', 'ONE_TIME', 'MONTHLY'] as const;
export type AppPricingType = (typeof APP_PRICING_TYPES)[number];

export const APP_PURCHASE_STATUSES = ['PENDING', 'CHALLENGE_REQUIRED', 'PAID', 'FAILED', 'REFUNDED'] as const;
export type AppPurchaseStatus = (typeof APP_PURCHASE_STATUSES)[number];

/** An app of the platform's catalog (no tenant: the platform manages it). Price numeric, read as decimal text. */
@Entity({ name: 'app_listings' })
export class AppListing {
  @PrimaryColumn('uuid') id!: string;
  @Column('text') slug!: string;
  @Column('text') name!: string;
  @Column('text') summary!: string;
  @Column('text') description!: string;
  @Column('text') category!: string;
  @Column('text', { name: 'pricing_type' }) pricingType!: AppPricingType;
  @Column('numeric', { precision: 14, scale: 4 }) price!: string;
  @Column('char', { length: 3 }) currency!: string;
  @Column('text') developer!: string;
  @Column('text', { name: 'icon_path' }) iconPath!: string;
  @Column('text', { array: true }) scopes!: string[];
  @Column('boolean') published!: boolean;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
}

/** A purchase of a paid app for a store, and the state of its payment. */
@Entity({ name: 'app_purchases' })
export class AppPurchase {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  @Column('uuid', { name: 'listing_id' }) listingId!: string;
  @Column('text') status!: AppPurchaseStatus;
  @Column('numeric', { precision: 14, scale: 4 }) amount!: string;
  @Column('char', { length: 3 }) currency!: string;
  @Column('text', { nullable: true }) provider!: string | null;
  @Column('text', { name: 'provider_payment_id', nullable: true }) providerPaymentId!: string | null;
  @Column('integer', { nullable: true }) installments!: number | null;
  @Column('text', { name: 'card_brand', nullable: true }) cardBrand!: string | null;
  @Column('text', { name: 'card_last4', nullable: true }) cardLast4!: string | null;
  @Column('text', { name: 'decline_code', nullable: true }) declineCode!: string | null;
  @Column('text', { name: 'failure_message', nullable: true }) failureMessage!: string | null;
  @Column('text', { name: 'three_ds_token', nullable: true }) threeDsToken!: string | null;
  @Column('text', { name: 'challenge_url', nullable: true }) challengeUrl!: string | null;
  @Column('timestamptz', { name: 'challenge_expires_at', nullable: true }) challengeExpiresAt!: Date | null;
  @Column('timestamptz', { name: 'paid_at', nullable: true }) paidAt!: Date | null;
  @Column('timestamptz', { name: 'paid_through', nullable: true }) paidThrough!: Date | null;
  @Column('uuid', { name: 'created_by', nullable: true }) createdBy!: string | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}

/** Whether a store has an app enabled; kept (disabled) when the app is turned off. */
@Entity({ name: 'store_app_entitlements' })
export class StoreAppEntitlement {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  @Column('uuid', { name: 'listing_id' }) listingId!: string;
  @Column('boolean') enabled!: boolean;
  @Column('uuid', { name: 'purchase_id', nullable: true }) purchaseId!: string | null;
  @Column('timestamptz', { name: 'enabled_at', nullable: true }) enabledAt!: Date | null;
  @Column('timestamptz', { name: 'disabled_at', nullable: true }) disabledAt!: Date | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}
