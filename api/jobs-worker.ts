/** The jobs role: consumes the `jobs` queue (imports, exports, bulk edits) and `webhooks` (deliveries). */
import type { RunningRole } from './lifecycle';
import { consumerDeps, type Runtime } from './runtime';
import { startConsumers, type ConsumerTable } from '../storage/consumers';

/** Consumers of this role; the bulk-edit, import and webhook issues add theirs here. */
export const jobsConsumers: ConsumerTable = {};

export async function startJobsRole(runtime: Runtime): Promise<RunningRole> {
  const consumers = startConsumers(
    consumerDeps(runtime),
    jobsConsumers,
  );
  runtime.logger.info({ consumers: consumers.queues }, 'jobs worker started');
  return { name: 'jobs', stop: () => consumers.stop(runtime.config.shutdownTimeoutMs) };
}
