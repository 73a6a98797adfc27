import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A collection: a manual, ordered list of products of a store. Slug unique per store (case-insensitive). */
@Entity({ name: 'collections' })
export class Collection {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  @Column('text') name!: string;
  @Column('text') slug!: string;
  @Column('text', { nullable: true }) description!: string | null;
  @Column('text', { name: 'image_url', nullable: true }) imageUrl!: string | null;
  @Column('boolean', { name: 'is_active', default: true }) isActive!: boolean;
  /** Manual order of the store's collections. */
  @Column('integer', { default: 0 }) position!: number;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}

/** A product in a collection, at `position` (its tenant and store are the collection's). */
@Entity({ name: 'collection_items' })
export class CollectionItem {
  @PrimaryColumn('uuid', { name: 'collection_id' }) collectionId!: string;
  @PrimaryColumn('uuid', { name: 'product_id' }) productId!: string;
  @Column('integer', { default: 0 }) position!: number;
}
