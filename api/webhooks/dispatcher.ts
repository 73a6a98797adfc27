/**
 * Delivery of webhooks (docs/webhooks.md): fan-out of events to endpoints, and the dispatcher
 * that sends due deliveries with the retry table.
 *
 * - Fan-out (`webhookEventsHandler`, consumer of the `webhooks` queue in the jobs role): an event
 *   written by emitEvent becomes one delivery per enabled endpoint of the tenant subscribed to its
 *   topic (and existing when the event happened). The envelope `{topic, deliveryId, tenantId,
 *   occurredAt, data}` is serialised once here and stored: every attempt and replay sends these bytes.
 *   A (event, endpoint) pair gets one delivery however often the outbox hands the event over.
 * - Dispatcher (`WebhookDispatcher`, in the jobs role): claims due deliveries with FOR UPDATE SKIP
 *   LOCKED (several dispatchers share the work), keeping up to `concurrency` requests in flight (a slow
 *   receiver holds one slot, not a batch), signs each attempt with a fresh timestamp, POSTs it,
 *   and records the outcome in the same statement as the attempt row. Attempt 1 is immediate, attempt
 *   k+1 waits retryDelaysMs[k-1] after attempt k failed (30 s, 2 min, 10 min, 1 h by default); the
 *   fifth failure makes the delivery DEAD (the dead-letter queue). A claim expires after
 *   claimTimeoutMs, so a delivery held by a dispatcher that died is sent by another one: the receiver
 *   may then see it twice, with the same deliveryId (at-least-once).
 * All of it lives in PostgreSQL: restarting any process or Redis loses nothing.
 */
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import type { WebhookConfig } from '../../lib/config';
import type { DeliveryHandler } from '../../storage/consumers';
import type { WebhookEventPayload } from '../../storage/outbox-events';
import { uuidv7 } from '../../storage/ids';
import { openSecret, tenantTestSecret } from './secrets';
import { sendWebhook, type SendResult } from './sender';
import { DELIVERY_ID_HEADER, signatureHeader, SIGNATURE_HEADER, TOPIC_HEADER } from './signature';
import { calmLog } from '../../lib/calm-log';
import { webhookDeliveries } from '../../lib/metrics';

/** Delivery attempts before dead-letter (the specification's limit). */
export const MAX_ATTEMPTS = 5;

/** How long DELIVERED deliveries stay in the history (DEAD ones stay until replayed or their endpoint is deleted). */
export const DELIVERED_RETENTION_DAYS = 30;

const wakeups = new EventEmitter();
wakeups.setMaxListeners(0);

/** Tells the dispatchers of this process that deliveries became due (others find them at their next poll). */
export function wakeDispatchers(): void {
  wakeups.emit('due');
}

/** The webhook delivery envelope the specification defines, serialised in this key order. */
export function envelopeBody(
  topic: string,
  deliveryId: string,
  tenantId: string,
  occurredAt: string,
  data: Record<string, unknown>,
): string {
  return JSON.stringify({ topic, deliveryId, tenantId, occurredAt, data });
}

type EventPayload = Pick<WebhookEventPayload, 'eventId' | 'occurredAt' | 'data'> & { topic: string };

/** Creates the deliveries of one event; returns how many were new. */
export async function fanOutEvent(dataSource: DataSource, tenantId: string, event: EventPayload): Promise<number> {
  const endpoints: Array<{ id: string }> = await dataSource.query(
    `SELECT id FROM webhook_endpoints
      WHERE tenant_id = $1 AND enabled AND ($2 = ANY(topics) OR '*' = ANY(topics)) AND created_at <= $3::timestamptz
      ORDER BY id`,
    [tenantId, event.topic, event.occurredAt],
  );
  let created = 0;
  for (const endpoint of endpoints) {
    const deliveryId = uuidv7();
    const rows: unknown[] = await dataSource.query(
      `INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, event_id, topic, body, status, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'PENDING', now())
       ON CONFLICT (event_id, endpoint_id) WHERE endpoint_id IS NOT NULL DO NOTHING
       RETURNING id`,
      [
        deliveryId,
        tenantId,
        endpoint.id,
        event.eventId,
        event.topic,
        envelopeBody(event.topic, deliveryId, tenantId, event.occurredAt, event.data),
      ],
    );
    created += rows.length;
  }
  return created;
}

/** The `webhooks` queue consumer: fans each event of the job out to the subscribed endpoints. */
export function webhookEventsHandler(dataSource: DataSource): DeliveryHandler<'webhooks'> {
  return async (delivery) => {
    switch (delivery.aggregateType) {
      case 'webhook_event': {
        let created = 0;
        for (const message of delivery.messages) {
          const payload = message.payload;
          if (!delivery.tenantId || !payload?.eventId) continue;
          created += await fanOutEvent(dataSource, delivery.tenantId, payload);
        }
        if (created > 0) wakeDispatchers();
        return;
      }
      default: {
        // Every aggregate type of the queue is handled above; a row of an older version with another is acknowledged.
        const _exhaustive: never = delivery.aggregateType;
        void _exhaustive;
      }
    }
  };
}

interface Claimed {
  id: string;
  tenant_id: string;
  endpoint_id: string | null;
  url: string | null;
  topic: string;
  body: string;
  attempts: number;
  endpoint_url: string | null;
  secret_enc: string | null;
}

export interface DispatcherOptions extends WebhookConfig {
  appSecret: string;
}

export class WebhookDispatcher {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private wake: (() => void) | undefined;
  /** A wake-up that came while a pass was running: the next pass starts at once. */
  private woken = false;
  private passes = 0;
  /** Attempts in progress (the loop keeps up to `concurrency` of them, claiming as slots free up). */
  private readonly inFlight = new Set<Promise<void>>();
  private readonly onDue = (): void => {
    this.woken = true;
    this.wake?.();
  };

  constructor(
    private readonly dataSource: DataSource,
    private readonly options: DispatcherOptions,
    private readonly logger: Logger,
  ) {}

  /** One pass: claims up to `concurrency` due deliveries and attempts them all (waits for the outcomes). Returns how many. */
  async runOnce(): Promise<number> {
    const started = await this.claimAndStart(this.options.concurrency);
    await Promise.all(started);
    return started.length;
  }

  /** Claims up to `limit` due deliveries and starts their attempts; returns the attempts. */
  private async claimAndStart(limit: number): Promise<Array<Promise<void>>> {
    const token = randomUUID();
    const claimed: Claimed[] = await this.dataSource.query(
      `WITH due AS (
         SELECT d.id FROM webhook_deliveries d
           LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id
          WHERE d.status = 'PENDING' AND d.next_attempt_at <= now()
            AND (d.claimed_until IS NULL OR d.claimed_until < now())
            -- Development endpoints (svc-dev://…) are delivered by pull: webhook-forwarding.service.ts.
            AND (d.endpoint_id IS NULL OR (e.enabled AND e.url NOT LIKE 'svc-dev:%'))
          ORDER BY d.next_attempt_at, d.id
          LIMIT $1
          FOR UPDATE OF d SKIP LOCKED)
       , claimed AS (
         UPDATE webhook_deliveries d
            SET claimed_until = now() + make_interval(secs => $2 / 1000.0), claim_token = $3
           FROM due WHERE d.id = due.id
         RETURNING d.id, d.tenant_id, d.endpoint_id, d.url, d.topic, d.body, d.attempts)
       SELECT c.*, e.url AS endpoint_url, e.secret_enc FROM claimed c LEFT JOIN webhook_endpoints e ON e.id = c.endpoint_id`,
      [limit, this.options.claimTimeoutMs, token],
    );
    return claimed.map((row) => {
      const attempt: Promise<void> = this.attempt(row, token).finally(() => {
        this.inFlight.delete(attempt);
        this.onDue(); // a slot is free
      });
      this.inFlight.add(attempt);
      return attempt;
    });
  }

  /** Delivered deliveries are kept DELIVERED_RETENTION_DAYS for the history; older ones are deleted in small batches. */
  async pruneDelivered(retentionDays = DELIVERED_RETENTION_DAYS): Promise<number> {
    const rows: unknown[] = await this.dataSource.query(
      `WITH gone AS (
         DELETE FROM webhook_deliveries WHERE id IN (
           SELECT id FROM webhook_deliveries WHERE status = 'DELIVERED' AND delivered_at < now() - make_interval(days => $1) LIMIT 5000)
         RETURNING id)
       SELECT id FROM gone`,
      [retentionDays],
    );
    return rows.length;
  }

  private async attempt(row: Claimed, token: string): Promise<void> {
    let result: SendResult;
    try {
      const secret = row.secret_enc
        ? openSecret(this.options.appSecret, row.secret_enc)
        : await tenantTestSecret(this.dataSource, this.options.appSecret, row.tenant_id);
      const url = row.url ?? row.endpoint_url;
      if (!url) throw new Error('the delivery has no target URL');
      result = await sendWebhook(
        url,
        row.body,
        {
          'Content-Type': 'application/json',
          [TOPIC_HEADER]: row.topic,
          [DELIVERY_ID_HEADER]: row.id,
          [SIGNATURE_HEADER]: signatureHeader(secret, row.body),
        },
        { timeoutMs: this.options.timeoutMs, allowAddresses: this.options.allowAddresses },
      );
    } catch (error) {
      result = { ok: false, statusCode: null, error: `The delivery could not be prepared (${(error as Error).message}).`, durationMs: 0 };
    }
    try {
      await this.record(row, token, result);
    } catch (error) {
      // The claim expires and the delivery is attempted again (same deliveryId).
      calmLog(this.logger).warn(
        'webhooks:record',
        error,
        { deliveryId: row.id },
        'webhook attempt could not be recorded; it will be retried',
      );
    }
  }

  /** Records an attempt and moves the delivery on, fenced by the claim token (a stale dispatcher changes nothing). */
  private async record(row: Claimed, token: string, result: SendResult): Promise<void> {
    const attempts = row.attempts + 1;
    const status = result.ok ? 'DELIVERED' : attempts >= MAX_ATTEMPTS ? 'DEAD' : 'PENDING';
    const delayMs =
      status === 'PENDING'
        ? (this.options.retryDelaysMs[attempts - 1] ?? this.options.retryDelaysMs[this.options.retryDelaysMs.length - 1] ?? 0)
        : null;
    await this.dataSource.query(
      `WITH upd AS (
         UPDATE webhook_deliveries d
            SET status = $3, attempts = d.attempts + 1, total_attempts = d.total_attempts + 1,
                next_attempt_at = CASE WHEN $4::int IS NULL THEN NULL ELSE now() + make_interval(secs => $4::int / 1000.0) END,
                delivered_at = CASE WHEN $3 = 'DELIVERED' THEN now() ELSE d.delivered_at END,
                dead_at = CASE WHEN $3 = 'DEAD' THEN now() ELSE d.dead_at END,
                last_status_code = $5, last_error = $6, last_attempt_at = now(),
                claimed_until = NULL, claim_token = NULL, updated_at = now()
          WHERE d.id = $1 AND d.claim_token = $2 AND d.status = 'PENDING'
          RETURNING d.id, d.tenant_id, d.total_attempts),
       -- A dead-lettered delivery tells the merchant in-app (docs/messaging.md), once per delivery, in this statement.
       dead_notice AS (
         INSERT INTO merchant_notifications (id, tenant_id, topic, title, body, dedupe_key)
         SELECT gen_random_uuid(), tenant_id, 'webhooks.delivery_dead', 'A webhook delivery was dead-lettered',
                'A webhook delivery failed ' || total_attempts || ' times and was given up; replay it from the dead letters.', 'webhook_dead:' || id
           FROM upd WHERE $3 = 'DEAD'
         ON CONFLICT (tenant_id, dedupe_key) WHERE dedupe_key IS NOT NULL DO NOTHING)
       INSERT INTO webhook_attempts (tenant_id, delivery_id, number, outcome, status_code, error, duration_ms)
       SELECT tenant_id, id, total_attempts, $7, $5, $6, $8 FROM upd`,
      [
        row.id,
        token,
        status,
        delayMs,
        result.statusCode,
        result.error?.slice(0, 1000) ?? null,
        result.ok ? 'SUCCESS' : 'FAILURE',
        Math.max(0, Math.round(result.durationMs)),
      ],
    );
    webhookDeliveries.labels(status === 'DELIVERED' ? 'delivered' : status === 'DEAD' ? 'dead' : 'retry').inc();
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    wakeups.on('due', this.onDue);
    const loop = async (): Promise<void> => {
      if (this.stopped) return;
      this.woken = false;
      const free = this.options.concurrency - this.inFlight.size;
      let claimedAll = false;
      this.running = (async () => {
        if (free > 0) claimedAll = (await this.claimAndStart(free)).length === free;
        this.passes += 1;
        if (this.passes % 10_000 === 0) await this.pruneDelivered();
      })().catch((error) => calmLog(this.logger).warn('webhooks:pass', error, {}, 'webhook dispatcher pass failed; retrying'));
      await this.running;
      this.running = undefined;
      if (this.stopped) return;
      // More may be due (every slot was filled) or a wake-up came meanwhile: go on at once while slots
      // are free; otherwise wait for the poll interval, a wake-up, or a finished attempt.
      const again = (claimedAll || this.woken) && this.inFlight.size < this.options.concurrency;
      if (!again) {
        await new Promise<void>((resolve) => {
          this.wake = () => {
            this.wake = undefined;
            clearTimeout(this.timer);
            resolve();
          };
          this.timer = setTimeout(() => this.wake?.(), this.options.pollIntervalMs);
        });
      }
      void loop();
    };
    void loop();
  }

  /** Stops claiming; waits for the attempts in progress (their outcome is recorded). */
  async stop(): Promise<void> {
    this.stopped = true;
    wakeups.off('due', this.onDue);
    this.wake?.();
    await this.running;
    await Promise.all([...this.inFlight]);
  }
}
