import { Column, Entity, PrimaryColumn } from 'typeorm';

export type ProductType = 'PHYSICAL' | 'DIGITAL' | 'BUNDLE' | 'GIFT_CARD' | 'SUBSCRIPTION' | 'SERVICE';
export type ProductStatus = 'DRAFT' | 'PUBLISHED' | 'ARCHIVED';

/** A product of a store. Money columns are numeric and read as strings (no floating point on amounts). */
@Entity({ name: 'products' })
export class Product {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  @Column('text') title!: string;
  @Column('text') slug!: string;
  @Column('text', { name: 'description_html', default: '' }) descriptionHtml!: string;
  @Column('text') type!: ProductType;
  @Column('text', { default: 'DRAFT' }) status!: ProductStatus;
  @Column('numeric', { precision: 14, scale: 4 }) price!: string;
  @Column('numeric', { name: 'compare_at_price', precision: 14, scale: 4, nullable: true }) compareAtPrice!: string | null;
  @Column('char', { length: 3 }) currency!: string;
  @Column('uuid', { name: 'brand_id', nullable: true }) brandId!: string | null;
  @Column('uuid', { name: 'vendor_id', nullable: true }) vendorId!: string | null;
  @Column('text', { name: 'vendor_name', nullable: true }) vendorName!: string | null;
  /** Attribute values by attribute name, validated against the category attributes. */
  @Column('jsonb', { default: () => "'{}'::jsonb" }) attributes!: Record<string, string | number | boolean>;
  /** Per locale: { title, descriptionHtml }. */
  @Column('jsonb', { default: () => "'{}'::jsonb" }) translations!: Record<string, { title?: string; descriptionHtml?: string }>;
  @Column('numeric', { precision: 3, scale: 2, default: 0 }) rating!: string;
  @Column('integer', { name: 'review_count', default: 0 }) reviewCount!: number;
  @Column('integer', { name: 'sales_count', default: 0 }) salesCount!: number;
  @Column('bigint', { name: 'view_count', default: 0 }) viewCount!: string;
  @Column('timestamptz', { name: 'published_at', nullable: true }) publishedAt!: Date | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}

@Entity({ name: 'product_variants' })
export class ProductVariant {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  @Column('uuid', { name: 'product_id' }) productId!: string;
  @Column('text', { nullable: true }) sku!: string | null;
  @Column('text', { nullable: true }) barcode!: string | null;
  /** Option values such as { size: 'M', colour: 'Blue' }. */
  @Column('jsonb', { default: () => "'{}'::jsonb" }) options!: Record<string, string>;
  /** Own price when it differs from the product's. */
  @Column('numeric', { precision: 14, scale: 4, nullable: true }) price!: string | null;
  @Column('numeric', { name: 'compare_at_price', precision: 14, scale: 4, nullable: true }) compareAtPrice!: string | null;
  @Column('integer', { default: 0 }) stock!: number;
  @Column('integer', { default: 0 }) position!: number;
}

@Entity({ name: 'product_images' })
export class ProductImage {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'product_id' }) productId!: string;
  @Column('text') url!: string;
  @Column('text', { nullable: true }) alt!: string | null;
  @Column('integer', { default: 0 }) position!: number;
}

@Entity({ name: 'product_categories' })
export class ProductCategory {
  @PrimaryColumn('uuid', { name: 'product_id' }) productId!: string;
  @PrimaryColumn('uuid', { name: 'category_id' }) categoryId!: string;
  @Column('integer', { default: 0 }) position!: number;
}

@Entity({ name: 'product_tags' })
export class ProductTag {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  @Column('text') name!: string;
  @Column('text') slug!: string;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}

@Entity({ name: 'product_tag_assignments' })
export class ProductTagAssignment {
  @PrimaryColumn('uuid', { name: 'tag_id' }) tagId!: string;
  @PrimaryColumn('uuid', { name: 'product_id' }) productId!: string;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
}

export type ProductRelationKind = 'RELATED' | 'UPSELL' | 'CROSS_SELL';

@Entity({ name: 'product_relations' })
export class ProductRelation {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  @Column('uuid', { name: 'product_id' }) productId!: string;
  @Column('uuid', { name: 'related_product_id' }) relatedProductId!: string;
  @Column('text') kind!: ProductRelationKind;
  @Column('integer', { default: 0 }) position!: number;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
}
