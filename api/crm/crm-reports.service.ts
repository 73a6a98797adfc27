/**
 * The CRM's reports (docs/crm.md, "Reports"): follow-up statistics, the pipeline by stage, the
 * pipeline overview (funnel conversion and time in stage), the sales team and the operations report.
 * Reads only; the SQL is in crm.sql.ts.
 */
import type { RequestContext } from '../../storage/request-context';
import { LEAD_STAGES } from './crm.schemas';
import { FUNNEL_STAGES, OPEN_STAGES, type LeadStage } from './lead-stages';
import { FOLLOW_UP_STATS_SQL, FUNNEL_SQL, OPERATIONS_SQL, PIPELINE_SQL, TEAM_SQL, TEAM_VALUE_SQL, TIME_IN_STAGE_SQL } from './crm.sql';
import { currencyAmounts, type CurrencyAmount } from './crm.views';

type Count = string | number;

export async function followUpStats(ctx: RequestContext) {
  const rows = (await ctx.manager.query(FOLLOW_UP_STATS_SQL, [OPEN_STAGES])) as Array<{
    owner_user_id: string | null;
    overdue: Count;
    due_today: Count;
    upcoming: Count;
    missing: Count;
  }>;
  const byOwner = rows.map((r) => ({
    ownerUserId: r.owner_user_id,
    overdue: Number(r.overdue),
    dueToday: Number(r.due_today),
    upcoming: Number(r.upcoming),
    missing: Number(r.missing),
  }));
  const overall = { overdue: 0, dueToday: 0, upcoming: 0, missing: 0 };
  for (const row of byOwner) {
    overall.overdue += row.overdue;
    overall.dueToday += row.dueToday;
    overall.upcoming += row.upcoming;
    overall.missing += row.missing;
  }
  return { overall, byOwner };
}

export async function pipeline(ctx: RequestContext, query: { ownerUserId?: string }) {
  const rows = (await ctx.manager.query(PIPELINE_SQL, [query.ownerUserId?.toLowerCase() ?? null])) as Array<{
    stage: LeadStage;
    currency: string;
    count: Count;
    amount: string;
  }>;
  return {
    stages: LEAD_STAGES.map((stage) => {
      const values = currencyAmounts(rows.filter((r) => r.stage === stage));
      return { stage, count: values.reduce((n, v) => n + v.count, 0), expectedValue: values };
    }),
  };
}

/** A ratio of two counts, to 4 decimals (not an amount). */
const ratio = (part: number, whole: number): number | null => (whole === 0 ? null : Math.round((part * 10000) / whole) / 10000);

export async function pipelineOverview(ctx: RequestContext, query: { ownerUserId?: string }) {
  const owner = query.ownerUserId?.toLowerCase() ?? null;
  const funnelRows = (await ctx.manager.query(FUNNEL_SQL, [FUNNEL_STAGES, FUNNEL_STAGES.map((_, i) => i), owner])) as Array<{
    stage: LeadStage;
    reached: Count;
    current: Count;
    lost_from: Count;
  }>;
  const funnel = funnelRows.map((r, i) => {
    const reached = Number(r.reached);
    const next = funnelRows[i + 1];
    return {
      stage: r.stage,
      reached,
      current: Number(r.current),
      conversionToNext: next === undefined ? null : ratio(Number(next.reached), reached),
      lostFrom: Number(r.lost_from),
    };
  });
  const stayRows = (await ctx.manager.query(TIME_IN_STAGE_SQL, [owner])) as Array<{
    stage: LeadStage;
    stays: Count;
    average: string;
    median: string;
  }>;
  const timeInStage = LEAD_STAGES.map((stage) => {
    const row = stayRows.find((r) => r.stage === stage);
    return {
      stage,
      stays: row ? Number(row.stays) : 0,
      averageSeconds: row ? Number(row.average) : null,
      medianSeconds: row ? Number(row.median) : null,
    };
  });
  return { funnel, timeInStage };
}

export async function salesTeam(ctx: RequestContext) {
  const [members, values] = (await Promise.all([
    ctx.manager.query(TEAM_SQL, [OPEN_STAGES]),
    ctx.manager.query(TEAM_VALUE_SQL, [OPEN_STAGES]),
  ])) as [
    Array<{ id: string; name: string; email: string; platform_role: 'sales_rep' | 'platform_admin'; open_leads: Count; overdue: Count }>,
    Array<{ owner_user_id: string; currency: string; count: Count; amount: string }>,
  ];
  const byOwner = new Map<string, CurrencyAmount[]>();
  for (const row of values) {
    const list = byOwner.get(row.owner_user_id) ?? [];
    list.push(...currencyAmounts([row]));
    byOwner.set(row.owner_user_id, list);
  }
  return {
    items: members.map((m) => ({
      userId: m.id,
      name: m.name,
      email: m.email,
      platformRole: m.platform_role,
      openLeads: Number(m.open_leads),
      overdueFollowUps: Number(m.overdue),
      pipelineValue: byOwner.get(m.id) ?? [],
    })),
  };
}

export async function operationsReport(ctx: RequestContext, query: { periodDays: number }) {
  const to = new Date();
  const from = new Date(to.getTime() - query.periodDays * 86_400_000);
  const rows = (await ctx.manager.query(OPERATIONS_SQL, [from, to])) as Array<{
    user_id: string | null;
    name: string | null;
    created: Count;
    won: Count;
    lost: Count;
    completed: Count;
  }>;
  const counts = rows.map((r) => ({
    userId: r.user_id,
    name: r.name,
    leadsCreated: Number(r.created),
    won: Number(r.won),
    lost: Number(r.lost),
    activitiesCompleted: Number(r.completed),
  }));
  const totals = { leadsCreated: 0, won: 0, lost: 0, activitiesCompleted: 0 };
  for (const c of counts) {
    totals.leadsCreated += c.leadsCreated;
    totals.won += c.won;
    totals.lost += c.lost;
    totals.activitiesCompleted += c.activitiesCompleted;
  }
  return {
    periodDays: query.periodDays,
    from: from.toISOString(),
    to: to.toISOString(),
    totals,
    byRep: counts.filter((c): c is typeof c & { userId: string } => c.userId !== null),
  };
}
