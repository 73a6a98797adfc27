import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Orders with their lines, and sandboxes: a sandbox is a tenant of kind `sandbox` with one
 * store, created with an e-mail address; its token is a store API key of that tenant. Every table
 * refers to the tenant with ON DELETE CASCADE, so a reset (which deletes and re-creates the tenant
 * with the same ids) removes everything of the sandbox, including what later areas add.
 *
 * Money is numeric(14, 4) (docs/decisions.md, Money). An order keeps a copy of what was bought (title, sku, options,
 * unit price) so later catalog changes do not rewrite it; the variant and product references become
 * null when those are deleted.
 */
export class OrdersSandboxes1795000001300 implements MigrationInterface {
  name = 'OrdersSandboxes1795000001300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE orders (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        customer_id uuid NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
        status text NOT NULL CHECK (status IN ('PLACED', 'CANCELLED')),
        currency char(3) NOT NULL,
        subtotal numeric(14, 4) NOT NULL CHECK (subtotal >= 0),
        total numeric(14, 4) NOT NULL CHECK (total >= 0),
        item_count integer NOT NULL CHECK (item_count > 0),
        shipping_city text NOT NULL,
        shipping_district text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        cancelled_at timestamptz NULL,
        CHECK ((status = 'CANCELLED') = (cancelled_at IS NOT NULL))
      )`);
    await q.query('CREATE INDEX orders_store_created ON orders (store_id, created_at DESC, id DESC)');
    await q.query('CREATE INDEX orders_customer ON orders (customer_id)');
    await q.query(`
      CREATE TABLE order_items (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        order_id uuid NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
        product_id uuid NULL REFERENCES products(id) ON DELETE SET NULL,
        variant_id uuid NULL REFERENCES product_variants(id) ON DELETE SET NULL,
        title text NOT NULL,
        sku text NULL,
        options jsonb NOT NULL DEFAULT '{}'::jsonb,
        quantity integer NOT NULL CHECK (quantity > 0),
        unit_price numeric(14, 4) NOT NULL CHECK (unit_price >= 0),
        line_total numeric(14, 4) NOT NULL CHECK (line_total >= 0),
        position integer NOT NULL DEFAULT 0
      )`);
    await q.query('CREATE INDEX order_items_order ON order_items (order_id, position)');
    await q.query('CREATE INDEX order_items_variant ON order_items (variant_id) WHERE variant_id IS NOT NULL');
    await q.query(`
      CREATE TABLE sandboxes (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL UNIQUE REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        email text NOT NULL CHECK (char_length(email) BETWEEN 3 AND 254),
        api_key_id uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_reset_at timestamptz NULL,
        reset_count integer NOT NULL DEFAULT 0,
        indexed_at timestamptz NULL
      )`);
    await q.query('CREATE INDEX sandboxes_email ON sandboxes (lower(email))');
    await q.query(`
      CREATE TABLE sandbox_refresh_tokens (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        token_hash text NOT NULL UNIQUE,
        api_key_id uuid NULL REFERENCES api_keys(id) ON DELETE SET NULL,
        scopes text[] NOT NULL,
        access_ttl_seconds integer NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz NULL,
        replaced_by_key_id uuid NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Image vectors of the seed images per model and seed version (the same for every sandbox): computed
    // once on the platform, then read by every process, so creating a sandbox never waits for the model.
    await q.query(`
      CREATE TABLE sandbox_seed_vectors (
        model text NOT NULL,
        seed_version text NOT NULL,
        position integer NOT NULL CHECK (position >= 0),
        vector bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (model, seed_version, position)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['sandbox_seed_vectors', 'sandbox_refresh_tokens', 'sandboxes', 'order_items', 'orders'])
      await q.query(`DROP TABLE ${table}`);
  }
}
