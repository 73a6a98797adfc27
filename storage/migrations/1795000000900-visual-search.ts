import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Visual search: per-store settings, and one image vector per product (its main image embedded by the
 * store's model). Vectors are kept here so a reindex of Meilisearch never recomputes them; a row that
 * could not be embedded is FAILED with its reason, one waiting for the worker PENDING.
 */
export class VisualSearch1795000000900 implements MigrationInterface {
  name = 'VisualSearch1795000000900';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE visual_search_settings (
        store_id uuid PRIMARY KEY REFERENCES stores(id) ON DELETE CASCADE,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        enabled boolean NOT NULL DEFAULT false,
        model text NOT NULL DEFAULT 'mobilenet-v2' CHECK (model IN ('mobilenet-v2', 'clip')),
        dimensions integer NOT NULL CHECK (dimensions BETWEEN 1 AND 4096),
        min_similarity numeric(5, 4) NOT NULL DEFAULT 0 CHECK (min_similarity BETWEEN 0 AND 1),
        max_results integer NOT NULL DEFAULT 20 CHECK (max_results BETWEEN 1 AND 100),
        last_requested_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE product_image_vectors (
        product_id uuid PRIMARY KEY REFERENCES products(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        status text NOT NULL CHECK (status IN ('PENDING', 'INDEXED', 'FAILED')),
        model text NULL,
        dimensions integer NULL,
        vector bytea NULL CHECK (vector IS NULL OR octet_length(vector) = 4 * dimensions),
        image_url text NULL,
        error text NULL,
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX product_image_vectors_store ON product_image_vectors (store_id, status)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE product_image_vectors');
    await q.query('DROP TABLE visual_search_settings');
  }
}
