import { Column, Entity, PrimaryColumn } from 'typeorm';

export type StoreStatus = 'active' | 'archived';

/** Who sees the store's prices on public reads: everyone, signed-in visitors only, or nobody. */
export type StorePriceVisibility = 'EVERYONE' | 'SIGNED_IN' | 'HIDDEN';

/** A shop of a tenant. Its slug is unique platform-wide (public check-slug). */
@Entity({ name: 'stores' })
export class Store {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('text') name!: string;
  @Column('text') slug!: string;
  @Column('text', { default: 'EUR' }) currency!: string;
  @Column('text', { name: 'default_locale', default: 'en' }) defaultLocale!: string;
  @Column('text', { default: 'UTC' }) timezone!: string;
  @Column('text', { name: 'contact_email', nullable: true }) contactEmail!: string | null;
  @Column('boolean', { name: 'is_default', default: false }) isDefault!: boolean;
  @Column('text', { default: 'active' }) status!: StoreStatus;
  @Column('text', { name: 'price_visibility', default: 'EVERYONE' }) priceVisibility!: StorePriceVisibility;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
  @Column('timestamptz', { name: 'archived_at', nullable: true }) archivedAt!: Date | null;
}
