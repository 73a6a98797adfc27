import { Column, Entity, PrimaryColumn } from 'typeorm';

export type VisualModel = 'mobilenet-v2' | 'clip';
export type ImageVectorStatus = 'PENDING' | 'INDEXED' | 'FAILED';
/** How similar-product reads use the category tree (docs/search.md, "Similar products"). */
export type SameCategoryMode = 'prefer' | 'require' | 'ignore';
export const SAME_CATEGORY_MODES: readonly SameCategoryMode[] = ['prefer', 'require', 'ignore'];

/** Visual search settings of a store (no row: disabled, defaults). */
@Entity({ name: 'visual_search_settings' })
export class VisualSearchSettings {
  @PrimaryColumn('uuid', { name: 'store_id' }) storeId!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('boolean', { default: false }) enabled!: boolean;
  @Column('text', { default: 'mobilenet-v2' }) model!: VisualModel;
  /** Length of the model's vectors, fixed when the model is chosen (the Meilisearch embedder's dimensions). */
  @Column('integer') dimensions!: number;
  @Column('numeric', { name: 'min_similarity', precision: 5, scale: 4, default: 0 }) minSimilarity!: string;
  @Column('integer', { name: 'max_results', default: 20 }) maxResults!: number;
  @Column('text', { name: 'same_category', default: 'prefer' }) sameCategory!: SameCategoryMode;
  @Column('timestamptz', { name: 'last_requested_at', nullable: true }) lastRequestedAt!: Date | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}

/** The embedding of a product's main image (float32 little-endian in `vector`), or why it failed. */
@Entity({ name: 'product_image_vectors' })
export class ProductImageVector {
  @PrimaryColumn('uuid', { name: 'product_id' }) productId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('text') status!: ImageVectorStatus;
  @Column('text', { nullable: true }) model!: VisualModel | null;
  @Column('integer', { nullable: true }) dimensions!: number | null;
  @Column('bytea', { nullable: true }) vector!: Buffer | null;
  @Column('text', { name: 'image_url', nullable: true }) imageUrl!: string | null;
  @Column('text', { nullable: true }) error!: string | null;
  @Column('integer', { default: 0 }) attempts!: number;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}

/**
 * A store's score calibration (vision/calibration.ts): `knots[k]` is the raw score that calibrates to
 * k / 100, k = 0 … 50, from the nearest-neighbour similarity of a sample of the store's products;
 * `knots[50]` is the good-match threshold.
 */
@Entity({ name: 'visual_search_calibrations' })
export class VisualSearchCalibration {
  @PrimaryColumn('uuid', { name: 'store_id' }) storeId!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('text') model!: VisualModel;
  @Column('integer') dimensions!: number;
  /** How many vectors of the model the store had when it was computed. */
  @Column('integer') vectors!: number;
  /** How many products' nearest neighbours were measured. */
  @Column('integer', { name: 'sample_size' }) sampleSize!: number;
  @Column('double precision', { array: true }) knots!: number[];
  @Column('timestamptz', { name: 'computed_at', default: () => 'now()' }) computedAt!: Date;
}
