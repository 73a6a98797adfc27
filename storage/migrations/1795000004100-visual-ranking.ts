import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Visual search that knows what a product is (docs/search.md, "Visual search"):
 * - `visual_search_settings.same_category`: how similar-product reads use the category tree
 *   (`prefer`: same category, then the rest of the parent category, then the others; `require`: the
 *   same category only; `ignore`: visual order alone). Stores that exist get the default, `prefer`.
 * - `visual_search_calibrations`: per store, the distribution of its products' nearest-neighbour
 *   similarity (another product's best raw score), from which raw scores become calibrated scores
 *   and `goodMatch`. `knots[k + 1]` is the raw score that calibrates to k / 100 (k = 0 … 50), so
 *   `knots[51]` is the good-match threshold. Stored in double precision: the threshold is compared
 *   with raw scores to 1e-4, and real would round it by more. No row: the store is not calibrated yet.
 */
export class VisualRanking1795000004100 implements MigrationInterface {
  name = 'VisualRanking1795000004100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE visual_search_settings
        ADD COLUMN same_category text NOT NULL DEFAULT 'prefer' CHECK (same_category IN ('prefer', 'require', 'ignore'))`);
    await q.query(`
      CREATE TABLE visual_search_calibrations (
        store_id uuid PRIMARY KEY REFERENCES stores(id) ON DELETE CASCADE,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        model text NOT NULL,
        dimensions integer NOT NULL CHECK (dimensions BETWEEN 1 AND 4096),
        vectors integer NOT NULL CHECK (vectors >= 2),
        sample_size integer NOT NULL CHECK (sample_size >= 1),
        knots double precision[] NOT NULL CHECK (cardinality(knots) = 51),
        computed_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE visual_search_calibrations');
    await q.query('ALTER TABLE visual_search_settings DROP COLUMN same_category');
  }
}
