/**
 * Runs outbox consumers on their bee-queue queues for one process role. Each queue gets its own
 * worker connection.
 *
 * Recovery: every worker runs bee-queue's stall check every `stallIntervalMs`, so a job left active
 * by a worker that died is handed to another worker within about twice that time. Stopping takes no
 * new job at once, tells long handlers to hand their remaining work back (DeliveryReleased), and
 * waits for the jobs in progress up to the shutdown timeout; released rows are due again at once.
 */
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { outboxConsumer, releaseRows, type ConsumerResult, type OutboxDelivery, type OutboxSettings } from './outbox';
import { QueueRegistry, type QueueName } from './queues';
import { countSucceeded, pauseGate } from './queue-control';
import { calmLog } from '../lib/calm-log';

/**
 * The consumer of queue `Q`. Written as a method type so a handler of one queue also counts as a
 * `DeliveryHandler` of any queue where code holds handlers of several (tests, helpers); a table still
 * cannot put one queue's handler on another, since the deliveries' `queue` literals differ.
 */
export type DeliveryHandler<Q extends QueueName = QueueName> = QueueName extends Q
  ? AnyDeliveryHandler
  : { handle(delivery: OutboxDelivery<Q>): Promise<void> }['handle'];
type AnyDeliveryHandler = { handle(delivery: OutboxDelivery): Promise<void> }['handle'];
export type ConsumerTable = { [Q in QueueName]?: { handle: DeliveryHandler<Q>; concurrency: number } };

export interface ConsumerDeps {
  dataSource: DataSource;
  redisUrl: string;
  logger: Logger;
  outbox: Pick<OutboxSettings, 'retryBaseMs' | 'retryMaxMs'>;
  /** Key prefix of the queues (tests isolate themselves with their own). */
  prefix?: string;
  /** See QueueRegistryOptions.stallIntervalMs. */
  stallIntervalMs?: number;
}

export interface RunningConsumers {
  queues: QueueName[];
  stop(timeoutMs: number): Promise<void>;
}

export function startConsumers(deps: ConsumerDeps, table: ConsumerTable): RunningConsumers {
  const workers = new QueueRegistry({
    redisUrl: deps.redisUrl,
    isWorker: true,
    logger: deps.logger,
    prefix: deps.prefix,
    stallIntervalMs: deps.stallIntervalMs,
  });
  const names = Object.keys(table) as QueueName[];
  const calm = calmLog(deps.logger);
  const stopping = new AbortController();
  const releases = new Set<Promise<void>>();
  for (const name of names) {
    const { handle, concurrency } = table[name]! as { handle: DeliveryHandler; concurrency: number };
    const consume = outboxConsumer(deps.dataSource, name, deps.outbox, handle);
    const queue = workers.get(name);
    // A queue paused from the jobs console: the job waits here (still active) until it is resumed.
    const waitWhilePaused = pauseGate(queue, () => stopping.signal.aborted);
    queue.process(concurrency, async (job) => {
      try {
        await waitWhilePaused();
        const result = await consume(job, stopping.signal);
        if (!result.released) await countSucceeded(queue).catch(() => undefined);
        return result;
      } catch (error) {
        calm.warn(`consumer:${name}`, error, { queue: name, jobId: job.id }, 'consumer failed; the outbox will retry it');
        throw error;
      }
    });
    // Released rows go back only once bee-queue has removed the job, so the relay's new job for the
    // aggregate is not mistaken for this one (same id) and merged into it.
    queue.on('succeeded', (_job, result: ConsumerResult | undefined) => {
      if (!result?.released?.length) return;
      const release = releaseRows(deps.dataSource, result.released)
        .then(() => deps.logger.info({ queue: name, rows: result.released!.length }, 'delivery released for another worker'))
        .catch((error: unknown) =>
          deps.logger.warn({ err: error, queue: name }, 'could not release a delivery; it is reclaimed after OUTBOX_RECLAIM_AFTER_MS'),
        )
        .finally(() => releases.delete(release));
      releases.add(release);
    });
    // bee-queue only checks for stalled jobs when asked: every worker asks on this interval (a Redis
    // key lets one check per interval through, whoever runs it).
    void queue.checkStalledJobs(workers.stallIntervalMs).catch(() => undefined);
  }
  return {
    queues: names,
    async stop(timeoutMs) {
      stopping.abort();
      await workers.close(timeoutMs);
      await Promise.all([...releases]);
    },
  };
}
