/**
 * The indexer role: runs the outbox relay (for every queue) and the consumers of the `index` queue.
 * The relay is safe to run in several processes at once (claims use SKIP LOCKED).
 */
import type { RunningRole } from '../api/lifecycle';
import { consumerDeps, type Runtime } from '../api/runtime';
import { startConsumers, type ConsumerTable } from '../storage/consumers';
import { OutboxRelay } from '../storage/outbox';

/** Consumers of this role; the search issue adds the index consumer here. */
export const indexerConsumers: ConsumerTable = {};

export async function startIndexerRole(runtime: Runtime): Promise<RunningRole> {
  const relay = new OutboxRelay(runtime.dataSource, runtime.queues, runtime.config.outbox, runtime.logger);
  relay.start();
  const consumers = startConsumers(
    consumerDeps(runtime),
    indexerConsumers,
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
