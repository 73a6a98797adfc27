/**
 * DTOs and responses of the marketing area (campaigns and automations, docs/marketing.md). The
 * specification names the DTOs but not their fields; the fields below are this platform's design.
 */
import Joi from 'joi';
import { dto } from '../http/route';
import { bool, dateTime, int, money, uuid } from '../http/schema-types';
import { t, typedDto } from '../http/typed-schema';

export const CAMPAIGN_CATEGORIES = ['MARKETING', 'NEWSLETTER'] as const;
export const CAMPAIGN_STATUSES = ['DRAFT', 'SCHEDULED', 'SENDING', 'SENT'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export const AUTOMATION_TRIGGERS = ['ORDER_PLACED', 'CUSTOMER_CREATED', 'CART_ABANDONED', 'MANUAL'] as const;
export const RUN_STATUSES = ['RUNNING', 'COMPLETED', 'CANCELLED'] as const;
export const RECIPIENT_STATUSES = ['pending', 'queued', 'suppressed', 'opted_out', 'policy_blocked', 'duplicate', 'no_address'] as const;
/** The longest delay of an automation step: 30 days, in minutes. */
export const STEP_DELAY_MAX_MINUTES = 43_200;
export const STEPS_MAX = 10;
const DAYS_MAX = 3650;

const line = (max: number): Joi.StringSchema => Joi.string().trim().min(1).max(max);
const messageBody = (): Joi.StringSchema =>
  Joi.string()
    .min(1)
    .max(20_000)
    .description(
      "Plain text, 1 to 20000 characters; `{{ firstName }}` is replaced by the first word of the customer's name (empty when none).",
    );

/** The segment: every field given must hold (AND); an empty segment is every customer of the store who accepts marketing. */
const segmentSchema = () =>
  t
    .object({
      spentOver: t.number(
        money().description('Customers whose placed (not cancelled) orders total more than this amount, in any currency.'),
      ),
      orderedWithinDays: t.number(int(1, DAYS_MAX).description('Customers with a placed order in the last N days (1 to 3650).')),
      notOrderedWithinDays: t.number(int(1, DAYS_MAX).description('Customers without a placed order in the last N days (1 to 3650).')),
      city: t.string(line(100).description('Customers with an address or an order shipped to this city (case-insensitive).')),
      tag: t.string(line(100).description('Customers carrying this tag (exact).')),
      acceptsMarketing: t.boolean(
        bool().description('Whether the customer accepts marketing; defaults to true (only consenting customers are written to).'),
      ),
    })
    .rules((o) => o.description('A declarative filter over the customers and orders of the store; all fields given must hold.'));

export const CreateCampaignDto = typedDto(
  'CreateCampaignDto',
  t.object({
    storeId: t.storeId(),
    name: t.string(line(200).description('Internal name, 1 to 200 characters.')).required(),
    subject: t.string(line(200).description('E-mail subject, 1 to 200 characters.')).required(),
    body: t.string(messageBody()).required(),
    category: t
      .string(
        Joi.string()
          .valid(...CAMPAIGN_CATEGORIES)
          .description('The message category customers opt out of.'),
      )
      .required(),
    segment: segmentSchema().required(),
    scheduledAt: t.date(dateTime().description('When sending starts once the campaign is sent; now when left out or in the past.')),
  }),
);

export const UpdateCampaignDto = typedDto(
  'UpdateCampaignDto',
  t
    .object({
      name: t.string(line(200)),
      subject: t.string(line(200)),
      body: t.string(messageBody()),
      category: t.string(Joi.string().valid(...CAMPAIGN_CATEGORIES)),
      segment: segmentSchema(),
      scheduledAt: t.date(dateTime().description('null clears it.')).nullable(),
    })
    .rules((o) =>
      o
        .min(1)
        .messages({ 'object.min': 'give at least one field to change' })
        .description('Any subset of the fields (at least one). Only a DRAFT or SCHEDULED campaign can change (409 otherwise).'),
    ),
);

const stepSchema = () =>
  t.object({
    delayMinutes: t
      .number(int(0, STEP_DELAY_MAX_MINUTES).description('Minutes after the previous step (or the trigger), 0 to 43200.'))
      .required(),
    subject: t.string(line(200)).required(),
    body: t.string(messageBody()).required(),
    category: t.string(Joi.string().valid(...CAMPAIGN_CATEGORIES)).required(),
  });

const steps = () =>
  t.array(stepSchema(), Joi.array().min(1).max(STEPS_MAX).description('1 to 10 steps, sent in order, each after its delay.'));

export const CreateAutomationDto = typedDto(
  'CreateAutomationDto',
  t.object({
    storeId: t.storeId(),
    name: t.string(line(200)).required(),
    trigger: t
      .string(
        Joi.string()
          .valid(...AUTOMATION_TRIGGERS)
          .description(
            'What starts a run: ORDER_PLACED, CUSTOMER_CREATED, MANUAL (POST …/trigger); CART_ABANDONED never fires (no server-side carts).',
          ),
      )
      .required(),
    steps: steps().required(),
    active: t.boolean(bool().description('Inactive automations start no runs; defaults to true.')).default(true),
  }),
);

export const UpdateAutomationDto = typedDto(
  'UpdateAutomationDto',
  t
    .object({
      name: t.string(line(200)),
      steps: steps(),
      active: t.boolean(bool()),
    })
    .rules((o) =>
      o
        .min(1)
        .messages({ 'object.min': 'give at least one field to change' })
        .description('Any subset of name, steps and active (at least one). Runs already started follow the new steps.'),
    ),
);

export const TriggerAutomationDto = typedDto(
  'TriggerAutomationDto',
  t.object({ customerId: t.string(uuid().description("A customer of the automation's store.")).required() }),
);

// ---- responses -------------------------------------------------------------------------------------

const SegmentItem = Joi.object({
  spentOver: Joi.number(),
  orderedWithinDays: Joi.number().integer(),
  notOrderedWithinDays: Joi.number().integer(),
  city: Joi.string(),
  tag: Joi.string(),
  acceptsMarketing: Joi.boolean(),
}).label('CampaignSegment');

const DeliveryCounts = Joi.object(Object.fromEntries(RECIPIENT_STATUSES.map((s) => [s, Joi.number().integer().min(0).required()]))).label(
  'CampaignDeliveryCounts',
);

export const CampaignItem = Joi.object({
  id: uuid().required(),
  storeId: uuid().required(),
  name: Joi.string().required(),
  subject: Joi.string().required(),
  body: Joi.string().required(),
  category: Joi.string()
    .valid(...CAMPAIGN_CATEGORIES)
    .required(),
  segment: SegmentItem.required(),
  status: Joi.string()
    .valid(...CAMPAIGN_STATUSES)
    .required(),
  scheduledAt: dateTime().allow(null).required(),
  startedAt: dateTime().allow(null).required(),
  finishedAt: dateTime().allow(null).required(),
  createdAt: dateTime().required(),
  updatedAt: dateTime().required(),
}).label('CampaignItem');

export const CampaignResponse = dto('CampaignResponse', CampaignItem);
export const CampaignDetailResponse = dto(
  'CampaignDetailResponse',
  CampaignItem.keys({ recipients: Joi.number().integer().min(0).required(), deliveries: DeliveryCounts.required() }),
);
export const CampaignListResponse = dto(
  'CampaignListResponse',
  Joi.object({ items: Joi.array().items(CampaignItem).required(), nextCursor: uuid().allow(null).required() }),
);

const StepItem = Joi.object({
  delayMinutes: Joi.number().integer().required(),
  subject: Joi.string().required(),
  body: Joi.string().required(),
  category: Joi.string().required(),
}).label('AutomationStep');

export const AutomationItem = Joi.object({
  id: uuid().required(),
  storeId: uuid().required(),
  name: Joi.string().required(),
  trigger: Joi.string()
    .valid(...AUTOMATION_TRIGGERS)
    .required(),
  steps: Joi.array().items(StepItem).required(),
  active: Joi.boolean().required(),
  createdAt: dateTime().required(),
  updatedAt: dateTime().required(),
}).label('AutomationItem');

export const AutomationResponse = dto('AutomationResponse', AutomationItem);
export const AutomationListResponse = dto(
  'AutomationListResponse',
  Joi.object({ items: Joi.array().items(AutomationItem).required(), nextCursor: uuid().allow(null).required() }),
);

export const RunItem = Joi.object({
  id: uuid().required(),
  automationId: uuid().required(),
  customerId: uuid().required(),
  triggerKey: Joi.string().required(),
  status: Joi.string()
    .valid(...RUN_STATUSES)
    .required(),
  nextStep: Joi.number().integer().min(0).required(),
  nextStepAt: dateTime().allow(null).required(),
  outcomes: Joi.array()
    .items(Joi.object({ step: Joi.number().integer().required(), status: Joi.string().required(), at: dateTime().required() }))
    .required(),
  createdAt: dateTime().required(),
  finishedAt: dateTime().allow(null).required(),
}).label('AutomationRunItem');

export const RunResponse = dto('AutomationRunResponse', RunItem);
export const RunListResponse = dto(
  'AutomationRunListResponse',
  Joi.object({ items: Joi.array().items(RunItem).required(), nextCursor: uuid().allow(null).required() }),
);
