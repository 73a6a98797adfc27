import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Pricing rules and flash-sale campaigns of a store (api/pricing, api/flash-sales), and the state of
 * the pricing window scheduler (one row: the end of its last pass, so a restart misses no window).
 *
 * Amounts are numeric(14, 4) in the product's currency; percentages numeric(5, 2) (0 to 100).
 * A rule's targets are ids of products, categories, brands or collections by its scope; customer
 * groups are lowercase names (customer tags). Flash-sale items are products (sale price or percentage,
 * optional stock cap with its sold count) or categories (percentage, the category's whole subtree).
 */
export class PricingFlashSales1795000001400 implements MigrationInterface {
  name = 'PricingFlashSales1795000001400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE pricing_rules (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name text NOT NULL,
        type text NOT NULL CHECK (type IN ('PERCENT', 'FIXED_AMOUNT', 'FIXED_PRICE')),
        value numeric(14, 4) NOT NULL CHECK (value >= 0),
        scope text NOT NULL DEFAULT 'ALL' CHECK (scope IN ('ALL', 'PRODUCTS', 'CATEGORIES', 'BRANDS', 'COLLECTIONS')),
        target_ids uuid[] NOT NULL DEFAULT '{}',
        customer_groups text[] NOT NULL DEFAULT '{}',
        tiers jsonb NOT NULL DEFAULT '[]'::jsonb,
        starts_at timestamptz NULL,
        ends_at timestamptz NULL,
        priority integer NOT NULL DEFAULT 0 CHECK (priority BETWEEN 0 AND 1000),
        stackable boolean NOT NULL DEFAULT false,
        is_active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pricing_rules_window CHECK (ends_at IS NULL OR starts_at IS NULL OR ends_at > starts_at),
        CONSTRAINT pricing_rules_percent CHECK (type <> 'PERCENT' OR value <= 100)
      )`);
    await q.query('CREATE INDEX pricing_rules_store ON pricing_rules (store_id, id)');
    // The scheduler looks for windows that opened or closed since its last pass.
    await q.query('CREATE INDEX pricing_rules_starts ON pricing_rules (starts_at) WHERE starts_at IS NOT NULL AND is_active');
    await q.query('CREATE INDEX pricing_rules_ends ON pricing_rules (ends_at) WHERE ends_at IS NOT NULL AND is_active');

    await q.query(`
      CREATE TABLE flash_sale_campaigns (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name text NOT NULL,
        slug text NOT NULL,
        description text NULL,
        status text NOT NULL DEFAULT 'DRAFT' CHECK (status IN ('DRAFT', 'PUBLISHED', 'ARCHIVED')),
        starts_at timestamptz NOT NULL,
        ends_at timestamptz NOT NULL,
        archived_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT flash_sale_campaigns_window CHECK (ends_at > starts_at)
      )`);
    await q.query('CREATE UNIQUE INDEX flash_sale_campaigns_slug ON flash_sale_campaigns (store_id, lower(slug))');
    await q.query('CREATE INDEX flash_sale_campaigns_store ON flash_sale_campaigns (store_id, id)');
    await q.query(
      `CREATE INDEX flash_sale_campaigns_running ON flash_sale_campaigns (store_id, starts_at, ends_at) WHERE status = 'PUBLISHED'`,
    );
    await q.query(`CREATE INDEX flash_sale_campaigns_starts ON flash_sale_campaigns (starts_at) WHERE status = 'PUBLISHED'`);
    await q.query(`CREATE INDEX flash_sale_campaigns_ends ON flash_sale_campaigns (ends_at) WHERE status = 'PUBLISHED'`);

    await q.query(`
      CREATE TABLE flash_sale_items (
        campaign_id uuid NOT NULL REFERENCES flash_sale_campaigns(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('PRODUCT', 'CATEGORY')),
        target_id uuid NOT NULL,
        sale_price numeric(14, 4) NULL CHECK (sale_price IS NULL OR sale_price >= 0),
        discount_percent numeric(5, 2) NULL CHECK (discount_percent IS NULL OR (discount_percent > 0 AND discount_percent <= 100)),
        stock_cap integer NULL CHECK (stock_cap IS NULL OR stock_cap > 0),
        sold_count integer NOT NULL DEFAULT 0 CHECK (sold_count >= 0),
        position integer NOT NULL DEFAULT 0,
        PRIMARY KEY (campaign_id, target_id),
        CONSTRAINT flash_sale_items_price CHECK ((sale_price IS NULL) <> (discount_percent IS NULL)),
        CONSTRAINT flash_sale_items_category CHECK (kind = 'PRODUCT' OR (sale_price IS NULL AND stock_cap IS NULL))
      )`);
    await q.query('CREATE INDEX flash_sale_items_target ON flash_sale_items (target_id)');

    await q.query(`CREATE TABLE pricing_schedule_state (id smallint PRIMARY KEY CHECK (id = 1), last_pass_at timestamptz NOT NULL)`);
    await q.query(`INSERT INTO pricing_schedule_state (id, last_pass_at) VALUES (1, now())`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE pricing_schedule_state');
    await q.query('DROP TABLE flash_sale_items');
    await q.query('DROP TABLE flash_sale_campaigns');
    await q.query('DROP TABLE pricing_rules');
  }
}
