/**
 * SQL of the client errors area (docs/client-errors.md, "Storage"). The intake writes a batch in
 * three statements: the events (one INSERT over arrays), one upsert per fingerprint of the batch
 * into the groups (counters, last seen, newest sample, reopening), and one upsert per fingerprint
 * and level into the hourly counts. Both upserts take their rows in fingerprint order, so two
 * batches touching the same groups lock them in the same order.
 */

/** $1 ids, $2 received at, $3 fingerprints, $4 app, $5 levels, $6 kinds, $7 messages, $8 stacks, $9 urls, $10 user agent, $11 store, $12 tenant. */
export const INSERT_EVENTS = `
  INSERT INTO client_error_events (id, received_at, fingerprint, app, level, kind, message, stack, url, user_agent, store_id, tenant_id)
  SELECT u.id, $2, u.fingerprint, $4, u.level, u.kind, u.message, u.stack, u.url, $10, $11, $12
    FROM unnest($1::uuid[], $3::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
      AS u(id, fingerprint, level, kind, message, stack, url)`;

/**
 * One row per fingerprint of the batch: its event count, the batch's last event as the sample. A
 * resolved group reopens; an ignored one stays ignored.
 * $1 ids, $2 received at, $3 fingerprints, $4 app, $5 levels, $6 kinds, $7 messages, $8 stacks,
 * $9 urls, $10 titles, $11 top frames, $12 store.
 */
export const UPSERT_GROUPS = `
  INSERT INTO client_error_groups AS g (fingerprint, kind, title, top_frame, status, event_count, first_seen_at, last_seen_at,
      sample_event_id, sample_app, sample_level, sample_message, sample_stack, sample_url, sample_store_id, created_at, updated_at)
  SELECT DISTINCT ON (u.fingerprint) u.fingerprint, u.kind, u.title, u.top_frame, 'open', count(*) OVER (PARTITION BY u.fingerprint),
         $2, $2, u.id, $4, u.level, u.message, u.stack, u.url, $12, $2, $2
    FROM unnest($1::uuid[], $3::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])
           WITH ORDINALITY AS u(id, fingerprint, level, kind, message, stack, url, title, top_frame, ord)
   ORDER BY u.fingerprint, u.ord DESC
  ON CONFLICT (fingerprint) DO UPDATE SET
    event_count = g.event_count + excluded.event_count,
    first_seen_at = least(g.first_seen_at, excluded.first_seen_at),
    last_seen_at = greatest(g.last_seen_at, excluded.last_seen_at),
    status = CASE WHEN g.status = 'resolved' THEN 'open' ELSE g.status END,
    reopened_at = CASE WHEN g.status = 'resolved' THEN excluded.last_seen_at ELSE g.reopened_at END,
    status_changed_at = CASE WHEN g.status = 'resolved' THEN excluded.last_seen_at ELSE g.status_changed_at END,
    status_changed_by = CASE WHEN g.status = 'resolved' THEN NULL ELSE g.status_changed_by END,
    sample_event_id = CASE WHEN excluded.last_seen_at >= g.last_seen_at THEN excluded.sample_event_id ELSE g.sample_event_id END,
    sample_app = CASE WHEN excluded.last_seen_at >= g.last_seen_at THEN excluded.sample_app ELSE g.sample_app END,
    sample_level = CASE WHEN excluded.last_seen_at >= g.last_seen_at THEN excluded.sample_level ELSE g.sample_level END,
    sample_message = CASE WHEN excluded.last_seen_at >= g.last_seen_at THEN excluded.sample_message ELSE g.sample_message END,
    sample_stack = CASE WHEN excluded.last_seen_at >= g.last_seen_at THEN excluded.sample_stack ELSE g.sample_stack END,
    sample_url = CASE WHEN excluded.last_seen_at >= g.last_seen_at THEN excluded.sample_url ELSE g.sample_url END,
    sample_store_id = CASE WHEN excluded.last_seen_at >= g.last_seen_at THEN excluded.sample_store_id ELSE g.sample_store_id END,
    updated_at = greatest(g.updated_at, excluded.updated_at)`;

/** $1 received at, $2 fingerprints, $3 app, $4 levels, $5 kinds. */
export const UPSERT_HOURLY = `
  INSERT INTO client_error_hourly AS h (hour, fingerprint, app, level, kind, event_count)
  SELECT date_trunc('hour', $1::timestamptz, 'UTC'), u.fingerprint, $3, u.level, min(u.kind), count(*)
    FROM unnest($2::text[], $4::text[], $5::text[]) AS u(fingerprint, level, kind)
   GROUP BY u.fingerprint, u.level
   ORDER BY u.fingerprint, u.level
  ON CONFLICT (hour, fingerprint, app, level) DO UPDATE SET event_count = h.event_count + excluded.event_count`;

export const EVENT_COLUMNS = `id, fingerprint, app, level, kind, message, stack, url, user_agent, store_id, tenant_id, received_at,
  received_at::text AS received_key`;

export interface EventRow {
  id: string;
  fingerprint: string;
  app: string;
  level: string;
  kind: string;
  message: string;
  stack: string | null;
  url: string | null;
  user_agent: string | null;
  store_id: string | null;
  tenant_id: string | null;
  received_at: Date;
  /** received_at as PostgreSQL writes it (microseconds), for the cursor. */
  received_key: string;
}

export const GROUP_COLUMNS = `g.fingerprint, g.kind, g.title, g.top_frame, g.status, g.event_count, g.first_seen_at, g.last_seen_at,
  g.sample_event_id, g.sample_app, g.sample_level, g.sample_message, g.sample_stack, g.sample_url, g.sample_store_id,
  g.status_changed_at, g.reopened_at, g.comment_count`;

export interface GroupRow {
  fingerprint: string;
  kind: string;
  title: string;
  top_frame: string;
  status: string;
  event_count: string;
  first_seen_at: Date;
  last_seen_at: Date;
  sample_event_id: string;
  sample_app: string;
  sample_level: string;
  sample_message: string;
  sample_stack: string | null;
  sample_url: string | null;
  sample_store_id: string | null;
  status_changed_at: Date | null;
  reopened_at: Date | null;
  comment_count: number;
}
