/**
 * Desk figures for platform staff (docs/support.md, "Stats and workload"): the stats of the last
 * periodDays (created, resolved, response and resolution times, breaches) with the unresolved tickets
 * of now, and the workload of each assignee. Both read only indexed columns of support_tickets.
 */
import type { RequestContext } from '../../storage/request-context';
import { supportNow } from './support-access';
import { breachedAt } from './tickets.sql';
import { TICKET_PRIORITIES, TICKET_STATUSES } from './tickets.schemas';

const DAY_MS = 86_400_000;
const OPEN = `t.status IN ('OPEN', 'IN_PROGRESS', 'WAITING_ON_CUSTOMER')`;

const round = (value: string | number | null): number | null => (value === null ? null : Math.round(Number(value) * 10) / 10);

export interface DurationStats {
  median: number | null;
  average: number | null;
  count: number;
}

export interface TicketStatsView {
  periodDays: number;
  from: string;
  to: string;
  created: number;
  resolved: number;
  open: { total: number; byStatus: Record<string, number>; byPriority: Record<string, number> };
  firstResponseMinutes: DurationStats;
  resolutionMinutes: DurationStats;
  breached: { open: number; period: number };
}

interface PeriodRow {
  created: number;
  resolved: number;
  breached: number;
  first_median: string | null;
  first_avg: string | null;
  first_count: number;
  resolution_median: string | null;
  resolution_avg: string | null;
  resolution_count: number;
}

export async function ticketStats(ctx: RequestContext, query: { periodDays: number }): Promise<TicketStatsView> {
  const to = supportNow(ctx);
  const from = new Date(to.getTime() - query.periodDays * DAY_MS);
  const [period] = (await ctx.manager.query(
    `WITH created AS (
       SELECT t.first_responded_at, t.resolved_at, t.created_at, t.sla_missed, t.sla_due_at
         FROM support_tickets t WHERE t.created_at >= $1 AND t.created_at < $2
     )
     SELECT (SELECT count(*)::int FROM created) AS created,
            (SELECT count(*)::int FROM support_tickets t WHERE t.resolved_at >= $1 AND t.resolved_at < $2) AS resolved,
            count(*) FILTER (WHERE ${breachedAt('$2::timestamptz', 'created')})::int AS breached,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM first_responded_at - created_at) / 60)
              FILTER (WHERE first_responded_at IS NOT NULL) AS first_median,
            avg(extract(epoch FROM first_responded_at - created_at) / 60) FILTER (WHERE first_responded_at IS NOT NULL) AS first_avg,
            count(first_responded_at)::int AS first_count,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM resolved_at - created_at) / 60)
              FILTER (WHERE resolved_at IS NOT NULL) AS resolution_median,
            avg(extract(epoch FROM resolved_at - created_at) / 60) FILTER (WHERE resolved_at IS NOT NULL) AS resolution_avg,
            count(resolved_at)::int AS resolution_count
       FROM created`,
    [from, to],
  )) as PeriodRow[];
  const open: Array<{ status: string; priority: string; count: number; breached: number }> = await ctx.manager.query(
    `SELECT t.status, t.priority, count(*)::int AS count, count(*) FILTER (WHERE ${breachedAt('$1::timestamptz')})::int AS breached
       FROM support_tickets t WHERE ${OPEN} GROUP BY t.status, t.priority`,
    [to],
  );
  const byStatus = Object.fromEntries(TICKET_STATUSES.map((s) => [s, 0])) as Record<string, number>;
  const byPriority = Object.fromEntries(TICKET_PRIORITIES.map((p) => [p, 0])) as Record<string, number>;
  let total = 0;
  let breachedOpen = 0;
  for (const row of open) {
    byStatus[row.status]! += row.count;
    byPriority[row.priority]! += row.count;
    total += row.count;
    breachedOpen += row.breached;
  }
  const p = period!;
  return {
    periodDays: query.periodDays,
    from: from.toISOString(),
    to: to.toISOString(),
    created: p.created,
    resolved: p.resolved,
    open: { total, byStatus, byPriority },
    firstResponseMinutes: { median: round(p.first_median), average: round(p.first_avg), count: p.first_count },
    resolutionMinutes: { median: round(p.resolution_median), average: round(p.resolution_avg), count: p.resolution_count },
    breached: { open: breachedOpen, period: p.breached },
  };
}

export interface WorkloadItem {
  assigneeId: string | null;
  name: string | null;
  email: string | null;
  open: number;
  inProgress: number;
  waitingOnCustomer: number;
  total: number;
  breached: number;
  oldestOpenCreatedAt: string | null;
}

/** Unresolved tickets per assignee (null: unassigned), most loaded first; at most 500 assignees. */
export async function ticketWorkload(ctx: RequestContext): Promise<{ items: WorkloadItem[] }> {
  const now = supportNow(ctx);
  const rows: Array<{
    assignee_user_id: string | null;
    name: string | null;
    email: string | null;
    open: number;
    in_progress: number;
    waiting: number;
    total: number;
    breached: number;
    oldest: Date | null;
  }> = await ctx.manager.query(
    `SELECT w.*, u.name, u.email FROM (
       SELECT t.assignee_user_id,
              count(*) FILTER (WHERE t.status = 'OPEN')::int AS open,
              count(*) FILTER (WHERE t.status = 'IN_PROGRESS')::int AS in_progress,
              count(*) FILTER (WHERE t.status = 'WAITING_ON_CUSTOMER')::int AS waiting,
              count(*)::int AS total,
              count(*) FILTER (WHERE ${breachedAt('$1::timestamptz')})::int AS breached,
              min(t.created_at) AS oldest
         FROM support_tickets t WHERE ${OPEN} GROUP BY t.assignee_user_id
     ) w LEFT JOIN users u ON u.id = w.assignee_user_id
     ORDER BY w.total DESC, w.assignee_user_id NULLS FIRST LIMIT 500`,
    [now],
  );
  return {
    items: rows.map((r) => ({
      assigneeId: r.assignee_user_id,
      name: r.name,
      email: r.email,
      open: r.open,
      inProgress: r.in_progress,
      waitingOnCustomer: r.waiting,
      total: r.total,
      breached: r.breached,
      oldestOpenCreatedAt: r.oldest ? r.oldest.toISOString() : null,
    })),
  };
}
