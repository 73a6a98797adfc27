import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Collections: manual, ordered product lists of a store (active or not), themselves ordered by
 * `position`. Items belong to their collection and to a product of the same store; deleting either
 * deletes the item.
 */
export class Collections1795000000300 implements MigrationInterface {
  name = 'Collections1795000000300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE collections (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 120),
        slug text NOT NULL,
        description text NULL,
        image_url text NULL,
        is_active boolean NOT NULL DEFAULT true,
        position integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE UNIQUE INDEX collections_store_slug ON collections (store_id, lower(slug))');
    await q.query('CREATE INDEX collections_store_position ON collections (store_id, position)');
    await q.query(`
      CREATE TABLE collection_items (
        collection_id uuid NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
        product_id uuid NOT NULL REFERENCES products(id) ON DELETE CASCADE,
        position integer NOT NULL DEFAULT 0,
        PRIMARY KEY (collection_id, product_id)
      )`);
    await q.query('CREATE INDEX collection_items_position ON collection_items (collection_id, position)');
    await q.query('CREATE INDEX collection_items_product ON collection_items (product_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE collection_items');
    await q.query('DROP TABLE collections');
  }
}
