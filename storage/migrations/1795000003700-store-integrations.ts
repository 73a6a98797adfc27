import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Store integrations (docs/integrations.md):
 * - integration_catalog: the integrations the platform offers, platform-wide, seeded here. Each row
 *   names its kind, whether it does real work here (`live`) or is a catalog entry whose external side
 *   is not built yet, whether the public website lists it, and the settings it takes
 *   (`settings_schema`: a list of field descriptors the API validates connections against);
 * - store_integrations: one row per integration a store connected, with its settings (secret fields
 *   left out), the secret fields sealed in one AES-256-GCM blob (`secrets_enc`), the last four
 *   characters of each long secret (`secret_hints`), enabled, and `is_default`: at most one default
 *   per kind and store, held by a partial unique index.
 */
export class StoreIntegrations1795000003700 implements MigrationInterface {
  name = 'StoreIntegrations1795000003700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE integration_catalog (
        slug text PRIMARY KEY CHECK (slug ~ '^[a-z0-9][a-z0-9-]{1,62}$'),
        kind text NOT NULL CHECK (kind IN ('marketplace_feed', 'analytics', 'shipping_carrier', 'accounting_export')),
        name text NOT NULL,
        description text NOT NULL,
        live boolean NOT NULL,
        listed boolean NOT NULL DEFAULT true,
        position integer NOT NULL DEFAULT 0,
        settings_schema jsonb NOT NULL CHECK (jsonb_typeof(settings_schema) = 'array'),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE store_integrations (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        integration text NOT NULL REFERENCES integration_catalog(slug),
        kind text NOT NULL,
        enabled boolean NOT NULL DEFAULT true,
        is_default boolean NOT NULL DEFAULT false,
        settings jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(settings) = 'object'),
        secrets_enc text NULL,
        secret_hints jsonb NOT NULL DEFAULT '{}'::jsonb,
        connected_by uuid NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (store_id, integration)
      )`);
    await q.query(`CREATE INDEX store_integrations_tenant ON store_integrations (tenant_id, store_id, kind, created_at)`);
    await q.query(`CREATE UNIQUE INDEX store_integrations_one_default ON store_integrations (store_id, kind) WHERE is_default`);
    // The product feed reads a store's published products in id order, with the columns its fingerprint hashes.
    await q.query(`CREATE INDEX products_published_feed ON products (store_id, id) INCLUDE (updated_at) WHERE status = 'PUBLISHED'`);
    await q.query(
      `INSERT INTO integration_catalog (slug, kind, name, description, live, position, settings_schema) VALUES
      ('google-merchant-feed', 'marketplace_feed', 'Google Merchant Center product feed',
       'Publishes the store''s published products as a Google Merchant Center feed (RSS 2.0 XML and CSV) at a public URL the merchant gives Merchant Center.',
       true, 10, $1::jsonb),
      ('google-analytics-4', 'analytics', 'Google Analytics 4',
       'Adds the Google tag (gtag.js) of a GA4 measurement id to every storefront page.',
       true, 20, $2::jsonb),
      ('plausible-analytics', 'analytics', 'Plausible Analytics',
       'Adds the Plausible script for the site domain to every storefront page.',
       true, 30, $3::jsonb),
      ('parcel-carrier-api', 'shipping_carrier', 'Parcel carrier account',
       'Keeps the account number and API key of a parcel carrier for the store. Catalog entry: rates and labels are not requested from the carrier yet.',
       false, 40, $4::jsonb),
      ('accounting-ledger-export', 'accounting_export', 'Accounting ledger export',
       'Keeps the company id and API token of an accounting system for the store. Catalog entry: nothing is exported to it yet.',
       false, 50, $5::jsonb)`,
      [
        JSON.stringify([
          {
            key: 'access',
            type: 'enum',
            values: ['public', 'token'],
            default: 'public',
            description: 'public: anyone with the URL reads the feed; token: the URL carries a token and the feed answers 404 without it.',
          },
          {
            key: 'includeOutOfStock',
            type: 'boolean',
            default: true,
            description: 'List products with no stock (availability out_of_stock).',
          },
        ]),
        JSON.stringify([
          {
            key: 'measurementId',
            type: 'string',
            required: true,
            pattern: '^G-[A-Z0-9]{4,16}$',
            maxLength: 18,
            description: 'The GA4 measurement id, e.g. G-ABC123XYZ9.',
          },
        ]),
        JSON.stringify([
          {
            key: 'domain',
            type: 'string',
            required: true,
            pattern: '^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,63}$',
            maxLength: 253,
            description: 'The site domain as registered in Plausible, lower case, e.g. shop.example.com.',
          },
        ]),
        JSON.stringify([
          {
            key: 'accountNumber',
            type: 'string',
            required: true,
            pattern: '^[A-Za-z0-9-]{4,32}$',
            maxLength: 32,
            description: 'The carrier account number.',
          },
          {
            key: 'serviceLevel',
            type: 'enum',
            values: ['standard', 'express'],
            default: 'standard',
            description: 'The service rates would be asked for.',
          },
          {
            key: 'apiKey',
            type: 'string',
            secret: true,
            required: true,
            minLength: 8,
            maxLength: 500,
            description: 'The carrier API key (kept encrypted, never shown again).',
          },
        ]),
        JSON.stringify([
          {
            key: 'companyId',
            type: 'string',
            required: true,
            pattern: '^[A-Za-z0-9-]{1,64}$',
            maxLength: 64,
            description: 'The company (organisation) id in the accounting system.',
          },
          {
            key: 'apiToken',
            type: 'string',
            secret: true,
            required: true,
            minLength: 8,
            maxLength: 500,
            description: 'The API token (kept encrypted, never shown again).',
          },
        ]),
      ],
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS products_published_feed`);
    await q.query(`DROP TABLE IF EXISTS store_integrations`);
    await q.query(`DROP TABLE IF EXISTS integration_catalog`);
  }
}
