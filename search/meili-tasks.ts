/**
 * Waiting for Meilisearch tasks. Every write of the indexer waits for its task to finish and throws
 * unless it succeeded, so outbox rows are acknowledged only after Meilisearch applied the change.
 */
import { MeilisearchTaskTimeOutError, type EnqueuedTaskPromise, type Task } from 'meilisearch';

/** Tasks are looked at every 10 ms for this long (a product's write is done in tens to hundreds of ms), then every 50 ms. */
const QUICK_WAIT_MS = 500;

export class MeiliTaskError extends Error {
  constructor(readonly task: Task) {
    super(`Meilisearch task ${task.uid} (${task.type}) ${task.status}: ${task.error?.code ?? ''} ${task.error?.message ?? ''}`.trim());
  }
}

/**
 * Waits for the task of `enqueued` and returns it; throws unless it succeeded (or failed with one of
 * the `tolerated` error codes, e.g. `index_not_found` for a delete on an index that does not exist).
 */
export async function settle(enqueued: EnqueuedTaskPromise, timeoutMs = 60_000, tolerated: string[] = []): Promise<Task> {
  const started = Date.now();
  let task: Task;
  try {
    task = await enqueued.waitTask({ timeout: Math.min(QUICK_WAIT_MS, timeoutMs), interval: 10 });
  } catch (error) {
    // A bulk write takes seconds: looking less often spares Meilisearch a request every 10 ms per write in flight.
    if (!(error instanceof MeilisearchTaskTimeOutError) || timeoutMs <= QUICK_WAIT_MS) throw error;
    task = await enqueued.waitTask({ timeout: timeoutMs - (Date.now() - started), interval: 50 });
  }
  if (task.status === 'succeeded') return task;
  if (task.status === 'failed' && task.error && tolerated.includes(task.error.code)) return task;
  throw new MeiliTaskError(task);
}
