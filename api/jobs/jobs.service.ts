/**
 * The jobs console (platform admins): the real bee-queue queues of this deployment (storage/queues.ts
 * QUEUE_NAMES, under QUEUE_PREFIX) with their counts, their jobs, and the operator's actions.
 *
 * Queue jobs are deliveries of outbox rows (storage/outbox.ts): a job carries an aggregate, and the
 * rows of that aggregate in PostgreSQL say what to do. So:
 * - retry (a failed job only, else 409 job_not_failed): the aggregate's pending rows of that queue are
 *   claimed for the job, then the job goes back to waiting and runs again at once.
 * - delete: the job leaves Redis. Changes are never dropped this way: rows not yet done are
 *   delivered again by the outbox relay (a failed job's rows after their back-off, an in-flight one's
 *   after OUTBOX_RECLAIM_AFTER_MS).
 * - pause / resume: see storage/queue-control.ts; idempotent, answers the queue.
 */
import BeeQueue from 'bee-queue';
import { isQueueName, QUEUE_NAMES, type QueueName, type QueueRegistry } from '../../storage/queues';
import { isPaused, setPaused, succeededCount } from '../../storage/queue-control';
import { servicesOf, type RequestContext } from '../../storage/request-context';
import { jobsError } from './jobs.errors';
import type { JobStatus, QueueJobListView, QueueJobRemovedView, QueueJobView, QueueListView, QueueView } from './jobs.views';

/** The process's queue producers (the runtime's, under its QUEUE_PREFIX). */
const registry = (ctx: RequestContext): QueueRegistry => servicesOf(ctx).queues;

function queueOf(ctx: RequestContext, name: string): { name: QueueName; queue: BeeQueue } {
  if (!isQueueName(name)) throw jobsError('queue_not_found', `There is no queue "${name}"; the queues are ${QUEUE_NAMES.join(', ')}.`);
  return { name, queue: registry(ctx).get(name) };
}

async function queueView(name: QueueName, queue: BeeQueue): Promise<QueueView> {
  const [health, paused, succeeded] = await Promise.all([queue.checkHealth(), isPaused(queue), succeededCount(queue)]);
  return {
    name,
    paused,
    counts: { waiting: health.waiting, active: health.active, succeeded, failed: health.failed, delayed: health.delayed },
  };
}

export async function listQueues(ctx: RequestContext): Promise<QueueListView> {
  const queues = registry(ctx);
  return { items: await Promise.all(QUEUE_NAMES.map((name) => queueView(name, queues.get(name)))) };
}

export async function getQueue(ctx: RequestContext, name: string): Promise<QueueView> {
  const { name: queueName, queue } = queueOf(ctx, name);
  return queueView(queueName, queue);
}

function jobView(job: BeeQueue.Job<Record<string, unknown>>, status: JobStatus): QueueJobView {
  const options = job.options as { timestamp?: number; stacktraces?: string[] };
  const data = (job.data ?? {}) as { aggregateType?: string; aggregateId?: string; tenantId?: string | null };
  return {
    id: job.id,
    status,
    aggregateType: data.aggregateType ?? null,
    aggregateId: data.aggregateId ?? null,
    tenantId: data.tenantId ?? null,
    createdAt: options.timestamp ? new Date(options.timestamp).toISOString() : null,
    error: options.stacktraces?.[0]?.split('\n')[0]?.slice(0, 1000) ?? null,
  };
}

/** Jobs of a queue: active first, then waiting (newest first), delayed, failed; at most `limit`. */
export async function listJobs(ctx: RequestContext, name: string, limit: number): Promise<QueueJobListView> {
  const { queue } = queueOf(ctx, name);
  const items: QueueJobView[] = [];
  for (const status of ['active', 'waiting', 'delayed', 'failed'] as const) {
    const left = limit - items.length;
    if (left <= 0) break;
    const jobs = await queue.getJobs(status, status === 'failed' ? { size: left } : { start: 0, end: left - 1 });
    for (const job of jobs.slice(0, left)) items.push(jobView(job as BeeQueue.Job<Record<string, unknown>>, status));
  }
  return { items };
}

async function findJob(queue: BeeQueue, id: string): Promise<BeeQueue.Job<Record<string, unknown>>> {
  const job = (await queue.getJob(id)) as BeeQueue.Job<Record<string, unknown>> | null;
  if (!job) throw jobsError('job_not_found', 'The queue has no job with this id.');
  return job;
}

export async function retryJob(ctx: RequestContext, name: string, id: string): Promise<QueueJobView> {
  const { name: queueName, queue } = queueOf(ctx, name);
  const job = await findJob(queue, id);
  if (job.status !== 'failed')
    throw jobsError('job_not_failed', `The job is not failed (it is ${job.status}); only failed jobs are retried.`);
  const data = job.data as { aggregateType?: string; aggregateId?: string };
  if (data.aggregateType && data.aggregateId) {
    await ctx.dataSource.query(
      `UPDATE outbox SET status = 'in_flight', claimed_at = now(), claimed_by = $4, available_at = now()
        WHERE queue = $1 AND aggregate_type = $2 AND aggregate_id = $3 AND status = 'pending'`,
      [queueName, data.aggregateType, data.aggregateId, `jobs-console-${ctx.actor.id ?? 'admin'}`],
    );
  }
  // Job#retry (bee-queue 1.x, not in its typings): out of the failed set, back onto waiting.
  await (job as unknown as { retry(): Promise<void> }).retry();
  return { ...jobView(job, 'waiting'), error: null };
}

export async function removeJob(ctx: RequestContext, name: string, id: string): Promise<QueueJobRemovedView> {
  const { queue } = queueOf(ctx, name);
  const job = await findJob(queue, id);
  const status = job.status === 'failed' ? 'failed' : 'waiting';
  await queue.removeJob(id);
  return { removed: true, job: jobView(job, status) };
}

export async function pauseQueue(ctx: RequestContext, name: string, paused: boolean): Promise<QueueView> {
  const { name: queueName, queue } = queueOf(ctx, name);
  await setPaused(queue, paused);
  return queueView(queueName, queue);
}
