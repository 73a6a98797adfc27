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
 *
 * What may be written is the union of storage/outbox-events.ts: enqueueOutbox for events built in
 * code, enqueueOutboxSelect for many rows of one kind in one INSERT … SELECT, and outboxCte for a
 * statement that makes a change and writes its rows together. Nothing else inserts into the table.
 */
import type BeeQueue from 'bee-queue';
import type { DataSource, EntityManager } from 'typeorm';
import type { RequestContext } from './request-context';
import { OutboxMessage } from './entities/outbox-message.entity';
import { uuidv7 } from './ids';
import { outboxDeliveryLag } from '../lib/metrics';
import type { QueueName } from './queues';
import type { OutboxDelivery, OutboxEvent, OutboxKind, ProductBatchEvent } from './outbox-events';

export type { OutboxDelivery, OutboxEvent, OutboxKind } from './outbox-events';

/** The channel the outbox trigger notifies when a transaction that wrote outbox rows commits. */
export const OUTBOX_CHANNEL = 'outbox_pending';

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

export function productBatchEvent(
  topic: ProductBatchEvent['topic'],
  productIds: string[],
  options: { final?: boolean } = {},
): ProductBatchEvent {
  return {
    queue: 'index',
    topic,
    aggregateType: PRODUCT_BATCH_AGGREGATE,
    aggregateId: uuidv7(),
    payload: { productIds, ...(options.final ? { final: true as const } : {}) },
  };
}

export const jobIdFor = (aggregateType: string, aggregateId: string): string => `${aggregateType}:${aggregateId}`;

/**
 * The in-transaction guard of every writer: a row written apart from its change could be delivered
 * for a change that rolled back, or be lost for one that committed. `db` is a request context or the
 * EntityManager of a transaction (dataSource.transaction).
 */
function requireTransaction(db: RequestContext | EntityManager, writer: string): EntityManager {
  if ('inTransaction' in db && 'manager' in db) {
    if (!db.inTransaction) throw new Error(`${writer} must run inside the transaction of the change (use inTransaction)`);
    return db.manager;
  }
  if (db.queryRunner?.isTransactionActive !== true)
    throw new Error(`${writer} must run inside the transaction of the change (use a transaction's EntityManager)`);
  return db;
}

/** Queue, topic and aggregate type go into SQL as literals: they come from the typed union, and are checked once more here. */
function sqlLiteral(value: string): string {
  if (!/^[a-z][a-z0-9_.]*$/.test(value)) throw new Error(`not an outbox literal: ${value}`);
  return `'${value}'`;
}

/**
 * The rows of one kind of event that an INSERT … SELECT writes, one row per row of `from`:
 * `tenantId` and `aggregateId` are SQL expressions over it, `payload` a jsonb expression (default
 * `'{}'::jsonb`) that must give the kind's payload shape (OutboxEvent), `from` the rest of the SELECT
 * (`FROM … WHERE … GROUP BY …`).
 */
export interface OutboxSelect {
  tenantId: string;
  aggregateId: string;
  payload?: string;
  from: string;
}

function insertSelectSql(kind: OutboxKind, select: OutboxSelect): string {
  return `INSERT INTO outbox (tenant_id, queue, topic, aggregate_type, aggregate_id, payload)
    SELECT ${select.tenantId}, ${sqlLiteral(kind.queue)}, ${sqlLiteral(kind.topic)}, ${sqlLiteral(kind.aggregateType)}, ${select.aggregateId}, ${select.payload ?? `'{}'::jsonb`} ${select.from}`;
}

/**
 * Adds outbox rows in the caller's transaction. Refuses to run outside one: a row written apart from
 * its change could be delivered for a change that rolled back, or be lost for one that committed.
 */
export async function enqueueOutbox(ctx: RequestContext, events: OutboxEvent | readonly OutboxEvent[]): Promise<void> {
  const manager = requireTransaction(ctx, 'enqueueOutbox');
  const list: readonly OutboxEvent[] = Array.isArray(events) ? events : [events as OutboxEvent];
  if (list.length === 0) return;
  await manager.insert(
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

/**
 * The bulk variant of enqueueOutbox: one INSERT … SELECT writes a row of `kind` per row the SELECT
 * gives (e.g. every product of a store, or an id list unnested from `$n::uuid[]`), in one statement
 * and in the caller's transaction (the same guard). `params` are the statement's parameters.
 * Returns how many rows were written.
 */
export async function enqueueOutboxSelect(
  db: RequestContext | EntityManager,
  kind: OutboxKind,
  select: OutboxSelect,
  params: unknown[] = [],
): Promise<number> {
  const manager = requireTransaction(db, 'enqueueOutboxSelect');
  const [row]: Array<{ written: number }> = await manager.query(
    `WITH written AS (${insertSelectSql(kind, select)} RETURNING 1) SELECT count(*)::int AS written FROM written`,
    params,
  );
  return row?.written ?? 0;
}

/**
 * The same INSERT … SELECT as a data-modifying CTE (`name AS (INSERT … RETURNING id)`), for a
 * statement that makes a change and writes its outbox rows together (e.g. ends sponsored listings
 * and tells their store). That statement is its own guard: PostgreSQL runs it atomically, so its rows
 * exist exactly when its change does, inside a transaction or not. Use it only in the statement of
 * the change; anything else goes through enqueueOutbox or enqueueOutboxSelect.
 */
export function outboxCte(name: string, kind: OutboxKind, select: OutboxSelect): string {
  return `${name} AS (
    ${insertSelectSql(kind, select)}
    RETURNING id)`;
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

export function outboxConsumer<Q extends QueueName>(
  dataSource: DataSource,
  queue: Q,
  settings: Pick<OutboxSettings, 'retryBaseMs' | 'retryMaxMs'>,
  handle: (delivery: OutboxDelivery<Q>) => Promise<void>,
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
        // The rows as stored: written through the typed writers by this version, or by an older one
        // (an aggregate type no longer written reaches the default branch of the consumer's switch).
        await handle({ queue, aggregateType, aggregateId, tenantId, messages: rows, signal } as unknown as OutboxDelivery<Q>);
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
      // Each row's age as it is done: commit → consumer finished (for the index queue, commit → searchable).
      const [done]: [Array<{ lag: number }>, number] = await dataSource.query(
        `UPDATE outbox SET status = 'done', done_at = now(), last_error = NULL WHERE id = ANY($1::bigint[]) AND status = 'in_flight'
         RETURNING EXTRACT(EPOCH FROM clock_timestamp() - created_at)::float8 AS lag`,
        [ids],
      );
      for (const row of done) outboxDeliveryLag.labels(queue).observe(Math.max(0, row.lag));
      messages += rows.length;
    }
    return { rounds, messages };
  };
}
