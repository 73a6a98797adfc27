/**
 * The bee-queue queues over Redis. Redis holds only queues: every job is re-creatable from the
 * outbox in PostgreSQL, so jobs are removed once finished and nothing else is kept there.
 */
import BeeQueue from 'bee-queue';
import type { Logger } from 'pino';
import './queue-scripts';
import { calmLog } from '../lib/calm-log';

export const QUEUE_NAMES = ['index', 'vision', 'jobs', 'webhooks', 'import', 'export'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

export function isQueueName(name: string): name is QueueName {
  return (QUEUE_NAMES as readonly string[]).includes(name);
}

export interface QueueRegistryOptions {
  redisUrl: string;
  /** Workers open a blocking connection to receive jobs; producers do not. */
  isWorker: boolean;
  logger: Logger;
  /** Key prefix, so tests can use their own namespace on a shared Redis. */
  prefix?: string;
  /**
   * How long an active job may go without its worker refreshing it before a stall check hands it to
   * another worker (the worker refreshes every half of it). Default DEFAULT_STALL_INTERVAL_MS.
   */
  stallIntervalMs?: number;
}

export const DEFAULT_STALL_INTERVAL_MS = 5_000;
/** How often a queue connection tries again while Redis is unreachable. */
const QUEUE_RECONNECT_MS = 250;

export class QueueRegistry {
  private readonly queues = new Map<QueueName, BeeQueue>();
  private closed = false;

  constructor(private readonly options: QueueRegistryOptions) {}

  get stallIntervalMs(): number {
    return this.options.stallIntervalMs ?? DEFAULT_STALL_INTERVAL_MS;
  }

  get(name: QueueName): BeeQueue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new BeeQueue(name, {
        prefix: this.options.prefix ?? 'bq',
        redis: {
          url: this.options.redisUrl,
          // Keep retrying while Redis is down (the outbox keeps every change meanwhile), but stop once
          // the registry is closed: a client still reconnecting would keep the process alive forever.
          // Every 250 ms: a local connection attempt costs next to nothing, and each second waited here
          // is a second more before the index catches up once Redis is back.
          retry_strategy: () => (this.closed ? new Error('queue registry closed') : QUEUE_RECONNECT_MS),
        } as never,
        isWorker: this.options.isWorker,
        getEvents: false,
        sendEvents: false,
        storeJobs: false,
        removeOnSuccess: true,
        // Failed jobs stay (set `failed`) for the jobs console to show, retry or delete; the outbox
        // relay replaces such a job when it delivers the aggregate's rows again (storage/outbox.ts).
        removeOnFailure: false,
        activateDelayedJobs: false,
        stallInterval: this.stallIntervalMs,
      });
      // While Redis is down every connection and command reports here: the first of a kind is logged,
      // the rest are counted (the dependency monitor logs the outage itself).
      queue.on('error', (error) => calmLog(this.options.logger).warn(`queue:${name}`, error, { queue: name }, 'queue connection error'));
      this.queues.set(name, queue);
    }
    return queue;
  }

  /** Closes every queue, letting active jobs finish within `timeoutMs`. */
  async close(timeoutMs: number): Promise<void> {
    this.closed = true;
    await Promise.all([...this.queues.values()].map((queue) => queue.close(timeoutMs).catch(() => undefined)));
    this.queues.clear();
  }
}

/** Rejects when `promise` takes longer than `ms` (bee-queue waits forever while Redis is down). */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
