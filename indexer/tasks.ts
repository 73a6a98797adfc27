/**
 * Waiting for Meilisearch tasks. Every write of the indexer waits for its task to finish and throws
 * unless it succeeded, so outbox rows are acknowledged only after Meilisearch applied the change.
 */
import type { EnqueuedTaskPromise, Task } from 'meilisearch';

export class MeiliTaskError extends Error {
  constructor(
    readonly task: Task,
  ) {
    super(`Meilisearch task ${task.uid} (${task.type}) ${task.status}: ${task.error?.code ?? ''} ${task.error?.message ?? ''}`.trim());
  }
}

/**
 * Waits for the task of `enqueued` and returns it; throws unless it succeeded (or failed with one of
 * the `tolerated` error codes, e.g. `index_not_found` for a delete on an index that does not exist).
 */
export async function settle(enqueued: EnqueuedTaskPromise, timeoutMs = 60_000, tolerated: string[] = []): Promise<Task> {
  const task = await enqueued.waitTask({ timeout: timeoutMs, interval: 10 });
  if (task.status === 'succeeded') return task;
  if (task.status === 'failed' && task.error && tolerated.includes(task.error.code)) return task;
  throw new MeiliTaskError(task);
}
