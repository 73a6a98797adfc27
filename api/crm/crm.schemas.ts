/**
 * DTOs and enums of the CRM area (leads, activities, the lead's store and plan requests, the public
 * demo request). The specification names the DTOs but not their fields; the fields below are this
 * platform's design, documented in each schema description and in docs/crm.md. Amounts are decimals
 * with at most 2 decimals in an ISO 4217 currency.
 */
import Joi from 'joi';
import { t, typedDto } from '../http/typed-schema';
import { currency, dateTime, money, uuid } from '../http/schema-types';
import { email } from '../auth/auth.schemas';

/** Lead `stage` (the specification's enumerated values). */
export const LEAD_STAGES = [
  'NEW',
  'QUALIFIED',
  'CONTACTED',
  'DEMO_SCHEDULED',
  'PROPOSAL_SENT',
  'WON',
  'LOST',
  'TRIAL_STARTED',
  'ONBOARDING_IN_PROGRESS',
  'ACTIVATED',
  'EXPANSION_CANDIDATE',
  'CHURN_RISK',
] as const;
/** Lead `followUp` filter (the specification's enumerated values). */
export const LEAD_FOLLOW_UP_FILTERS = ['OVERDUE', 'MISSING'] as const;
/** Where a lead came from; DEMO_REQUEST is set only by the public demo request form. */
export const LEAD_SOURCES = ['DEMO_REQUEST', 'WEBSITE', 'REFERRAL', 'OUTBOUND', 'EVENT', 'PARTNER', 'OTHER'] as const;
/** What a sales rep may choose when creating a lead by hand. */
export const MANUAL_LEAD_SOURCES = ['WEBSITE', 'REFERRAL', 'OUTBOUND', 'EVENT', 'PARTNER', 'OTHER'] as const;
export const ACTIVITY_TYPES = ['CALL', 'EMAIL', 'MEETING', 'TASK'] as const;
export const PLAN_REQUEST_KINDS = ['BANK_TRANSFER', 'PAYMENT_LINK'] as const;

/** The most ids a bulk operation takes. */
export const BULK_MAX = 100;

const line = (max: number): Joi.StringSchema => Joi.string().trim().min(1).max(max);
const phone = (): Joi.StringSchema =>
  Joi.string()
    .trim()
    .pattern(/^\+?[0-9][0-9 ()\-.]{4,38}$/, 'phone')
    .messages({ 'string.pattern.name': '{{#label}} must be a phone number (digits, spaces, + ( ) - .), 5 to 40 characters' });
/** A plan amount: greater than 0, at most 2 decimals (more is a 400, never rounded). */
const amount = (): Joi.NumberSchema => money().greater(0).precision(2).prefs({ convert: false });

const salesUser = (what: string) =>
  uuid().description(
    `${what}: a user with the platform role sales_rep or platform_admin (an unknown user answers 404 sales_user_not_found, another user 400 not_sales_team).`,
  );

const leadFields = {
  companyName: () => t.string(line(200).description('Company name, 1 to 200 characters.')),
  contactName: () => t.string(line(200).description('Contact person, 1 to 200 characters.')).nullable(),
  contactEmail: () => t.string(email().description('Contact e-mail address (the store invitation and payment links go there).')).nullable(),
  contactPhone: () => t.string(phone().description('Contact phone number.')).nullable(),
  expectedPlan: () =>
    t.string(line(100).description('The plan the lead is expected to buy (free text until billing publishes its plans).')).nullable(),
  expectedValue: () =>
    t
      .number(
        money().precision(2).prefs({ convert: false }).description('Expected value of the deal, 0 to 1,000,000,000, at most 2 decimals.'),
      )
      .nullable(),
  currency: () => t.string(currency().description('ISO 4217 currency of expectedValue; default TRY.')),
  nextFollowUpAt: () =>
    t
      .date(dateTime().description('When the lead is to be followed up next (ISO 8601); null for none. Drives the followUp filter.'))
      .nullable(),
  notes: () => t.string(Joi.string().max(10000).allow('').description('Free notes, at most 10,000 characters.')).nullable(),
};

export const CreateLeadDto = typedDto(
  'CreateLeadDto',
  t.object({
    companyName: leadFields.companyName().required(),
    contactName: leadFields.contactName(),
    contactEmail: leadFields.contactEmail(),
    contactPhone: leadFields.contactPhone(),
    source: t
      .oneOf(MANUAL_LEAD_SOURCES, (s) => s.description('Where the lead came from; DEMO_REQUEST is reserved for the public form.'))
      .required(),
    ownerUserId: t.string(salesUser('The owner; default the caller, null for nobody')).nullable(),
    expectedPlan: leadFields.expectedPlan(),
    expectedValue: leadFields.expectedValue(),
    currency: leadFields.currency().default('TRY'),
    nextFollowUpAt: leadFields.nextFollowUpAt(),
    notes: leadFields.notes(),
  }),
);

export const UpdateLeadDto = typedDto(
  'UpdateLeadDto',
  t
    .object({
      stage: t.oneOf(LEAD_STAGES, (s) =>
        s.description(
          'Moves the lead to this stage when the move is allowed (docs/crm.md, "Stages and transitions"), else 409 lead_stage_transition_refused; the same stage changes nothing. LOST needs lostReason.',
        ),
      ),
      lostReason: t.string(line(1000).description('Why the lead was lost; required with stage LOST, accepted only for a LOST lead.')),
      ownerUserId: t.string(salesUser('The new owner; null for nobody')).nullable(),
      companyName: leadFields.companyName(),
      contactName: leadFields.contactName(),
      contactEmail: leadFields.contactEmail(),
      contactPhone: leadFields.contactPhone(),
      source: t.oneOf(LEAD_SOURCES),
      expectedPlan: leadFields.expectedPlan(),
      expectedValue: leadFields.expectedValue(),
      currency: leadFields.currency(),
      nextFollowUpAt: leadFields.nextFollowUpAt(),
      notes: leadFields.notes(),
    })
    .rules((o) => o.min(1).description('Changes only the fields given; at least one.')),
);

const ids = (what: string) =>
  t.array(t.string(uuid()), Joi.array().min(1).max(BULK_MAX).unique().description(`1 to ${BULK_MAX} distinct ${what} ids.`));

/** A list of lead or activity ids to act on (assign to me, complete). */
export const CrmBulkAssignDto = typedDto(
  'CrmBulkAssignDto',
  t.object({
    ids: ids('lead or activity (as the operation says)').required(),
  }),
);

export const CrmLeadTransferDto = typedDto(
  'CrmLeadTransferDto',
  t
    .object({
      toUserId: t.string(salesUser('Who receives the leads')).required(),
      fromUserId: t.string(uuid().description('Transfer every lead this user owns (whatever its stage). Give this or leadIds, not both.')),
      leadIds: ids('lead').rules((a) => a.description(`Transfer these leads (1 to ${BULK_MAX}). Give this or fromUserId, not both.`)),
    })
    .rules((o) => o.xor('fromUserId', 'leadIds')),
);

export const LinkLeadStoreDto = typedDto(
  'LinkLeadStoreDto',
  t.object({
    storeId: t
      .string(
        uuid().description('An existing store of any tenant; unknown answers 404 store_not_found. A store links to one lead at most.'),
      )
      .required(),
  }),
);

const planRequestFields = {
  plan: () => t.string(line(100).description('The plan being bought (free text until billing publishes its plans).')).required(),
  amount: () => t.number(amount().description('Amount to pay, greater than 0, at most 2 decimals.')).required(),
  currency: () => t.string(currency().description("ISO 4217 currency; default the lead's currency.")),
};

export const RequestPlanBankTransferDto = typedDto(
  'RequestPlanBankTransferDto',
  t.object({ plan: planRequestFields.plan(), amount: planRequestFields.amount(), currency: planRequestFields.currency() }),
);

export const SendLeadPaymentLinkDto = typedDto(
  'SendLeadPaymentLinkDto',
  t.object({
    plan: planRequestFields.plan(),
    amount: planRequestFields.amount(),
    currency: planRequestFields.currency(),
    email: t.string(
      email().description("Where to send the link; default the lead's contactEmail (409 lead_contact_email_missing without either)."),
    ),
  }),
);

export const DemoRequestDto = typedDto(
  'DemoRequestDto',
  t.object({
    company: t.string(line(200).description('Company name, 1 to 200 characters.')).required(),
    name: t.string(line(200).description('Your name, 1 to 200 characters.')).required(),
    email: t.string(email().description('Your e-mail address (a real address format is checked).')).required(),
    phone: t.string(phone().description('Phone number, optional.')),
    message: t.string(Joi.string().trim().max(2000).allow('').description('What you would like to see, at most 2,000 characters.')),
    planInterest: t.string(line(100).description('The plan you are interested in, optional.')),
  }),
);

export const CreateActivityDto = typedDto(
  'CreateActivityDto',
  t.object({
    leadId: t.string(uuid().description('The lead the activity belongs to (404 lead_not_found when unknown).')).required(),
    type: t.oneOf(ACTIVITY_TYPES).required(),
    subject: t.string(line(200).description('What the activity is, 1 to 200 characters.')).required(),
    notes: t.string(Joi.string().max(5000).allow('').description('Notes, at most 5,000 characters.')).nullable(),
    dueAt: t.date(dateTime().description('When it is due (ISO 8601), or null.')).nullable(),
    assigneeUserId: t.string(salesUser('Who does it; default the caller, null for nobody')).nullable(),
  }),
);
