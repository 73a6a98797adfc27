import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The storefront filter configuration of a store: which facets, in which order, how shown; price buckets. */
@Entity({ name: 'storefront_filter_configs' })
export class FilterConfig {
  @PrimaryColumn('uuid', { name: 'store_id' }) storeId!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('jsonb') facets!: unknown[];
  @Column('jsonb', { name: 'price_buckets' }) priceBuckets!: unknown[];
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}
