import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Customers of a store (orders and the sandbox build on them). The e-mail is unique per store,
 * case-insensitively (`email_key` = lower(email)). Addresses are a JSON list; tags a text array;
 * marketing consent is a flag with the time it was given (null while not given).
 */
export class Customers1795000001000 implements MigrationInterface {
  name = 'Customers1795000001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE customers (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name text NULL CHECK (name IS NULL OR char_length(name) BETWEEN 1 AND 200),
        email text NOT NULL CHECK (char_length(email) BETWEEN 3 AND 254),
        email_key text GENERATED ALWAYS AS (lower(email)) STORED,
        phone text NULL CHECK (phone IS NULL OR char_length(phone) BETWEEN 5 AND 32),
        addresses jsonb NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(addresses) = 'array'),
        tags text[] NOT NULL DEFAULT '{}',
        accepts_marketing boolean NOT NULL DEFAULT false,
        marketing_consent_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT customers_consent CHECK (accepts_marketing OR marketing_consent_at IS NULL)
      )`);
    await q.query('CREATE UNIQUE INDEX customers_store_email ON customers (store_id, email_key)');
    await q.query('CREATE INDEX customers_tenant_store ON customers (tenant_id, store_id, id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE customers');
  }
}
