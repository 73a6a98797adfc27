import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The support desk (docs/support.md): tickets and their messages, platform incidents, the updates
 * broadcast about them and who each broadcast reached.
 *
 * - support_tickets: `ticket_number` comes from a sequence (a plain number, unique across tenants);
 *   `priority_rank` (URGENT 4 … LOW 1) is what the priority sorts order by; `sla_due_at` is the next
 *   SLA deadline of an unresolved ticket (its first-response due time while nobody from the platform
 *   answered, then its resolution due time; null once resolved) and `sla_missed` says a deadline was
 *   met late, so "breached at t" is `sla_missed OR sla_due_at <= t`, which the indexes below answer;
 *   `search` is the full-text vector of the subject and the public messages (internal notes are never
 *   in it, so a merchant's search cannot reveal them).
 * - ticket_messages: the conversation; `internal` notes are for platform staff only.
 * - support_incidents, incident_updates (one per broadcast, unique per incident and idempotency key)
 *   and incident_broadcast_recipients (one row per update and tenant: a retried broadcast reaches each
 *   merchant once).
 */
export class SupportDesk1795000002500 implements MigrationInterface {
  name = 'SupportDesk1795000002500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE support_incidents (
        id uuid PRIMARY KEY,
        title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
        status text NOT NULL DEFAULT 'INVESTIGATING' CHECK (status IN ('INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED')),
        severity text NOT NULL DEFAULT 'MAJOR' CHECK (severity IN ('MINOR', 'MAJOR', 'CRITICAL')),
        created_by_user_id uuid NULL REFERENCES users(id) ON DELETE SET NULL,
        started_at timestamptz NOT NULL,
        resolved_at timestamptz NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await q.query('CREATE SEQUENCE support_ticket_number_seq AS bigint START 1');
    await q.query(`
      CREATE TABLE support_tickets (
        id uuid PRIMARY KEY,
        ticket_number bigint NOT NULL DEFAULT nextval('support_ticket_number_seq'),
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NULL REFERENCES stores(id) ON DELETE SET NULL,
        audience text NOT NULL CHECK (audience IN ('STORE', 'PLATFORM')),
        status text NOT NULL DEFAULT 'OPEN' CHECK (status IN ('OPEN', 'IN_PROGRESS', 'WAITING_ON_CUSTOMER', 'RESOLVED', 'CLOSED')),
        priority text NOT NULL DEFAULT 'NORMAL' CHECK (priority IN ('LOW', 'NORMAL', 'HIGH', 'URGENT')),
        priority_rank smallint GENERATED ALWAYS AS (
          CASE priority WHEN 'URGENT' THEN 4 WHEN 'HIGH' THEN 3 WHEN 'NORMAL' THEN 2 ELSE 1 END
        ) STORED,
        subject text NOT NULL CHECK (char_length(subject) BETWEEN 1 AND 200),
        requester_user_id uuid NULL REFERENCES users(id) ON DELETE SET NULL,
        requester_email text NULL CHECK (char_length(requester_email) <= 320),
        created_by_user_id uuid NULL REFERENCES users(id) ON DELETE SET NULL,
        assignee_user_id uuid NULL REFERENCES users(id) ON DELETE SET NULL,
        incident_id uuid NULL REFERENCES support_incidents(id) ON DELETE SET NULL,
        message_count integer NOT NULL DEFAULT 0 CHECK (message_count >= 0),
        public_message_count integer NOT NULL DEFAULT 0 CHECK (public_message_count >= 0),
        first_response_due_at timestamptz NOT NULL,
        first_responded_at timestamptz NULL,
        resolution_due_at timestamptz NOT NULL,
        resolved_at timestamptz NULL,
        closed_at timestamptz NULL,
        last_message_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        sla_due_at timestamptz GENERATED ALWAYS AS (
          CASE WHEN resolved_at IS NOT NULL THEN NULL
               WHEN first_responded_at IS NULL THEN least(first_response_due_at, resolution_due_at)
               ELSE resolution_due_at END
        ) STORED,
        sla_missed boolean GENERATED ALWAYS AS (
          coalesce(first_responded_at > first_response_due_at, false) OR coalesce(resolved_at > resolution_due_at, false)
        ) STORED,
        search tsvector NOT NULL DEFAULT ''::tsvector,
        CONSTRAINT support_tickets_number UNIQUE (ticket_number)
      )`);
    await q.query('ALTER SEQUENCE support_ticket_number_seq OWNED BY support_tickets.ticket_number');
    // Keyset sorts of the platform-wide list: (sort value, id), read forwards or backwards.
    await q.query('CREATE INDEX support_tickets_priority ON support_tickets (priority_rank, id)');
    await q.query('CREATE INDEX support_tickets_created ON support_tickets (created_at, id)');
    // The stats' resolutions in a period.
    await q.query('CREATE INDEX support_tickets_resolved ON support_tickets (resolved_at) WHERE resolved_at IS NOT NULL');
    await q.query('CREATE INDEX support_tickets_messages ON support_tickets (message_count, id)');
    // A merchant's list (one tenant) and filters that narrow the platform-wide list.
    await q.query('CREATE INDEX support_tickets_tenant ON support_tickets (tenant_id, created_at, id)');
    await q.query('CREATE INDEX support_tickets_assignee ON support_tickets (assignee_user_id, created_at, id)');
    await q.query('CREATE INDEX support_tickets_unassigned ON support_tickets (created_at, id) WHERE assignee_user_id IS NULL');
    await q.query('CREATE INDEX support_tickets_status ON support_tickets (status, priority_rank, id)');
    await q.query('CREATE INDEX support_tickets_incident ON support_tickets (incident_id) WHERE incident_id IS NOT NULL');
    // SLA filters: the next deadline of unresolved tickets, deadlines met late, tickets awaiting a first answer.
    await q.query('CREATE INDEX support_tickets_sla_due ON support_tickets (sla_due_at) WHERE sla_due_at IS NOT NULL');
    await q.query('CREATE INDEX support_tickets_sla_missed ON support_tickets (id) WHERE sla_missed');
    await q.query(
      'CREATE INDEX support_tickets_awaiting ON support_tickets (first_response_due_at) WHERE first_responded_at IS NULL AND resolved_at IS NULL',
    );
    // Workload and stats: open tickets per assignee.
    await q.query(
      `CREATE INDEX support_tickets_open_assignee ON support_tickets (assignee_user_id, status) WHERE status NOT IN ('RESOLVED', 'CLOSED')`,
    );
    await q.query('CREATE INDEX support_tickets_search ON support_tickets USING gin (search)');

    await q.query(`
      CREATE TABLE ticket_messages (
        id uuid PRIMARY KEY,
        ticket_id uuid NOT NULL REFERENCES support_tickets(id) ON DELETE CASCADE,
        author_user_id uuid NULL REFERENCES users(id) ON DELETE SET NULL,
        author_kind text NOT NULL CHECK (author_kind IN ('MERCHANT', 'STAFF', 'SYSTEM')),
        internal boolean NOT NULL DEFAULT false,
        body text NOT NULL CHECK (char_length(body) BETWEEN 1 AND 10000),
        created_at timestamptz NOT NULL,
        CONSTRAINT ticket_messages_internal_staff CHECK (NOT internal OR author_kind = 'STAFF')
      )`);
    await q.query('CREATE INDEX ticket_messages_ticket ON ticket_messages (ticket_id, created_at, id)');

    await q.query(`
      CREATE TABLE incident_updates (
        id uuid PRIMARY KEY,
        incident_id uuid NOT NULL REFERENCES support_incidents(id) ON DELETE CASCADE,
        message text NOT NULL CHECK (char_length(message) BETWEEN 1 AND 5000),
        status text NOT NULL CHECK (status IN ('INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED')),
        idempotency_key text NULL CHECK (char_length(idempotency_key) BETWEEN 1 AND 200),
        created_by_user_id uuid NULL REFERENCES users(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL
      )`);
    await q.query('CREATE INDEX incident_updates_incident ON incident_updates (incident_id, created_at, id)');
    await q.query(
      'CREATE UNIQUE INDEX incident_updates_idempotency ON incident_updates (incident_id, idempotency_key) WHERE idempotency_key IS NOT NULL',
    );
    await q.query(`
      CREATE TABLE incident_broadcast_recipients (
        update_id uuid NOT NULL REFERENCES incident_updates(id) ON DELETE CASCADE,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (update_id, tenant_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS incident_broadcast_recipients');
    await q.query('DROP TABLE IF EXISTS incident_updates');
    await q.query('DROP TABLE IF EXISTS ticket_messages');
    await q.query('DROP TABLE IF EXISTS support_tickets');
    await q.query('DROP SEQUENCE IF EXISTS support_ticket_number_seq');
    await q.query('DROP TABLE IF EXISTS support_incidents');
  }
}
