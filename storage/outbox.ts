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
import type { Logger } from 'pino';
import type { RequestContext } from './request-context';
import { OutboxMessage } from './entities/outbox-message.entity';
import { uuidv7 } from './ids';
import { withTimeout, type QueueName, type QueueRegistry } from './queues';
import { OUTBOX_CHANNEL, OutboxWakeListener } from './outbox-wake';
import { CalmLog } from './calm-log';

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

interface ClaimedRow {
  id: string;
  queue: QueueName;
  aggregate_type: string;
  aggregate_id: string;
  tenant_id: string | null;
  /** The row was in flight already (its claim expired): its job may be stuck behind a dead worker. */
  reclaimed: boolean;
}

export interface RelayResult {
  claimed: number;
  jobsAdded: number;
  collapsed: number;
  released: number;
  /** Reclaimed rows whose job was still held: a stall check was run on their queue. */
  stallChecks: number;
}

/** How often a relay looks for rows in flight whose job is gone (see sweepOrphans). */
const ORPHAN_SWEEP_INTERVAL_MS = 2_000;
/** How long a row may be in flight before its job is looked for (enqueueing takes a moment). */
const ORPHAN_GRACE_MS = 3_000;

/** Groups of claimed rows handed to the queues at the same time by one relay pass. */
const ENQUEUE_CONCURRENCY = 32;

/** Runs `work` on every item, at most `limit` at a time. */
async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** SQL for "now() + the backoff of this row's attempts": base · 2^(attempts−1), capped. */
const BACKOFF_SQL = `now() + make_interval(secs => LEAST($2::float8, $1::float8 * power(2, LEAST(GREATEST(attempts - 1, 0), 30))) / 1000.0)`;

export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private passes = 0;
  private wakeRequested = false;
  private listener: OutboxWakeListener | undefined;
  private readonly calm: CalmLog;
  private lastSweep = Date.now();

  constructor(
    private readonly dataSource: DataSource,
    private readonly queues: QueueRegistry,
    private readonly settings: OutboxSettings,
    private readonly logger: Logger,
    private readonly relayId = `relay-${process.pid}`,
  ) {
    this.calm = new CalmLog(logger);
  }

  /**
   * Makes waiting rows due now, for when a dependency that was down is back: the backoff of rows
   * that failed meanwhile is dropped, and rows claimed before `downSince` that are still in flight
   * (their job failed or vanished with the outage) are claimed again instead of after
   * `reclaimAfterMs`. So catching up takes as long as the work, not as long as the outage was.
   * Rows still in flight for a live job are re-delivered into that job, which covers them anyway.
   */
  async retryNow(downSince?: Date): Promise<{ pending: number; inFlight: number }> {
    const pending: unknown[] = await this.dataSource.query(
      `WITH due AS (UPDATE outbox SET available_at = now() WHERE status = 'pending' AND available_at > now() RETURNING id) SELECT id FROM due`,
    );
    let inFlight: unknown[] = [];
    if (downSince) {
      inFlight = await this.dataSource.query(
        `WITH due AS (
           UPDATE outbox SET status = 'pending', claimed_at = NULL, claimed_by = NULL, available_at = now()
            WHERE status = 'in_flight' AND claimed_at < $1 RETURNING id)
         SELECT id FROM due`,
        [downSince],
      );
    }
    this.wake();
    return { pending: pending.length, inFlight: inFlight.length };
  }

  /** One pass: claim due rows, hand them to their queues, release the ones that could not be handed over. */
  async runOnce(): Promise<RelayResult> {
    const claimed: ClaimedRow[] = await this.dataSource.query(
      // Wrapped in a SELECT so the driver returns the rows (an UPDATE answers [rows, count]).
      `WITH due AS (
         SELECT id, status = 'in_flight' AS reclaimed FROM outbox
          WHERE (status = 'pending' AND available_at <= now())
             OR (status = 'in_flight' AND claimed_at < now() - make_interval(secs => $2 / 1000.0))
          ORDER BY id
          LIMIT $1
          FOR UPDATE SKIP LOCKED)
       , claimed AS (
         UPDATE outbox o
            SET status = 'in_flight', claimed_at = now(), claimed_by = $3, attempts = o.attempts + 1
           FROM due WHERE o.id = due.id
         RETURNING o.id, o.queue, o.aggregate_type, o.aggregate_id, o.tenant_id, due.reclaimed)
       SELECT * FROM claimed ORDER BY id`,
      [this.settings.batchSize, this.settings.reclaimAfterMs, this.relayId],
    );
    const result: RelayResult = { claimed: claimed.length, jobsAdded: 0, collapsed: 0, released: 0, stallChecks: 0 };
    const stallChecked = new Set<QueueName>();
    const groups = new Map<string, ClaimedRow[]>();
    for (const row of claimed) {
      const key = `${row.queue}\u0000${jobIdFor(row.aggregate_type, row.aggregate_id)}`;
      groups.set(key, [...(groups.get(key) ?? []), row]);
    }
    const unqueued: string[] = [];
    let firstError: unknown;
    // Groups are handed over ENQUEUE_CONCURRENCY at a time: the queue's connection pipelines their
    // commands, so a backlog (thousands of rows due at once after an outage) moves in a few round trips.
    await eachLimited([...groups.values()], ENQUEUE_CONCURRENCY, async (rows) => {
      const first = rows[0]!;
      const data: OutboxJobData = { aggregateType: first.aggregate_type, aggregateId: first.aggregate_id, tenantId: first.tenant_id };
      try {
        const queue = this.queues.get(first.queue);
        const id = jobIdFor(data.aggregateType, data.aggregateId);
        let job = await withTimeout(queue.createJob(data).setId(id).save(), 5_000, `enqueue on ${first.queue}`);
        if (job.id === null) {
          // The id may belong to a failed job kept for the jobs console: this delivery supersedes it.
          const held = await withTimeout(queue.getJob(id), 5_000, `look up ${id} on ${first.queue}`);
          if (held?.status === 'failed') {
            await withTimeout(queue.removeJob(id), 5_000, `remove failed ${id} on ${first.queue}`);
            job = await withTimeout(queue.createJob(data).setId(id).save(), 5_000, `enqueue on ${first.queue}`);
          }
        }
        // A null id means a job for this aggregate is already queued: it will cover these rows too.
        if (job.id === null) {
          result.collapsed += 1;
          // Rows re-delivered after their claim expired, while their job is still held: that job may
          // belong to a worker that died. A stall check hands such a job back to the waiting list
          // now (a job whose worker is alive keeps being refreshed and stays where it is).
          if (rows.some((r) => r.reclaimed) && !stallChecked.has(first.queue)) {
            stallChecked.add(first.queue);
            result.stallChecks += 1;
            await withTimeout(queue.checkStalledJobs(), 5_000, `stall check on ${first.queue}`).catch(() => undefined);
          }
        } else result.jobsAdded += 1;
      } catch (error) {
        firstError ??= error;
        unqueued.push(...rows.map((r) => r.id));
      }
    });
    if (unqueued.length) {
      result.released += unqueued.length;
      await this.release(unqueued, firstError);
    }
    this.passes += 1;
    if (this.passes % 1_000 === 0) await this.pruneDone();
    return result;
  }

  private async release(ids: string[], error: unknown): Promise<void> {
    this.calm.warn('relay:enqueue', error, {}, 'outbox rows could not be enqueued; they stay pending');
    await this.dataSource.query(
      `UPDATE outbox SET status = 'pending', claimed_at = NULL, claimed_by = NULL, last_error = $3, available_at = ${BACKOFF_SQL}
        WHERE id = ANY($4::bigint[]) AND status = 'in_flight'`,
      [this.settings.retryBaseMs, this.settings.retryMaxMs, String((error as Error)?.message ?? error).slice(0, 2000), ids],
    );
  }

  /**
   * Finds rows in flight for longer than ORPHAN_GRACE_MS whose job is gone from its queue (or kept
   * there as failed), and makes them due again at once. Such rows have nobody to deliver them: their
   * job was lost with a Redis that restarted without it, or they were merged into a job for the same
   * aggregate in the moment that job finished, or their consumer failed while PostgreSQL was away and
   * could not say so. Without this they would wait for the reclaim after `reclaimAfterMs`. A job
   * that exists and is not failed (waiting, or running however long) keeps its rows.
   */
  async sweepOrphans(): Promise<number> {
    const rows: Array<{ id: string; queue: QueueName; aggregate_type: string; aggregate_id: string }> = await this.dataSource.query(
      `SELECT id, queue, aggregate_type, aggregate_id FROM outbox
        WHERE status = 'in_flight' AND claimed_at < now() - make_interval(secs => $1 / 1000.0)
        ORDER BY claimed_at LIMIT 1000`,
      [ORPHAN_GRACE_MS],
    );
    if (!rows.length) return 0;
    const jobs = new Map<string, { queue: QueueName; id: string; rows: string[] }>();
    for (const row of rows) {
      const id = jobIdFor(row.aggregate_type, row.aggregate_id);
      const key = `${row.queue}\u0000${id}`;
      const entry = jobs.get(key) ?? { queue: row.queue, id, rows: [] };
      entry.rows.push(row.id);
      jobs.set(key, entry);
    }
    const orphans: string[] = [];
    await eachLimited([...jobs.values()], ENQUEUE_CONCURRENCY, async (job) => {
      const held = await withTimeout(this.queues.get(job.queue).getJob(job.id), 5_000, `look up ${job.id} on ${job.queue}`);
      if (!held || held.status === 'failed') orphans.push(...job.rows);
    });
    if (!orphans.length) return 0;
    const moved: unknown[] = await this.dataSource.query(
      `WITH due AS (
         UPDATE outbox SET status = 'pending', claimed_at = NULL, claimed_by = NULL, available_at = now()
          WHERE id = ANY($1::bigint[]) AND status = 'in_flight' RETURNING id)
       SELECT id FROM due`,
      [orphans],
    );
    if (moved.length) this.logger.info({ rows: moved.length }, 'outbox rows in flight without a job are due again');
    return moved.length;
  }

  /** Keeps a week of delivered rows for inspection; older ones are deleted in small batches. */
  async pruneDone(retentionDays = 7): Promise<number> {
    const rows: unknown[] = await this.dataSource.query(
      `WITH deleted AS (
         DELETE FROM outbox WHERE id IN (SELECT id FROM outbox WHERE status = 'done' AND done_at < now() - make_interval(days => $1) LIMIT 5000) RETURNING id)
       SELECT id FROM deleted`,
      [retentionDays],
    );
    return rows.length;
  }

  /**
   * Starts polling. With `listenUrl` (the database URL) it also listens for the outbox trigger's
   * notifications and runs a pass as soon as a transaction that wrote outbox rows commits.
   */
  start(options: { listenUrl?: string } = {}): void {
    if (!this.stopped) return;
    this.stopped = false;
    if (options.listenUrl) {
      this.listener = new OutboxWakeListener(options.listenUrl, () => this.wake(), this.logger);
      void this.listener.start();
    }
    void this.loop();
  }

  /** Runs a pass now, or right after the one in progress, instead of at the next poll. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.wakeRequested = true;
      return;
    }
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      void this.loop();
    }
  }

  private async loop(): Promise<void> {
    if (this.stopped) return;
    this.timer = undefined;
    this.wakeRequested = false;
    let busy = false;
    this.running = this.runOnce()
      .then(async (r) => {
        busy = r.claimed >= this.settings.batchSize;
        if (Date.now() - this.lastSweep >= ORPHAN_SWEEP_INTERVAL_MS) {
          this.lastSweep = Date.now();
          await this.sweepOrphans();
        }
      })
      .catch((error) => this.calm.warn('relay:pass', error, {}, 'outbox relay pass failed; retrying'));
    await this.running;
    this.running = undefined;
    if (!this.stopped) this.timer = setTimeout(() => void this.loop(), busy || this.wakeRequested ? 0 : this.settings.pollIntervalMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.calm.close();
    if (this.timer) clearTimeout(this.timer);
    await this.listener?.stop();
    this.listener = undefined;
    await this.running;
  }
}

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
