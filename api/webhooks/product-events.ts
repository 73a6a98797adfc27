/**
 * Product events for webhooks: product.created, product.updated, product.published and
 * product.archived, emitted by the product operations (and the bulk edits, which share their
 * `audited` helper) inside the transaction of the change. `data` is the product's summary after the
 * change: id, storeId, title, slug, status, price, currency, updatedAt. (A deleted product has no
 * topic in the catalog, so nothing is sent.)
 *
 * The event is recorded only when an enabled endpoint of the tenant subscribes to the topic at the
 * time of the change (the fan-out would find no receiver otherwise), so imports and bulk edits of
 * tenants without webhooks write no extra rows.
 */
import type { RequestContext } from '../../storage/request-context';
import { emitEvent, type WebhookTopic } from './events';

export type ProductEventTopic = 'created' | 'updated' | 'published' | 'archived';

const PRODUCT_TOPICS: ReadonlySet<string> = new Set(['created', 'updated', 'published', 'archived']);

/** Whether an enabled endpoint of the caller's tenant receives `topic`. */
export async function hasSubscriber(tx: RequestContext, topic: WebhookTopic): Promise<boolean> {
  if (!tx.tenantId) return false;
  const rows: unknown[] = await tx.manager.query(
    "SELECT 1 FROM webhook_endpoints WHERE tenant_id = $1 AND enabled AND ($2 = ANY(topics) OR '*' = ANY(topics)) LIMIT 1",
    [tx.tenantId, topic],
  );
  return rows.length > 0;
}

/** Emits `product.<verb>` for the product `id` when the verb is a webhook topic and someone subscribes. */
export async function emitProductEvent(tx: RequestContext, verb: string, id: string): Promise<void> {
  await emitProductEvents(tx, verb, [id]);
}

/**
 * The same for many products of one change (e.g. a batch written by the import), with one
 * subscription check and one read: one event per product.
 */
export async function emitProductEvents(tx: RequestContext, verb: string, ids: readonly string[]): Promise<void> {
  if (!PRODUCT_TOPICS.has(verb) || ids.length === 0) return;
  const topic = `product.${verb}` as WebhookTopic;
  if (!(await hasSubscriber(tx, topic))) return;
  const rows: Array<{
    id: string;
    store_id: string;
    title: string;
    slug: string;
    status: string;
    price: string;
    currency: string;
    updated_at: Date;
  }> = await tx.manager.query(
    'SELECT id, store_id, title, slug, status, price::text AS price, currency, updated_at FROM products WHERE id = ANY($1::uuid[]) AND tenant_id = $2 ORDER BY array_position($1::uuid[], id)',
    [ids, tx.tenantId],
  );
  for (const product of rows) {
    await emitEvent(tx, {
      topic,
      data: {
        id: product.id,
        storeId: product.store_id,
        title: product.title,
        slug: product.slug,
        status: product.status,
        price: Number(product.price),
        currency: product.currency.trim(),
        updatedAt: new Date(product.updated_at).toISOString(),
      },
    });
  }
}
