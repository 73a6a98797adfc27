import { Column, Entity, PrimaryColumn } from 'typeorm';

export type ContentKind = 'PAGE' | 'POST';
export type ContentStatus = 'DRAFT' | 'PUBLISHED';

/**
 * A content page (kind PAGE) or blog post (kind POST) of a store. Slugs are unique per store and kind,
 * case-insensitively. bodyHtml is stored sanitised. Public reads show PUBLISHED entries whose
 * publishedAt has come. excerpt, author and tags are used by posts only.
 */
@Entity({ name: 'content_entries' })
export class ContentEntry {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  @Column('text') kind!: ContentKind;
  @Column('text') title!: string;
  @Column('text') slug!: string;
  @Column('text', { name: 'body_html', default: '' }) bodyHtml!: string;
  @Column('text', { nullable: true }) excerpt!: string | null;
  @Column('text', { name: 'seo_title', nullable: true }) seoTitle!: string | null;
  @Column('text', { name: 'seo_description', nullable: true }) seoDescription!: string | null;
  @Column('text', { default: 'DRAFT' }) status!: ContentStatus;
  @Column('timestamptz', { name: 'published_at', nullable: true }) publishedAt!: Date | null;
  @Column('text', { nullable: true }) author!: string | null;
  @Column('text', { array: true, default: () => "'{}'" }) tags!: string[];
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}
