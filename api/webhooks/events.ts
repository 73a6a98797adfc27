/**
 * Platform events for webhooks (docs/webhooks.md). An operation that causes an event calls
 * emitEvent inside its transaction: the event is an outbox row on the `webhooks` queue, so it exists
 * exactly when the change committed, survives restarts of every process and of Redis, and is fanned
 * out to the tenant's subscribed endpoints by the webhooks consumer (one delivery per endpoint, each
 * with its own deliveryId and retry schedule).
 */
import { enqueueOutbox } from '../../storage/outbox';
import type { WebhookTopic } from '../../storage/outbox-events';
import { uuidv7 } from '../../storage/ids';
import type { RequestContext } from '../../storage/request-context';

/** The topic catalog: defined with the outbox events it travels as (storage/outbox-events.ts). */
export { WEBHOOK_TOPICS, type WebhookTopic } from '../../storage/outbox-events';

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
