/**
 * Deliveries seen from the API: history per endpoint, one delivery with its attempts, the dead-letter
 * queue, replay (one, or all dead letters), and the webhook tester (POST /webhooks/test).
 * Callers: owners and admins, or API keys with the webhooks scopes (requireWebhookAdmin), as for
 * endpoint management.
 */
import { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { NotFoundError } from '../../lib/errors';
import { UUID_PATTERN } from '../http/schema-types';
import { envelopeBody, wakeDispatchers } from './dispatcher';
import { loadEndpoint, normaliseEndpointUrl, requireWebhookAdmin } from './endpoints.service';
import { sampleEventData } from './samples';
import { tenantTestSecret } from './secrets';
import { webhooksError } from './webhooks.errors';
import type { WebhookTestDto } from './webhooks.schemas';
import type { InputOf } from '../http/typed-schema';

export interface WebhookDeliveryView {
  id: string;
  endpointId: string | null;
  eventId: string;
  topic: string;
  url: string | null;
  test: boolean;
  status: WebhookDelivery['status'];
  attempts: number;
  totalAttempts: number;
  replays: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  deliveredAt: string | null;
  deadAt: string | null;
  createdAt: string;
}

const isoOrNull = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function deliveryView(d: WebhookDelivery, endpointUrl?: string | null): WebhookDeliveryView {
  return {
    id: d.id,
    endpointId: d.endpointId,
    eventId: d.eventId,
    topic: d.topic,
    url: d.url ?? endpointUrl ?? null,
    test: d.isTest,
    status: d.status,
    attempts: d.attempts,
    totalAttempts: d.totalAttempts,
    replays: d.replays,
    nextAttemptAt: isoOrNull(d.nextAttemptAt),
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    lastAttemptAt: isoOrNull(d.lastAttemptAt),
    deliveredAt: isoOrNull(d.deliveredAt),
    deadAt: isoOrNull(d.deadAt),
    createdAt: d.createdAt.toISOString(),
  };
}

const deliveryNotFound = (): NotFoundError => webhooksError('webhook_delivery_not_found', 'The webhook delivery does not exist.');

function checkCursor(cursor: string | undefined): void {
  if (cursor !== undefined && !UUID_PATTERN.test(cursor))
    throw webhooksError('invalid_cursor', 'The cursor is not valid.', [{ path: 'query.cursor', message: 'cursor is invalid' }]);
}

type Page = { items: WebhookDeliveryView[]; nextCursor: string | null };

async function page(
  ctx: RequestContext,
  filter: { endpointId?: string; status?: string },
  cursor: string | undefined,
  limit: number,
): Promise<Page> {
  checkCursor(cursor);
  const qb = tenantRepository(ctx, WebhookDelivery).createQueryBuilder('d');
  if (filter.endpointId !== undefined) qb.andWhere('d.endpointId = :endpointId', { endpointId: filter.endpointId });
  if (filter.status !== undefined) qb.andWhere('d.status = :status', { status: filter.status });
  if (cursor !== undefined) qb.andWhere('d.id < :cursor', { cursor });
  const rows = await qb
    .orderBy('d.id', 'DESC')
    .take(limit + 1)
    .getMany();
  const items = rows.slice(0, limit);
  const endpointIds = [...new Set(items.map((d) => d.endpointId).filter((id): id is string => id !== null))];
  const urls = new Map<string, string>();
  if (endpointIds.length) {
    const endpoints = await tenantRepository(ctx, WebhookEndpoint)
      .createQueryBuilder('e')
      .andWhere('e.id IN (:...ids)', { ids: endpointIds })
      .getMany();
    for (const e of endpoints) urls.set(e.id, e.url);
  }
  return {
    items: items.map((d) => deliveryView(d, d.endpointId ? urls.get(d.endpointId) : null)),
    nextCursor: rows.length > limit ? items[items.length - 1]!.id : null,
  };
}

export interface ListDeliveriesQuery {
  status?: WebhookDelivery['status'];
  cursor?: string;
  limit: number;
}

/** The deliveries of one endpoint, newest first. */
export async function listEndpointDeliveries(ctx: RequestContext, endpointId: string, query: ListDeliveriesQuery): Promise<Page> {
  requireWebhookAdmin(ctx);
  await loadEndpoint(ctx, endpointId);
  return page(ctx, { endpointId, status: query.status }, query.cursor, query.limit);
}

export interface ListDeadLettersQuery {
  endpointId?: string;
  cursor?: string;
  limit: number;
}

/** The dead-letter queue: deliveries whose fifth attempt failed, newest first. */
export async function listDeadLetters(ctx: RequestContext, query: ListDeadLettersQuery): Promise<Page> {
  requireWebhookAdmin(ctx);
  if (query.endpointId !== undefined) await loadEndpoint(ctx, query.endpointId);
  return page(ctx, { endpointId: query.endpointId, status: 'DEAD' }, query.cursor, query.limit);
}

async function loadDelivery(ctx: RequestContext, id: string, forWrite = false): Promise<WebhookDelivery> {
  const delivery = await tenantRepository(ctx, WebhookDelivery, deliveryNotFound).findOne({
    where: { id },
    ...(forWrite ? { lock: { mode: 'pessimistic_write' as const } } : {}),
  });
  if (!delivery) throw deliveryNotFound();
  return delivery;
}

async function endpointUrl(ctx: RequestContext, delivery: WebhookDelivery): Promise<string | null> {
  if (!delivery.endpointId) return null;
  return (await tenantRepository(ctx, WebhookEndpoint).findOneBy({ id: delivery.endpointId }))?.url ?? null;
}

export interface WebhookDeliveryDetail extends WebhookDeliveryView {
  payload: Record<string, unknown>;
  history: Array<{
    number: number;
    outcome: 'SUCCESS' | 'FAILURE';
    statusCode: number | null;
    error: string | null;
    durationMs: number;
    attemptedAt: string;
  }>;
}

/** One delivery with the envelope it sends and every attempt. */
export async function getDelivery(ctx: RequestContext, id: string): Promise<WebhookDeliveryDetail> {
  requireWebhookAdmin(ctx);
  const delivery = await loadDelivery(ctx, id);
  const attempts = await tenantRepository(ctx, WebhookAttempt).find({ where: { deliveryId: delivery.id }, order: { id: 'ASC' } });
  return {
    ...deliveryView(delivery, await endpointUrl(ctx, delivery)),
    payload: JSON.parse(delivery.body) as Record<string, unknown>,
    history: attempts.map((a) => ({
      number: a.number,
      outcome: a.outcome,
      statusCode: a.statusCode,
      error: a.error,
      durationMs: a.durationMs,
      attemptedAt: a.attemptedAt.toISOString(),
    })),
  };
}

const REPLAY = {
  status: 'PENDING' as const,
  attempts: 0,
  nextAttemptAt: () => 'now()',
  claimedUntil: null,
  claimToken: null,
  deadAt: null,
};

/**
 * Sends a DEAD (or DELIVERED) delivery again: same deliveryId and bytes, a new round of five
 * attempts on the retry table. A PENDING one is already being delivered (409).
 */
export async function replayDelivery(ctx: RequestContext, id: string): Promise<WebhookDeliveryView> {
  requireWebhookAdmin(ctx);
  const view = await inTransaction(ctx, async (tx) => {
    const delivery = await loadDelivery(tx, id, true);
    if (delivery.status === 'PENDING')
      throw webhooksError('webhook_delivery_pending', 'The delivery is still pending; it is attempted on its schedule.');
    await tenantRepository(tx, WebhookDelivery).update({ id: delivery.id }, {
      ...REPLAY,
      replays: () => 'replays + 1',
      updatedAt: new Date(),
    } as never);
    await recordAudit(tx, {
      action: 'webhook_delivery.replay',
      resourceType: 'webhook_delivery',
      resourceId: delivery.id,
      before: { status: delivery.status },
      after: { status: 'PENDING' },
    });
    return deliveryView(await loadDelivery(tx, id), await endpointUrl(tx, delivery));
  });
  wakeDispatchers();
  return view;
}

/** Dead letters replayed by one call at most; `remaining` tells whether to call again. */
export const REPLAY_ALL_BATCH = 1000;

/** Replays the dead-letter queue (of one endpoint, or all), up to REPLAY_ALL_BATCH deliveries per call. */
export async function replayDeadLetters(
  ctx: RequestContext,
  body: { endpointId?: string },
): Promise<{ replayed: number; remaining: number }> {
  requireWebhookAdmin(ctx);
  const result = await inTransaction(ctx, async (tx) => {
    if (body.endpointId !== undefined) await loadEndpoint(tx, body.endpointId);
    const qb = tenantRepository(tx, WebhookDelivery).createQueryBuilder('d').andWhere("d.status = 'DEAD'");
    if (body.endpointId !== undefined) qb.andWhere('d.endpointId = :endpointId', { endpointId: body.endpointId });
    const dead = await qb.orderBy('d.id', 'ASC').limit(REPLAY_ALL_BATCH).setLock('pessimistic_write').setOnLocked('skip_locked').getMany();
    for (const delivery of dead) {
      await tenantRepository(tx, WebhookDelivery).update({ id: delivery.id }, {
        ...REPLAY,
        replays: () => 'replays + 1',
        updatedAt: new Date(),
      } as never);
      await recordAudit(tx, {
        action: 'webhook_delivery.replay',
        resourceType: 'webhook_delivery',
        resourceId: delivery.id,
        before: { status: 'DEAD' },
        after: { status: 'PENDING' },
      });
    }
    const left = tenantRepository(tx, WebhookDelivery).createQueryBuilder('d').andWhere("d.status = 'DEAD'");
    if (body.endpointId !== undefined) left.andWhere('d.endpointId = :endpointId', { endpointId: body.endpointId });
    return { replayed: dead.length, remaining: await left.getCount() };
  });
  if (result.replayed > 0) wakeDispatchers();
  return result;
}

export type WebhookTestInput = InputOf<typeof WebhookTestDto>;

export interface WebhookTestResult {
  deliveryId: string;
  eventId: string;
  topic: string;
  endpoint: string;
  endpointId: string | null;
  signedWith: 'ENDPOINT_SECRET' | 'TEST_SECRET';
  testSecret: string | null;
  payload: Record<string, unknown>;
}

/**
 * The webhook tester: a delivery of a sample event of `topic` to `endpoint`, sent by the dispatcher
 * exactly like a production delivery (headers, signature, retry table, dead letter, replay). When the
 * URL is an enabled endpoint of the tenant it is signed with that endpoint's secret and listed in its
 * history; otherwise with the tenant's test secret, which the answer shows.
 */
export async function sendTestEvent(ctx: RequestContext, body: WebhookTestInput): Promise<WebhookTestResult> {
  requireWebhookAdmin(ctx);
  const url = normaliseEndpointUrl(ctx, body.endpoint, 'body.endpoint');
  const result = await inTransaction(ctx, async (tx) => {
    const endpoint = await tenantRepository(tx, WebhookEndpoint).findOneBy({ url, enabled: true });
    const appSecret = servicesOf(tx).config.appSecret;
    const testSecret = endpoint ? null : await tenantTestSecret(tx.manager, appSecret, tx.tenantId!);
    const deliveryId = uuidv7();
    const eventId = uuidv7();
    const occurredAt = new Date().toISOString();
    const bodyText = envelopeBody(body.topic, deliveryId, tx.tenantId!, occurredAt, sampleEventData(body.topic));
    await tx.manager.insert(WebhookDelivery, {
      id: deliveryId,
      tenantId: tx.tenantId!,
      endpointId: endpoint?.id ?? null,
      eventId,
      topic: body.topic,
      url,
      isTest: true,
      body: bodyText,
      status: 'PENDING',
      nextAttemptAt: () => 'now()',
    } as never);
    await recordAudit(tx, {
      action: 'webhook_delivery.test',
      resourceType: 'webhook_delivery',
      resourceId: deliveryId,
      after: { topic: body.topic, url, endpointId: endpoint?.id ?? null },
    });
    return {
      deliveryId,
      eventId,
      topic: body.topic,
      endpoint: url,
      endpointId: endpoint?.id ?? null,
      signedWith: endpoint ? ('ENDPOINT_SECRET' as const) : ('TEST_SECRET' as const),
      testSecret,
      payload: JSON.parse(bodyText) as Record<string, unknown>,
    };
  });
  wakeDispatchers();
  return result;
}
