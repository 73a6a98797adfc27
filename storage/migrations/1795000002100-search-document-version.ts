import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * stores.search_document_version: the shape of the product documents in the store's search index
 * (indexer/document-upgrade.ts SEARCH_DOCUMENT_VERSION). Stores that exist now get 0: their
 * documents were built before `titleWords` and `titleProductWords`, so the indexer rebuilds their
 * index once, in the background. Stores created from now on get 1: their documents are built with
 * them from the start. A later change of the documents' shape bumps the version in code and moves
 * this default with a migration of its own.
 */
export class SearchDocumentVersion1795000002100 implements MigrationInterface {
  name = 'SearchDocumentVersion1795000002100';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE stores ADD COLUMN search_document_version integer NOT NULL DEFAULT 0');
    await q.query('ALTER TABLE stores ALTER COLUMN search_document_version SET DEFAULT 1');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE stores DROP COLUMN IF EXISTS search_document_version');
  }
}
