/**
 * The lead pipeline: which stage may follow which (docs/crm.md, "Stages and transitions"), which
 * stages count as open for follow-ups, and the order of the funnel the pipeline overview measures.
 */
import { Lead, LeadStageChange } from '../../storage/entities';
import type { LeadStage } from '../../storage/entities/lead.entity';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { crmError } from './crm.errors';

export type { LeadStage };

/**
 * The allowed moves. A move not listed here is refused with 409 `lead_stage_transition_refused`;
 * staying in the same stage is not a move. LOST is reached from every stage of the sale (and from
 * CHURN_RISK) and needs a lost reason; LOST → CONTACTED reopens a lead.
 */
export const LEAD_TRANSITIONS: Record<LeadStage, readonly LeadStage[]> = {
  NEW: ['QUALIFIED', 'CONTACTED', 'LOST'],
  QUALIFIED: ['CONTACTED', 'DEMO_SCHEDULED', 'LOST'],
  CONTACTED: ['DEMO_SCHEDULED', 'PROPOSAL_SENT', 'TRIAL_STARTED', 'LOST'],
  DEMO_SCHEDULED: ['PROPOSAL_SENT', 'TRIAL_STARTED', 'LOST'],
  PROPOSAL_SENT: ['WON', 'LOST', 'TRIAL_STARTED'],
  TRIAL_STARTED: ['WON', 'LOST'],
  WON: ['ONBOARDING_IN_PROGRESS'],
  ONBOARDING_IN_PROGRESS: ['ACTIVATED'],
  ACTIVATED: ['EXPANSION_CANDIDATE', 'CHURN_RISK'],
  EXPANSION_CANDIDATE: ['ACTIVATED', 'CHURN_RISK'],
  CHURN_RISK: ['ACTIVATED', 'LOST'],
  LOST: ['CONTACTED'],
};

export function canMoveLead(from: LeadStage, to: LeadStage): boolean {
  return LEAD_TRANSITIONS[from].includes(to);
}

/**
 * Stages in which the sales team owes the lead a next step, so a follow-up date is expected: the sale
 * itself and the accounts to grow or to keep. WON and ONBOARDING_IN_PROGRESS belong to onboarding,
 * ACTIVATED is a customer in good standing and LOST is closed.
 */
export const OPEN_STAGES: readonly LeadStage[] = [
  'NEW',
  'QUALIFIED',
  'CONTACTED',
  'DEMO_SCHEDULED',
  'PROPOSAL_SENT',
  'TRIAL_STARTED',
  'EXPANSION_CANDIDATE',
  'CHURN_RISK',
];

/**
 * The funnel, first to last: every allowed move between two of these stages goes forwards, so a lead
 * that entered a stage has passed (or skipped) every stage before it. LOST, EXPANSION_CANDIDATE and
 * CHURN_RISK are outside the funnel.
 */
export const FUNNEL_STAGES: readonly LeadStage[] = [
  'NEW',
  'QUALIFIED',
  'CONTACTED',
  'DEMO_SCHEDULED',
  'PROPOSAL_SENT',
  'TRIAL_STARTED',
  'WON',
  'ONBOARDING_IN_PROGRESS',
  'ACTIVATED',
];

// ---- moving a lead -------------------------------------------------------------------------------

/** The lead `id`, locked for the rest of the transaction (SELECT … FOR UPDATE); 404 lead_not_found. */
export async function lockLead(tx: RequestContext, id: string): Promise<Lead> {
  const lead = await tx.manager.findOne(Lead, { where: { id: id.toLowerCase() }, lock: { mode: 'pessimistic_write' } });
  if (!lead) throw crmError('lead_not_found', 'The lead does not exist.');
  return lead;
}

/** The calling user, when a user calls (null for the public form and for system work). */
export const actingUserId = (ctx: RequestContext): string | null => (ctx.actor.type === 'user' ? (ctx.actor.id ?? null) : null);

/** Records that `leadId` entered `to` (from `from`, null on creation). */
export async function recordStageChange(
  tx: RequestContext,
  leadId: string,
  from: LeadStage | null,
  to: LeadStage,
  at: Date,
): Promise<void> {
  await tx.manager.insert(LeadStageChange, {
    id: uuidv7(),
    leadId,
    fromStage: from,
    toStage: to,
    changedAt: at,
    actorUserId: actingUserId(tx),
  });
}

/** Moves a locked lead (see moveLeadStage); for callers that already hold the row. */
export async function applyStageMove(tx: RequestContext, lead: Lead, to: LeadStage, options: { lostReason?: string } = {}): Promise<Lead> {
  if (!canMoveLead(lead.stage, to)) {
    throw crmError(
      'lead_stage_transition_refused',
      `A lead cannot move from ${lead.stage} to ${to}; from ${lead.stage} it can move to ${LEAD_TRANSITIONS[lead.stage].join(', ')}.`,
    );
  }
  const lostReason = to === 'LOST' ? (options.lostReason ?? null) : null;
  if (to === 'LOST' && !lostReason)
    throw crmError('lost_reason_required', 'Moving a lead to LOST needs a lostReason.', [
      { path: 'body.lostReason', message: 'lostReason is required with stage LOST' },
    ]);
  const now = new Date();
  await tx.manager.update(Lead, { id: lead.id }, { stage: to, lostReason, stageChangedAt: now, updatedAt: now });
  await recordStageChange(tx, lead.id, lead.stage, to, now);
  await recordAudit(tx, {
    action: 'lead.stage_change',
    resourceType: 'lead',
    resourceId: lead.id,
    tenantId: null,
    before: { stage: lead.stage, lostReason: lead.lostReason },
    after: { stage: to, lostReason },
  });
  return { ...lead, stage: to, lostReason, stageChangedAt: now, updatedAt: now };
}

/**
 * Moves lead `leadId` to stage `to`: locks the row, refuses a move that LEAD_TRANSITIONS does not
 * allow (409 lead_stage_transition_refused, naming both stages), and writes the stage, its time, a
 * lead_stage_changes row and an audit entry (lead.stage_change), in the caller's transaction when
 * there is one. LOST needs `lostReason`; leaving LOST clears it.
 */
export async function moveLeadStage(tx: RequestContext, leadId: string, to: LeadStage, options?: { lostReason?: string }): Promise<Lead> {
  return inTransaction(tx, async (inner) => applyStageMove(inner, await lockLead(inner, leadId), to, options));
}
