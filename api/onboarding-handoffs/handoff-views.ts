/**
 * Reading handoffs: the rows with their lead and tasks, shaped as the API answers them. Handoffs are
 * platform data (sales and support see every one); the merchant's view is onboarding-plan.service.ts.
 */
import { In } from 'typeorm';
import { OnboardingHandoff, OnboardingHandoffTask } from '../../storage/entities';
import type { RequestContext } from '../../storage/request-context';
import { handoffsError } from './handoffs.errors';

export interface LeadRef {
  id: string;
  stage: string;
  companyName: string;
  ownerUserId: string | null;
  storeId: string | null;
}

const iso = (value: Date | null): string | null => (value ? value.toISOString() : null);

export function taskView(task: OnboardingHandoffTask) {
  return {
    id: task.id,
    position: task.position,
    title: task.title,
    owner: task.owner,
    dueDate: task.dueDate,
    completed: task.completedAt !== null,
    completedAt: iso(task.completedAt),
    completedBy: task.completedBy,
    note: task.completionNote,
  };
}

export function progressOf(tasks: readonly OnboardingHandoffTask[]) {
  const completed = tasks.filter((task) => task.completedAt !== null).length;
  return { completed, total: tasks.length, percent: tasks.length ? Math.floor((completed * 100) / tasks.length) : 0 };
}

export function handoffView(row: OnboardingHandoff, lead: LeadRef, tasks: readonly OnboardingHandoffTask[]) {
  return {
    id: row.id,
    leadId: row.leadId,
    lead: { companyName: lead.companyName, stage: lead.stage, ownerUserId: lead.ownerUserId },
    storeId: row.storeId ?? lead.storeId,
    status: row.status,
    summary: row.summary,
    createdBy: row.createdBy,
    assigneeUserId: row.assigneeUserId,
    infoRequest: row.infoRequest,
    infoRequestedAt: iso(row.infoRequestedAt),
    infoAnswer: row.infoAnswer,
    infoAnsweredAt: iso(row.infoAnsweredAt),
    acceptedAt: iso(row.acceptedAt),
    completedAt: iso(row.completedAt),
    tasks: tasks.map(taskView),
    progress: progressOf(tasks),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export type HandoffView = ReturnType<typeof handoffView>;

interface LeadRow {
  id: string;
  stage: string;
  company_name: string;
  owner_user_id: string | null;
  store_id: string | null;
}

/** The leads of `ids` (leads are platform data: not scoped to a tenant). */
export async function leadRefs(
  ctx: RequestContext,
  ids: readonly string[],
  options: { lock?: boolean } = {},
): Promise<Map<string, LeadRef>> {
  if (ids.length === 0) return new Map();
  const rows: LeadRow[] = await ctx.manager.query(
    `SELECT id, stage, company_name, owner_user_id, store_id FROM leads WHERE id = ANY($1::uuid[]) ORDER BY id${options.lock ? ' FOR UPDATE' : ''}`,
    [ids],
  );
  return new Map(
    rows.map((r) => [r.id, { id: r.id, stage: r.stage, companyName: r.company_name, ownerUserId: r.owner_user_id, storeId: r.store_id }]),
  );
}

export async function leadRef(ctx: RequestContext, id: string, options: { lock?: boolean } = {}): Promise<LeadRef> {
  const lead = (await leadRefs(ctx, [id], options)).get(id);
  if (!lead) throw handoffsError('lead_not_found', 'The lead does not exist.');
  return lead;
}

export async function tasksOf(ctx: RequestContext, handoffIds: readonly string[]): Promise<Map<string, OnboardingHandoffTask[]>> {
  const byHandoff = new Map<string, OnboardingHandoffTask[]>(handoffIds.map((id) => [id, []]));
  if (handoffIds.length === 0) return byHandoff;
  const tasks = await ctx.manager.find(OnboardingHandoffTask, { where: { handoffId: In([...handoffIds]) }, order: { position: 'ASC' } });
  for (const task of tasks) byHandoff.get(task.handoffId)!.push(task);
  return byHandoff;
}

/** Handoff rows as the API shows them, in the order given. */
export async function viewsOf(ctx: RequestContext, rows: readonly OnboardingHandoff[]): Promise<HandoffView[]> {
  const [leads, tasks] = await Promise.all([
    leadRefs(
      ctx,
      rows.map((r) => r.leadId),
    ),
    tasksOf(
      ctx,
      rows.map((r) => r.id),
    ),
  ]);
  return rows.map((row) => handoffView(row, leads.get(row.leadId)!, tasks.get(row.id)!));
}

export const handoffNotFound = () => handoffsError('handoff_not_found', 'The onboarding handoff does not exist.');

export async function loadHandoff(ctx: RequestContext, id: string, options: { lock?: boolean } = {}): Promise<OnboardingHandoff> {
  const row = await ctx.manager.findOne(OnboardingHandoff, {
    where: { id },
    ...(options.lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
  });
  if (!row) throw handoffNotFound();
  return row;
}
