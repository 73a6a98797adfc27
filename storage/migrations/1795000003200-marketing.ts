import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Marketing (docs/marketing.md): campaigns with their per-recipient delivery rows, automations and
 * their runs.
 * - marketing_campaigns: DRAFT → SCHEDULED → SENDING → SENT; the segment is a small
 *   declarative filter (jsonb) compiled to one parameterised query at send time;
 * - campaign_recipients: one row per campaign and customer (the audience taken when sending starts),
 *   `pending` until the scheduler hands it to the customer message pipeline, then its outcome;
 * - marketing_automations: a trigger and 1 to 10 steps (jsonb); `events_since` is the time from which
 *   the scheduler starts runs for ORDER_PLACED and CUSTOMER_CREATED events;
 * - marketing_automation_runs: one customer going through the steps; `trigger_key` makes an event
 *   start at most one run per automation.
 */
export class Marketing1795000003200 implements MigrationInterface {
  name = 'Marketing1795000003200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE marketing_campaigns (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        subject text NOT NULL CHECK (char_length(subject) BETWEEN 1 AND 200),
        body text NOT NULL CHECK (char_length(body) BETWEEN 1 AND 20000),
        category text NOT NULL CHECK (category IN ('MARKETING', 'NEWSLETTER')),
        segment jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(segment) = 'object'),
        status text NOT NULL CHECK (status IN ('DRAFT', 'SCHEDULED', 'SENDING', 'SENT')),
        scheduled_at timestamptz NULL,
        started_at timestamptz NULL,
        finished_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX marketing_campaigns_tenant ON marketing_campaigns (tenant_id, store_id, id DESC)');
    await q.query("CREATE INDEX marketing_campaigns_due ON marketing_campaigns (scheduled_at) WHERE status IN ('SCHEDULED', 'SENDING')");
    await q.query(`
      CREATE TABLE campaign_recipients (
        campaign_id uuid NOT NULL REFERENCES marketing_campaigns(id) ON DELETE CASCADE,
        customer_id uuid NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
        status text NOT NULL CHECK (status IN ('pending', 'queued', 'suppressed', 'opted_out', 'policy_blocked', 'duplicate', 'no_address')),
        message_id uuid NULL,
        reason text NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (campaign_id, customer_id)
      )`);
    await q.query("CREATE INDEX campaign_recipients_pending ON campaign_recipients (campaign_id) WHERE status = 'pending'");
    // Deleting a customer (or its tenant) cascades here: without these its delete scans the tables.
    await q.query('CREATE INDEX campaign_recipients_customer ON campaign_recipients (customer_id)');
    await q.query(`
      CREATE TABLE marketing_automations (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        trigger text NOT NULL CHECK (trigger IN ('ORDER_PLACED', 'CUSTOMER_CREATED', 'CART_ABANDONED', 'MANUAL')),
        steps jsonb NOT NULL CHECK (jsonb_typeof(steps) = 'array' AND jsonb_array_length(steps) BETWEEN 1 AND 10),
        active boolean NOT NULL,
        events_since timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX marketing_automations_tenant ON marketing_automations (tenant_id, store_id, id DESC)');
    await q.query(`
      CREATE TABLE marketing_automation_runs (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        automation_id uuid NOT NULL REFERENCES marketing_automations(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        customer_id uuid NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
        trigger_key text NOT NULL CHECK (char_length(trigger_key) BETWEEN 1 AND 200),
        status text NOT NULL CHECK (status IN ('RUNNING', 'COMPLETED', 'CANCELLED')),
        next_step integer NOT NULL DEFAULT 0 CHECK (next_step >= 0),
        next_step_at timestamptz NULL,
        outcomes jsonb NOT NULL DEFAULT '[]'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz NULL,
        UNIQUE (automation_id, trigger_key)
      )`);
    await q.query('CREATE INDEX marketing_automation_runs_list ON marketing_automation_runs (automation_id, id DESC)');
    await q.query('CREATE INDEX marketing_automation_runs_customer ON marketing_automation_runs (customer_id)');
    await q.query("CREATE INDEX marketing_automation_runs_due ON marketing_automation_runs (next_step_at) WHERE status = 'RUNNING'");
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS marketing_automation_runs');
    await q.query('DROP TABLE IF EXISTS marketing_automations');
    await q.query('DROP TABLE IF EXISTS campaign_recipients');
    await q.query('DROP TABLE IF EXISTS marketing_campaigns');
  }
}
