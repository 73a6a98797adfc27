import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Products with variants, images, categories, tags and relations. Money is numeric (docs/decisions.md, Money);
 * counters for the public sorts live on the product; translations and attribute values are jsonb
 * because they are read and written with the product as a whole.
 */
export class Products1795000000200 implements MigrationInterface {
  name = 'Products1795000000200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE products (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        title text NOT NULL,
        slug text NOT NULL,
        description_html text NOT NULL DEFAULT '',
        type text NOT NULL CHECK (type IN ('PHYSICAL', 'DIGITAL', 'BUNDLE', 'GIFT_CARD', 'SUBSCRIPTION', 'SERVICE')),
        status text NOT NULL DEFAULT 'DRAFT' CHECK (status IN ('DRAFT', 'PUBLISHED', 'ARCHIVED')),
        price numeric(14, 4) NOT NULL CHECK (price >= 0),
        compare_at_price numeric(14, 4) NULL CHECK (compare_at_price IS NULL OR compare_at_price >= 0),
        currency char(3) NOT NULL,
        brand_id uuid NULL REFERENCES brands(id) ON DELETE SET NULL,
        vendor_id uuid NULL,
        vendor_name text NULL,
        attributes jsonb NOT NULL DEFAULT '{}'::jsonb,
        translations jsonb NOT NULL DEFAULT '{}'::jsonb,
        rating numeric(3, 2) NOT NULL DEFAULT 0 CHECK (rating >= 0 AND rating <= 5),
        review_count integer NOT NULL DEFAULT 0 CHECK (review_count >= 0),
        sales_count integer NOT NULL DEFAULT 0 CHECK (sales_count >= 0),
        view_count bigint NOT NULL DEFAULT 0 CHECK (view_count >= 0),
        published_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE UNIQUE INDEX products_store_slug ON products (store_id, lower(slug))');
    await q.query('CREATE INDEX products_store_created ON products (store_id, created_at DESC, id DESC)');
    await q.query('CREATE INDEX products_store_status ON products (store_id, status)');
    await q.query('CREATE INDEX products_brand ON products (brand_id) WHERE brand_id IS NOT NULL');
    await q.query(`
      CREATE TABLE product_variants (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        product_id uuid NOT NULL REFERENCES products(id) ON DELETE CASCADE,
        sku text NULL,
        barcode text NULL,
        options jsonb NOT NULL DEFAULT '{}'::jsonb,
        price numeric(14, 4) NULL CHECK (price IS NULL OR price >= 0),
        compare_at_price numeric(14, 4) NULL CHECK (compare_at_price IS NULL OR compare_at_price >= 0),
        stock integer NOT NULL DEFAULT 0 CHECK (stock >= 0),
        position integer NOT NULL DEFAULT 0
      )`);
    await q.query('CREATE UNIQUE INDEX product_variants_store_sku ON product_variants (store_id, lower(sku)) WHERE sku IS NOT NULL');
    await q.query('CREATE INDEX product_variants_product ON product_variants (product_id, position)');
    await q.query(`
      CREATE TABLE product_images (
        id uuid PRIMARY KEY,
        product_id uuid NOT NULL REFERENCES products(id) ON DELETE CASCADE,
        url text NOT NULL,
        alt text NULL,
        position integer NOT NULL DEFAULT 0
      )`);
    await q.query('CREATE INDEX product_images_product ON product_images (product_id, position)');
    await q.query(`
      CREATE TABLE product_categories (
        product_id uuid NOT NULL REFERENCES products(id) ON DELETE CASCADE,
        category_id uuid NOT NULL REFERENCES categories(id) ON DELETE CASCADE,
        position integer NOT NULL DEFAULT 0,
        PRIMARY KEY (product_id, category_id)
      )`);
    await q.query('CREATE INDEX product_categories_category ON product_categories (category_id)');
    await q.query(`
      CREATE TABLE product_tags (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name text NOT NULL,
        slug text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE UNIQUE INDEX product_tags_store_slug ON product_tags (store_id, lower(slug))');
    await q.query(`
      CREATE TABLE product_tag_assignments (
        tag_id uuid NOT NULL REFERENCES product_tags(id) ON DELETE CASCADE,
        product_id uuid NOT NULL REFERENCES products(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tag_id, product_id)
      )`);
    await q.query('CREATE INDEX product_tag_assignments_product ON product_tag_assignments (product_id)');
    await q.query(`
      CREATE TABLE product_relations (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        product_id uuid NOT NULL REFERENCES products(id) ON DELETE CASCADE,
        related_product_id uuid NOT NULL REFERENCES products(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('RELATED', 'UPSELL', 'CROSS_SELL')),
        position integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK (product_id <> related_product_id)
      )`);
    await q.query('CREATE UNIQUE INDEX product_relations_pair ON product_relations (product_id, related_product_id, kind)');
    await q.query('CREATE INDEX product_relations_product ON product_relations (product_id, kind, position)');
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'product_relations',
      'product_tag_assignments',
      'product_tags',
      'product_categories',
      'product_images',
      'product_variants',
      'products',
    ]) {
      await q.query(`DROP TABLE ${table}`);
    }
  }
}
