/**
 * What platform staff read (docs/client-errors.md, "Reading"): the events newest first with every
 * filter of the list, and the grouped view and statistics over a window of whole hours, which read
 * the hourly counts per group (a few hundred rows for a day) instead of the events. Client errors
 * belong to the platform, not to one tenant: every tenant's storefront reports into the same groups,
 * and only platform staff read them.
 */
import { decodeCursor, encodeCursor, isPgTimestamp, isUuid } from '../http/cursor';
import type { RequestContext } from '../../storage/request-context';
import type { ClientErrorEventQuery, ClientErrorGroupQuery } from './client-errors.schemas';
import { EVENT_COLUMNS, GROUP_COLUMNS, type EventRow, type GroupRow } from './client-errors.sql';
import { eventView, groupView, type ClientErrorEventView, type ClientErrorGroupView } from './client-errors.views';

const HOUR_MS = 3_600_000;

/** `%`, `_` and `\` of a search term taken literally by ILIKE. */
const likePattern = (term: string): string => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** GET /client-errors: events of the last `hours` hours, newest first. */
export async function listClientErrors(
  ctx: RequestContext,
  query: ClientErrorEventQuery,
  now: Date = new Date(),
): Promise<{ items: ClientErrorEventView[]; nextCursor: string | null }> {
  const params: unknown[] = [new Date(now.getTime() - query.hours * HOUR_MS)];
  const where = ['received_at > $1'];
  const add = (sql: (n: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (query.app) add((p) => `app = ${p}`, query.app);
  if (query.level) add((p) => `level = ${p}`, query.level);
  if (query.kind) add((p) => `kind = ${p}`, query.kind);
  if (query.search) add((p) => `(message ILIKE ${p} OR url ILIKE ${p})`, likePattern(query.search));
  if (query.cursor) {
    const [at, id] = decodeCursor(query.cursor, { accepts: ([at, id]) => isPgTimestamp(at) && isUuid(id) });
    params.push(at, id);
    where.push(`(received_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  const rows = (await ctx.manager.query(
    `SELECT ${EVENT_COLUMNS} FROM client_error_events WHERE ${where.join(' AND ')}
      ORDER BY received_at DESC, id DESC LIMIT ${query.limit + 1}`,
    params,
  )) as EventRow[];
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    items: page.map(eventView),
    nextCursor: rows.length > query.limit && last ? encodeCursor([last.received_key, last.id]) : null,
  };
}

/** The start of the window: the start of the hour `hours` hours before `now` (the counts are hourly). */
export function windowStart(hours: number, now: Date): Date {
  return new Date(Math.floor((now.getTime() - hours * HOUR_MS) / HOUR_MS) * HOUR_MS);
}

/** The hourly counts in the window matching the filters, as a FROM clause with its parameters. */
function windowOf(query: ClientErrorGroupQuery, now: Date): { since: Date; sql: string; params: unknown[] } {
  const since = windowStart(query.hours, now);
  const params: unknown[] = [since];
  const where = ['h.hour >= $1'];
  const add = (column: string, value: unknown) => {
    params.push(value);
    where.push(`${column} = $${params.length}`);
  };
  if (query.app) add('h.app', query.app);
  if (query.level) add('h.level', query.level);
  if (query.kind) add('h.kind', query.kind);
  let join = '';
  if (query.status !== 'all') {
    join = 'JOIN client_error_groups g ON g.fingerprint = h.fingerprint';
    add('g.status', query.status);
  }
  return { since, sql: `client_error_hourly h ${join} WHERE ${where.join(' AND ')}`, params };
}

type GroupInWindow = ClientErrorGroupView & { count: number; apps: string[]; levels: string[] };

/** GET /client-errors/grouped: the groups with the most events in the window first. */
export async function listClientErrorGroups(
  ctx: RequestContext,
  query: ClientErrorGroupQuery,
  now: Date = new Date(),
): Promise<{ items: GroupInWindow[]; since: string }> {
  const window = windowOf(query, now);
  const rows = (await ctx.manager.query(
    `WITH w AS (
       SELECT h.fingerprint, sum(h.event_count)::bigint AS count, array_agg(DISTINCT h.app) AS apps, array_agg(DISTINCT h.level) AS levels
         FROM ${window.sql} GROUP BY h.fingerprint
     )
     SELECT ${GROUP_COLUMNS}, w.count AS window_count, w.apps, w.levels
       FROM w JOIN client_error_groups g ON g.fingerprint = w.fingerprint
      ORDER BY w.count DESC, g.last_seen_at DESC, g.fingerprint
      LIMIT ${query.limit}`,
    window.params,
  )) as Array<GroupRow & { window_count: string; apps: string[]; levels: string[] }>;
  return {
    items: rows.map((row) => ({ ...groupView(row), count: Number(row.window_count), apps: row.apps, levels: row.levels })),
    since: window.since.toISOString(),
  };
}

/** GET /client-errors/stats: totals, breakdowns by level, kind and app, events per hour and the top groups. */
export async function clientErrorStats(ctx: RequestContext, query: ClientErrorGroupQuery, now: Date = new Date()) {
  const window = windowOf(query, now);
  const breakdown = (column: string) =>
    `(SELECT coalesce(json_agg(json_build_object('${column}', x.${column}, 'count', x.count) ORDER BY x.count DESC, x.${column}), '[]')
        FROM (SELECT ${column}, sum(event_count)::bigint AS count FROM w GROUP BY ${column}) x)`;
  const [row] = (await ctx.manager.query(
    `WITH w AS MATERIALIZED (SELECT h.hour, h.fingerprint, h.app, h.level, h.kind, h.event_count FROM ${window.sql})
     SELECT (SELECT coalesce(sum(event_count), 0)::bigint FROM w) AS total,
            (SELECT count(DISTINCT fingerprint) FROM w)::bigint AS groups,
            ${breakdown('level')} AS by_level,
            ${breakdown('kind')} AS by_kind,
            ${breakdown('app')} AS by_app,
            (SELECT coalesce(json_agg(json_build_object('hour', x.hour, 'count', x.count) ORDER BY x.hour), '[]')
               FROM (SELECT hour, sum(event_count)::bigint AS count FROM w GROUP BY hour) x) AS hourly,
            (SELECT coalesce(json_agg(json_build_object('fingerprint', x.fingerprint, 'title', g.title, 'count', x.count)
                                      ORDER BY x.count DESC, x.fingerprint), '[]')
               FROM (SELECT fingerprint, sum(event_count)::bigint AS count FROM w GROUP BY fingerprint
                      ORDER BY count DESC, fingerprint LIMIT ${query.limit}) x
               JOIN client_error_groups g ON g.fingerprint = x.fingerprint) AS top_groups`,
    window.params,
  )) as Array<{
    total: string;
    groups: string;
    by_level: Array<{ level: string; count: number }>;
    by_kind: Array<{ kind: string; count: number }>;
    by_app: Array<{ app: string; count: number }>;
    hourly: Array<{ hour: string; count: number }>;
    top_groups: Array<{ fingerprint: string; title: string; count: number }>;
  }>;
  return {
    since: window.since.toISOString(),
    totalEvents: Number(row!.total),
    groups: Number(row!.groups),
    byLevel: row!.by_level,
    byKind: row!.by_kind,
    byApp: row!.by_app,
    hourly: row!.hourly.map((h) => ({ hour: new Date(h.hour).toISOString(), count: h.count })),
    topGroups: row!.top_groups,
  };
}
