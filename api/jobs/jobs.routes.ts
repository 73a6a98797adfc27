/** Jobs: administration of the background queues (docs/jobs-console.md). Platform admins only. */
import { defineRoutes, listedRequired, type RouteRequest } from '../http/route';
import { positiveInt, text } from '../http/schema-types';
import { QueueDetail, QueueJob, QueueJobList, QueueJobRemoved, QueueList } from './jobs.schemas';
import { getQueue, listJobs, listQueues, pauseQueue, removeJob, retryJob } from './jobs.service';
import {
  LIST_JOBS_DESCRIPTION,
  LIST_QUEUES_DESCRIPTION,
  PAUSE_QUEUE_DESCRIPTION,
  REMOVE_JOB_DESCRIPTION,
  RESUME_QUEUE_DESCRIPTION,
  RETRY_JOB_DESCRIPTION,
  who,
} from './jobs.descriptions';

/** Queue names are the bee-queue names (index, vision, jobs, webhooks, import, export); job ids are bee-queue ids, not UUIDs. */
const queueName = text(1, 64)
  .pattern(/^[a-z][a-z0-9-]*$/)
  .required();
const jobId = text(1, 200).required();

type Params = Record<string, string>;

export const jobsRoutes = defineRoutes({ tag: 'jobs', auth: 'platform', platformRoles: ['platform_admin'] }, [
  {
    operationId: 'jobs.listQueues',
    method: 'GET',
    path: '/jobs/queues',
    summary: 'List the background queues with their counts',
    description: LIST_QUEUES_DESCRIPTION,
    response: QueueList,
    status: 200,
    handler: (req: RouteRequest<Params>) => listQueues(req.context),
  },
  {
    operationId: 'jobs.getQueue',
    method: 'GET',
    path: '/jobs/queues/{name}',
    summary: 'One queue with its counts and state',
    description: who,
    params: { name: queueName },
    response: QueueDetail,
    status: 200,
    handler: (req: RouteRequest<Params>) => getQueue(req.context, req.params.name!),
  },
  {
    operationId: 'jobs.listJobs',
    method: 'GET',
    path: '/jobs/queues/{name}/jobs',
    summary: 'Jobs of a queue, newest first',
    description: LIST_JOBS_DESCRIPTION,
    params: { name: queueName },
    query: { limit: listedRequired(positiveInt(100).default(20)) },
    response: QueueJobList,
    status: 200,
    handler: (req: RouteRequest<Params>) => listJobs(req.context, req.params.name!, (req.query as { limit: number }).limit),
  },
  {
    operationId: 'jobs.retryJob',
    method: 'POST',
    path: '/jobs/queues/{name}/jobs/{id}/retry',
    summary: 'Retry a failed job',
    description: RETRY_JOB_DESCRIPTION,
    params: { name: queueName, id: jobId },
    response: QueueJob,
    status: 200,
    problems: [409],
    handler: (req: RouteRequest<Params>) => retryJob(req.context, req.params.name!, req.params.id!),
  },
  {
    operationId: 'jobs.removeJob',
    method: 'DELETE',
    path: '/jobs/queues/{name}/jobs/{id}',
    summary: 'Remove a job',
    description: REMOVE_JOB_DESCRIPTION,
    params: { name: queueName, id: jobId },
    response: QueueJobRemoved,
    status: 200,
    handler: (req: RouteRequest<Params>) => removeJob(req.context, req.params.name!, req.params.id!),
  },
  {
    operationId: 'jobs.pauseQueue',
    method: 'POST',
    path: '/jobs/queues/{name}/pause',
    summary: 'Pause a queue',
    description: PAUSE_QUEUE_DESCRIPTION,
    params: { name: queueName },
    response: QueueDetail,
    status: 200,
    handler: (req: RouteRequest<Params>) => pauseQueue(req.context, req.params.name!, true),
  },
  {
    operationId: 'jobs.resumeQueue',
    method: 'POST',
    path: '/jobs/queues/{name}/resume',
    summary: 'Resume a paused queue',
    description: RESUME_QUEUE_DESCRIPTION,
    params: { name: queueName },
    response: QueueDetail,
    status: 200,
    handler: (req: RouteRequest<Params>) => pauseQueue(req.context, req.params.name!, false),
  },
]);
