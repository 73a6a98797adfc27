import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Outbox1795000000000 implements MigrationInterface {
  name = 'Outbox1795000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE outbox (
        id bigserial PRIMARY KEY,
        tenant_id uuid NULL,
        queue text NOT NULL,
        topic text NOT NULL,
        aggregate_type text NOT NULL,
        aggregate_id text NOT NULL,
        payload jsonb NOT NULL DEFAULT '{}'::jsonb,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'in_flight', 'done')),
        attempts integer NOT NULL DEFAULT 0,
        available_at timestamptz NOT NULL DEFAULT now(),
        claimed_at timestamptz NULL,
        claimed_by text NULL,
        last_error text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        done_at timestamptz NULL
      )`);
    // The relay scans only rows that are not done; a partial index keeps that scan small however large the history grows.
    await queryRunner.query(`CREATE INDEX outbox_claimable ON outbox (status, available_at) WHERE status <> 'done'`);
    await queryRunner.query(`CREATE INDEX outbox_aggregate ON outbox (queue, aggregate_type, aggregate_id, status) WHERE status <> 'done'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE outbox');
  }
}
