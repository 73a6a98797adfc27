/**
 * Hands a tenant's pending `webhooks` outbox rows to the jobs role's fan-out handler, as the relay
 * would (no relay runs in the API tests); answers how many rows it handed over.
 */
import type BeeQueue from 'bee-queue';
import { webhookEventsHandler } from '../../api/webhooks/dispatcher';
import { jobIdFor, outboxConsumer, type OutboxJobData } from '../../storage/outbox';
import type { TestServer } from './harness';
import { RETRY } from './indexing';

export async function fanOutWebhooks(server: TestServer, tenantId: string): Promise<number> {
  const rows: Array<{ aggregate_type: string; aggregate_id: string }> = await server.runtime.dataSource.query(
    `WITH c AS (UPDATE outbox SET status = 'in_flight', claimed_at = now(), attempts = attempts + 1
                 WHERE tenant_id = $1 AND queue = 'webhooks' AND status = 'pending' RETURNING id, aggregate_type, aggregate_id)
     SELECT aggregate_type, aggregate_id FROM c ORDER BY id`,
    [tenantId],
  );
  const consume = outboxConsumer(server.runtime.dataSource, 'webhooks', RETRY, webhookEventsHandler(server.runtime.dataSource));
  for (const row of rows)
    await consume({
      id: jobIdFor(row.aggregate_type, row.aggregate_id),
      data: { aggregateType: row.aggregate_type, aggregateId: row.aggregate_id, tenantId },
    } as BeeQueue.Job<OutboxJobData>);
  return rows.length;
}
