import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Price visibility of a store (EVERYONE, SIGNED_IN, HIDDEN; public reads leave prices out when the
 * visitor may not see them) and the zero-result queries of its public search: one row per store and
 * normalised query (NFKC, lowercase, whitespace collapsed, at most 200 characters) counting the
 * searches that found nothing, with the last raw query as typed, first and last seen.
 */
export class PriceVisibilityZeroResults1795000000700 implements MigrationInterface {
  name = 'PriceVisibilityZeroResults1795000000700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE stores ADD COLUMN price_visibility text NOT NULL DEFAULT 'EVERYONE'
         CONSTRAINT stores_price_visibility CHECK (price_visibility IN ('EVERYONE', 'SIGNED_IN', 'HIDDEN'))`,
    );
    await q.query(`
      CREATE TABLE zero_result_queries (
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        query text NOT NULL CHECK (char_length(query) BETWEEN 1 AND 200),
        sample text NOT NULL,
        count bigint NOT NULL DEFAULT 1 CHECK (count > 0),
        first_seen_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT zero_result_queries_pkey PRIMARY KEY (store_id, query)
      )`);
    await q.query('CREATE INDEX zero_result_queries_frequent ON zero_result_queries (store_id, count DESC, last_seen_at DESC)');
    await q.query('CREATE INDEX zero_result_queries_tenant ON zero_result_queries (tenant_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS zero_result_queries');
    await q.query('ALTER TABLE stores DROP COLUMN IF EXISTS price_visibility');
  }
}
