import { Column, Entity, PrimaryColumn } from 'typeorm';

export const THREE_DS_POLICIES = ['ALWAYS', 'RISK_BASED', 'NEVER'] as const;
export type ThreeDsPolicy = (typeof THREE_DS_POLICIES)[number];

/** The checkout settings of a store (one row per store; none saved: the defaults of api/checkout). */
@Entity({ name: 'checkout_settings' })
export class CheckoutSettings {
  @PrimaryColumn('uuid', { name: 'store_id' }) storeId!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('text', { name: 'enabled_providers', array: true }) enabledProviders!: string[];
  @Column('text', { name: 'default_provider', nullable: true }) defaultProvider!: string | null;
  @Column('text', { name: 'three_ds_policy' }) threeDsPolicy!: ThreeDsPolicy;
  @Column('boolean', { name: 'installments_enabled' }) installmentsEnabled!: boolean;
  @Column('integer', { name: 'installments_max_count' }) installmentsMaxCount!: number;
  @Column('numeric', { name: 'installments_min_amount', precision: 14, scale: 4 }) installmentsMinAmount!: string;
  @Column('boolean', { name: 'guest_checkout' }) guestCheckout!: boolean;
  @Column('boolean', { name: 'require_phone' }) requirePhone!: boolean;
  @Column('text', { name: 'terms_url', nullable: true }) termsUrl!: string | null;
  @Column('text', { name: 'terms_text', nullable: true }) termsText!: string | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}

/** A store's configuration of one wallet provider, with the domain association content it serves. */
@Entity({ name: 'wallet_configs' })
export class WalletConfig {
  @PrimaryColumn('uuid', { name: 'store_id' }) storeId!: string;
  @PrimaryColumn('text') provider!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('boolean') enabled!: boolean;
  @Column('text', { name: 'display_name' }) displayName!: string;
  @Column('text', { array: true }) domains!: string[];
  @Column('text', { name: 'supported_networks', array: true }) supportedNetworks!: string[];
  @Column('text', { name: 'association_content' }) associationContent!: string;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}

/** One attempt to verify a wallet domain, with its outcome. */
@Entity({ name: 'wallet_domain_verifications' })
export class WalletDomainVerification {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  @Column('text') provider!: string;
  @Column('text') domain!: string;
  @Column('text') status!: 'VERIFIED' | 'FAILED';
  @Column('text', { nullable: true }) reason!: string | null;
  @Column('timestamptz', { name: 'checked_at' }) checkedAt!: Date;
}
