import { Column, Entity, PrimaryColumn } from 'typeorm';

export type CategoryAttributeType = 'text' | 'number' | 'boolean' | 'enum';

/** An attribute products of a category carry (validated on the product, filterable in search). */
@Entity({ name: 'category_attributes' })
export class CategoryAttribute {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  @Column('uuid', { name: 'category_id' }) categoryId!: string;
  @Column('text') name!: string;
  @Column('text') type!: CategoryAttributeType;
  /** Allowed values of an enum attribute (empty for the other types). */
  @Column('text', { array: true, default: () => "'{}'" }) values!: string[];
  @Column('boolean', { default: false }) required!: boolean;
  @Column('boolean', { default: false }) filterable!: boolean;
  @Column('integer', { default: 0 }) position!: number;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}
