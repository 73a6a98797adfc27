import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The app store, checkout settings and wallets (docs/app-store.md, docs/checkout.md).
 *
 * - app_listings: the platform's app catalog (no tenant), seeded below with a handful of apps; the
 *   price is numeric(14, 4) in the listing's currency, 0 for FREE apps.
 * - app_purchases: one row per purchase of a paid app for a store; its status moves along the
 *   table of api/app-store/app-purchase-payment.ts. `three_ds_token` names the 3-D Secure page of a
 *   payment waiting for its challenge; `paid_through` ends a MONTHLY purchase's period (null: for good).
 * - store_app_entitlements: what a store has enabled (one row per store and listing, created on
 *   the first enable or payment, kept when disabled).
 * - checkout_settings: one row per store (absent: the documented defaults).
 * - wallet_configs: one row per store and wallet provider, with the generated domain association
 *   content; wallet_domain_verifications: every verification attempt with its outcome.
 */
export class AppStoreCheckout1795000002900 implements MigrationInterface {
  name = 'AppStoreCheckout1795000002900';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE app_listings (
        id uuid PRIMARY KEY,
        slug text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,99}$'),
        name text NOT NULL,
        summary text NOT NULL,
        description text NOT NULL,
        category text NOT NULL,
        pricing_type text NOT NULL CHECK (pricing_type IN ('FREE', 'ONE_TIME', 'MONTHLY')),
        price numeric(14, 4) NOT NULL CHECK (price >= 0),
        currency char(3) NOT NULL,
        developer text NOT NULL,
        icon_path text NOT NULL,
        scopes text[] NOT NULL DEFAULT '{}',
        published boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT app_listings_free_price CHECK ((pricing_type = 'FREE') = (price = 0))
      )`);
    await q.query('CREATE INDEX app_listings_category ON app_listings (category, id) WHERE published');
    await q.query(`
      CREATE TABLE app_purchases (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        listing_id uuid NOT NULL REFERENCES app_listings(id),
        status text NOT NULL CHECK (status IN ('PENDING', 'CHALLENGE_REQUIRED', 'PAID', 'FAILED', 'REFUNDED')),
        amount numeric(14, 4) NOT NULL CHECK (amount > 0),
        currency char(3) NOT NULL,
        provider text NULL,
        provider_payment_id text NULL,
        installments integer NULL CHECK (installments IS NULL OR installments BETWEEN 1 AND 12),
        card_brand text NULL,
        card_last4 text NULL,
        decline_code text NULL,
        failure_message text NULL,
        three_ds_token text NULL UNIQUE,
        challenge_url text NULL,
        challenge_expires_at timestamptz NULL,
        paid_at timestamptz NULL,
        paid_through timestamptz NULL,
        created_by uuid NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX app_purchases_store ON app_purchases (store_id, listing_id, id)');
    await q.query(
      'CREATE INDEX app_purchases_provider_payment ON app_purchases (provider, provider_payment_id) WHERE provider_payment_id IS NOT NULL',
    );
    await q.query(`
      CREATE TABLE store_app_entitlements (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        listing_id uuid NOT NULL REFERENCES app_listings(id),
        enabled boolean NOT NULL,
        purchase_id uuid NULL REFERENCES app_purchases(id) ON DELETE SET NULL,
        enabled_at timestamptz NULL,
        disabled_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT store_app_entitlements_once UNIQUE (store_id, listing_id)
      )`);
    await q.query(`
      CREATE TABLE checkout_settings (
        store_id uuid PRIMARY KEY REFERENCES stores(id) ON DELETE CASCADE,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        enabled_providers text[] NOT NULL,
        default_provider text NULL,
        three_ds_policy text NOT NULL CHECK (three_ds_policy IN ('ALWAYS', 'RISK_BASED', 'NEVER')),
        installments_enabled boolean NOT NULL,
        installments_max_count integer NOT NULL CHECK (installments_max_count BETWEEN 1 AND 12),
        installments_min_amount numeric(14, 4) NOT NULL CHECK (installments_min_amount >= 0),
        guest_checkout boolean NOT NULL,
        require_phone boolean NOT NULL,
        terms_url text NULL,
        terms_text text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT checkout_settings_default CHECK (default_provider IS NULL OR default_provider = ANY (enabled_providers))
      )`);
    await q.query('CREATE INDEX checkout_settings_tenant ON checkout_settings (tenant_id)');
    await q.query(`
      CREATE TABLE wallet_configs (
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        provider text NOT NULL,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        enabled boolean NOT NULL,
        display_name text NOT NULL,
        domains text[] NOT NULL DEFAULT '{}',
        supported_networks text[] NOT NULL DEFAULT '{}',
        association_content text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (store_id, provider)
      )`);
    await q.query(`
      CREATE TABLE wallet_domain_verifications (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        provider text NOT NULL,
        domain text NOT NULL,
        status text NOT NULL CHECK (status IN ('VERIFIED', 'FAILED')),
        reason text NULL,
        checked_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      'CREATE INDEX wallet_domain_verifications_store ON wallet_domain_verifications (store_id, provider, domain, checked_at DESC)',
    );
    for (const app of SEED) {
      await q.query(
        `INSERT INTO app_listings (id, slug, name, summary, description, category, pricing_type, price, currency, developer, icon_path, scopes)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (id) DO NOTHING`,
        [
          app.id,
          app.slug,
          app.name,
          app.summary,
          app.description,
          app.category,
          app.pricingType,
          app.price,
          app.currency,
          app.developer,
          `/app-icons/${app.slug}.svg`,
          app.scopes,
        ],
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'wallet_domain_verifications',
      'wallet_configs',
      'checkout_settings',
      'store_app_entitlements',
      'app_purchases',
      'app_listings',
    ])
      await q.query(`DROP TABLE IF EXISTS ${table}`);
  }
}

/** The catalog the platform starts with: free and paid apps in a few categories. */
const SEED = [
  {
    id: '01950000-0000-7000-8000-000000000a01',
    slug: 'product-reviews',
    name: 'Product Reviews',
    summary: 'Collect and show verified product reviews.',
    description: 'Asks buyers for a review after delivery and shows star ratings on product pages.',
    category: 'marketing',
    pricingType: 'FREE',
    price: '0',
    currency: 'EUR',
    developer: 'Platform Labs',
    scopes: ['products:read', 'orders:read'],
  },
  {
    id: '01950000-0000-7000-8000-000000000a02',
    slug: 'live-chat',
    name: 'Live Chat',
    summary: 'Talk to shoppers while they browse.',
    description: 'A chat window on every storefront page, with canned answers and office hours.',
    category: 'customer-service',
    pricingType: 'FREE',
    price: '0',
    currency: 'EUR',
    developer: 'Platform Labs',
    scopes: ['customers:read'],
  },
  {
    id: '01950000-0000-7000-8000-000000000a03',
    slug: 'seo-booster',
    name: 'SEO Booster',
    summary: 'Meta tags, sitemaps and structured data.',
    description: 'Generates meta descriptions, a sitemap and product structured data for search engines.',
    category: 'marketing',
    pricingType: 'ONE_TIME',
    price: '149.90',
    currency: 'EUR',
    developer: 'Searchwise',
    scopes: ['products:read', 'products:write', 'content:write'],
  },
  {
    id: '01950000-0000-7000-8000-000000000a04',
    slug: 'loyalty-points',
    name: 'Loyalty Points',
    summary: 'Reward repeat customers with points.',
    description: 'Customers earn points on every order and spend them on discounts at checkout.',
    category: 'marketing',
    pricingType: 'MONTHLY',
    price: '19.00',
    currency: 'EUR',
    developer: 'Retain Co',
    scopes: ['customers:read', 'customers:write', 'orders:read'],
  },
  {
    id: '01950000-0000-7000-8000-000000000a05',
    slug: 'inventory-sync',
    name: 'Inventory Sync',
    summary: 'Keep stock in step with your warehouse.',
    description: 'Synchronises stock levels with warehouse systems every few minutes.',
    category: 'operations',
    pricingType: 'MONTHLY',
    price: '29.90',
    currency: 'EUR',
    developer: 'Stockline',
    scopes: ['products:read', 'products:write'],
  },
  {
    id: '01950000-0000-7000-8000-000000000a06',
    slug: 'invoice-studio',
    name: 'Invoice Studio',
    summary: 'Branded PDF invoices for every order.',
    description: 'Creates an invoice for each paid order and e-mails it to the customer.',
    category: 'accounting',
    pricingType: 'ONE_TIME',
    price: '49.00',
    currency: 'EUR',
    developer: 'Ledgerly',
    scopes: ['orders:read'],
  },
];
