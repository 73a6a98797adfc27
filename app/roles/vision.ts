/** The vision role: consumes the `vision` queue (image embeddings of product images). */
import type { RunningRole } from '../lifecycle';
import { consumerDeps, type Runtime } from '../runtime';
import { startConsumers, type ConsumerTable } from '../../storage/consumers';
import { disposeEmbedders } from '../../vision/embedder';
import { createVisionHandler } from '../../vision/worker';

/**
 * Consumers of this role. Concurrency lets several products be fetched and decoded at once; their
 * images meet in one batcher, so inference runs a batch at a time with one model per process.
 */
export function visionConsumers(runtime: Pick<Runtime, 'dataSource' | 'logger' | 'config'>): ConsumerTable {
  return {
    vision: {
      concurrency: runtime.config.vision.concurrency,
      handle: createVisionHandler({ dataSource: runtime.dataSource, logger: runtime.logger, config: runtime.config.vision }),
    },
  };
}

export async function startVisionRole(runtime: Runtime): Promise<RunningRole> {
  const consumers = startConsumers(consumerDeps(runtime), visionConsumers(runtime));
  runtime.logger.info({ consumers: consumers.queues }, 'vision worker started');
  return {
    name: 'vision',
    async stop() {
      await consumers.stop(runtime.config.shutdownTimeoutMs);
      await disposeEmbedders();
    },
  };
}
