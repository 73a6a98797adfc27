import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the platform tells merchants, and e-mail that leaves only after its transaction committed:
 * - merchant_notifications: in-app notifications of a tenant (optionally of one store or one user),
 *   written in the transaction of the event they describe, so a rolled-back write notifies nobody.
 *   `dedupe_key` makes a notification at most once per tenant (a retried incident broadcast);
 * - outbound_messages.sent_at / attempts / last_error: an SMTP message is recorded `queued` with an
 *   outbox row in the caller's transaction and handed to SMTP by the jobs worker after commit
 *   (docs/messaging.md).
 */
export class NotificationsOutboundDelivery1795000002250 implements MigrationInterface {
  name = 'NotificationsOutboundDelivery1795000002250';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE merchant_notifications (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NULL REFERENCES stores(id) ON DELETE CASCADE,
        user_id uuid NULL REFERENCES users(id) ON DELETE CASCADE,
        topic text NOT NULL CHECK (char_length(topic) BETWEEN 1 AND 100),
        title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 300),
        body text NOT NULL CHECK (char_length(body) <= 10000),
        link text NULL CHECK (char_length(link) <= 2000),
        dedupe_key text NULL CHECK (char_length(dedupe_key) <= 200),
        read_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX merchant_notifications_tenant ON merchant_notifications (tenant_id, created_at DESC, id DESC)');
    await q.query(
      'CREATE INDEX merchant_notifications_unread ON merchant_notifications (tenant_id, created_at DESC) WHERE read_at IS NULL',
    );
    await q.query(
      'CREATE UNIQUE INDEX merchant_notifications_dedupe ON merchant_notifications (tenant_id, dedupe_key) WHERE dedupe_key IS NOT NULL',
    );
    await q.query(`
      ALTER TABLE outbound_messages
        ADD COLUMN sent_at timestamptz NULL,
        ADD COLUMN attempts integer NOT NULL DEFAULT 0,
        ADD COLUMN last_error text NULL`);
    await q.query("UPDATE outbound_messages SET sent_at = created_at WHERE status = 'sent'");
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      'ALTER TABLE outbound_messages DROP COLUMN IF EXISTS sent_at, DROP COLUMN IF EXISTS attempts, DROP COLUMN IF EXISTS last_error',
    );
    await q.query('DROP TABLE IF EXISTS merchant_notifications');
  }
}
