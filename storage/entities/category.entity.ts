import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A node of a store's category tree. Slug unique per store (case-insensitive); siblings ordered by position. */
@Entity({ name: 'categories' })
export class Category {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  @Column('uuid', { name: 'parent_id', nullable: true }) parentId!: string | null;
  @Column('text') name!: string;
  @Column('text') slug!: string;
  @Column('text', { nullable: true }) description!: string | null;
  @Column('text', { name: 'image_url', nullable: true }) imageUrl!: string | null;
  @Column('integer', { default: 0 }) position!: number;
  @Column('boolean', { name: 'is_active', default: true }) isActive!: boolean;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}
