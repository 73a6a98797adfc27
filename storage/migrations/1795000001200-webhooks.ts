import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Outbound webhooks (docs/webhooks.md): the endpoints a tenant subscribes, one delivery per
 * (event, endpoint) with its envelope frozen at fan-out (every attempt and replay sends the same
 * bytes), the history of attempts, and one test signing secret per tenant for the webhook tester.
 * All delivery state lives here, so restarts of any process or of Redis lose nothing.
 */
export class Webhooks1795000001200 implements MigrationInterface {
  name = 'Webhooks1795000001200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_endpoints (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        url text NOT NULL CHECK (char_length(url) BETWEEN 1 AND 2048),
        description text NULL CHECK (description IS NULL OR char_length(description) <= 500),
        topics text[] NOT NULL CHECK (cardinality(topics) BETWEEN 1 AND 33),
        enabled boolean NOT NULL DEFAULT true,
        secret_enc text NOT NULL,
        secret_last4 text NOT NULL,
        secret_rotated_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX webhook_endpoints_tenant ON webhook_endpoints (tenant_id, id)');
    await q.query('CREATE UNIQUE INDEX webhook_endpoints_tenant_url ON webhook_endpoints (tenant_id, url)');
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        endpoint_id uuid NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        event_id uuid NOT NULL,
        topic text NOT NULL,
        url text NULL,
        is_test boolean NOT NULL DEFAULT false,
        body text NOT NULL,
        status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'DELIVERED', 'DEAD')),
        attempts integer NOT NULL DEFAULT 0,
        total_attempts integer NOT NULL DEFAULT 0,
        replays integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NULL,
        claimed_until timestamptz NULL,
        claim_token uuid NULL,
        last_status_code integer NULL,
        last_error text NULL,
        last_attempt_at timestamptz NULL,
        delivered_at timestamptz NULL,
        dead_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT webhook_deliveries_target CHECK (endpoint_id IS NOT NULL OR url IS NOT NULL)
      )`);
    await q.query(
      'CREATE UNIQUE INDEX webhook_deliveries_event_endpoint ON webhook_deliveries (event_id, endpoint_id) WHERE endpoint_id IS NOT NULL',
    );
    await q.query("CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'PENDING'");
    await q.query('CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id)');
    await q.query("CREATE INDEX webhook_deliveries_dead ON webhook_deliveries (tenant_id, id) WHERE status = 'DEAD'");
    await q.query(`
      CREATE TABLE webhook_attempts (
        id bigserial PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
        number integer NOT NULL,
        outcome text NOT NULL CHECK (outcome IN ('SUCCESS', 'FAILURE')),
        status_code integer NULL,
        error text NULL,
        duration_ms integer NOT NULL,
        attempted_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, id)');
    await q.query(`
      CREATE TABLE webhook_test_secrets (
        tenant_id uuid PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
        secret_enc text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE webhook_test_secrets');
    await q.query('DROP TABLE webhook_attempts');
    await q.query('DROP TABLE webhook_deliveries');
    await q.query('DROP TABLE webhook_endpoints');
  }
}
