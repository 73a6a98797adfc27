/** The jobs role's side of a large bulk edit (outbox aggregate `product_bulk_edit`; app/roles/jobs.ts). */
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import type { OutboxDelivery } from '../../storage/outbox';
import type { Actor, ContextServices, RequestContext } from '../../storage/request-context';
import { runQueuedBulkEdit } from './product-bulk-edits.engine';

/**
 * Processes the edit's PENDING products, BATCH_SIZE per transaction, acting as the user or API key
 * that made it (its audit entries name them). Safe to run again after a crash: only PENDING items are
 * processed, and an edit no longer RUNNING is left alone.
 */
export async function runBulkEditJob(
  delivery: OutboxDelivery<'jobs'>,
  deps: { dataSource: DataSource; logger: Logger; services?: ContextServices },
): Promise<void> {
  const [edit]: Array<{ tenant_id: string; store_id: string; actor_type: string; actor_id: string | null }> = await deps.dataSource.query(
    'SELECT tenant_id, store_id, actor_type, actor_id FROM product_bulk_edits WHERE id = $1',
    [delivery.aggregateId],
  );
  if (!edit) return; // deleted with its store or tenant: nothing to do
  const actor: Actor = {
    type: edit.actor_type as Actor['type'],
    id: edit.actor_id ?? undefined,
    storeId: edit.actor_type === 'api_key' ? edit.store_id : undefined,
  };
  const ctx: RequestContext = {
    requestId: `job:product_bulk_edit:${delivery.aggregateId}`,
    tenantId: edit.tenant_id,
    actor,
    dataSource: deps.dataSource,
    manager: deps.dataSource.manager,
    inTransaction: false,
    services: deps.services,
  };
  await runQueuedBulkEdit(ctx, delivery.aggregateId, delivery.signal);
  deps.logger.info({ bulkEditId: delivery.aggregateId }, 'bulk edit finished');
}
