import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Search synonym rules of a store. MULTI_WAY: `terms` are equivalent (2..20), `input` is null.
 * ONE_WAY: `input` maps to `terms` (its synonyms, 1..20). Terms are stored trimmed and lowercased.
 */
export class SearchSynonyms1795000000500 implements MigrationInterface {
  name = 'SearchSynonyms1795000000500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE search_synonyms (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        type text NOT NULL CHECK (type IN ('MULTI_WAY', 'ONE_WAY')),
        input text NULL CHECK (input IS NULL OR char_length(input) BETWEEN 1 AND 100),
        terms text[] NOT NULL CHECK (cardinality(terms) BETWEEN 1 AND 20),
        is_active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT search_synonyms_shape CHECK (
          (type = 'MULTI_WAY' AND input IS NULL AND cardinality(terms) >= 2) OR (type = 'ONE_WAY' AND input IS NOT NULL))
      )`);
    await q.query('CREATE INDEX search_synonyms_store ON search_synonyms (store_id, id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE search_synonyms');
  }
}
