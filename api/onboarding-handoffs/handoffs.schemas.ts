/** DTOs and responses of onboarding handoffs (sales and support sides) and the merchant's onboarding plan. */
import Joi from 'joi';
import { dto } from '../http/route';
import { t, typedDto } from '../http/typed-schema';
import { date, text, uuid } from '../http/schema-types';
import { HANDOFF_STATUSES, HANDOFF_TASK_OWNERS } from '../../storage/entities/onboarding-handoff.entity';

export { HANDOFF_STATUSES, HANDOFF_TASK_OWNERS };

/** At most this many tasks per handoff. */
export const MAX_HANDOFF_TASKS = 50;

const TaskInput = t.object({
  title: t.string(text(1, 200).trim().description('What has to be done.')).required(),
  owner: t.oneOf(HANDOFF_TASK_OWNERS, (s) => s.description('Who does it: the merchant, the support team or sales.')).required(),
  dueDate: t.string(date().description('When it should be done (YYYY-MM-DD).')).nullable(),
});

export const CreateOnboardingHandoffDto = typedDto(
  'CreateOnboardingHandoffDto',
  t.object({
    summary: t
      .string(text(1, 5000).trim().description('What onboarding must know about the deal (internal: never shown to the merchant).'))
      .required(),
    storeId: t.string(uuid().description("The store to onboard; default: the lead's linked store.")).nullable(),
    tasks: t.array(TaskInput, Joi.array().min(1).max(MAX_HANDOFF_TASKS).description('The onboarding plan, in order.')).required(),
    note: t.string(
      text(1, 5000)
        .trim()
        .description('Answering an information request (PUT): the answer, required there. Ignored when the handoff is created.'),
    ),
  }),
);
export type HandoffInput = import('../http/typed-schema').InputOf<typeof CreateOnboardingHandoffDto>;

export const RequestHandoffInfoDto = typedDto(
  'RequestHandoffInfoDto',
  t.object({ question: t.string(text(1, 2000).trim().description('What sales must add before onboarding can go on.')).required() }),
);

export const CompleteHandoffTaskDto = typedDto(
  'CompleteHandoffTaskDto',
  t.object({ note: t.string(text(1, 2000).trim().description('How the task was done (kept with the task).')) }),
);

const isoTime = () => Joi.string().isoDate().allow(null);

/** What the merchant also sees of a task. */
const PLAN_TASK_FIELDS = {
  id: uuid().required(),
  position: Joi.number().integer().required(),
  title: Joi.string().required(),
  owner: Joi.string()
    .valid(...HANDOFF_TASK_OWNERS)
    .required(),
  dueDate: Joi.string().allow(null).required(),
  completed: Joi.boolean().required(),
  completedAt: isoTime().required(),
};

const HandoffTask = Joi.object({
  ...PLAN_TASK_FIELDS,
  completedBy: uuid().allow(null).required(),
  note: Joi.string().allow(null).required().description('How the task was done (platform staff only).'),
});

const Progress = Joi.object({
  completed: Joi.number().integer().required(),
  total: Joi.number().integer().required(),
  percent: Joi.number().integer().min(0).max(100).required(),
}).description('Tasks done out of all tasks.');

const HandoffItem = Joi.object({
  id: uuid().required(),
  leadId: uuid().required(),
  lead: Joi.object({
    companyName: Joi.string().required(),
    stage: Joi.string().required(),
    ownerUserId: uuid().allow(null).required(),
  }).required(),
  storeId: uuid().allow(null).required().description("The store being onboarded (the handoff's own, else the lead's linked store)."),
  status: Joi.string()
    .valid(...HANDOFF_STATUSES)
    .required(),
  summary: Joi.string().required(),
  createdBy: uuid().allow(null).required(),
  assigneeUserId: uuid().allow(null).required(),
  infoRequest: Joi.string().allow(null).required(),
  infoRequestedAt: isoTime().required(),
  infoAnswer: Joi.string().allow(null).required(),
  infoAnsweredAt: isoTime().required(),
  acceptedAt: isoTime().required(),
  completedAt: isoTime().required(),
  tasks: Joi.array().items(HandoffTask).required(),
  progress: Progress.required(),
  createdAt: Joi.string().isoDate().required(),
  updatedAt: Joi.string().isoDate().required(),
});

export const OnboardingHandoffResponse = dto('OnboardingHandoffResponse', HandoffItem);
export const OnboardingHandoffListResponse = dto(
  'OnboardingHandoffListResponse',
  Joi.object({
    items: Joi.array().items(HandoffItem).required(),
    nextCursor: uuid().allow(null).required().description('The id of the last handoff when there are more; pass it as cursor.'),
  }),
);
export const AwaitingHandoffsResponse = dto(
  'AwaitingHandoffsResponse',
  Joi.object({
    items: Joi.array().items(HandoffItem).required().description('Handoffs in INFO_MISSING, the longest waiting first.'),
    total: Joi.number().integer().required().description('How many handoffs wait on sales (items holds at most 500).'),
  }),
);

const PlanTask = Joi.object(PLAN_TASK_FIELDS);

export const OnboardingPlanResponse = dto(
  'OnboardingPlanResponse',
  Joi.object({
    handoff: Joi.object({
      id: uuid().required(),
      storeId: uuid().allow(null).required(),
      status: Joi.string()
        .valid(...HANDOFF_STATUSES)
        .required(),
      specialist: Joi.object({ name: Joi.string().required() })
        .allow(null)
        .required()
        .description('The support agent who runs the onboarding.'),
      acceptedAt: isoTime().required(),
      completedAt: isoTime().required(),
    })
      .allow(null)
      .required()
      .description("The tenant's most recent onboarding handoff; null when sales has handed none over."),
    tasks: Joi.array().items(PlanTask).required(),
    progress: Progress.required(),
    readiness: Joi.object()
      .unknown(true)
      .required()
      .description("The tenant's onboarding status computed from its data (as GET /organization/onboarding-status answers)."),
  }),
);
