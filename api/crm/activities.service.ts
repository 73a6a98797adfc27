/**
 * Activities of a lead (calls, e-mails, meetings, tasks): create, list per lead, complete one or
 * many, assign many to the caller. Every write records an audit entry (tenant null, resourceType
 * `lead_activity`) in its transaction; completing an activity that is already completed changes nothing.
 */
import { In, IsNull } from 'typeorm';
import { LeadActivity } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import type { InputOf } from '../http/typed-schema';
import { crmError } from './crm.errors';
import type { CreateActivityDto } from './crm.schemas';
import { actingUserId } from './lead-stages';
import { requireSalesUser } from './crm-users';
import { findLead } from './leads.service';
import { activityView, type ActivityView, type BulkResult } from './crm.views';

const activityNotFound = () => crmError('activity_not_found', 'The activity does not exist.');

export type CreateActivityInput = InputOf<typeof CreateActivityDto>;

export async function createActivity(ctx: RequestContext, body: CreateActivityInput): Promise<ActivityView> {
  return inTransaction(ctx, async (tx) => {
    const lead = await findLead(tx, body.leadId);
    const assignee = body.assigneeUserId === undefined ? actingUserId(tx) : body.assigneeUserId;
    const now = new Date();
    const row: LeadActivity = {
      id: uuidv7(),
      leadId: lead.id,
      type: body.type,
      subject: body.subject,
      notes: body.notes ?? null,
      dueAt: body.dueAt ?? null,
      assigneeUserId: assignee === null ? null : await requireSalesUser(tx, assignee, 'body.assigneeUserId'),
      completedAt: null,
      completedBy: null,
      createdBy: actingUserId(tx),
      createdAt: now,
      updatedAt: now,
    };
    await tx.manager.insert(LeadActivity, row);
    await recordAudit(tx, {
      action: 'lead_activity.create',
      resourceType: 'lead_activity',
      resourceId: row.id,
      tenantId: null,
      after: { leadId: row.leadId, type: row.type, subject: row.subject, dueAt: row.dueAt, assigneeUserId: row.assigneeUserId },
    });
    return activityView(row);
  });
}

export interface ListActivitiesQuery {
  leadId: string;
  cursor?: string;
  limit: number;
}

/** The activities of one lead, newest first. */
export async function listActivities(
  ctx: RequestContext,
  query: ListActivitiesQuery,
): Promise<{ items: ActivityView[]; nextCursor: string | null }> {
  const lead = await findLead(ctx, query.leadId);
  const qb = ctx.manager.getRepository(LeadActivity).createQueryBuilder('a').where('a.leadId = :lead', { lead: lead.id });
  if (query.cursor !== undefined) qb.andWhere('a.id < :cursor', { cursor: query.cursor.toLowerCase() });
  const rows = await qb
    .orderBy('a.id', 'DESC')
    .take(query.limit + 1)
    .getMany();
  const page = rows.slice(0, query.limit);
  return { items: page.map(activityView), nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
}

/** Locks the activities of `ids`; 404 activity_not_found naming the first unknown one. */
async function lockActivities(tx: RequestContext, ids: readonly string[], path: (i: number) => string): Promise<LeadActivity[]> {
  const wanted = ids.map((id) => id.toLowerCase());
  const rows = await tx.manager.find(LeadActivity, {
    where: { id: In(wanted) },
    order: { id: 'ASC' },
    lock: { mode: 'pessimistic_write' },
  });
  const found = new Set(rows.map((r) => r.id));
  const missing = wanted.findIndex((id) => !found.has(id));
  if (missing >= 0)
    throw crmError('activity_not_found', `The activity ${wanted[missing]} does not exist.`, [
      { path: path(missing), message: 'no such activity' },
    ]);
  return rows;
}

async function complete(tx: RequestContext, rows: readonly LeadActivity[]): Promise<{ rows: LeadActivity[]; changed: string[] }> {
  const open = rows.filter((r) => r.completedAt === null);
  const now = new Date();
  const by = actingUserId(tx);
  if (open.length > 0) {
    await tx.manager.update(
      LeadActivity,
      { id: In(open.map((r) => r.id)), completedAt: IsNull() },
      { completedAt: now, completedBy: by, updatedAt: now },
    );
    for (const row of open)
      await recordAudit(tx, {
        action: 'lead_activity.complete',
        resourceType: 'lead_activity',
        resourceId: row.id,
        tenantId: null,
        before: { completedAt: null },
        after: { completedAt: now, completedBy: by },
      });
  }
  const changed = new Set(open.map((r) => r.id));
  return {
    rows: rows.map((r) => (changed.has(r.id) ? { ...r, completedAt: now, completedBy: by, updatedAt: now } : r)),
    changed: [...changed],
  };
}

/** Completes one activity; one already completed is answered as it is. */
export async function completeActivity(ctx: RequestContext, id: string): Promise<ActivityView> {
  return inTransaction(ctx, async (tx) => {
    const rows = await tx.manager.find(LeadActivity, { where: { id: id.toLowerCase() }, lock: { mode: 'pessimistic_write' } });
    if (!rows[0]) throw activityNotFound();
    return activityView((await complete(tx, rows)).rows[0]!);
  });
}

export async function completeActivities(ctx: RequestContext, ids: readonly string[]): Promise<BulkResult> {
  return inTransaction(ctx, async (tx) => {
    const { changed } = await complete(tx, await lockActivities(tx, ids, (i) => `body.ids[${i}]`));
    return { count: changed.length, ids: changed };
  });
}

export async function assignActivitiesToMe(ctx: RequestContext, ids: readonly string[]): Promise<BulkResult> {
  return inTransaction(ctx, async (tx) => {
    const me = await requireSalesUser(tx, ctx.actor.id!, 'actor');
    const rows = (await lockActivities(tx, ids, (i) => `body.ids[${i}]`)).filter((r) => r.assigneeUserId !== me);
    if (rows.length > 0) {
      await tx.manager.update(LeadActivity, { id: In(rows.map((r) => r.id)) }, { assigneeUserId: me, updatedAt: new Date() });
      for (const row of rows)
        await recordAudit(tx, {
          action: 'lead_activity.assign',
          resourceType: 'lead_activity',
          resourceId: row.id,
          tenantId: null,
          before: { assigneeUserId: row.assigneeUserId },
          after: { assigneeUserId: me },
        });
    }
    return { count: rows.length, ids: rows.map((r) => r.id) };
  });
}
