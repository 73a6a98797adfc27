/**
 * The outbox relay: claims due outbox rows (FOR UPDATE SKIP LOCKED, so any number of relays can run)
 * and hands them to their bee-queue queues with a job id derived from the aggregate, so a burst of
 * changes to one product becomes one job while it waits. See storage/outbox.ts for the life of a row.
 *
 * Besides its passes it makes rows due at once when a dependency is back (retryNow) and finds rows in
 * flight whose job is gone (sweepOrphans); every relay process is woken by the outbox trigger's
 * notifications (relay/outbox-wake.ts) and polls as a fallback.
 */
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { BACKOFF_SQL, jobIdFor, type OutboxJobData, type OutboxSettings } from '../storage/outbox';
import { withTimeout, type QueueName, type QueueRegistry } from '../storage/queues';
import { calmLog } from '../lib/calm-log';
import { OutboxWakeListener } from './outbox-wake';

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

export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private passes = 0;
  private wakeRequested = false;
  private listener: OutboxWakeListener | undefined;
  private lastSweep = Date.now();

  constructor(
    private readonly dataSource: DataSource,
    private readonly queues: QueueRegistry,
    private readonly settings: OutboxSettings,
    private readonly logger: Logger,
    private readonly relayId = `relay-${process.pid}`,
  ) {}

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
      inFlight = await this.claimAgainNow('claimed_at < $1', [downSince]);
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
    calmLog(this.logger).warn('relay:enqueue', error, {}, 'outbox rows could not be enqueued; they stay pending');
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
    const moved = await this.claimAgainNow('id = ANY($1::bigint[])', [orphans]);
    if (moved.length) this.logger.info({ rows: moved.length }, 'outbox rows in flight without a job are due again');
    return moved.length;
  }

  /** Puts in-flight rows matching `condition` back to pending, due now, for any relay to claim; returns their ids. */
  private claimAgainNow(condition: string, params: unknown[]): Promise<unknown[]> {
    return this.dataSource.query(
      `WITH due AS (
         UPDATE outbox SET status = 'pending', claimed_at = NULL, claimed_by = NULL, available_at = now()
          WHERE status = 'in_flight' AND ${condition} RETURNING id)
       SELECT id FROM due`,
      params,
    );
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
      .catch((error) => calmLog(this.logger).warn('relay:pass', error, {}, 'outbox relay pass failed; retrying'));
    await this.running;
    this.running = undefined;
    if (!this.stopped) this.timer = setTimeout(() => void this.loop(), busy || this.wakeRequested ? 0 : this.settings.pollIntervalMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.listener?.stop();
    this.listener = undefined;
    await this.running;
  }
}
