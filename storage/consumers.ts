/**
 * Runs outbox consumers on their bee-queue queues for one process role. Each queue gets its own
 * worker connection; stopping waits for the jobs in progress (up to the shutdown timeout).
 */
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { outboxConsumer, type OutboxDelivery, type OutboxSettings } from './outbox';
import { QueueRegistry, type QueueName } from './queues';
import { countSucceeded, pauseGate } from './queue-control';

export type DeliveryHandler = (delivery: OutboxDelivery) => Promise<void>;
export type ConsumerTable = Partial<Record<QueueName, { handle: DeliveryHandler; concurrency: number }>>;

export interface ConsumerDeps {
  dataSource: DataSource;
  redisUrl: string;
  logger: Logger;
  outbox: Pick<OutboxSettings, 'retryBaseMs' | 'retryMaxMs'>;
  /** Key prefix of the queues (tests isolate themselves with their own). */
  prefix?: string;
}

export interface RunningConsumers {
  queues: QueueName[];
  stop(timeoutMs: number): Promise<void>;
}

export function startConsumers(deps: ConsumerDeps, table: ConsumerTable): RunningConsumers {
  const workers = new QueueRegistry({ redisUrl: deps.redisUrl, isWorker: true, logger: deps.logger, prefix: deps.prefix });
  const names = Object.keys(table) as QueueName[];
  let stopping = false;
  for (const name of names) {
    const { handle, concurrency } = table[name]!;
    const consume = outboxConsumer(deps.dataSource, name, deps.outbox, handle);
    const queue = workers.get(name);
    // A queue paused from the jobs console: the job waits here (still active) until it is resumed.
    const waitWhilePaused = pauseGate(queue, () => stopping);
    queue.process(concurrency, async (job) => {
      try {
        await waitWhilePaused();
        const result = await consume(job);
        await countSucceeded(queue).catch(() => undefined);
        return result;
      } catch (error) {
        deps.logger.warn({ err: error, queue: name, jobId: job.id }, 'consumer failed; the outbox will retry it');
        throw error;
      }
    });
  }
  return {
    queues: names,
    stop: (timeoutMs) => {
      stopping = true;
      return workers.close(timeoutMs);
    },
  };
}
