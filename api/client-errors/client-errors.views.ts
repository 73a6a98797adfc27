/** What the client errors area answers: named view types and the mappers from rows. */
import type { ClientErrorGroupState, ClientErrorKind, ClientErrorLevel } from './client-errors.schemas';
import type { EventRow, GroupRow } from './client-errors.sql';

export interface ClientErrorEventView {
  id: string;
  fingerprint: string;
  app: string;
  level: ClientErrorLevel;
  kind: ClientErrorKind;
  message: string;
  stack: string | null;
  url: string | null;
  userAgent: string | null;
  storeId: string | null;
  tenantId: string | null;
  receivedAt: string;
}

export interface ClientErrorGroupView {
  fingerprint: string;
  kind: ClientErrorKind;
  title: string;
  topFrame: string;
  status: ClientErrorGroupState;
  totalCount: number;
  firstSeenAt: string;
  lastSeenAt: string;
  statusChangedAt: string | null;
  reopenedAt: string | null;
  commentCount: number;
  sample: {
    eventId: string;
    app: string;
    level: ClientErrorLevel;
    message: string;
    stack: string | null;
    url: string | null;
    storeId: string | null;
    receivedAt: string;
  };
}

export interface ClientErrorCommentView {
  id: string;
  fingerprint: string;
  body: string;
  author: { id: string; name: string } | null;
  createdAt: string;
}

export function eventView(row: EventRow): ClientErrorEventView {
  return {
    id: row.id,
    fingerprint: row.fingerprint,
    app: row.app,
    level: row.level as ClientErrorLevel,
    kind: row.kind as ClientErrorKind,
    message: row.message,
    stack: row.stack,
    url: row.url,
    userAgent: row.user_agent,
    storeId: row.store_id,
    tenantId: row.tenant_id,
    receivedAt: row.received_at.toISOString(),
  };
}

export function groupView(row: GroupRow): ClientErrorGroupView {
  return {
    fingerprint: row.fingerprint,
    kind: row.kind as ClientErrorKind,
    title: row.title,
    topFrame: row.top_frame,
    status: row.status as ClientErrorGroupState,
    totalCount: Number(row.event_count),
    firstSeenAt: row.first_seen_at.toISOString(),
    lastSeenAt: row.last_seen_at.toISOString(),
    statusChangedAt: row.status_changed_at?.toISOString() ?? null,
    reopenedAt: row.reopened_at?.toISOString() ?? null,
    commentCount: row.comment_count,
    sample: {
      eventId: row.sample_event_id,
      app: row.sample_app,
      level: row.sample_level as ClientErrorLevel,
      message: row.sample_message,
      stack: row.sample_stack,
      url: row.sample_url,
      storeId: row.sample_store_id,
      // The sample is the group's newest event, received when the group was last seen.
      receivedAt: row.last_seen_at.toISOString(),
    },
  };
}
