/**
 * Platform events for webhooks (document 1, "Events"). An operation that causes an event calls
 * emitEvent inside its transaction: the event is an outbox row on the `webhooks` queue, so it exists
 * exactly when the change committed, survives restarts of every process and of Redis, and is fanned
 * out to the tenant's subscribed endpoints by the webhooks consumer (one delivery per endpoint, each
 * with its own deliveryId and retry schedule).
 */
import { enqueueOutbox } from '../../storage/outbox';
import { uuidv7 } from '../../storage/ids';
import type { RequestContext } from '../../storage/request-context';

/** Document 1, "Topic catalog": 33 topics in 10 categories. */
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

export interface PlatformEvent {
  topic: WebhookTopic;
  /** Topic-specific payload: the `data` of the envelope. */
  data: Record<string, unknown>;
}

/**
 * Records that `event` happened in the caller's tenant, inside the caller's transaction. Returns the
 * event id. The outbox row's aggregate is the event itself, so every event is delivered on its own.
 */
export async function emitEvent(tx: RequestContext, event: PlatformEvent): Promise<string> {
  const eventId = uuidv7();
  await enqueueOutbox(tx, {
    queue: 'webhooks',
    topic: event.topic,
    aggregateType: 'webhook_event',
    aggregateId: eventId,
    payload: { eventId, topic: event.topic, occurredAt: new Date().toISOString(), data: event.data },
  });
  return eventId;
}
