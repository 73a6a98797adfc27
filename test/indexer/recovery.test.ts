/**
 * Recovery of the queues and the outbox from faults, without a person restarting anything:
 * - Redis forgets bee-queue's scripts (SCRIPT FLUSH, or a restart of a private Redis): enqueueing
 *   and consuming go on;
 * - a worker dies holding a job: another worker runs it within the stall bound;
 * - a worker shuts down in the middle of a long delivery: the delivery is handed back, due at once,
 *   and another worker finishes it;
 * - a dependency comes back: rows that waited on it (backed off, or left in flight) are due at once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'chai';
import Redis from 'ioredis';
import pino from 'pino';
import { testConfig, testRuntime } from '../helpers/harness';
import type { Runtime } from '../../app/runtime';
import { inTransaction, systemContext, type RequestContext } from '../../storage/request-context';
import { DeliveryReleased, enqueueOutbox, type OutboxDelivery, type OutboxEvent } from '../../storage/outbox';
import { OutboxRelay } from '../../relay/outbox-relay';
import { QueueRegistry } from '../../storage/queues';
import { startConsumers, type DeliveryHandler } from '../../storage/consumers';
import { scriptReloads } from '../../storage/queue-scripts';
import { uuidv7 } from '../../storage/ids';
import { catchUpWhenBack } from '../../relay/catch-up';
import type { DependencyChange } from '../../storage/dependency-monitor';
import { eventually } from '../helpers/wait';
import { freePort } from '../helpers/ports';

const silent = pino({ level: 'silent' });
const TENANT = '0190a5f0-8b7c-7def-8123-456789abcdf0';
const settings = { pollIntervalMs: 20, batchSize: 100, reclaimAfterMs: 60_000, retryBaseMs: 1_000, retryMaxMs: 300_000 };

/** A Redis of this test's own (no persistence), so killing it disturbs nobody else. */
class PrivateRedis {
  private child?: ChildProcess;
  port = 0;

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (!this.port) this.port = await freePort();
    this.child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    const client = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined);
    await eventually(
      async () =>
        (await client
          .connect()
          .then(() => client.ping())
          .catch(() => '')) === 'PONG',
      'the private Redis to answer',
      10_000,
    );
    client.disconnect();
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }
}

describe('recovery of queues and outbox', function () {
  this.timeout(60_000);
  let runtime: Runtime;
  let ctx: RequestContext;

  before(async () => {
    runtime = await testRuntime();
    ctx = systemContext(runtime.dataSource, 'test', TENANT);
  });

  afterEach(async () => {
    await runtime.dataSource.query("UPDATE outbox SET status = 'done', done_at = now() WHERE tenant_id = $1 AND status <> 'done'", [
      TENANT,
    ]);
  });

  /** A probe row of an aggregate type no consumer knows (like a row of an older version): past the event union on purpose. */
  const write = (aggregateId: string, queue: 'index' | 'jobs' = 'index') =>
    inTransaction(ctx, (tx) =>
      enqueueOutbox(tx, {
        queue,
        topic: 'product.updated',
        aggregateType: 'recovery_probe',
        aggregateId,
        payload: {},
      } as unknown as OutboxEvent),
    );
  const statusOf = async (aggregateId: string): Promise<string[]> =>
    (
      (await runtime.dataSource.query('SELECT status FROM outbox WHERE aggregate_id = $1 ORDER BY id', [aggregateId])) as Array<{
        status: string;
      }>
    ).map((r) => r.status);

  /** A relay and a consumer of `index` on `redisUrl`, under a fresh prefix. */
  function pipeline(redisUrl: string, handle: DeliveryHandler, stallIntervalMs = 1_000) {
    const prefix = testConfig().queuePrefix;
    const queues = new QueueRegistry({ redisUrl, isWorker: false, logger: silent, prefix, stallIntervalMs });
    const relay = new OutboxRelay(runtime.dataSource, queues, settings, silent, `relay-${prefix}`);
    const consumers = startConsumers(
      { dataSource: runtime.dataSource, redisUrl, logger: silent, outbox: settings, prefix, stallIntervalMs },
      { index: { handle, concurrency: 1 } },
    );
    return {
      prefix,
      queues,
      relay,
      consumers,
      async close() {
        await relay.stop();
        await consumers.stop(1_000);
        await queues.close(1_000);
      },
    };
  }

  it('goes on enqueueing and consuming after Redis forgot the queue scripts (SCRIPT FLUSH)', async () => {
    const seen: string[] = [];
    const p = pipeline(runtime.config.redisUrl, async (d) => void seen.push(d.aggregateId));
    const flusher = new Redis(runtime.config.redisUrl);
    try {
      const first = uuidv7();
      await write(first);
      await p.relay.runOnce();
      await eventually(() => seen.includes(first), 'the first delivery');
      await flusher.script('FLUSH');
      const reloadsBefore = scriptReloads.count;
      const second = uuidv7();
      await write(second);
      const result = await p.relay.runOnce();
      expect(result).to.deep.include({ jobsAdded: 1, released: 0 });
      await eventually(() => seen.includes(second), 'the delivery after SCRIPT FLUSH');
      await eventually(async () => (await statusOf(second)).every((s) => s === 'done'), 'the row marked done');
      expect(scriptReloads.count).to.be.greaterThan(reloadsBefore);
    } finally {
      flusher.disconnect();
      await p.close();
    }
  });

  it('goes on after its Redis is killed and started again (new connections, scripts loaded again)', async () => {
    const redis = new PrivateRedis();
    await redis.start();
    const seen: string[] = [];
    const p = pipeline(redis.url, async (d) => void seen.push(d.aggregateId));
    try {
      const before = uuidv7();
      await write(before);
      await p.relay.runOnce();
      await eventually(() => seen.includes(before), 'a delivery before the restart');
      await redis.kill();
      await redis.start();
      const after = uuidv7();
      await write(after);
      // The producer reconnects within a second or two; until then the relay releases and retries.
      await eventually(
        async () => {
          await runtime.dataSource.query("UPDATE outbox SET available_at = now() WHERE aggregate_id = $1 AND status = 'pending'", [after]);
          await p.relay.runOnce();
          return seen.includes(after);
        },
        'a delivery after the restart',
        20_000,
      );
      await eventually(async () => (await statusOf(after)).every((s) => s === 'done'), 'the row marked done');
    } finally {
      await p.close();
      await redis.kill();
    }
  });

  it('hands the job of a worker that died to another worker within twice the stall interval', async () => {
    const aggregateId = uuidv7();
    const prefix = testConfig().queuePrefix;
    const stallIntervalMs = 1_000;
    const queues = new QueueRegistry({ redisUrl: runtime.config.redisUrl, isWorker: false, logger: silent, prefix, stallIntervalMs });
    const relay = new OutboxRelay(runtime.dataSource, queues, settings, silent, 'relay-stall');
    const deps = {
      dataSource: runtime.dataSource,
      redisUrl: runtime.config.redisUrl,
      logger: silent,
      outbox: settings,
      prefix,
      stallIntervalMs,
    };
    let taken = false;
    // The first worker takes the job and never finishes it; then it "dies": its connections close
    // without the job being finished, so the job stays active in Redis with nobody refreshing it.
    const dying = startConsumers(deps, { index: { handle: () => ((taken = true), new Promise<never>(() => undefined)), concurrency: 1 } });
    let survivor: ReturnType<typeof startConsumers> | undefined;
    try {
      await write(aggregateId);
      await relay.runOnce();
      await eventually(() => taken, 'the first worker to take the job');
      await dying.stop(100).catch(() => undefined);
      const handled: string[] = [];
      survivor = startConsumers(deps, { index: { handle: async (d) => void handled.push(d.aggregateId), concurrency: 1 } });
      // Marked stalled at one check, handed on at the next: about two intervals (plus timer slack on a busy machine).
      await eventually(() => handled.includes(aggregateId), 'another worker to run the job', 3 * stallIntervalMs + 1_000);
      await eventually(async () => (await statusOf(aggregateId)).every((s) => s === 'done'), 'the row marked done');
    } finally {
      await survivor?.stop(1_000);
      await relay.stop();
      await queues.close(1_000);
    }
  });

  it('hands a long delivery back at shutdown, due at once and not counted as a failure, and another worker finishes it', async () => {
    const aggregateId = uuidv7();
    const steps: string[] = [];
    const stoppable: DeliveryHandler = async (delivery: OutboxDelivery) => {
      steps.push('started');
      // A long job: works in steps until it is told the worker is stopping.
      await new Promise<void>((resolve) => delivery.signal!.addEventListener('abort', () => resolve(), { once: true }));
      steps.push('released');
      throw new DeliveryReleased();
    };
    const first = pipeline(runtime.config.redisUrl, stoppable);
    const [{ attempts: attemptsBefore }] = await (async () => {
      await write(aggregateId);
      await first.relay.runOnce();
      await eventually(() => steps.includes('started'), 'the job to start');
      return runtime.dataSource.query('SELECT attempts FROM outbox WHERE aggregate_id = $1', [aggregateId]) as Promise<
        Array<{ attempts: number }>
      >;
    })();
    const stoppedAt = Date.now();
    await first.consumers.stop(5_000);
    expect(Date.now() - stoppedAt, 'stopped without waiting for the shutdown timeout').to.be.below(2_000);
    const [row]: Array<{ status: string; attempts: number; due: boolean; last_error: string }> = await runtime.dataSource.query(
      'SELECT status, attempts, available_at <= now() AS due, last_error FROM outbox WHERE aggregate_id = $1',
      [aggregateId],
    );
    expect(row).to.deep.include({ status: 'pending', attempts: attemptsBefore - 1, due: true });
    expect(row!.last_error).to.match(/released/);
    await first.relay.stop();
    await first.queues.close(1_000);

    const finished: string[] = [];
    const second = pipeline(runtime.config.redisUrl, async (d) => void finished.push(d.aggregateId));
    try {
      await second.relay.runOnce();
      await eventually(() => finished.includes(aggregateId), 'another worker to finish the delivery');
      await eventually(async () => (await statusOf(aggregateId)).every((s) => s === 'done'), 'the row marked done');
    } finally {
      await second.close();
    }
  });

  it('makes rows in flight whose job is gone (or failed) due again within seconds, and leaves rows whose job waits or runs', async () => {
    const prefix = testConfig().queuePrefix;
    const queues = new QueueRegistry({ redisUrl: runtime.config.redisUrl, isWorker: false, logger: silent, prefix });
    const relay = new OutboxRelay(runtime.dataSource, queues, settings, silent, 'relay-orphans');
    const lost = uuidv7();
    const failed = uuidv7();
    const waiting = uuidv7();
    const recent = uuidv7();
    try {
      for (const id of [lost, failed, waiting, recent]) await write(id);
      await runtime.dataSource.query(
        "UPDATE outbox SET status = 'in_flight', claimed_at = now() - interval '10 seconds', claimed_by = 'gone' WHERE aggregate_id = ANY($1)",
        [[lost, failed, waiting]],
      );
      await runtime.dataSource.query(
        "UPDATE outbox SET status = 'in_flight', claimed_at = now(), claimed_by = 'just now' WHERE aggregate_id = $1",
        [recent],
      );
      const index = queues.get('index');
      await index
        .createJob({ aggregateType: 'recovery_probe', aggregateId: waiting, tenantId: TENANT })
        .setId(`recovery_probe:${waiting}`)
        .save();
      const failedJob = await index
        .createJob({ aggregateType: 'recovery_probe', aggregateId: failed, tenantId: TENANT })
        .setId(`recovery_probe:${failed}`)
        .save();
      // A job kept as failed (its consumer failed while PostgreSQL was away, so its rows stayed in flight).
      const client = (index as unknown as { client: { hset(...args: unknown[]): void; sadd(...args: unknown[]): void } }).client;
      await new Promise<void>((resolve, reject) =>
        client.hset(
          `${prefix}:index:jobs`,
          failedJob.id,
          JSON.stringify({ data: failedJob.data, options: failedJob.options, status: 'failed' }),
          (e: Error | null) => (e ? reject(e) : resolve()),
        ),
      );
      // Rows of other test files may be swept too (one database for the whole run): ours are checked one by one.
      expect(await relay.sweepOrphans()).to.be.at.least(2);
      expect(await statusOf(lost)).to.deep.equal(['pending']);
      expect(await statusOf(failed)).to.deep.equal(['pending']);
      expect(await statusOf(waiting)).to.deep.equal(['in_flight']);
      expect(await statusOf(recent)).to.deep.equal(['in_flight']);
    } finally {
      await relay.stop();
      await queues.get('index').destroy();
      await queues.close(1_000);
    }
  });

  it('makes rows that waited on a dependency due the moment it is back, however long it was gone', async () => {
    const prefix = testConfig().queuePrefix;
    const queues = new QueueRegistry({ redisUrl: runtime.config.redisUrl, isWorker: false, logger: silent, prefix });
    const relay = new OutboxRelay(runtime.dataSource, queues, settings, silent, 'relay-catch-up');
    const backedOff = uuidv7();
    const leftInFlight = uuidv7();
    const claimedLater = uuidv7();
    try {
      await write(backedOff);
      await write(leftInFlight);
      await write(claimedLater);
      const downSince = new Date(Date.now() - 60_000);
      // What an outage leaves: a row backed off for minutes, a row whose job died with the outage
      // (in flight, claimed before it began) and a row claimed after it began (a live job's).
      await runtime.dataSource.query(
        "UPDATE outbox SET attempts = 8, available_at = now() + interval '5 minutes' WHERE aggregate_id = $1",
        [backedOff],
      );
      await runtime.dataSource.query(
        "UPDATE outbox SET status = 'in_flight', claimed_at = now() - interval '2 minutes', claimed_by = 'gone' WHERE aggregate_id = $1",
        [leftInFlight],
      );
      await runtime.dataSource.query(
        "UPDATE outbox SET status = 'in_flight', claimed_at = now(), claimed_by = 'alive' WHERE aggregate_id = $1",
        [claimedLater],
      );
      const listeners: DependencyChange[] = [];
      const monitor = { onChange: (listener: DependencyChange) => void listeners.push(listener) };
      catchUpWhenBack({ monitor: monitor as never, logger: silent }, relay);
      for (const listener of listeners)
        listener(
          'meilisearch',
          { up: true, since: new Date(), durationMs: 1 },
          { up: false, since: downSince, durationMs: 700, error: 'down' },
        );
      await eventually(async () => {
        const rows: Array<{ aggregate_id: string; status: string; due: boolean }> = await runtime.dataSource.query(
          'SELECT aggregate_id, status, available_at <= now() AS due FROM outbox WHERE aggregate_id = ANY($1)',
          [[backedOff, leftInFlight]],
        );
        return rows.length === 2 && rows.every((r) => r.status === 'pending' && r.due);
      }, 'the waiting rows to be due');
      expect(await statusOf(claimedLater)).to.deep.equal(['in_flight']);
    } finally {
      await relay.stop();
      await queues.close(1_000);
    }
  });
});
