import { Column, Entity, PrimaryColumn } from 'typeorm';

export type FlashSaleStatus = 'DRAFT' | 'PUBLISHED' | 'ARCHIVED';
export type FlashSaleItemKind = 'PRODUCT' | 'CATEGORY';

/** A flash-sale campaign of a store: a window and the products or categories on sale in it. */
@Entity({ name: 'flash_sale_campaigns' })
export class FlashSaleCampaign {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  @Column('text') name!: string;
  @Column('text') slug!: string;
  @Column('text', { nullable: true }) description!: string | null;
  @Column('text', { default: 'DRAFT' }) status!: FlashSaleStatus;
  @Column('timestamptz', { name: 'starts_at' }) startsAt!: Date;
  @Column('timestamptz', { name: 'ends_at' }) endsAt!: Date;
  @Column('timestamptz', { name: 'archived_at', nullable: true }) archivedAt!: Date | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}

/** A product (sale price or percentage, optional stock cap) or a category (percentage) of a campaign. */
@Entity({ name: 'flash_sale_items' })
export class FlashSaleItem {
  @PrimaryColumn('uuid', { name: 'campaign_id' }) campaignId!: string;
  @PrimaryColumn('uuid', { name: 'target_id' }) targetId!: string;
  @Column('text') kind!: FlashSaleItemKind;
  @Column('numeric', { name: 'sale_price', precision: 14, scale: 4, nullable: true }) salePrice!: string | null;
  @Column('numeric', { name: 'discount_percent', precision: 5, scale: 2, nullable: true }) discountPercent!: string | null;
  @Column('integer', { name: 'stock_cap', nullable: true }) stockCap!: number | null;
  @Column('integer', { name: 'sold_count', default: 0 }) soldCount!: number;
  @Column('integer', { default: 0 }) position!: number;
}
