import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Search outcomes merchants watch besides the zero-result queries, and when a store's search began
 * to count them:
 * - weak_result_queries: public searches whose words matched only through a looser pass (fewer
 *   words, other word forms), counted per store and normalised query exactly like
 *   zero_result_queries (same columns, same bounds, same indexes);
 * - stores.search_ready_at: when the store's first indexing was seen finished (NULL: not yet).
 *   Searches of a store whose index is still being built are not counted as zero or weak results;
 *   it is set once, by the api process, the first time it counts a search of the store
 *   (docs/search.md, "Zero-result and weak-result queries").
 */
export class WeakResultsSearchReady1795000002000 implements MigrationInterface {
  name = 'WeakResultsSearchReady1795000002000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE weak_result_queries (
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        query text NOT NULL CHECK (char_length(query) BETWEEN 1 AND 200),
        sample text NOT NULL,
        count bigint NOT NULL DEFAULT 1 CHECK (count > 0),
        first_seen_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT weak_result_queries_pkey PRIMARY KEY (store_id, query)
      )`);
    await q.query('CREATE INDEX weak_result_queries_frequent ON weak_result_queries (store_id, count DESC, last_seen_at DESC)');
    await q.query('CREATE INDEX weak_result_queries_tenant ON weak_result_queries (tenant_id)');
    await q.query('ALTER TABLE stores ADD COLUMN search_ready_at timestamptz NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE stores DROP COLUMN IF EXISTS search_ready_at');
    await q.query('DROP TABLE IF EXISTS weak_result_queries');
  }
}
