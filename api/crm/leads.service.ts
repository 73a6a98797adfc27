/**
 * Leads of the sales team (docs/crm.md): list, create, read, update (the stage through
 * moveLeadStage), delete, assign to me, transfer, and the history read back from the audit log.
 * Leads are platform data: no tenant scoping; every write records an audit entry (tenant null,
 * resourceType `lead`) in its transaction.
 */
import { In } from 'typeorm';
import { AuditEntry, Lead } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import type { InputOf } from '../http/typed-schema';
import { changes } from '../audit-log/audit-log.service';
import { crmError } from './crm.errors';
import type { CreateLeadDto, CrmLeadTransferDto, UpdateLeadDto } from './crm.schemas';
import { actingUserId, applyStageMove, lockLead, OPEN_STAGES, recordStageChange, type LeadStage } from './lead-stages';
import { requireSalesUser } from './crm-users';
import { amountText, leadView, type BulkResult, type LeadView } from './crm.views';

export const leadNotFound = () => crmError('lead_not_found', 'The lead does not exist.');

/** What the audit log keeps of a lead (all but its stage, which lead.stage_change records). */
function auditFields(lead: Lead): Record<string, unknown> {
  return {
    ownerUserId: lead.ownerUserId,
    companyName: lead.companyName,
    contactName: lead.contactName,
    contactEmail: lead.contactEmail,
    contactPhone: lead.contactPhone,
    source: lead.source,
    expectedPlan: lead.expectedPlan,
    expectedValue: lead.expectedValue === null ? null : amountText(lead.expectedValue),
    currency: lead.currency,
    nextFollowUpAt: lead.nextFollowUpAt ? lead.nextFollowUpAt.toISOString() : null,
    notes: lead.notes,
    storeId: lead.storeId,
    lostReason: lead.lostReason,
  };
}

export async function findLead(ctx: RequestContext, id: string): Promise<Lead> {
  const lead = await ctx.manager.findOne(Lead, { where: { id: id.toLowerCase() } });
  if (!lead) throw leadNotFound();
  return lead;
}

// ---- list ----------------------------------------------------------------------------------------

export interface ListLeadsQuery {
  stage?: LeadStage;
  ownerUserId?: string;
  followUp?: 'OVERDUE' | 'MISSING';
  cursor?: string;
  limit: number;
}

export async function listLeads(ctx: RequestContext, query: ListLeadsQuery): Promise<{ items: LeadView[]; nextCursor: string | null }> {
  const qb = ctx.manager.getRepository(Lead).createQueryBuilder('l');
  if (query.stage !== undefined) qb.andWhere('l.stage = :stage', { stage: query.stage });
  if (query.ownerUserId !== undefined) qb.andWhere('l.ownerUserId = :owner', { owner: query.ownerUserId.toLowerCase() });
  if (query.followUp !== undefined) {
    qb.andWhere('l.stage IN (:...open)', { open: OPEN_STAGES });
    if (query.followUp === 'OVERDUE') qb.andWhere('l.nextFollowUpAt < now()');
    else qb.andWhere('l.nextFollowUpAt IS NULL');
  }
  if (query.cursor !== undefined) qb.andWhere('l.id < :cursor', { cursor: query.cursor.toLowerCase() });
  const rows = await qb
    .orderBy('l.id', 'DESC')
    .take(query.limit + 1)
    .getMany();
  const page = rows.slice(0, query.limit);
  return { items: page.map(leadView), nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
}

// ---- create, read, update, delete ----------------------------------------------------------------

export type CreateLeadInput = InputOf<typeof CreateLeadDto>;

/** Inserts a NEW lead with its creation stage change and audit entry (inside the caller's transaction). */
export async function insertLead(
  tx: RequestContext,
  fields: Omit<Lead, 'id' | 'stage' | 'storeId' | 'invitedTenantId' | 'lostReason' | 'stageChangedAt' | 'createdAt' | 'updatedAt'>,
): Promise<Lead> {
  const now = new Date();
  const lead: Lead = {
    ...fields,
    id: uuidv7(),
    stage: 'NEW',
    storeId: null,
    invitedTenantId: null,
    lostReason: null,
    stageChangedAt: now,
    createdAt: now,
    updatedAt: now,
  };
  await tx.manager.insert(Lead, lead);
  await recordStageChange(tx, lead.id, null, 'NEW', now);
  await recordAudit(tx, {
    action: 'lead.create',
    resourceType: 'lead',
    resourceId: lead.id,
    tenantId: null,
    after: { stage: lead.stage, ...auditFields(lead) },
  });
  return lead;
}

export async function createLead(ctx: RequestContext, body: CreateLeadInput): Promise<LeadView> {
  return inTransaction(ctx, async (tx) => {
    const owner = body.ownerUserId === undefined ? actingUserId(tx) : body.ownerUserId;
    const lead = await insertLead(tx, {
      ownerUserId: owner === null ? null : await requireSalesUser(tx, owner, 'body.ownerUserId'),
      companyName: body.companyName,
      contactName: body.contactName ?? null,
      contactEmail: body.contactEmail ?? null,
      contactPhone: body.contactPhone ?? null,
      source: body.source,
      expectedPlan: body.expectedPlan ?? null,
      expectedValue: body.expectedValue === undefined || body.expectedValue === null ? null : amountText(body.expectedValue),
      currency: body.currency,
      nextFollowUpAt: body.nextFollowUpAt ?? null,
      notes: body.notes ?? null,
    });
    return leadView(lead);
  });
}

export async function getLead(ctx: RequestContext, id: string): Promise<LeadView> {
  return leadView(await findLead(ctx, id));
}

export type UpdateLeadInput = InputOf<typeof UpdateLeadDto>;

const PLAIN_FIELDS = ['companyName', 'contactName', 'contactEmail', 'contactPhone', 'source', 'expectedPlan', 'currency', 'notes'] as const;

export async function updateLead(ctx: RequestContext, id: string, body: UpdateLeadInput): Promise<LeadView> {
  return inTransaction(ctx, async (tx) => {
    let lead = await lockLead(tx, id);
    const movesStage = body.stage !== undefined && body.stage !== lead.stage;
    if (body.lostReason !== undefined && !(lead.stage === 'LOST' && !movesStage) && body.stage !== 'LOST') {
      throw crmError('lost_reason_not_lost', 'lostReason can only be set on a lead that is, or is moved to, LOST.', [
        { path: 'body.lostReason', message: 'lostReason needs stage LOST' },
      ]);
    }
    const next: Lead = { ...lead };
    for (const field of PLAIN_FIELDS)
      if (body[field] !== undefined) (next as unknown as Record<string, unknown>)[field] = body[field] ?? null;
    if (body.expectedValue !== undefined) next.expectedValue = body.expectedValue === null ? null : amountText(body.expectedValue);
    if (body.nextFollowUpAt !== undefined) next.nextFollowUpAt = body.nextFollowUpAt;
    if (body.ownerUserId !== undefined)
      next.ownerUserId = body.ownerUserId === null ? null : await requireSalesUser(tx, body.ownerUserId, 'body.ownerUserId');
    if (body.lostReason !== undefined && !movesStage) next.lostReason = body.lostReason;
    const before = auditFields(lead);
    const after = auditFields(next);
    const changed = changes(before, after);
    if (changed.length > 0) {
      const now = new Date();
      const set = Object.fromEntries(changed.map((c) => [c.field, (next as unknown as Record<string, unknown>)[c.field]]));
      await tx.manager.update(Lead, { id: lead.id }, { ...set, updatedAt: now });
      await recordAudit(tx, {
        action: 'lead.update',
        resourceType: 'lead',
        resourceId: lead.id,
        tenantId: null,
        before: Object.fromEntries(changed.map((c) => [c.field, c.before])),
        after: Object.fromEntries(changed.map((c) => [c.field, c.after])),
      });
      lead = { ...next, updatedAt: now };
    }
    if (movesStage) lead = await applyStageMove(tx, lead, body.stage!, { lostReason: body.lostReason });
    return leadView(lead);
  });
}

export async function deleteLead(ctx: RequestContext, id: string): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const lead = await lockLead(tx, id);
    await tx.manager.delete(Lead, { id: lead.id });
    await recordAudit(tx, {
      action: 'lead.delete',
      resourceType: 'lead',
      resourceId: lead.id,
      tenantId: null,
      before: { stage: lead.stage, ...auditFields(lead) },
    });
  });
}

// ---- ownership -----------------------------------------------------------------------------------

/** Locks the leads of `ids` (in id order); 404 lead_not_found naming the first unknown one. */
async function lockLeads(tx: RequestContext, ids: readonly string[], path: string): Promise<Lead[]> {
  const wanted = ids.map((id) => id.toLowerCase());
  const rows = await tx.manager.find(Lead, { where: { id: In(wanted) }, order: { id: 'ASC' }, lock: { mode: 'pessimistic_write' } });
  const found = new Set(rows.map((r) => r.id));
  const missing = wanted.findIndex((id) => !found.has(id));
  if (missing >= 0)
    throw crmError('lead_not_found', `The lead ${wanted[missing]} does not exist.`, [
      { path: `${path}[${missing}]`, message: 'no such lead' },
    ]);
  return rows;
}

/** Gives `leads` to `owner`; leads it already owns are left alone. One audit entry per lead changed. */
async function reassign(tx: RequestContext, leads: readonly Lead[], owner: string, action: string): Promise<BulkResult> {
  const moved = leads.filter((l) => l.ownerUserId !== owner);
  if (moved.length > 0) {
    await tx.manager.update(Lead, { id: In(moved.map((l) => l.id)) }, { ownerUserId: owner, updatedAt: new Date() });
    for (const lead of moved)
      await recordAudit(tx, {
        action,
        resourceType: 'lead',
        resourceId: lead.id,
        tenantId: null,
        before: { ownerUserId: lead.ownerUserId },
        after: { ownerUserId: owner },
      });
  }
  return { count: moved.length, ids: moved.map((l) => l.id) };
}

export async function assignLeadsToMe(ctx: RequestContext, ids: readonly string[]): Promise<BulkResult> {
  return inTransaction(ctx, async (tx) => {
    const me = await requireSalesUser(tx, ctx.actor.id!, 'actor');
    return reassign(tx, await lockLeads(tx, ids, 'body.ids'), me, 'lead.assign');
  });
}

export type TransferLeadsInput = InputOf<typeof CrmLeadTransferDto>;

/** Every lead of fromUserId, or the leads of leadIds, to toUserId (a sales_rep or platform_admin). */
export async function transferLeads(ctx: RequestContext, body: TransferLeadsInput): Promise<BulkResult> {
  return inTransaction(ctx, async (tx) => {
    const to = await requireSalesUser(tx, body.toUserId, 'body.toUserId');
    const leads =
      body.leadIds !== undefined
        ? await lockLeads(tx, body.leadIds, 'body.leadIds')
        : await tx.manager.find(Lead, {
            where: { ownerUserId: body.fromUserId!.toLowerCase() },
            order: { id: 'ASC' },
            lock: { mode: 'pessimistic_write' },
          });
    return reassign(tx, leads, to, 'lead.transfer');
  });
}

// ---- history -------------------------------------------------------------------------------------

export interface HistoryQuery {
  cursor?: string;
  limit: number;
}

/** The audit entries of the lead, oldest first (they outlive a deleted lead only in the audit log). */
export async function leadHistory(ctx: RequestContext, id: string, query: HistoryQuery) {
  const lead = await findLead(ctx, id);
  const qb = ctx.manager
    .getRepository(AuditEntry)
    .createQueryBuilder('a')
    .where("a.resourceType = 'lead' AND a.resourceId = :id", { id: lead.id });
  if (query.cursor !== undefined) qb.andWhere('a.id > :cursor', { cursor: query.cursor.toLowerCase() });
  const rows = await qb
    .orderBy('a.id', 'ASC')
    .take(query.limit + 1)
    .getMany();
  const page = rows.slice(0, query.limit);
  return {
    items: page.map((e) => ({
      id: e.id,
      action: e.action,
      actor: { type: e.actorType, id: e.actorId },
      before: e.before,
      after: e.after,
      changes: changes(e.before as never, e.after as never),
      createdAt: e.createdAt.toISOString(),
    })),
    nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null,
  };
}
