import { Column, Entity, PrimaryColumn } from 'typeorm';

export interface CustomerAddress {
  line1: string;
  line2?: string | null;
  city?: string | null;
  district?: string | null;
  region?: string | null;
  postalCode?: string | null;
  country?: string | null;
}

/** A customer of a store; the e-mail is unique per store, case-insensitively. */
@Entity({ name: 'customers' })
export class Customer {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  @Column('text', { nullable: true }) name!: string | null;
  @Column('text') email!: string;
  @Column('text', { nullable: true }) phone!: string | null;
  @Column('jsonb', { default: () => "'[]'::jsonb" }) addresses!: CustomerAddress[];
  @Column('text', { array: true, default: () => "'{}'" }) tags!: string[];
  @Column('boolean', { name: 'accepts_marketing', default: false }) acceptsMarketing!: boolean;
  @Column('timestamptz', { name: 'marketing_consent_at', nullable: true }) marketingConsentAt!: Date | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}
