/**
 * Client errors: the platform's browser apps report errors (public intake); platform staff read,
 * group, triage and comment on them.
 */
import { defineRoutes } from '../http/route';
import {
  AddCommentDto,
  CLIENT_ERROR_EVENT_QUERY,
  CLIENT_ERROR_GROUP_QUERY,
  ClientErrorBatchDto,
  SetGroupStatusDto,
  fingerprintParam,
} from './client-errors.schemas';

export const clientErrorsRoutes = defineRoutes({ tag: 'client-errors', auth: 'platform' }, [
  {
    operationId: 'clientErrors.report',
    method: 'POST',
    path: '/client-errors/events',
    auth: 'public',
    summary: 'Report a batch of client-side errors',
    description: 'Called by browser apps without a token; accepted for asynchronous grouping.',
    body: ClientErrorBatchDto,
    status: 202,
  },
  {
    operationId: 'clientErrors.list',
    method: 'GET',
    path: '/client-errors',
    summary: 'Reported client errors, newest first',
    description: 'cursor is the opaque nextCursor of the previous page (at most 120 characters).',
    query: CLIENT_ERROR_EVENT_QUERY,
    status: 200,
  },
  {
    operationId: 'clientErrors.listGroups',
    method: 'GET',
    path: '/client-errors/grouped',
    summary: 'Client errors grouped by fingerprint, with counts',
    description: 'app is not typed by the specification; at most 40 characters as in the event list.',
    query: CLIENT_ERROR_GROUP_QUERY,
    status: 200,
  },
  {
    operationId: 'clientErrors.stats',
    method: 'GET',
    path: '/client-errors/stats',
    summary: 'Client error statistics over the same selection as the grouped list',
    description: 'Takes the same parameters as GET /client-errors/grouped.',
    query: CLIENT_ERROR_GROUP_QUERY,
    status: 200,
  },
  {
    operationId: 'clientErrors.setGroupStatus',
    method: 'PATCH',
    path: '/client-errors/groups/{fingerprint}',
    summary: 'Set the status of an error group (open, resolved, ignored)',
    params: { fingerprint: fingerprintParam },
    body: SetGroupStatusDto,
    status: 200,
  },
  {
    operationId: 'clientErrors.listGroupComments',
    method: 'GET',
    path: '/client-errors/groups/{fingerprint}/comments',
    summary: 'Comments on an error group',
    params: { fingerprint: fingerprintParam },
    status: 200,
  },
  {
    operationId: 'clientErrors.addGroupComment',
    method: 'POST',
    path: '/client-errors/groups/{fingerprint}/comments',
    summary: 'Comment on an error group',
    params: { fingerprint: fingerprintParam },
    body: AddCommentDto,
    status: 201,
  },
]);
