/**
 * Operator controls of the bee-queue queues (the jobs console, api/jobs/). bee-queue has no pause,
 * and with removeOnSuccess it keeps no count of finished jobs, so both live in Redis next to the
 * queue's own keys:
 * - `<prefix>:<queue>:console:paused` — set while an operator has paused the queue. Every consumer
 *   checks it before running a job (cached for PAUSE_CHECK_MS); while it is set the job waits, still
 *   active and kept from stalling by its worker, and the queue's other jobs stay waiting. Resuming
 *   lets the held jobs run and the worker take the rest: nothing is lost.
 * - `<prefix>:<queue>:console:succeeded` — jobs finished successfully since the queue was created.
 */
import type BeeQueue from 'bee-queue';

export const PAUSE_CHECK_MS = 500;

interface RedisLike {
  get(key: string, cb: (error: Error | null, value: string | null) => void): void;
  set(key: string, value: string, cb: (error: Error | null) => void): void;
  del(key: string, cb: (error: Error | null) => void): void;
  incr(key: string, cb: (error: Error | null) => void): void;
}

interface QueueInternals {
  client: RedisLike;
  toKey(suffix: string): string;
}

const internals = (queue: BeeQueue): QueueInternals => queue as unknown as QueueInternals;

/** Runs a Redis command on the queue's own client once the queue is connected (its client is null until then). */
async function command<T>(queue: BeeQueue, run: (q: QueueInternals, cb: (error: Error | null, value?: T) => void) => void): Promise<T> {
  await queue.ready();
  const q = internals(queue);
  return new Promise((resolve, reject) => run(q, (error, value) => (error ? reject(error) : resolve(value as T))));
}

export function isPaused(queue: BeeQueue): Promise<boolean> {
  return command<string | null>(queue, (q, cb) => q.client.get(q.toKey('console:paused'), cb)).then((value) => value !== null);
}

export function setPaused(queue: BeeQueue, paused: boolean): Promise<void> {
  return command<void>(queue, (q, cb) =>
    paused ? q.client.set(q.toKey('console:paused'), new Date().toISOString(), cb) : q.client.del(q.toKey('console:paused'), cb),
  );
}

export function succeededCount(queue: BeeQueue): Promise<number> {
  return command<string | null>(queue, (q, cb) => q.client.get(q.toKey('console:succeeded'), cb)).then((value) => Number(value ?? 0));
}

export function countSucceeded(queue: BeeQueue): Promise<void> {
  return command<void>(queue, (q, cb) => q.client.incr(q.toKey('console:succeeded'), cb));
}

/**
 * Waits while the queue is paused (checked at most every PAUSE_CHECK_MS per queue). When the worker
 * closes meanwhile, the job is never released: it stays in the active list, and bee-queue's stall
 * check hands it to a worker again once this one is gone.
 */
export function pauseGate(queue: BeeQueue, stopped: () => boolean): () => Promise<void> {
  let checkedAt = 0;
  let paused = false;
  const refresh = async (): Promise<boolean> => {
    if (Date.now() - checkedAt >= PAUSE_CHECK_MS) {
      paused = await isPaused(queue).catch(() => paused);
      checkedAt = Date.now();
    }
    return paused;
  };
  return async () => {
    while (await refresh()) {
      if (stopped()) await new Promise<never>(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, PAUSE_CHECK_MS));
    }
  };
}
