/** Jobs: administration of the background queues (document 2, "Jobs"). Platform operators only. */
import { defineRoutes, listedRequired } from '../http/route';
import { positiveInt, text } from '../http/schema-types';

/** Queue names are the bee-queue names (index, vision, jobs, webhooks); job ids are bee-queue ids, not UUIDs. */
const queueName = text(1, 64).pattern(/^[a-z][a-z0-9-]*$/).required();
const jobId = text(1, 200).required();

export const jobsRoutes = defineRoutes({ tag: 'jobs', auth: 'platform' }, [
  { operationId: 'jobs.listQueues', method: 'GET', path: '/jobs/queues', summary: 'List the background queues with their counts', status: 200 },
  { operationId: 'jobs.getQueue', method: 'GET', path: '/jobs/queues/{name}', summary: 'One queue with its counts and state', params: { name: queueName }, status: 200 },
  {
    operationId: 'jobs.listJobs',
    method: 'GET',
    path: '/jobs/queues/{name}/jobs',
    summary: 'Jobs of a queue, newest first',
    params: { name: queueName },
    query: { limit: listedRequired(positiveInt(100).default(20)) },
    status: 200,
  },
  { operationId: 'jobs.retryJob', method: 'POST', path: '/jobs/queues/{name}/jobs/{id}/retry', summary: 'Retry a failed job', params: { name: queueName, id: jobId }, status: 200 },
  { operationId: 'jobs.removeJob', method: 'DELETE', path: '/jobs/queues/{name}/jobs/{id}', summary: 'Remove a job', params: { name: queueName, id: jobId }, status: 200 },
  { operationId: 'jobs.pauseQueue', method: 'POST', path: '/jobs/queues/{name}/pause', summary: 'Pause a queue', params: { name: queueName }, status: 200 },
  { operationId: 'jobs.resumeQueue', method: 'POST', path: '/jobs/queues/{name}/resume', summary: 'Resume a paused queue', params: { name: queueName }, status: 200 },
]);

