import { Column, Entity, PrimaryColumn } from 'typeorm';

export type BundlePricingType = 'FIXED_PRICE' | 'PERCENT_OFF';

/**
 * A bundle of a store: products with quantities and a pricing rule. Money columns are numeric and
 * read as strings (no floating point on amounts); exactly one of fixedPrice and percentOff is set,
 * as pricingType says.
 */
@Entity({ name: 'bundles' })
export class Bundle {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  /** The product of type BUNDLE that sells it, if any. */
  @Column('uuid', { name: 'product_id', nullable: true }) productId!: string | null;
  @Column('text') name!: string;
  @Column('text') slug!: string;
  @Column('text', { name: 'pricing_type' }) pricingType!: BundlePricingType;
  @Column('numeric', { name: 'fixed_price', precision: 14, scale: 4, nullable: true }) fixedPrice!: string | null;
  @Column('numeric', { name: 'percent_off', precision: 5, scale: 2, nullable: true }) percentOff!: string | null;
  @Column('boolean', { name: 'is_active', default: true }) isActive!: boolean;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}

/** One line of a bundle: a product (or one variant of it) and its quantity. Reached through its bundle. */
@Entity({ name: 'bundle_items' })
export class BundleItem {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'bundle_id' }) bundleId!: string;
  @Column('uuid', { name: 'product_id' }) productId!: string;
  @Column('uuid', { name: 'variant_id', nullable: true }) variantId!: string | null;
  @Column('integer') quantity!: number;
  @Column('integer', { default: 0 }) position!: number;
}
