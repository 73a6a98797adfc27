import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Shipping rates and content (pages and blog posts) of a store, plus shipping weights of the catalog.
 *
 * - shipping_rates: one row per rate. The destination is a city and district (both set), a city (district
 *   null) or everything else (both null); city_key and district_key hold the normalised names compared by
 *   quotes (accents dropped, lowercase, whitespace collapsed). Weight bands in grams and order-value bands
 *   are half-open: min inclusive, max exclusive; a null bound is open. Money is numeric(14, 4) in the
 *   store's currency (copied onto the rate).
 * - products.weight_grams and product_variants.weight_grams: the shipping weight of one unit (a variant's
 *   own weight wins over its product's); null means unknown.
 * - content_entries: pages (kind PAGE) and posts (kind POST) in one table; slugs unique per store and
 *   kind, case-insensitively. body_html is stored already sanitised.
 */
export class ShippingContent1795000001500 implements MigrationInterface {
  name = 'ShippingContent1795000001500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      'ALTER TABLE products ADD COLUMN IF NOT EXISTS weight_grams integer NULL CHECK (weight_grams IS NULL OR weight_grams >= 0)',
    );
    await q.query(
      'ALTER TABLE product_variants ADD COLUMN IF NOT EXISTS weight_grams integer NULL CHECK (weight_grams IS NULL OR weight_grams >= 0)',
    );
    await q.query(`
      CREATE TABLE shipping_rates (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 120),
        city text NULL,
        district text NULL,
        city_key text NULL,
        district_key text NULL,
        min_weight_grams integer NULL CHECK (min_weight_grams IS NULL OR min_weight_grams >= 0),
        max_weight_grams integer NULL CHECK (max_weight_grams IS NULL OR max_weight_grams > 0),
        min_order_value numeric(14, 4) NULL CHECK (min_order_value IS NULL OR min_order_value >= 0),
        max_order_value numeric(14, 4) NULL CHECK (max_order_value IS NULL OR max_order_value > 0),
        price numeric(14, 4) NOT NULL CHECK (price >= 0),
        free_shipping_threshold numeric(14, 4) NULL CHECK (free_shipping_threshold IS NULL OR free_shipping_threshold >= 0),
        currency char(3) NOT NULL,
        min_delivery_days integer NULL CHECK (min_delivery_days IS NULL OR min_delivery_days BETWEEN 0 AND 365),
        max_delivery_days integer NULL CHECK (max_delivery_days IS NULL OR max_delivery_days BETWEEN 0 AND 365),
        is_active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT shipping_rates_destination CHECK ((district IS NULL OR city IS NOT NULL) AND (city IS NULL) = (city_key IS NULL) AND (district IS NULL) = (district_key IS NULL)),
        CONSTRAINT shipping_rates_weight_band CHECK (min_weight_grams IS NULL OR max_weight_grams IS NULL OR max_weight_grams > min_weight_grams),
        CONSTRAINT shipping_rates_value_band CHECK (min_order_value IS NULL OR max_order_value IS NULL OR max_order_value > min_order_value),
        CONSTRAINT shipping_rates_days CHECK (min_delivery_days IS NULL OR max_delivery_days IS NULL OR max_delivery_days >= min_delivery_days)
      )`);
    await q.query('CREATE INDEX shipping_rates_store ON shipping_rates (store_id, id)');
    await q.query('CREATE INDEX shipping_rates_store_city ON shipping_rates (store_id, city_key) WHERE is_active');
    await q.query(`
      CREATE TABLE content_entries (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('PAGE', 'POST')),
        title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
        slug text NOT NULL CHECK (char_length(slug) BETWEEN 1 AND 200),
        body_html text NOT NULL DEFAULT '',
        excerpt text NULL,
        seo_title text NULL,
        seo_description text NULL,
        status text NOT NULL DEFAULT 'DRAFT' CHECK (status IN ('DRAFT', 'PUBLISHED')),
        published_at timestamptz NULL,
        author text NULL,
        tags text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT content_entries_published CHECK (status = 'DRAFT' OR published_at IS NOT NULL)
      )`);
    await q.query('CREATE UNIQUE INDEX content_entries_store_kind_slug ON content_entries (store_id, kind, lower(slug))');
    await q.query('CREATE INDEX content_entries_store_kind ON content_entries (store_id, kind, id)');
    await q.query(
      `CREATE INDEX content_entries_public ON content_entries (store_id, kind, published_at DESC, id DESC) WHERE status = 'PUBLISHED'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE content_entries');
    await q.query('DROP TABLE shipping_rates');
    await q.query('ALTER TABLE product_variants DROP COLUMN IF EXISTS weight_grams');
    await q.query('ALTER TABLE products DROP COLUMN IF EXISTS weight_grams');
  }
}
