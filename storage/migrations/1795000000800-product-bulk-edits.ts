import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Product bulk edits (docs/catalog.md, "Bulk edits"): one row per bulk operation (and per revert),
 * one item per selected product with its result and the previous values of what the edit changed
 * (for a hard delete the whole product with its variants, images and links, as JSON). `updated_at_after`
 * is the product's updated_at once the edit changed it: a revert refuses products whose updated_at
 * moved since. Items have no foreign key to products: a deleted product keeps its item.
 */
export class ProductBulkEdits1795000000800 implements MigrationInterface {
  name = 'ProductBulkEdits1795000000800';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE product_bulk_edits (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        action text NOT NULL CHECK (action IN ('UPDATE_PRICE', 'UPDATE_STATUS', 'UPDATE_TAGS', 'UPDATE_CATEGORY', 'ARCHIVE', 'DELETE')),
        operation text NOT NULL CHECK (operation IN ('publish', 'archive', 'hard-delete', 'set-category', 'set-status', 'update-price', 'add-tags', 'remove-tags', 'revert')),
        status text NOT NULL CHECK (status IN ('RUNNING', 'COMPLETED', 'FAILED')),
        params jsonb NOT NULL DEFAULT '{}'::jsonb,
        actor_type text NOT NULL,
        actor_id text NULL,
        product_count integer NOT NULL CHECK (product_count >= 0),
        processed_count integer NOT NULL DEFAULT 0,
        ok_count integer NOT NULL DEFAULT 0,
        unchanged_count integer NOT NULL DEFAULT 0,
        failed_count integer NOT NULL DEFAULT 0,
        revert_of uuid NULL REFERENCES product_bulk_edits(id) ON DELETE SET NULL,
        reverted_by uuid NULL REFERENCES product_bulk_edits(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz NULL
      )`);
    await q.query('CREATE INDEX product_bulk_edits_store ON product_bulk_edits (store_id, id DESC)');
    await q.query('CREATE INDEX product_bulk_edits_store_created ON product_bulk_edits (store_id, created_at)');
    await q.query(`
      CREATE TABLE product_bulk_edit_items (
        bulk_edit_id uuid NOT NULL REFERENCES product_bulk_edits(id) ON DELETE CASCADE,
        product_id uuid NOT NULL,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        position integer NOT NULL,
        status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'OK', 'UNCHANGED', 'FAILED')),
        error_code text NULL,
        error_message text NULL,
        previous jsonb NULL,
        updated_at_after timestamptz NULL,
        processed_at timestamptz NULL,
        PRIMARY KEY (bulk_edit_id, product_id)
      )`);
    await q.query('CREATE INDEX product_bulk_edit_items_position ON product_bulk_edit_items (bulk_edit_id, position)');
    await q.query(
      "CREATE INDEX product_bulk_edit_items_pending ON product_bulk_edit_items (bulk_edit_id, position) WHERE status = 'PENDING'",
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE product_bulk_edit_items');
    await q.query('DROP TABLE product_bulk_edits');
  }
}
