/**
 * The transactional outbox (after Ghost's process-outbox job).
 *
 * Life of a row: a service writes it with enqueueOutbox() inside the transaction of the change
 * ('pending'). The relay claims due rows with FOR UPDATE SKIP LOCKED ('in_flight') and hands them to
 * bee-queue with a job id derived from the aggregate, so a burst of changes to one product becomes
 * one job while it waits. The consumer re-reads current state, and only when it succeeds are the rows
 * it covered marked 'done'. A consumer failure puts them back to 'pending' with exponential backoff;
 * rows left 'in_flight' by a crash (of the relay, Redis or a worker) are claimed again after
 * `reclaimAfterMs`. So nothing committed is lost and nothing rolled back is ever delivered.
 */
import type BeeQueue from 'bee-queue';
import type { DataSource } from 'typeorm';
import type { RequestContext } from './request-context';
import { OutboxMessage } from './entities/outbox-message.entity';
import { uuidv7 } from './ids';
import type { QueueName } from './queues';

/** The channel the outbox trigger notifies when a transaction that wrote outbox rows commits. */
export const OUTBOX_CHANNEL = 'outbox_pending';

export interface OutboxEvent {
  queue: QueueName;
  /** What happened, e.g. `product.updated`. */
  topic: string;
  aggregateType: string;
  aggregateId: string;
  payload?: Record<string, unknown>;
}

export interface OutboxSettings {
  pollIntervalMs: number;
  batchSize: number;
  reclaimAfterMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
}

/** The data of a bee-queue job made by the relay: which aggregate changed. */
export interface OutboxJobData {
  aggregateType: string;
  aggregateId: string;
  tenantId: string | null;
}

/** What a consumer gets: the aggregate and the outbox rows this run covers. */
export interface OutboxDelivery extends OutboxJobData {
  queue: QueueName;
  messages: Array<{ id: string; topic: string; payload: Record<string, unknown> }>;
  /**
   * Aborted when the worker is shutting down. A long handler (an import, an export, a bulk edit)
   * checks it between its committed steps and throws DeliveryReleased to hand the rest of its work
   * back; short handlers may ignore it (they finish within the shutdown timeout).
   */
  signal?: AbortSignal;
}

/**
 * Thrown by a handler that stopped early, after committing what it did, because its worker is
 * shutting down. Its rows go back to 'pending', due at once and without counting as a failed
 * attempt, so another worker (or this one after its restart) resumes the work right away.
 */
export class DeliveryReleased extends Error {
  constructor(what = 'the worker is shutting down') {
    super(`released: ${what}`);
    this.name = 'DeliveryReleased';
  }
}

/** Throws DeliveryReleased when the delivery's worker is shutting down; call it between committed steps. */
export function releaseIfStopping(delivery: Pick<OutboxDelivery, 'signal'>): void {
  if (delivery.signal?.aborted) throw new DeliveryReleased();
}

/**
 * Hands rows of a released delivery back: pending, due now, the attempt not counted, and the relays
 * woken. Called once the delivery's job is gone from its queue, so the relay can enqueue it anew.
 */
export async function releaseRows(dataSource: DataSource, ids: string[]): Promise<void> {
  if (!ids.length) return;
  await dataSource.query(
    `UPDATE outbox SET status = 'pending', claimed_at = NULL, claimed_by = NULL, available_at = now(), attempts = GREATEST(attempts - 1, 0), last_error = 'released by a worker that shut down'
      WHERE id = ANY($1::bigint[]) AND status = 'in_flight'`,
    [ids],
  );
  await dataSource.query(`SELECT pg_notify('${OUTBOX_CHANNEL}', '')`);
}

/**
 * Many products changed by one write (an import batch): one `index` row whose payload lists them,
 * delivered as one job, so the indexer reads and writes them together. Its aggregate id is new for
 * every batch; products changed again later get their own `product` rows as usual. `final` marks the
 * last batch of an import: nothing more follows, so the indexer writes it without waiting for more.
 */
export const PRODUCT_BATCH_AGGREGATE = 'product_batch';

export function productBatchEvent(topic: string, productIds: string[], options: { final?: boolean } = {}): OutboxEvent {
  return { queue: 'index', topic, aggregateType: PRODUCT_BATCH_AGGREGATE, aggregateId: uuidv7(), payload: { productIds, ...(options.final ? { final: true } : {}) } };
}

export const jobIdFor = (aggregateType: string, aggregateId: string): string => `${aggregateType}:${aggregateId}`;

/**
 * Adds outbox rows in the caller's transaction. Refuses to run outside one: a row written apart from
 * its change could be delivered for a change that rolled back, or be lost for one that committed.
 */
export async function enqueueOutbox(ctx: RequestContext, events: OutboxEvent | OutboxEvent[]): Promise<void> {
  if (!ctx.inTransaction) throw new Error('enqueueOutbox must run inside the transaction of the change (use inTransaction)');
  const list = Array.isArray(events) ? events : [events];
  if (list.length === 0) return;
  await ctx.manager.insert(
    OutboxMessage,
    list.map((event) => ({
      tenantId: ctx.tenantId ?? null,
      queue: event.queue,
      topic: event.topic,
      aggregateType: event.aggregateType,
      aggregateId: event.aggregateId,
      payload: (event.payload ?? {}) as never,
    })),
  );
}

/** SQL for "now() + the backoff of this row's attempts": base · 2^(attempts−1), capped; $1 base ms, $2 cap ms. */
export const BACKOFF_SQL = `now() + make_interval(secs => LEAST($2::float8, $1::float8 * power(2, LEAST(GREATEST(attempts - 1, 0), 30))) / 1000.0)`;

/**
 * Wraps a consumer for bee-queue: gathers the in-flight rows of the job's aggregate, runs `handle`,
 * and marks exactly those rows done on success or pending-with-backoff on failure. Rows that arrive
 * while it runs (their job collapsed into this one) are covered by another round.
 */
export interface ConsumerResult {
  rounds: number;
  messages: number;
  /** Rows of a delivery released at shutdown (see DeliveryReleased). */
  released?: string[];
}

export function outboxConsumer(
  dataSource: DataSource,
  queue: QueueName,
  settings: Pick<OutboxSettings, 'retryBaseMs' | 'retryMaxMs'>,
  handle: (delivery: OutboxDelivery) => Promise<void>,
  maxRounds = 5,
): (job: BeeQueue.Job<OutboxJobData>, signal?: AbortSignal) => Promise<ConsumerResult> {
  return async (job, signal) => {
    const { aggregateType, aggregateId, tenantId } = job.data;
    let messages = 0;
    let rounds = 0;
    for (; rounds < maxRounds; rounds += 1) {
      const rows: Array<{ id: string; topic: string; payload: Record<string, unknown> }> = await dataSource.query(
        `SELECT id, topic, payload FROM outbox
          WHERE queue = $1 AND aggregate_type = $2 AND aggregate_id = $3 AND status = 'in_flight'
          ORDER BY id`,
        [queue, aggregateType, aggregateId],
      );
      if (rows.length === 0) break;
      const ids = rows.map((r) => r.id);
      try {
        await handle({ queue, aggregateType, aggregateId, tenantId, messages: rows, signal });
      } catch (error) {
        // Stopped early by a shutdown: the rows stay in flight until the job has left the queue,
        // then the caller hands them back (releaseRows), so the relay can enqueue the job anew.
        if (error instanceof DeliveryReleased) return { rounds, messages, released: ids };
        await dataSource.query(
          `UPDATE outbox SET status = 'pending', claimed_at = NULL, claimed_by = NULL, last_error = $3, available_at = ${BACKOFF_SQL}
            WHERE id = ANY($4::bigint[]) AND status = 'in_flight'`,
          [settings.retryBaseMs, settings.retryMaxMs, String((error as Error)?.message ?? error).slice(0, 2000), ids],
        );
        throw error;
      }
      await dataSource.query(`UPDATE outbox SET status = 'done', done_at = now(), last_error = NULL WHERE id = ANY($1::bigint[]) AND status = 'in_flight'`, [ids]);
      messages += rows.length;
    }
    return { rounds, messages };
  };
}
