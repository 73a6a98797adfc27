import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Client errors (docs/client-errors.md): the events the platform's browser apps report, the groups
 * they fall into by fingerprint (with running counters and the newest event as a sample), hourly
 * counts per group, app and level (so a 24-hour grouped view or statistics read a few hundred rows,
 * not every event), and staff comments on a group.
 *
 * The events have no foreign keys on purpose: the intake writes many rows and a key check per row
 * would slow it down; the retention pruning removes them anyway.
 */
export class ClientErrors1795000003600 implements MigrationInterface {
  name = 'ClientErrors1795000003600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE client_error_groups (
        fingerprint text PRIMARY KEY CHECK (fingerprint ~ '^[0-9a-f]{32}$'),
        kind text NOT NULL,
        title text NOT NULL,
        top_frame text NOT NULL,
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved', 'ignored')),
        event_count bigint NOT NULL CHECK (event_count >= 0),
        first_seen_at timestamptz NOT NULL,
        last_seen_at timestamptz NOT NULL,
        sample_event_id uuid NOT NULL,
        sample_app text NOT NULL,
        sample_level text NOT NULL,
        sample_message text NOT NULL,
        sample_stack text NULL,
        sample_url text NULL,
        sample_store_id uuid NULL,
        status_changed_at timestamptz NULL,
        status_changed_by uuid NULL,
        reopened_at timestamptz NULL,
        comment_count integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX client_error_groups_last_seen ON client_error_groups (last_seen_at)`);
    await q.query(`
      CREATE TABLE client_error_events (
        id uuid PRIMARY KEY,
        received_at timestamptz NOT NULL,
        fingerprint text NOT NULL,
        app text NOT NULL,
        level text NOT NULL,
        kind text NOT NULL,
        message text NOT NULL,
        stack text NULL,
        url text NULL,
        user_agent text NULL,
        store_id uuid NULL,
        tenant_id uuid NULL
      )`);
    // Newest first (the event list, keyset by received_at and id) and the pruning by age.
    await q.query(`CREATE INDEX client_error_events_recent ON client_error_events (received_at DESC, id DESC)`);
    await q.query(`
      CREATE TABLE client_error_hourly (
        hour timestamptz NOT NULL,
        fingerprint text NOT NULL,
        app text NOT NULL,
        level text NOT NULL,
        kind text NOT NULL,
        event_count integer NOT NULL CHECK (event_count > 0),
        PRIMARY KEY (hour, fingerprint, app, level)
      )`);
    await q.query(`
      CREATE TABLE client_error_comments (
        id uuid PRIMARY KEY,
        fingerprint text NOT NULL REFERENCES client_error_groups(fingerprint) ON DELETE CASCADE,
        author_id uuid NULL REFERENCES users(id) ON DELETE SET NULL,
        body text NOT NULL CHECK (char_length(body) BETWEEN 1 AND 5000),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX client_error_comments_group ON client_error_comments (fingerprint, created_at, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS client_error_comments`);
    await q.query(`DROP TABLE IF EXISTS client_error_hourly`);
    await q.query(`DROP TABLE IF EXISTS client_error_events`);
    await q.query(`DROP TABLE IF EXISTS client_error_groups`);
  }
}
