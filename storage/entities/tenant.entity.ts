import { Column, Entity, PrimaryColumn } from 'typeorm';

export type TenantKind = 'merchant' | 'partner' | 'sandbox';

/** A customer of the platform: owns users, stores, API keys and everything under them. */
@Entity({ name: 'tenants' })
export class Tenant {
  @PrimaryColumn('uuid') id!: string;
  @Column('text') name!: string;
  @Column('text') kind!: TenantKind;
  @Column('text', { name: 'legal_name', nullable: true }) legalName!: string | null;
  @Column('text', { nullable: true }) country!: string | null;
  @Column('text', { name: 'default_currency', default: 'EUR' }) defaultCurrency!: string;
  @Column('text', { default: 'UTC' }) timezone!: string;
  @Column('text', { nullable: true }) website!: string | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}
