/** The indexer role: the consumers of the `index` queue keep every store's Meilisearch index in step with PostgreSQL. */
import type { RunningRole } from '../lifecycle';
import { consumerDeps, type Runtime } from '../runtime';
import { startConsumers, type ConsumerTable } from '../../storage/consumers';
import { createIndexHandler, INDEX_CONCURRENCY } from '../../indexer/index-consumer';
import { upgradeStoreDocuments } from '../../indexer/document-upgrade';

/** Consumers of this role: the `index` queue keeps every store's Meilisearch index in step with PostgreSQL. */
export function indexerConsumers(runtime: Pick<Runtime, 'dataSource' | 'searchNodes' | 'logger' | 'publishStoreChanges'>): ConsumerTable {
  return {
    index: {
      concurrency: INDEX_CONCURRENCY,
      handle: createIndexHandler({
        dataSource: runtime.dataSource,
        meili: runtime.searchNodes,
        logger: runtime.logger,
        onStoresChanged: runtime.publishStoreChanges,
      }),
    },
  };
}

export async function startIndexerRole(runtime: Runtime): Promise<RunningRole> {
  const consumers = startConsumers(consumerDeps(runtime), indexerConsumers(runtime));
  runtime.logger.info({ consumers: consumers.queues }, 'indexer started');
  // Stores whose documents predate this code's document shape are rebuilt once, in the background
  // (indexer/document-upgrade.ts); a stop lets the rebuild under way finish or die with the process.
  let stopping = false;
  void upgradeStoreDocuments(runtime.dataSource, runtime.searchNodes, runtime.logger, { stopping: () => stopping }).catch(
    (error: unknown) =>
      runtime.logger.warn({ err: error }, 'indexer: the document upgrade of stale stores stopped; retried on the next start'),
  );
  return {
    name: 'indexer',
    stop: () => {
      stopping = true;
      return consumers.stop(runtime.config.shutdownTimeoutMs);
    },
  };
}
