import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A search synonym rule of a store: MULTI_WAY (terms equivalent; input null) or ONE_WAY (input → terms). */
@Entity({ name: 'search_synonyms' })
export class SearchSynonym {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  @Column('text') type!: 'MULTI_WAY' | 'ONE_WAY';
  @Column('text', { nullable: true }) input!: string | null;
  @Column('text', { array: true }) terms!: string[];
  @Column('boolean', { name: 'is_active', default: true }) isActive!: boolean;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}
