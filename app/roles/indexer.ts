/** The indexer role: the consumers of the `index` queue keep every store's Meilisearch index in step with PostgreSQL. */
import type { RunningRole } from '../lifecycle';
import { consumerDeps, type Runtime } from '../runtime';
import { startConsumers, type ConsumerTable } from '../../storage/consumers';
import { createIndexHandler, INDEX_CONCURRENCY } from '../../indexer/index-consumer';

/** Consumers of this role: the `index` queue keeps every store's Meilisearch index in step with PostgreSQL. */
export function indexerConsumers(runtime: Pick<Runtime, 'dataSource' | 'meiliAdmin' | 'logger' | 'publishStoreChanges'>): ConsumerTable {
  return {
    index: {
      concurrency: INDEX_CONCURRENCY,
      handle: createIndexHandler({
        dataSource: runtime.dataSource,
        meili: runtime.meiliAdmin,
        logger: runtime.logger,
        onStoresChanged: runtime.publishStoreChanges,
      }),
    },
  };
}

export async function startIndexerRole(runtime: Runtime): Promise<RunningRole> {
  const consumers = startConsumers(consumerDeps(runtime), indexerConsumers(runtime));
  runtime.logger.info({ consumers: consumers.queues }, 'indexer started');
  return { name: 'indexer', stop: () => consumers.stop(runtime.config.shutdownTimeoutMs) };
}
