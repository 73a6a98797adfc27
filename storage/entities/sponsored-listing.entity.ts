import { Column, Entity, PrimaryColumn } from 'typeorm';

export type SponsoredListingStatus = 'ACTIVE' | 'PAUSED' | 'ENDED';
export type SponsoredListingEndReason = 'END_DATE' | 'BUDGET' | 'MANUAL';

/**
 * A sponsored listing: paid placement of one product of a store in its storefront search results.
 * Money columns are numeric and read as strings (no floating point on amounts); `clicks` is a bigint
 * read as a string.
 */
@Entity({ name: 'sponsored_listings' })
export class SponsoredListing {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  @Column('uuid', { name: 'product_id' }) productId!: string;
  @Column('text', { default: 'ACTIVE' }) status!: SponsoredListingStatus;
  /** Normalised keywords (lowercase, NFKC, words separated by one space); empty = every search. */
  @Column('text', { array: true, default: () => "'{}'" }) keywords!: string[];
  @Column('timestamptz', { name: 'starts_at', default: () => 'now()' }) startsAt!: Date;
  @Column('timestamptz', { name: 'ends_at', nullable: true }) endsAt!: Date | null;
  @Column('numeric', { precision: 14, scale: 4, nullable: true }) budget!: string | null;
  @Column('numeric', { name: 'cost_per_click', precision: 14, scale: 4 }) costPerClick!: string;
  @Column('numeric', { precision: 14, scale: 4, default: 0 }) spent!: string;
  @Column('bigint', { default: 0 }) clicks!: string;
  @Column('timestamptz', { name: 'ended_at', nullable: true }) endedAt!: Date | null;
  @Column('text', { name: 'ended_reason', nullable: true }) endedReason!: SponsoredListingEndReason | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}
