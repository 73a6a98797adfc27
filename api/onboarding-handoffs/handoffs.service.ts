/**
 * Onboarding handoffs (docs/back-office.md, "Onboarding handoffs"): sales hands a WON lead to
 * onboarding with a plan of tasks; support claims, accepts, asks for missing information, works the
 * tasks and completes the handoff, which activates the lead. Every status change goes through the
 * transition table (handoff-status.ts), locks the handoff row, and is audited in its transaction;
 * the lead's stage moves with it (WON → ONBOARDING_IN_PROGRESS on accept, → ACTIVATED on complete)
 * through the CRM's own stage rules. Who may call what is declared in the route table.
 */
import { OnboardingHandoff, OnboardingHandoffTask, Store } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { isUniqueViolation } from '../../storage/db-errors';
import { uuidv7 } from '../../storage/ids';
import { notifyTenant } from '../../storage/notifications';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { ValidationError } from '../../lib/errors';
import { moveLeadStage } from '../crm/lead-stages';
import { assertHandoffMove, TASK_WORK_STATUSES, type HandoffMove } from './handoff-status';
import { handoffsError } from './handoffs.errors';
import type { HandoffInput } from './handoffs.schemas';
import { handoffNotFound, leadRef, loadHandoff, viewsOf, type HandoffView, type LeadRef } from './handoff-views';

const AUDIT_TYPE = 'onboarding_handoff';

/** Handoffs are platform data: their audit entries belong to no tenant. */
const audit = (tx: RequestContext, action: string, row: OnboardingHandoff, before: object | null, after: object | null) =>
  recordAudit(tx, { action: `${AUDIT_TYPE}.${action}`, resourceType: AUDIT_TYPE, resourceId: row.id, tenantId: null, before, after });

const view = async (ctx: RequestContext, row: OnboardingHandoff): Promise<HandoffView> => (await viewsOf(ctx, [row]))[0]!;

// ---- sales side ------------------------------------------------------------------------------

async function requireStoreExists(ctx: RequestContext, storeId: string): Promise<void> {
  if (!(await ctx.manager.existsBy(Store, { id: storeId }))) throw handoffsError('store_not_found', 'The store does not exist.');
}

function taskRows(handoffId: string, tasks: HandoffInput['tasks'], keep: Map<string, OnboardingHandoffTask> = new Map()) {
  return tasks.map((task, position) => {
    // A task sales keeps through an answer (same title and owner) keeps its completion.
    const previous = keep.get(`${task.owner}\u0000${task.title}`);
    return {
      id: previous?.id ?? uuidv7(),
      handoffId,
      position,
      title: task.title,
      owner: task.owner,
      dueDate: task.dueDate ?? null,
      completedAt: previous?.completedAt ?? null,
      completedBy: previous?.completedBy ?? null,
      completionNote: previous?.completionNote ?? null,
    };
  });
}

/** Hands a WON lead to onboarding (PENDING). One handoff per lead. */
export async function createHandoff(ctx: RequestContext, leadId: string, input: HandoffInput): Promise<HandoffView> {
  return inTransaction(ctx, async (tx) => {
    const lead = await leadRef(tx, leadId, { lock: true });
    if (lead.stage !== 'WON') throw handoffsError('lead_not_won', `Only a WON lead is handed off; this one is ${lead.stage}.`);
    if (input.storeId) await requireStoreExists(tx, input.storeId);
    const row = tx.manager.create(OnboardingHandoff, {
      id: uuidv7(),
      leadId,
      storeId: input.storeId ?? null,
      status: 'PENDING',
      summary: input.summary,
      createdBy: tx.actor.id ?? null,
      assigneeUserId: null,
    });
    try {
      await tx.manager.insert(OnboardingHandoff, row);
    } catch (error) {
      if (isUniqueViolation(error)) throw handoffsError('handoff_exists', 'The lead already has an onboarding handoff.');
      throw error;
    }
    await tx.manager.insert(OnboardingHandoffTask, taskRows(row.id, input.tasks));
    const created = await loadHandoff(tx, row.id);
    await audit(tx, 'create', created, null, { status: created.status, leadId, tasks: input.tasks.length });
    return view(tx, created);
  });
}

async function handoffOfLead(ctx: RequestContext, leadId: string, options: { lock?: boolean } = {}): Promise<OnboardingHandoff> {
  await leadRef(ctx, leadId);
  const row = await ctx.manager.findOne(OnboardingHandoff, {
    where: { leadId },
    ...(options.lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
  });
  if (!row) throw handoffNotFound();
  return row;
}

export async function getLeadHandoff(ctx: RequestContext, leadId: string): Promise<HandoffView> {
  return view(ctx, await handoffOfLead(ctx, leadId));
}

/**
 * Sales answers support's information request (INFO_MISSING → ACCEPTED): the answer in `note`, and
 * the summary, store and task list as they should now be. Tasks kept with the same owner and title
 * keep their completion.
 */
export async function answerHandoff(ctx: RequestContext, leadId: string, input: HandoffInput): Promise<HandoffView> {
  if (!input.note) {
    throw new ValidationError('Answering an information request needs the answer in note.', [
      { path: 'body.note', message: 'note is required when answering an information request' },
    ]);
  }
  return inTransaction(ctx, async (tx) => {
    const row = await handoffOfLead(tx, leadId, { lock: true });
    const to = assertHandoffMove(row.status, 'answer');
    if (input.storeId) await requireStoreExists(tx, input.storeId);
    const before = { status: row.status, summary: row.summary, storeId: row.storeId };
    const existing = await tx.manager.find(OnboardingHandoffTask, { where: { handoffId: row.id } });
    const keep = new Map(existing.map((task) => [`${task.owner}\u0000${task.title}`, task]));
    await tx.manager.delete(OnboardingHandoffTask, { handoffId: row.id });
    await tx.manager.insert(OnboardingHandoffTask, taskRows(row.id, input.tasks, keep));
    const now = new Date();
    Object.assign(row, {
      status: to,
      summary: input.summary,
      storeId: input.storeId === undefined ? row.storeId : input.storeId,
      infoAnswer: input.note,
      infoAnsweredAt: now,
      updatedAt: now,
    });
    await tx.manager.save(OnboardingHandoff, row);
    await audit(tx, 'answer', row, before, { status: row.status, summary: row.summary, storeId: row.storeId, answer: input.note });
    return view(tx, row);
  });
}

/** Handoffs that wait on sales (INFO_MISSING), the longest waiting first. */
export async function awaitingHandoffs(ctx: RequestContext): Promise<{ items: HandoffView[]; total: number }> {
  const [rows, total] = await ctx.manager.findAndCount(OnboardingHandoff, {
    where: { status: 'INFO_MISSING' },
    order: { infoRequestedAt: 'ASC', id: 'ASC' },
    take: 500,
  });
  return { items: await viewsOf(ctx, rows), total };
}

// ---- support side ----------------------------------------------------------------------------

export interface HandoffListQuery {
  status?: OnboardingHandoff['status'];
  mine?: boolean;
  cursor?: string;
  limit: number;
}

/** Newest first. `mine`: true, the caller's handoffs; false, every other one (unassigned or another agent's). */
export async function listHandoffs(
  ctx: RequestContext,
  query: HandoffListQuery,
): Promise<{ items: HandoffView[]; nextCursor: string | null }> {
  const qb = ctx.manager.createQueryBuilder(OnboardingHandoff, 'h');
  if (query.status) qb.andWhere('h.status = :status', { status: query.status });
  if (query.mine === true) qb.andWhere('h.assigneeUserId = :me', { me: ctx.actor.id });
  if (query.mine === false) qb.andWhere('(h.assigneeUserId IS NULL OR h.assigneeUserId <> :me)', { me: ctx.actor.id });
  if (query.cursor) qb.andWhere('h.id < :cursor', { cursor: query.cursor });
  const rows = await qb
    .orderBy('h.id', 'DESC')
    .take(query.limit + 1)
    .getMany();
  const page = rows.slice(0, query.limit);
  return { items: await viewsOf(ctx, page), nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
}

export async function getHandoff(ctx: RequestContext, id: string): Promise<HandoffView> {
  return view(ctx, await loadHandoff(ctx, id));
}

/** Only the assigned agent works a handoff once it is claimed; a platform admin may step in. */
function requireWorker(ctx: RequestContext, row: OnboardingHandoff): void {
  if (row.assigneeUserId && row.assigneeUserId !== ctx.actor.id && ctx.actor.platformRole !== 'platform_admin') {
    throw handoffsError('handoff_not_assignee', 'The handoff is assigned to another agent.');
  }
}

/** The merchant tenant of a handoff: its store's, else the lead's linked store's (null before a store exists). */
async function merchantTenantOf(
  ctx: RequestContext,
  row: OnboardingHandoff,
  lead: LeadRef,
): Promise<{ tenantId: string; storeId: string } | null> {
  const storeId = row.storeId ?? lead.storeId;
  if (!storeId) return null;
  const store = await ctx.manager.findOne(Store, { where: { id: storeId }, select: { id: true, tenantId: true } });
  return store ? { tenantId: store.tenantId, storeId: store.id } : null;
}

async function notifyMerchant(tx: RequestContext, row: OnboardingHandoff, lead: LeadRef, event: 'accepted' | 'completed'): Promise<void> {
  const merchant = await merchantTenantOf(tx, row, lead);
  if (!merchant) return;
  const text =
    event === 'accepted'
      ? {
          title: 'Your onboarding plan is ready',
          body: 'Our onboarding team has taken over your setup. Follow the plan to get your store live.',
        }
      : { title: 'Onboarding complete', body: 'Every step of your onboarding plan is done. Your store is ready.' };
  await notifyTenant(tx, {
    tenantId: merchant.tenantId,
    storeId: merchant.storeId,
    topic: `onboarding.${event}`,
    ...text,
    link: '/api/v1/merchant/onboarding/plan',
    dedupeKey: `onboarding:${row.id}:${event}`,
  });
}

/** One status step on a locked handoff: the transition table decides, the audit log records it. */
async function step(
  ctx: RequestContext,
  id: string,
  move: HandoffMove,
  apply: (tx: RequestContext, row: OnboardingHandoff, now: Date) => Promise<object | void>,
): Promise<HandoffView> {
  return inTransaction(ctx, async (tx) => {
    const row = await loadHandoff(tx, id, { lock: true });
    const to = assertHandoffMove(row.status, move);
    if (move !== 'claim') requireWorker(tx, row);
    const before = { status: row.status, assigneeUserId: row.assigneeUserId };
    const now = new Date();
    const extra = (await apply(tx, row, now)) ?? {};
    row.status = to;
    row.updatedAt = now;
    await tx.manager.save(OnboardingHandoff, row);
    await audit(tx, move, row, before, { status: row.status, assigneeUserId: row.assigneeUserId, ...extra });
    return view(tx, row);
  });
}

/** PENDING → ASSIGNED to the caller. */
export const claimHandoff = (ctx: RequestContext, id: string) =>
  step(ctx, id, 'claim', async (tx, row) => {
    row.assigneeUserId = tx.actor.id ?? null;
  });

/** ASSIGNED → ACCEPTED; the lead moves WON → ONBOARDING_IN_PROGRESS and the merchant is told. */
export const acceptHandoff = (ctx: RequestContext, id: string) =>
  step(ctx, id, 'accept', async (tx, row, now) => {
    row.acceptedAt = now;
    const lead = await leadRef(tx, row.leadId, { lock: true });
    if (lead.stage !== 'ONBOARDING_IN_PROGRESS') await moveLeadStage(tx, row.leadId, 'ONBOARDING_IN_PROGRESS');
    await notifyMerchant(tx, row, lead, 'accepted');
  });

/** ASSIGNED or ACCEPTED → INFO_MISSING with the question for sales. */
export const requestHandoffInfo = (ctx: RequestContext, id: string, question: string) =>
  step(ctx, id, 'request_info', async (_tx, row, now) => {
    row.infoRequest = question;
    row.infoRequestedAt = now;
    row.infoAnswer = null;
    row.infoAnsweredAt = null;
    return { question };
  });

/** ACCEPTED → COMPLETED once every task is done; the lead moves to ACTIVATED and the merchant is told. */
export const completeHandoff = (ctx: RequestContext, id: string) =>
  step(ctx, id, 'complete', async (tx, row, now) => {
    const remaining: Array<{ n: string }> = await tx.manager.query(
      'SELECT count(*)::text AS n FROM onboarding_handoff_tasks WHERE handoff_id = $1 AND completed_at IS NULL',
      [row.id],
    );
    if (Number(remaining[0]!.n) > 0) {
      throw handoffsError('handoff_tasks_open', `${remaining[0]!.n} task(s) of the handoff are not done yet.`);
    }
    row.completedAt = now;
    const lead = await leadRef(tx, row.leadId, { lock: true });
    await moveLeadStage(tx, row.leadId, 'ACTIVATED');
    await notifyMerchant(tx, row, lead, 'completed');
  });

/** Completes or reopens one task while the handoff is worked on (ASSIGNED, ACCEPTED or INFO_MISSING). */
export async function setTaskDone(ctx: RequestContext, id: string, taskId: string, done: boolean, note?: string): Promise<HandoffView> {
  return inTransaction(ctx, async (tx) => {
    const row = await loadHandoff(tx, id, { lock: true });
    if (!TASK_WORK_STATUSES.includes(row.status)) {
      throw handoffsError(
        'handoff_transition_refused',
        `Tasks of a handoff in ${row.status} cannot change; that needs ${TASK_WORK_STATUSES.join(', ')}.`,
      );
    }
    requireWorker(tx, row);
    const task = await tx.manager.findOneBy(OnboardingHandoffTask, { id: taskId, handoffId: row.id });
    if (!task) throw handoffsError('handoff_task_not_found', 'The task does not exist in this handoff.');
    if ((task.completedAt !== null) === done) {
      throw handoffsError('handoff_task_state', done ? 'The task is already completed.' : 'The task is not completed.');
    }
    const now = new Date();
    Object.assign(
      task,
      done
        ? { completedAt: now, completedBy: tx.actor.id ?? null, completionNote: note ?? null }
        : { completedAt: null, completedBy: null, completionNote: null },
    );
    await tx.manager.save(OnboardingHandoffTask, task);
    row.updatedAt = now;
    await tx.manager.save(OnboardingHandoff, row);
    await audit(
      tx,
      done ? 'task_complete' : 'task_reopen',
      row,
      { taskId, completed: !done },
      { taskId, completed: done, note: note ?? null },
    );
    return view(tx, row);
  });
}
