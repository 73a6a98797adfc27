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

export async function startIndexerRole(runtime: Runtime): Promise<RunningRole> {
  const relay = new OutboxRelay(runtime.dataSource, runtime.queues, runtime.config.outbox, runtime.logger);
  // Woken by the outbox trigger's notifications; the poll interval is only the fallback.
  relay.start({ listenUrl: runtime.config.databaseUrl });
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
