/**
 * Onboarding handoffs in the route tables: the sales side (crm tag: sales reps and platform admins),
 * the support side (support tag: support agents and platform admins) and the merchant's plan
 * (merchant-onboarding tag: members of the tenant). docs/back-office.md tells the whole flow.
 */
import { defineRoutes, type RouteRequest } from '../http/route';
import { bool, int, oneOf, uuid } from '../http/schema-types';
import type { InputOf } from '../http/typed-schema';
import {
  AwaitingHandoffsResponse,
  CompleteHandoffTaskDto,
  CreateOnboardingHandoffDto,
  HANDOFF_STATUSES,
  OnboardingHandoffListResponse,
  OnboardingHandoffResponse,
  OnboardingPlanResponse,
  RequestHandoffInfoDto,
  type HandoffInput,
} from './handoffs.schemas';
import {
  acceptHandoff,
  answerHandoff,
  awaitingHandoffs,
  claimHandoff,
  completeHandoff,
  createHandoff,
  getHandoff,
  getLeadHandoff,
  listHandoffs,
  requestHandoffInfo,
  setTaskDone,
  type HandoffListQuery,
} from './handoffs.service';
import { onboardingPlan } from './onboarding-plan.service';

type Params = Record<string, string>;

const STATUS_FLOW =
  'Statuses move PENDING → ASSIGNED (claim) → ACCEPTED (accept) → COMPLETED (complete); ASSIGNED or ACCEPTED → INFO_MISSING (request-info), and INFO_MISSING → ACCEPTED when sales answers (PUT /crm/leads/{id}/handoff). Any other move answers 409 handoff_transition_refused and changes nothing.';

/** The handoff rows of the CRM: sales hands a won lead over, and answers support's questions. */
export const crmHandoffRoutes = defineRoutes({ tag: 'crm', auth: 'platform', platformRoles: ['sales_rep', 'platform_admin'] }, [
  {
    operationId: 'crm.listAwaitingHandoffs',
    method: 'GET',
    path: '/crm/handoffs/awaiting',
    summary: 'Handoffs waiting on sales to answer an information request',
    description: 'Handoffs in INFO_MISSING, the longest waiting first: at most 500 items, with the total count.',
    response: AwaitingHandoffsResponse,
    status: 200,
    handler: (req) => awaitingHandoffs(req.context),
  },
  {
    operationId: 'crm.getLeadHandoff',
    method: 'GET',
    path: '/crm/leads/{id}/handoff',
    summary: "A lead's onboarding handoff with its tasks",
    response: OnboardingHandoffResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => getLeadHandoff(req.context, req.params.id!),
  },
  {
    operationId: 'crm.createLeadHandoff',
    method: 'POST',
    path: '/crm/leads/{id}/handoff',
    summary: 'Hand a won lead over to onboarding',
    description: `Only a WON lead (409 lead_not_won), once (409 handoff_exists). The handoff starts PENDING with the tasks in the order given; storeId defaults to the lead's linked store. note is ignored here. ${STATUS_FLOW}`,
    body: CreateOnboardingHandoffDto,
    response: OnboardingHandoffResponse,
    status: 201,
    handler: (req: RouteRequest<Params, Params, HandoffInput>) => createHandoff(req.context, req.params.id!, req.body),
  },
  {
    operationId: 'crm.answerHandoffInfoRequest',
    method: 'PUT',
    path: '/crm/leads/{id}/handoff',
    summary: "Answer support's information request on a handoff",
    description: `The handoff must be INFO_MISSING; it goes back to ACCEPTED. note (required here) is the answer; summary, storeId and tasks replace the handoff's, and a task kept with the same owner and title keeps its completion. ${STATUS_FLOW}`,
    body: CreateOnboardingHandoffDto,
    response: OnboardingHandoffResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, HandoffInput>) => answerHandoff(req.context, req.params.id!, req.body),
  },
]);

/** The handoff rows of the support desk. */
export const supportHandoffRoutes = defineRoutes({ tag: 'support', auth: 'platform', platformRoles: ['support_agent', 'platform_admin'] }, [
  {
    operationId: 'support.listHandoffs',
    method: 'GET',
    path: '/support/handoffs',
    summary: 'Onboarding handoffs from sales, optionally only those of the calling user',
    description: `Newest first. mine=true: the handoffs assigned to the caller; mine=false: every other one (unassigned or another agent's); absent: all. cursor is the nextCursor of the previous page (the id of its last handoff). ${STATUS_FLOW}`,
    query: { status: oneOf(HANDOFF_STATUSES), mine: bool(), cursor: uuid(), limit: int(1, 200).default(50) },
    response: OnboardingHandoffListResponse,
    status: 200,
    handler: (req) => listHandoffs(req.context, req.query as HandoffListQuery),
  },
  {
    operationId: 'support.getHandoff',
    method: 'GET',
    path: '/support/handoffs/{id}',
    summary: 'One onboarding handoff with its tasks',
    response: OnboardingHandoffResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => getHandoff(req.context, req.params.id!),
  },
  {
    operationId: 'support.claimHandoff',
    method: 'POST',
    path: '/support/handoffs/{id}/claim',
    summary: 'Claim a handoff for the calling user',
    description: `PENDING → ASSIGNED to the caller. ${STATUS_FLOW}`,
    response: OnboardingHandoffResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => claimHandoff(req.context, req.params.id!),
  },
  {
    operationId: 'support.acceptHandoff',
    method: 'POST',
    path: '/support/handoffs/{id}/accept',
    summary: 'Accept a handoff',
    description: `ASSIGNED → ACCEPTED, by the assignee (or a platform admin; others 409 handoff_not_assignee). The lead moves to ONBOARDING_IN_PROGRESS and the merchant gets an in-app notification. ${STATUS_FLOW}`,
    response: OnboardingHandoffResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => acceptHandoff(req.context, req.params.id!),
  },
  {
    operationId: 'support.requestHandoffInfo',
    method: 'POST',
    path: '/support/handoffs/{id}/request-info',
    summary: 'Ask the sales team for missing information on a handoff',
    description: `ASSIGNED or ACCEPTED → INFO_MISSING; the handoff then waits on sales (GET /crm/handoffs/awaiting). ${STATUS_FLOW}`,
    body: RequestHandoffInfoDto,
    response: OnboardingHandoffResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, InputOf<typeof RequestHandoffInfoDto>>) =>
      requestHandoffInfo(req.context, req.params.id!, req.body.question),
  },
  {
    operationId: 'support.completeHandoffTask',
    method: 'POST',
    path: '/support/handoffs/{id}/tasks/{taskId}/complete',
    summary: 'Complete a task of a handoff',
    description:
      'While the handoff is ASSIGNED, ACCEPTED or INFO_MISSING, by its assignee or a platform admin. A completed task answers 409 handoff_task_state.',
    body: CompleteHandoffTaskDto,
    response: OnboardingHandoffResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, InputOf<typeof CompleteHandoffTaskDto>>) =>
      setTaskDone(req.context, req.params.id!, req.params.taskId!, true, req.body.note),
  },
  {
    operationId: 'support.reopenHandoffTask',
    method: 'POST',
    path: '/support/handoffs/{id}/tasks/{taskId}/reopen',
    summary: 'Reopen a completed task of a handoff',
    description: 'The reverse of complete, under the same conditions; a task that is not completed answers 409 handoff_task_state.',
    response: OnboardingHandoffResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => setTaskDone(req.context, req.params.id!, req.params.taskId!, false),
  },
  {
    operationId: 'support.completeHandoff',
    method: 'POST',
    path: '/support/handoffs/{id}/complete',
    summary: 'Complete a handoff',
    description: `ACCEPTED → COMPLETED once every task is done (409 handoff_tasks_open otherwise). The lead moves to ACTIVATED and the merchant gets an in-app notification. ${STATUS_FLOW}`,
    response: OnboardingHandoffResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => completeHandoff(req.context, req.params.id!),
  },
]);

/** The merchant's side: the plan of their onboarding. */
export const onboardingPlanRoutes = defineRoutes({ tag: 'merchant-onboarding', auth: 'merchant' }, [
  {
    operationId: 'support.merchantOnboardingPlan',
    method: 'GET',
    path: '/merchant/onboarding/plan',
    summary: "The calling merchant's onboarding plan and its progress",
    description:
      "The tasks of the most recent onboarding handoff of one of the tenant's stores (handoff null and no tasks before sales hands one over), their progress, the specialist running it, and the tenant's readiness as GET /organization/onboarding-status computes it. For members of the tenant (API keys: 403).",
    response: OnboardingPlanResponse,
    status: 200,
    handler: (req) => onboardingPlan(req.context),
  },
]);
