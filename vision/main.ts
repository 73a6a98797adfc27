/** The vision role: consumes the `vision` queue (image embeddings). */
import type { RunningRole } from '../api/lifecycle';
import { consumerDeps, type Runtime } from '../api/runtime';
import { startConsumers, type ConsumerTable } from '../storage/consumers';

/** Consumers of this role; the visual-search issue adds the embedding consumer here. */
export const visionConsumers: ConsumerTable = {};

export async function startVisionRole(runtime: Runtime): Promise<RunningRole> {
  const consumers = startConsumers(
    consumerDeps(runtime),
    visionConsumers,
  );
  runtime.logger.info({ consumers: consumers.queues }, 'vision worker started');
  return { name: 'vision', stop: () => consumers.stop(runtime.config.shutdownTimeoutMs) };
}
