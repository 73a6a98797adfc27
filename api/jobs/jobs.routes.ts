/** Jobs: administration of the background queues (docs/jobs-console.md). Platform admins only. */
import { defineRoutes, listedRequired, type RouteRequest } from '../http/route';
import { positiveInt, text } from '../http/schema-types';
import { QueueDetail, QueueJob, QueueJobList, QueueJobRemoved, QueueList } from './jobs.schemas';
import { getQueue, listJobs, listQueues, pauseQueue, removeJob, retryJob } from './jobs.service';

/** Queue names are the bee-queue names (index, vision, jobs, webhooks, import, export); job ids are bee-queue ids, not UUIDs. */
const queueName = text(1, 64)
  .pattern(/^[a-z][a-z0-9-]*$/)
  .required();
const jobId = text(1, 200).required();

type Params = Record<string, string>;

const who =
  'Platform admins only (platformRole platform_admin): other platform staff and merchants answer 403. An unknown queue answers 404 queue_not_found.';

export const jobsRoutes = defineRoutes({ tag: 'jobs', auth: 'platform' }, [
  {
    operationId: 'jobs.listQueues',
    method: 'GET',
    path: '/jobs/queues',
    summary: 'List the background queues with their counts',
    description: `${who} Every queue of the deployment (index, vision, jobs, webhooks, import, export) with its counts and whether it is paused.`,
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
    description: `${who} limit is not typed by the specification: 1 to 100 (default 20). Active jobs first, then waiting (newest first), delayed and failed ones; finished jobs are not kept.`,
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
    description: `${who} Only a failed job is retried (409 job_not_failed otherwise; 404 job_not_found for an unknown id): the outbox rows of its aggregate that wait for a retry are claimed for it and the job goes back to waiting, so a worker runs it again at once.`,
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
    description: `${who} Removes the job from the queue (404 job_not_found for an unknown id). No change is lost: outbox rows of its aggregate that are not done are delivered again by the relay later (after their back-off, or OUTBOX_RECLAIM_AFTER_MS for a job that was in flight).`,
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
    description: `${who} Workers stop taking the queue's jobs (a job a worker already took waits, still active, until the queue is resumed); new jobs keep arriving and wait. Pausing a paused queue changes nothing. Answers the queue.`,
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
    description: `${who} Workers take the queue's jobs again, the held ones first; none is lost. Resuming a running queue changes nothing. Answers the queue.`,
    params: { name: queueName },
    response: QueueDetail,
    status: 200,
    handler: (req: RouteRequest<Params>) => pauseQueue(req.context, req.params.name!, false),
  },
]);
