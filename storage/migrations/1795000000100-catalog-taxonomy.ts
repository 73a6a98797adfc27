import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Categories (a tree per store) with their attributes, brands, and the storefront filter configuration. */
export class CatalogTaxonomy1795000000100 implements MigrationInterface {
  name = 'CatalogTaxonomy1795000000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE categories (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        parent_id uuid NULL REFERENCES categories(id) ON DELETE RESTRICT,
        name text NOT NULL,
        slug text NOT NULL,
        description text NULL,
        image_url text NULL,
        position integer NOT NULL DEFAULT 0,
        is_active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (parent_id IS NULL OR parent_id <> id)
      )`);
    await q.query('CREATE UNIQUE INDEX categories_store_slug ON categories (store_id, lower(slug))');
    await q.query('CREATE INDEX categories_parent ON categories (store_id, parent_id, position)');
    await q.query(`
      CREATE TABLE category_attributes (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        category_id uuid NOT NULL REFERENCES categories(id) ON DELETE CASCADE,
        name text NOT NULL,
        type text NOT NULL CHECK (type IN ('text', 'number', 'boolean', 'enum')),
        values text[] NOT NULL DEFAULT '{}',
        required boolean NOT NULL DEFAULT false,
        filterable boolean NOT NULL DEFAULT false,
        position integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (type = 'enum' OR cardinality(values) = 0),
        CHECK (type <> 'enum' OR cardinality(values) > 0)
      )`);
    await q.query('CREATE UNIQUE INDEX category_attributes_name ON category_attributes (category_id, lower(name))');
    await q.query(`
      CREATE TABLE brands (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name text NOT NULL,
        slug text NOT NULL,
        description text NULL,
        logo_url text NULL,
        website_url text NULL,
        is_active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE UNIQUE INDEX brands_store_slug ON brands (store_id, lower(slug))');
    await q.query(`
      CREATE TABLE storefront_filter_configs (
        store_id uuid PRIMARY KEY REFERENCES stores(id) ON DELETE CASCADE,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        facets jsonb NOT NULL,
        price_buckets jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['storefront_filter_configs', 'brands', 'category_attributes', 'categories']) await q.query(`DROP TABLE ${table}`);
  }
}
