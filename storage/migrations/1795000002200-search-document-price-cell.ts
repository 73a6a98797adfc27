import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Product documents gain `priceCell` (search/price-buckets.ts): search document version 2. Stores
 * that exist keep the version they have, so the indexer rebuilds their index once in the
 * background, which also gives it this version's settings (`priceCell` filterable, `maxTotalHits`
 * 1 000 000); stores created from now on start at 2.
 */
export class SearchDocumentPriceCell1795000002200 implements MigrationInterface {
  name = 'SearchDocumentPriceCell1795000002200';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE stores ALTER COLUMN search_document_version SET DEFAULT 2');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE stores ALTER COLUMN search_document_version SET DEFAULT 1');
  }
}
