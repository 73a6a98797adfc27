import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A brand of a store. Slug unique per store (case-insensitive). */
@Entity({ name: 'brands' })
export class Brand {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  @Column('text') name!: string;
  @Column('text') slug!: string;
  @Column('text', { nullable: true }) description!: string | null;
  @Column('text', { name: 'logo_url', nullable: true }) logoUrl!: string | null;
  @Column('text', { name: 'website_url', nullable: true }) websiteUrl!: string | null;
  @Column('boolean', { name: 'is_active', default: true }) isActive!: boolean;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}
