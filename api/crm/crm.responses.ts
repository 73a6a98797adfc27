/** The response schemas of the CRM area (the views of crm.views.ts); every answer is checked against them in tests. */
import Joi from 'joi';
import { dto } from '../http/route';
import { ACTIVITY_TYPES, LEAD_SOURCES, LEAD_STAGES, PLAN_REQUEST_KINDS } from './crm.schemas';

const iso = () => Joi.string().isoDate();
const isoOrNull = () => Joi.string().isoDate().allow(null).required();

const LeadItem = Joi.object({
  id: Joi.string().required(),
  stage: Joi.string()
    .valid(...LEAD_STAGES)
    .required(),
  ownerUserId: Joi.string().allow(null).required(),
  companyName: Joi.string().required(),
  contactName: Joi.string().allow(null).required(),
  contactEmail: Joi.string().allow(null).required(),
  contactPhone: Joi.string().allow(null).required(),
  source: Joi.string()
    .valid(...LEAD_SOURCES)
    .required(),
  expectedPlan: Joi.string().allow(null).required(),
  expectedValue: Joi.number().allow(null).required(),
  currency: Joi.string().required(),
  nextFollowUpAt: isoOrNull(),
  notes: Joi.string().allow('', null).required(),
  storeId: Joi.string().allow(null).required(),
  lostReason: Joi.string().allow(null).required(),
  stageChangedAt: iso().required(),
  createdAt: iso().required(),
  updatedAt: iso().required(),
}).label('Lead');

const nextCursor = () => Joi.string().allow(null).required().description('Pass as cursor for the next page; null on the last page.');

export const LeadResponse = dto('LeadResponse', LeadItem);
export const LeadListResponse = dto(
  'LeadListResponse',
  Joi.object({ items: Joi.array().items(LeadItem).required(), nextCursor: nextCursor() }),
);

export const CrmBulkResponse = dto(
  'CrmBulkResponse',
  Joi.object({
    count: Joi.number().integer().min(0).required().description('How many were changed.'),
    ids: Joi.array().items(Joi.string()).required().description('The ids changed (ids already in the asked state are left out).'),
  }),
);

const ActivityItem = Joi.object({
  id: Joi.string().required(),
  leadId: Joi.string().required(),
  type: Joi.string()
    .valid(...ACTIVITY_TYPES)
    .required(),
  subject: Joi.string().required(),
  notes: Joi.string().allow('', null).required(),
  dueAt: isoOrNull(),
  assigneeUserId: Joi.string().allow(null).required(),
  completedAt: isoOrNull(),
  completedBy: Joi.string().allow(null).required(),
  createdBy: Joi.string().allow(null).required(),
  createdAt: iso().required(),
  updatedAt: iso().required(),
}).label('LeadActivity');

export const ActivityResponse = dto('LeadActivityResponse', ActivityItem);
export const ActivityListResponse = dto(
  'LeadActivityListResponse',
  Joi.object({ items: Joi.array().items(ActivityItem).required(), nextCursor: nextCursor() }),
);

const HistoryItem = Joi.object({
  id: Joi.string().required(),
  action: Joi.string().required().description('lead.create, lead.update, lead.stage_change, lead.store_link, …'),
  actor: Joi.object({ type: Joi.string().required(), id: Joi.string().allow(null).required() }).required(),
  before: Joi.object().unknown(true).allow(null).required(),
  after: Joi.object().unknown(true).allow(null).required(),
  changes: Joi.array()
    .items(Joi.object({ field: Joi.string().required(), before: Joi.any(), after: Joi.any() }))
    .required()
    .description('The fields whose values differ between before and after.'),
  createdAt: iso().required(),
});
export const LeadHistoryResponse = dto(
  'LeadHistoryResponse',
  Joi.object({ items: Joi.array().items(HistoryItem).required(), nextCursor: nextCursor() }),
);

const Amount = Joi.object({
  currency: Joi.string().required(),
  count: Joi.number().integer().min(0).required().description('Leads in this currency.'),
  amount: Joi.number().required().description('Sum of their expected values (leads without one add nothing).'),
});

export const PipelineResponse = dto(
  'CrmPipelineResponse',
  Joi.object({
    stages: Joi.array()
      .items(
        Joi.object({
          stage: Joi.string()
            .valid(...LEAD_STAGES)
            .required(),
          count: Joi.number().integer().min(0).required(),
          expectedValue: Joi.array().items(Amount).required().description('Per currency, in currency order.'),
        }),
      )
      .required(),
  }),
);

const seconds = () => Joi.number().min(0).allow(null).required();
export const PipelineOverviewResponse = dto(
  'CrmPipelineOverviewResponse',
  Joi.object({
    funnel: Joi.array()
      .items(
        Joi.object({
          stage: Joi.string().required(),
          reached: Joi.number().integer().min(0).required().description('Leads that entered this stage or a later one of the funnel.'),
          current: Joi.number().integer().min(0).required().description('Leads in this stage now.'),
          conversionToNext: Joi.number()
            .min(0)
            .max(1)
            .allow(null)
            .required()
            .description(
              'reached of the next funnel stage / reached of this one (4 decimals); null for the last stage or when none reached this one.',
            ),
          lostFrom: Joi.number().integer().min(0).required().description('Moves from this stage to LOST.'),
        }),
      )
      .required(),
    timeInStage: Joi.array()
      .items(
        Joi.object({
          stage: Joi.string().required(),
          stays: Joi.number().integer().min(0).required().description('Completed stays (the lead entered and left this stage).'),
          averageSeconds: seconds(),
          medianSeconds: seconds(),
        }),
      )
      .required(),
  }),
);

const FollowUpCounts = {
  overdue: Joi.number().integer().min(0).required(),
  dueToday: Joi.number().integer().min(0).required(),
  upcoming: Joi.number().integer().min(0).required(),
  missing: Joi.number().integer().min(0).required(),
};
export const FollowUpStatsResponse = dto(
  'CrmFollowUpStatsResponse',
  Joi.object({
    overall: Joi.object(FollowUpCounts).required(),
    byOwner: Joi.array()
      .items(Joi.object({ ownerUserId: Joi.string().allow(null).required(), ...FollowUpCounts }))
      .required(),
  }),
);

export const TeamResponse = dto(
  'CrmTeamResponse',
  Joi.object({
    items: Joi.array()
      .items(
        Joi.object({
          userId: Joi.string().required(),
          name: Joi.string().required(),
          email: Joi.string().required(),
          platformRole: Joi.string().valid('sales_rep', 'platform_admin').required(),
          openLeads: Joi.number().integer().min(0).required(),
          overdueFollowUps: Joi.number().integer().min(0).required(),
          pipelineValue: Joi.array().items(Amount).required().description('Expected value of their open leads, per currency.'),
        }),
      )
      .required(),
  }),
);

const RepCounts = {
  leadsCreated: Joi.number().integer().min(0).required(),
  won: Joi.number().integer().min(0).required(),
  lost: Joi.number().integer().min(0).required(),
  activitiesCompleted: Joi.number().integer().min(0).required(),
};
export const OperationsReportResponse = dto(
  'CrmOperationsReportResponse',
  Joi.object({
    periodDays: Joi.number().integer().required(),
    from: iso().required(),
    to: iso().required(),
    totals: Joi.object(RepCounts).required(),
    byRep: Joi.array()
      .items(Joi.object({ userId: Joi.string().required(), name: Joi.string().allow(null).required(), ...RepCounts }))
      .required(),
  }),
);

export const LeadStoreResponse = dto(
  'LeadStoreResponse',
  Joi.object({
    leadId: Joi.string().required(),
    storeId: Joi.string().required(),
    name: Joi.string().required(),
    slug: Joi.string().required(),
    status: Joi.string().required(),
    tenantId: Joi.string().required(),
    tenantName: Joi.string().required(),
    createdAt: iso().required(),
  }),
);

export const StoreInvitationResponse = dto(
  'LeadStoreInvitationResponse',
  Joi.object({
    leadId: Joi.string().required(),
    sentTo: Joi.string().required(),
    expiresAt: iso().required().description('The invitation link works once, until then.'),
  }),
);

export const ActivationResponse = dto(
  'LeadActivationResponse',
  Joi.object({
    leadId: Joi.string().required(),
    storeId: Joi.string().required(),
    storeStatus: Joi.string().required(),
    steps: Joi.array()
      .items(
        Joi.object({
          key: Joi.string().required(),
          title: Joi.string().required(),
          done: Joi.boolean().required(),
          available: Joi.boolean().required(),
          reason: Joi.string(),
        }),
      )
      .required(),
    completed: Joi.number().integer().min(0).required(),
    total: Joi.number().integer().min(0).required(),
    percentage: Joi.number().integer().min(0).max(100).required(),
    nextStep: Joi.string().allow(null).required(),
    activated: Joi.boolean().required().description('True when every step is done and the store is active.'),
  }),
);

export const PlanRequestResponse = dto(
  'LeadPlanRequestResponse',
  Joi.object({
    id: Joi.string().required(),
    leadId: Joi.string().required(),
    kind: Joi.string()
      .valid(...PLAN_REQUEST_KINDS)
      .required(),
    reference: Joi.string().required(),
    plan: Joi.string().required(),
    amount: Joi.number().required(),
    currency: Joi.string().required(),
    status: Joi.string().valid('REQUESTED').required().description('Always REQUESTED until billing exists.'),
    sentTo: Joi.string().allow(null).required(),
    payUrl: Joi.string().allow(null).required().description('The link e-mailed (payment link only); the page does not take payments yet.'),
    createdAt: iso().required(),
  }),
);
