/**
 * Every event the code writes to the outbox, as one discriminated union per queue: the queue, the
 * aggregate type and the topic are literals, and the payload is typed where there is one. Writers
 * (enqueueOutbox, enqueueOutboxSelect, outboxCte in storage/outbox.ts) accept only these events, and
 * each queue's consumer gets an OutboxDelivery of its queue, so its switch over `aggregateType` is
 * checked for exhaustiveness: a new event here fails the build where it is not handled.
 *
 * A row written by an older version may carry an aggregate type no longer listed: the consumers keep
 * acknowledging those at run time (the `default` branch after the exhaustiveness check).
 *
 * The list by queue (aggregate type: topics):
 * - index: product (product.created|updated|deleted|published|archived, product.sales_changed,
 *   product.image_vector_updated, product.repriced, visual_search.enabled, visual_search.cleared);
 *   product_batch (product.created); store (store.updated, store.archived, filter_config.updated,
 *   search_synonyms.updated, sponsored_listings.updated, visual_search.settings_updated); brand,
 *   category, product_tag, collection, bundle, search_synonym, shipping_rate, content_page,
 *   content_post, pricing_rule (<aggregate>.created|updated|deleted); flash_sale_campaign
 *   (flash_sale_campaign.created|updated|archived).
 * - vision: product (product.image_changed, visual_search.index_requested); store (visual_search.calibrate).
 * - jobs: product_bulk_edit (product_bulk_edit.run); outbound_message (outbound_message.send);
 *   provider_callback (provider_callback.send).
 * - webhooks: webhook_event (one topic of WEBHOOK_TOPICS).
 * - import: transfer_job (product_import.queued). export: transfer_job (product_export.queued).
 */
import type { QueueName } from './queues';

/** The payload of an event that carries none: delivered as `{}`. */
export type NoPayload = Record<string, never>;

/** One kind of event: its queue, aggregate type and topics, and its payload (optional unless `Required`). */
type Event<Q extends QueueName, A extends string, T extends string, P extends object = NoPayload> = {
  queue: Q;
  aggregateType: A;
  topic: T;
  /** The aggregate's id (a UUID, or the event's own id for webhook events). */
  aggregateId: string;
  payload?: P;
};
type EventWith<Q extends QueueName, A extends string, T extends string, P extends object> = Event<Q, A, T, P> & { payload: P };

type Crud<A extends string, V extends string = 'created' | 'updated' | 'deleted'> = Event<'index', A, `${A}.${V}`>;

// ------------------------------------------------------------------------------------------ index

/** What a product row of the `index` queue may say; the indexer re-reads the product whatever it says. */
export type ProductIndexTopic =
  | 'product.created'
  | 'product.updated'
  | 'product.deleted'
  | 'product.published'
  | 'product.archived'
  | 'product.sales_changed'
  | 'product.image_vector_updated'
  | 'visual_search.enabled'
  | 'visual_search.cleared';

/** Why a product's effective price may have changed (api/pricing/reprice.ts). */
export type RepricingCause = { pricingRuleId: string; change: string } | { flashSaleCampaignId: string; change: string };

export type ProductIndexEvent =
  Event<'index', 'product', ProductIndexTopic> | EventWith<'index', 'product', 'product.repriced', RepricingCause>;

/**
 * Many products changed by one write (an import batch): one row whose payload lists them, delivered
 * as one job (see productBatchEvent). `final` marks the last batch of an import.
 */
export type ProductBatchEvent = EventWith<'index', 'product_batch', 'product.created', { productIds: string[]; final?: true }>;

/** What changed of a store's sponsored listings: one listing written, or listings that ended. */
export type SponsoredListingsChange = { listingId: string; change: 'created' | 'updated' | 'deleted' } | { ended: string[] };

export type StoreIndexEvent =
  | Event<'index', 'store', 'store.updated', { fields?: string[] }>
  | Event<'index', 'store', 'store.archived' | 'filter_config.updated' | 'search_synonyms.updated' | 'visual_search.settings_updated'>
  | EventWith<'index', 'store', 'sponsored_listings.updated', SponsoredListingsChange>;

export type IndexEvent =
  | ProductIndexEvent
  | ProductBatchEvent
  | StoreIndexEvent
  | Crud<'brand'>
  | Crud<'category'>
  | Crud<'product_tag'>
  | Crud<'collection'>
  | Crud<'bundle'>
  | Crud<'search_synonym'>
  | Crud<'shipping_rate'>
  | Crud<'content_page'>
  | Crud<'content_post'>
  | EventWith<'index', 'pricing_rule', `pricing_rule.${'created' | 'updated' | 'deleted'}`, { storeId: string }>
  | EventWith<'index', 'flash_sale_campaign', `flash_sale_campaign.${'created' | 'updated' | 'archived'}`, { storeId: string }>;

// ----------------------------------------------------------------------------------------- vision

export type VisionEvent =
  | Event<'vision', 'product', 'product.image_changed'>
  | Event<'vision', 'product', 'visual_search.index_requested', { force?: true }>
  | Event<'vision', 'store', 'visual_search.calibrate'>;

// ------------------------------------------------------------------------------------------- jobs

export type JobsEvent =
  | Event<'jobs', 'product_bulk_edit', 'product_bulk_edit.run'>
  /** An e-mail recorded `queued` by the outbound port: handed to SMTP once its transaction committed. */
  | Event<'jobs', 'outbound_message', 'outbound_message.send'>
  /** A signed payment-simulator callback (api/payments/providers/callback-delivery.ts), POSTed after its commit with retries. */
  | Event<'jobs', 'provider_callback', 'provider_callback.send'>;

// --------------------------------------------------------------------------------------- webhooks

/** The specification's webhook topic catalog: 33 topics in 10 categories (re-exported by api/webhooks/events.ts). */
export const WEBHOOK_TOPICS = [
  'order.placed',
  'order.cancelled',
  'payment.captured',
  'payment.refunded',
  'product.created',
  'product.updated',
  'product.published',
  'product.archived',
  'approval.request.created',
  'approval.approved',
  'approval.rejected',
  'approval.expired',
  'quote.sent',
  'quote.accepted',
  'quote.rejected',
  'quote.converted',
  'quote.expired',
  'vendor.applied',
  'vendor.approved',
  'vendor.rejected',
  'vendor.suspended',
  'payout.calculated',
  'payout.paid',
  'payout.failed',
  'payout.retry.scheduled',
  'payout.retry.given_up',
  'buybox.winner_changed',
  'saved_report.due',
  'impersonation.started',
  'impersonation.ended',
  'staff.invited',
  'staff.accepted',
  'consent.registry.push_due',
] as const;

export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number];

/** The payload of a webhook event row: what the fan-out turns into one delivery per endpoint. */
export interface WebhookEventPayload {
  eventId: string;
  topic: WebhookTopic;
  occurredAt: string;
  data: Record<string, unknown>;
}

export type WebhooksEvent = EventWith<'webhooks', 'webhook_event', WebhookTopic, WebhookEventPayload>;

// ------------------------------------------------------------------------------- import and export

export type ImportEvent = Event<'import', 'transfer_job', 'product_import.queued'>;
export type ExportEvent = Event<'export', 'transfer_job', 'product_export.queued'>;

// ------------------------------------------------------------------------------------------ union

/** Every event of every queue. */
export type OutboxEvent = IndexEvent | VisionEvent | JobsEvent | WebhooksEvent | ImportEvent | ExportEvent;

/** The events of one queue. */
export type EventOf<Q extends QueueName> = Extract<OutboxEvent, { queue: Q }>;

/** The aggregate types of one queue. */
export type AggregateTypeOf<Q extends QueueName> = EventOf<Q>['aggregateType'];

/** The literal parts of one kind of event (for the SQL writers, whose rows come from a SELECT). */
export type OutboxKind<E extends OutboxEvent = OutboxEvent> = E extends OutboxEvent
  ? { queue: E['queue']; aggregateType: E['aggregateType']; topic: E['topic'] }
  : never;

// --------------------------------------------------------------------------------------- delivery

/** One outbox row as a consumer sees it: a topic of its aggregate type, with that topic's payload. */
export type OutboxMessageOf<E extends OutboxEvent> = E extends OutboxEvent
  ? { id: string; topic: E['topic']; payload: NonNullable<E['payload']> }
  : never;

interface DeliveryOf<Q extends QueueName, A extends string> {
  queue: Q;
  aggregateType: A;
  aggregateId: string;
  tenantId: string | null;
  /** The rows of the aggregate this run covers, oldest first. */
  messages: Array<OutboxMessageOf<Extract<EventOf<Q>, { aggregateType: A }>>>;
  /**
   * Aborted when the worker is shutting down. A long handler (an import, an export, a bulk edit)
   * checks it between its committed steps and throws DeliveryReleased to hand the rest of its work
   * back; short handlers may ignore it (they finish within the shutdown timeout).
   */
  signal?: AbortSignal;
}

/**
 * What a consumer of queue `Q` gets: the aggregate and the outbox rows this run covers, discriminated
 * by `aggregateType` (and by `queue` where a handler serves several queues). Rows are typed as this
 * version writes them; see the file comment for rows of older versions.
 */
export type OutboxDelivery<Q extends QueueName = QueueName> = {
  [K in Q]: { [A in AggregateTypeOf<K>]: DeliveryOf<K, A> }[AggregateTypeOf<K>];
}[Q];
