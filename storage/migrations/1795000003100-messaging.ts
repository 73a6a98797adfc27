import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Messages to a store's customers (docs/messaging.md, "Messages to customers"):
 * - outbound_messages gains the store, customer, category and dedupe key of a customer message
 *   (one message per store and key), the SMTP Message-ID of its delivery (the `sending` claim), and
 *   the statuses `sending` (claimed by a worker), `held` (kept for the tenant's digest) and
 *   `digested` (sent inside a digest, `digest_message_id`);
 * - email_suppression_entries: addresses that must not be e-mailed, kept as the SHA-256 hash of the
 *   normalised address and its domain only (never the address in clear), for one store or platform-wide;
 * - customer_notification_preferences: a customer's choice per category (absent: enabled);
 * - tenant_notification_policies: the tenant's switch per category (absent: enabled);
 * - tenant_notification_digests: the tenant's digest (frequency, hour, time zone, last period sent).
 */
export class Messaging1795000003100 implements MigrationInterface {
  name = 'Messaging1795000003100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE outbound_messages
        ADD COLUMN store_id uuid NULL REFERENCES stores(id) ON DELETE CASCADE,
        ADD COLUMN customer_id uuid NULL REFERENCES customers(id) ON DELETE SET NULL,
        ADD COLUMN category text NULL CHECK (category IN ('TRANSACTIONAL', 'ORDER_UPDATES', 'MARKETING', 'NEWSLETTER')),
        ADD COLUMN dedupe_key text NULL CHECK (char_length(dedupe_key) BETWEEN 1 AND 200),
        ADD COLUMN smtp_message_id text NULL,
        ADD COLUMN digest_message_id uuid NULL`);
    await q.query(
      'CREATE UNIQUE INDEX outbound_messages_store_dedupe ON outbound_messages (store_id, dedupe_key) WHERE dedupe_key IS NOT NULL',
    );
    await q.query("CREATE INDEX outbound_messages_held ON outbound_messages (tenant_id, customer_id, created_at) WHERE status = 'held'");
    // Deleting a customer clears its messages' customer_id: without this index every delete scans the table.
    await q.query('CREATE INDEX outbound_messages_customer ON outbound_messages (customer_id) WHERE customer_id IS NOT NULL');
    await q.query(`
      CREATE TABLE email_suppression_entries (
        id uuid PRIMARY KEY,
        tenant_id uuid NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NULL REFERENCES stores(id) ON DELETE CASCADE,
        applies_platform boolean NOT NULL DEFAULT false,
        email_hash text NOT NULL CHECK (email_hash ~ '^[0-9a-f]{64}$'),
        email_domain text NOT NULL CHECK (char_length(email_domain) BETWEEN 1 AND 253),
        reason text NOT NULL CHECK (reason IN ('HARD_BOUNCE', 'COMPLAINT', 'UNSUBSCRIBE', 'MANUAL')),
        created_by_type text NOT NULL,
        created_by_id text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((applies_platform AND store_id IS NULL AND tenant_id IS NULL) OR (NOT applies_platform AND store_id IS NOT NULL AND tenant_id IS NOT NULL))
      )`);
    await q.query(
      'CREATE UNIQUE INDEX email_suppression_store_hash ON email_suppression_entries (store_id, email_hash) WHERE store_id IS NOT NULL',
    );
    await q.query('CREATE UNIQUE INDEX email_suppression_platform_hash ON email_suppression_entries (email_hash) WHERE applies_platform');
    await q.query('CREATE INDEX email_suppression_tenant ON email_suppression_entries (tenant_id, created_at DESC, id DESC)');
    await q.query(`
      CREATE TABLE customer_notification_preferences (
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        customer_id uuid NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
        category text NOT NULL CHECK (category IN ('TRANSACTIONAL', 'ORDER_UPDATES', 'MARKETING', 'NEWSLETTER')),
        enabled boolean NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (customer_id, category)
      )`);
    await q.query(`
      CREATE TABLE tenant_notification_policies (
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        category text NOT NULL CHECK (category IN ('TRANSACTIONAL', 'ORDER_UPDATES', 'MARKETING', 'NEWSLETTER')),
        enabled boolean NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, category)
      )`);
    await q.query(`
      CREATE TABLE tenant_notification_digests (
        tenant_id uuid PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
        frequency text NOT NULL CHECK (frequency IN ('DAILY', 'WEEKLY', 'OFF')),
        hour integer NOT NULL CHECK (hour BETWEEN 0 AND 23),
        time_zone text NOT NULL CHECK (char_length(time_zone) BETWEEN 1 AND 64),
        last_period text NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS tenant_notification_digests');
    await q.query('DROP TABLE IF EXISTS tenant_notification_policies');
    await q.query('DROP TABLE IF EXISTS customer_notification_preferences');
    await q.query('DROP TABLE IF EXISTS email_suppression_entries');
    await q.query('DROP INDEX IF EXISTS outbound_messages_customer');
    await q.query('DROP INDEX IF EXISTS outbound_messages_held');
    await q.query('DROP INDEX IF EXISTS outbound_messages_store_dedupe');
    await q.query(`
      ALTER TABLE outbound_messages
        DROP COLUMN IF EXISTS store_id, DROP COLUMN IF EXISTS customer_id, DROP COLUMN IF EXISTS category,
        DROP COLUMN IF EXISTS dedupe_key, DROP COLUMN IF EXISTS smtp_message_id, DROP COLUMN IF EXISTS digest_message_id`);
  }
}
