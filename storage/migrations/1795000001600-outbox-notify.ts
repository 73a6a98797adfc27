import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every statement that inserts outbox rows notifies the `outbox_pending` channel, so the relay
 * (relay/outbox-wake.ts) wakes when the writing transaction commits instead of at its next poll.
 * A statement-level trigger: one notification per statement, whatever number of rows it inserts, and
 * PostgreSQL collapses repeated notifications of one transaction into one.
 */
export class OutboxNotify1795000001600 implements MigrationInterface {
  name = 'OutboxNotify1795000001600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('outbox_pending', '');
        RETURN NULL;
      END $$`);
    await q.query('CREATE TRIGGER outbox_notify AFTER INSERT ON outbox FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify()');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER IF EXISTS outbox_notify ON outbox');
    await q.query('DROP FUNCTION IF EXISTS outbox_notify()');
  }
}
