import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Product bundles: products with quantities sold together at a fixed price or a percentage off the
 * items' sum. Money is numeric (docs/decisions.md, Money); a CHECK ties the pricing type to the one column it uses.
 * A bundle may be sold as one product of type BUNDLE (`product_id`, at most one bundle per product).
 * An item is a product, or one variant of it, with a quantity; (product, variant) is unique per bundle.
 */
export class Bundles1795000000400 implements MigrationInterface {
  name = 'Bundles1795000000400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE bundles (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        product_id uuid NULL REFERENCES products(id) ON DELETE SET NULL,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        slug text NOT NULL,
        pricing_type text NOT NULL CHECK (pricing_type IN ('FIXED_PRICE', 'PERCENT_OFF')),
        fixed_price numeric(14, 4) NULL CHECK (fixed_price IS NULL OR fixed_price >= 0),
        percent_off numeric(5, 2) NULL CHECK (percent_off IS NULL OR (percent_off > 0 AND percent_off < 100)),
        is_active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT bundles_pricing CHECK (
          (pricing_type = 'FIXED_PRICE' AND fixed_price IS NOT NULL AND percent_off IS NULL)
          OR (pricing_type = 'PERCENT_OFF' AND percent_off IS NOT NULL AND fixed_price IS NULL))
      )`);
    await q.query('CREATE UNIQUE INDEX bundles_store_slug ON bundles (store_id, lower(slug))');
    await q.query('CREATE UNIQUE INDEX bundles_product ON bundles (product_id) WHERE product_id IS NOT NULL');
    await q.query('CREATE INDEX bundles_store_created ON bundles (store_id, created_at, id)');
    await q.query(`
      CREATE TABLE bundle_items (
        id uuid PRIMARY KEY,
        bundle_id uuid NOT NULL REFERENCES bundles(id) ON DELETE CASCADE,
        product_id uuid NOT NULL REFERENCES products(id) ON DELETE CASCADE,
        variant_id uuid NULL REFERENCES product_variants(id) ON DELETE CASCADE,
        quantity integer NOT NULL CHECK (quantity BETWEEN 1 AND 1000),
        position integer NOT NULL DEFAULT 0
      )`);
    await q.query(
      `CREATE UNIQUE INDEX bundle_items_line ON bundle_items (bundle_id, product_id, coalesce(variant_id, '00000000-0000-0000-0000-000000000000'::uuid))`,
    );
    await q.query('CREATE INDEX bundle_items_product ON bundle_items (product_id)');
    await q.query('CREATE INDEX bundle_items_variant ON bundle_items (variant_id) WHERE variant_id IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE bundle_items');
    await q.query('DROP TABLE bundles');
  }
}
