/**
 * Client errors (docs/client-errors.md): the platform's browser apps report errors (public intake);
 * platform staff (platform_admin, support_agent) read, group, triage and comment on them.
 */
import { defineRoutes, type RouteRequest } from '../http/route';
import {
  AddCommentDto,
  CLIENT_ERROR_EVENT_QUERY,
  CLIENT_ERROR_GROUP_QUERY,
  ClientErrorBatchDto,
  SetGroupStatusDto,
  fingerprintParam,
  type AddCommentInput,
  type ClientErrorBatchInput,
  type ClientErrorEventQuery,
  type ClientErrorGroupQuery,
  type SetGroupStatusInput,
} from './client-errors.schemas';
import {
  ClientErrorCommentListResponse,
  ClientErrorCommentResponse,
  ClientErrorGroupListResponse,
  ClientErrorGroupResponse,
  ClientErrorListResponse,
  ClientErrorReportResponse,
  ClientErrorStatsResponse,
} from './client-errors.responses';
import { reportClientErrors } from './intake.service';
import { clientErrorStats, listClientErrorGroups, listClientErrors } from './client-errors.service';
import { addClientErrorComment, listClientErrorComments, setClientErrorGroupStatus } from './groups.service';

type Params = Record<string, string>;

const REPORT_DESCRIPTION =
  'Called by browser apps without a token (the storefront names its store with storeId). 1 to 50 events a batch; message at most 1000 characters, stack 8000, url 2000. Each event is fingerprinted (kind, normalised message, top stack frame) and counted in its group at once; a resolved group that recurs reopens. At most CLIENT_ERROR_BATCHES_PER_MINUTE batches (default 60) per client address and minute: 429 rate_limited with Retry-After above. 404 store_not_found for a storeId that does not exist or is archived.';

export const clientErrorsRoutes = defineRoutes(
  { tag: 'client-errors', auth: 'platform', platformRoles: ['platform_admin', 'support_agent'] },
  [
    {
      operationId: 'clientErrors.report',
      method: 'POST',
      path: '/client-errors/events',
      auth: 'public',
      summary: 'Report a batch of client-side errors',
      description: REPORT_DESCRIPTION,
      body: ClientErrorBatchDto,
      response: ClientErrorReportResponse,
      status: 202,
      problems: [404, 429],
      handler: (req: RouteRequest<Params, Params, ClientErrorBatchInput>) => reportClientErrors(req.context, req.body),
    },
    {
      operationId: 'clientErrors.list',
      method: 'GET',
      path: '/client-errors',
      summary: 'Reported client errors, newest first',
      description:
        'Events received in the last `hours` hours; search matches message or url (case-insensitive). cursor is the opaque nextCursor of the previous page (at most 120 characters).',
      query: CLIENT_ERROR_EVENT_QUERY,
      response: ClientErrorListResponse,
      status: 200,
      handler: (req: RouteRequest<Params>) => listClientErrors(req.context, req.query as ClientErrorEventQuery),
    },
    {
      operationId: 'clientErrors.listGroups',
      method: 'GET',
      path: '/client-errors/grouped',
      summary: 'Client errors grouped by fingerprint, with counts',
      description:
        'Groups with events in the window, most events first (at most limit), with the newest event as a sample. Counts are kept per hour: the window starts at the start of the hour `hours` hours ago. app is not typed by the specification; at most 40 characters as in the event list.',
      query: CLIENT_ERROR_GROUP_QUERY,
      response: ClientErrorGroupListResponse,
      status: 200,
      handler: (req: RouteRequest<Params>) => listClientErrorGroups(req.context, req.query as ClientErrorGroupQuery),
    },
    {
      operationId: 'clientErrors.stats',
      method: 'GET',
      path: '/client-errors/stats',
      summary: 'Client error statistics over the same selection as the grouped list',
      description:
        'Takes the same parameters as GET /client-errors/grouped: totals, counts by level, kind and app, events per hour and the top groups (at most limit).',
      query: CLIENT_ERROR_GROUP_QUERY,
      response: ClientErrorStatsResponse,
      status: 200,
      handler: (req: RouteRequest<Params>) => clientErrorStats(req.context, req.query as ClientErrorGroupQuery),
    },
    {
      operationId: 'clientErrors.setGroupStatus',
      method: 'PATCH',
      path: '/client-errors/groups/{fingerprint}',
      summary: 'Set the status of an error group (open, resolved, ignored)',
      description:
        'A resolved group reopens by itself when its error is reported again; an ignored one stays ignored. Setting the status the group has changes nothing. 404 client_error_group_not_found.',
      params: { fingerprint: fingerprintParam },
      body: SetGroupStatusDto,
      response: ClientErrorGroupResponse,
      status: 200,
      problems: [404],
      handler: (req: RouteRequest<Params, Params, SetGroupStatusInput>) =>
        setClientErrorGroupStatus(req.context, req.params.fingerprint!, req.body),
    },
    {
      operationId: 'clientErrors.listGroupComments',
      method: 'GET',
      path: '/client-errors/groups/{fingerprint}/comments',
      summary: 'Comments on an error group',
      description: 'All comments of the group, oldest first (a group keeps at most 500). 404 client_error_group_not_found.',
      params: { fingerprint: fingerprintParam },
      response: ClientErrorCommentListResponse,
      status: 200,
      problems: [404],
      handler: (req: RouteRequest<Params>) => listClientErrorComments(req.context, req.params.fingerprint!),
    },
    {
      operationId: 'clientErrors.addGroupComment',
      method: 'POST',
      path: '/client-errors/groups/{fingerprint}/comments',
      summary: 'Comment on an error group',
      description: '404 client_error_group_not_found; 409 client_error_comment_limit_reached past 500 comments.',
      params: { fingerprint: fingerprintParam },
      body: AddCommentDto,
      response: ClientErrorCommentResponse,
      status: 201,
      problems: [404, 409],
      handler: (req: RouteRequest<Params, Params, AddCommentInput>) =>
        addClientErrorComment(req.context, req.params.fingerprint!, req.body),
    },
  ],
);
