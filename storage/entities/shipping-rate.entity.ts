import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A shipping rate of a store. Destination: city + district, city alone, or everything else (both null);
 * cityKey/districtKey are the normalised names quotes compare. Bands are half-open (min inclusive, max
 * exclusive, null = open). Money columns are numeric, read as decimal strings.
 */
@Entity({ name: 'shipping_rates' })
export class ShippingRate {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  @Column('text') name!: string;
  @Column('text', { nullable: true }) city!: string | null;
  @Column('text', { nullable: true }) district!: string | null;
  @Column('text', { name: 'city_key', nullable: true }) cityKey!: string | null;
  @Column('text', { name: 'district_key', nullable: true }) districtKey!: string | null;
  @Column('integer', { name: 'min_weight_grams', nullable: true }) minWeightGrams!: number | null;
  @Column('integer', { name: 'max_weight_grams', nullable: true }) maxWeightGrams!: number | null;
  @Column('numeric', { name: 'min_order_value', precision: 14, scale: 4, nullable: true }) minOrderValue!: string | null;
  @Column('numeric', { name: 'max_order_value', precision: 14, scale: 4, nullable: true }) maxOrderValue!: string | null;
  @Column('numeric', { precision: 14, scale: 4 }) price!: string;
  @Column('numeric', { name: 'free_shipping_threshold', precision: 14, scale: 4, nullable: true }) freeShippingThreshold!: string | null;
  @Column('char', { length: 3 }) currency!: string;
  @Column('integer', { name: 'min_delivery_days', nullable: true }) minDeliveryDays!: number | null;
  @Column('integer', { name: 'max_delivery_days', nullable: true }) maxDeliveryDays!: number | null;
  @Column('boolean', { name: 'is_active', default: true }) isActive!: boolean;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}
