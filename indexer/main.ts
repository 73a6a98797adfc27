/**
 * The indexer role: runs the outbox relay (for every queue) and the consumers of the `index` queue.
 * The relay is safe to run in several processes at once (claims use SKIP LOCKED).
 */
import type { RunningRole } from '../api/lifecycle';
import { consumerDeps, type Runtime } from '../api/runtime';
import { startConsumers, type ConsumerTable } from '../storage/consumers';
import { OutboxRelay } from '../storage/outbox';
import { createIndexHandler, INDEX_CONCURRENCY } from './index-consumer';

/** Consumers of this role: the `index` queue keeps every store's Meilisearch index in step with PostgreSQL. */
export function indexerConsumers(runtime: Pick<Runtime, 'dataSource' | 'meiliAdmin' | 'logger' | 'publishStoreChanges'>): ConsumerTable {
  return {
    index: {
      concurrency: INDEX_CONCURRENCY,
      handle: createIndexHandler({ dataSource: runtime.dataSource, meili: runtime.meiliAdmin, logger: runtime.logger, onStoresChanged: runtime.publishStoreChanges }),
    },
  };
}

/**
 * When PostgreSQL, Redis or Meilisearch is back after an outage, what waited on it is retried at
 * once (OutboxRelay.retryNow) instead of when its growing backoff, or the reclaim of rows left in
 * flight, comes due: catching up then takes as long as the work, whatever the outage's length.
 */
export function catchUpWhenBack(runtime: Pick<Runtime, 'monitor' | 'logger'>, relay: Pick<OutboxRelay, 'retryNow'>): void {
  runtime.monitor.onChange((name, now, before) => {
    if (!now.up || !before || before.up) return;
    const retry = async (attempt: number): Promise<void> => {
      try {
        const moved = await relay.retryNow(before.since);
        runtime.logger.info({ dependency: name, ...moved }, 'outbox rows that waited on it are due now');
      } catch (error) {
        // Just back: the pool may still hand out a connection that died with the outage.
        if (attempt < 5) setTimeout(() => void retry(attempt + 1), 500).unref();
        else runtime.logger.warn({ err: error, dependency: name }, 'could not make waiting outbox rows due; they follow their backoff');
      }
    };
    void retry(1);
  });
}

export async function startIndexerRole(runtime: Runtime): Promise<RunningRole> {
  const relay = new OutboxRelay(runtime.dataSource, runtime.queues, runtime.config.outbox, runtime.logger);
  // Woken by the outbox trigger's notifications; the poll interval is only the fallback.
  relay.start({ listenUrl: runtime.config.databaseUrl });
  catchUpWhenBack(runtime, relay);
  const consumers = startConsumers(
    consumerDeps(runtime),
    indexerConsumers(runtime),
  );
  runtime.logger.info({ consumers: consumers.queues }, 'indexer started (outbox relay running)');
  return {
    name: 'indexer',
    async stop() {
      await relay.stop();
      await consumers.stop(runtime.config.shutdownTimeoutMs);
    },
  };
}
