import { Column, Entity, PrimaryColumn } from 'typeorm';

export type OrderStatus = 'PLACED' | 'CANCELLED';

/** An order of a store's customer. Money columns are numeric and read as strings. */
@Entity({ name: 'orders' })
export class Order {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  @Column('uuid', { name: 'customer_id' }) customerId!: string;
  @Column('text') status!: OrderStatus;
  @Column('char', { length: 3 }) currency!: string;
  @Column('numeric', { precision: 14, scale: 4 }) subtotal!: string;
  @Column('numeric', { precision: 14, scale: 4 }) total!: string;
  @Column('integer', { name: 'item_count' }) itemCount!: number;
  @Column('text', { name: 'shipping_city' }) shippingCity!: string;
  @Column('text', { name: 'shipping_district' }) shippingDistrict!: string;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
  @Column('timestamptz', { name: 'cancelled_at', nullable: true }) cancelledAt!: Date | null;
}

/** A line of an order: a copy of what was bought, at the price it was bought. */
@Entity({ name: 'order_items' })
export class OrderItem {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'order_id' }) orderId!: string;
  @Column('uuid', { name: 'product_id', nullable: true }) productId!: string | null;
  @Column('uuid', { name: 'variant_id', nullable: true }) variantId!: string | null;
  @Column('text') title!: string;
  @Column('text', { nullable: true }) sku!: string | null;
  @Column('jsonb', { default: () => "'{}'::jsonb" }) options!: Record<string, string>;
  @Column('integer') quantity!: number;
  @Column('numeric', { name: 'unit_price', precision: 14, scale: 4 }) unitPrice!: string;
  @Column('numeric', { name: 'line_total', precision: 14, scale: 4 }) lineTotal!: string;
  @Column('integer', { default: 0 }) position!: number;
}
