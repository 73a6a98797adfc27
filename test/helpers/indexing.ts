/**
 * Delivers a tenant's pending `index` outbox rows through the real index consumer, deterministically
 * (claimed here and handed to outboxConsumer the way the relay's jobs reach it), so a test sees
 * exactly its own writes in Meilisearch without a relay racing other tests.
 */
import type BeeQueue from 'bee-queue';
import type { Meilisearch } from 'meilisearch';
import type { StoreNodes } from '../../search/store-placement';
import pino from 'pino';
import { jobIdFor, outboxConsumer, type OutboxJobData } from '../../storage/outbox';
import type { DeliveryHandler } from '../../storage/consumers';
import { createIndexHandler, type StoreIndexer } from '../../indexer/index-consumer';
import type { TestServer } from './harness';

export const silentLogger = pino({ level: 'silent' });
export const RETRY = { retryBaseMs: 1_000, retryMaxMs: 60_000 };

/** The real index handler on the test runtime, announcing changed stores like the indexer role does. */
export function indexHandler(
  server: TestServer,
  meili: Meilisearch | StoreNodes = server.runtime.searchNodes,
): DeliveryHandler & { indexer: StoreIndexer } {
  return createIndexHandler({
    dataSource: server.runtime.dataSource,
    meili,
    logger: silentLogger,
    onStoresChanged: server.runtime.publishStoreChanges,
  });
}

/**
 * Claims the tenant's pending index rows (also those waiting for a retry when `includeDelayed`) and
 * delivers them aggregate by aggregate; returns the failures.
 */
export async function deliverIndexRows(
  server: TestServer,
  tenantId: string,
  handler: DeliveryHandler = indexHandler(server),
  options: { includeDelayed?: boolean } = {},
): Promise<Error[]> {
  const rows: Array<{ aggregate_type: string; aggregate_id: string }> = await server.runtime.dataSource.query(
    `WITH c AS (UPDATE outbox SET status = 'in_flight', claimed_at = now(), attempts = attempts + 1
                 WHERE tenant_id = $1 AND queue = 'index' AND status = 'pending' ${options.includeDelayed ? '' : 'AND available_at <= now()'}
                 RETURNING id, aggregate_type, aggregate_id)
     SELECT aggregate_type, aggregate_id, min(id) AS first FROM c GROUP BY 1, 2 ORDER BY first`,
    [tenantId],
  );
  const consume = outboxConsumer(server.runtime.dataSource, 'index', RETRY, handler);
  const failures: Error[] = [];
  for (const row of rows) {
    const job = {
      id: jobIdFor(row.aggregate_type, row.aggregate_id),
      data: { aggregateType: row.aggregate_type, aggregateId: row.aggregate_id, tenantId },
    };
    await consume(job as BeeQueue.Job<OutboxJobData>).catch((error: Error) => failures.push(error));
  }
  return failures;
}

/** How many of the tenant's index rows are not done yet. */
export async function pendingIndexRows(server: TestServer, tenantId: string): Promise<number> {
  const [row]: Array<{ n: number }> = await server.runtime.dataSource.query(
    "SELECT count(*)::int AS n FROM outbox WHERE tenant_id = $1 AND queue = 'index' AND status <> 'done'",
    [tenantId],
  );
  return row!.n;
}
