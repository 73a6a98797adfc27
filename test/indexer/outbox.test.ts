/**
 * The transactional outbox end to end against PostgreSQL and Redis: what commits is delivered once,
 * what rolls back never is, a crash between claim and acknowledgement is delivered again, and a
 * consumer failure leaves the row pending for a retry.
 */
import { expect } from 'chai';
import BeeQueue from 'bee-queue';
import type { DataSource } from 'typeorm';
import pino from 'pino';
import { testConfig, testRuntime } from '../helpers/harness';
import type { Runtime } from '../../app/runtime';
import { inTransaction, systemContext, type RequestContext } from '../../storage/request-context';
import { enqueueOutbox, jobIdFor, outboxConsumer, type OutboxDelivery, type OutboxEvent, type OutboxJobData } from '../../storage/outbox';
import { OutboxRelay } from '../../relay/outbox-relay';
import { QueueRegistry } from '../../storage/queues';
import { startConsumers } from '../../storage/consumers';
import { uuidv7 } from '../../storage/ids';
import { eventually, sleep } from '../helpers/wait';

const silent = pino({ level: 'silent' });
const TENANT = '0190a5f0-8b7c-7def-8123-456789abcdef';

interface Row {
  id: string;
  status: string;
  attempts: number;
  last_error: string | null;
  available_at: Date;
}

async function rowsOf(dataSource: DataSource, aggregateId: string): Promise<Row[]> {
  return dataSource.query('SELECT id, status, attempts, last_error, available_at FROM outbox WHERE aggregate_id = $1 ORDER BY id', [
    aggregateId,
  ]);
}

async function waitingJobs(queue: BeeQueue): Promise<BeeQueue.Job<OutboxJobData>[]> {
  return (await queue.getJobs('waiting', { start: 0, end: 1000 })) as BeeQueue.Job<OutboxJobData>[];
}

describe('transactional outbox', () => {
  let runtime: Runtime;
  let queues: QueueRegistry;
  let relay: OutboxRelay;
  let ctx: RequestContext;
  let prefix: string;
  const settings = { pollIntervalMs: 20, batchSize: 100, reclaimAfterMs: 300, retryBaseMs: 1_000, retryMaxMs: 60_000 };

  before(async () => {
    runtime = await testRuntime();
    prefix = testConfig().queuePrefix;
    ctx = systemContext(runtime.dataSource, 'test', TENANT);
  });

  beforeEach(async () => {
    await runtime.dataSource.query("DELETE FROM outbox WHERE status <> 'done' OR true");
    queues = new QueueRegistry({ redisUrl: runtime.config.redisUrl, isWorker: false, logger: silent, prefix });
    await queues.get('index').destroy();
    relay = new OutboxRelay(runtime.dataSource, queues, settings, silent, 'test-relay');
  });

  afterEach(async () => {
    await relay.stop();
    await queues.close(1_000);
  });

  const productEvent = (id: string): OutboxEvent => ({
    queue: 'index',
    topic: 'product.updated',
    aggregateType: 'product',
    aggregateId: id,
  });

  it('refuses to write outside the transaction of the change', async () => {
    let error: Error | undefined;
    await enqueueOutbox(ctx, productEvent(uuidv7())).catch((e: Error) => (error = e));
    expect(error?.message).to.match(/inside the transaction/);
  });

  it('a committed write yields exactly one job, keyed by its aggregate', async () => {
    const id = uuidv7();
    await inTransaction(ctx, (tx) => enqueueOutbox(tx, productEvent(id)));
    const result = await relay.runOnce();
    expect(result).to.deep.include({ claimed: 1, jobsAdded: 1, collapsed: 0, released: 0 });
    const jobs = await waitingJobs(queues.get('index'));
    expect(jobs.map((j) => j.id)).to.deep.equal([jobIdFor('product', id)]);
    expect(jobs[0]!.data).to.deep.equal({ aggregateType: 'product', aggregateId: id, tenantId: TENANT });
    expect((await rowsOf(runtime.dataSource, id)).map((r) => r.status)).to.deep.equal(['in_flight']);
    // A second pass finds nothing new to hand over.
    expect(await relay.runOnce()).to.deep.include({ claimed: 0, jobsAdded: 0 });
    expect(await waitingJobs(queues.get('index'))).to.have.length(1);
  });

  it('a rolled-back write yields no job and no row', async () => {
    const id = uuidv7();
    await inTransaction(ctx, async (tx) => {
      await enqueueOutbox(tx, productEvent(id));
      throw new Error('the change failed');
    }).catch(() => undefined);
    expect(await rowsOf(runtime.dataSource, id)).to.deep.equal([]);
    expect(await relay.runOnce()).to.deep.include({ claimed: 0, jobsAdded: 0 });
    expect(await waitingJobs(queues.get('index'))).to.deep.equal([]);
  });

  it('collapses a burst of changes to one aggregate into one job, and the consumer acknowledges them all', async () => {
    const id = uuidv7();
    for (let i = 0; i < 3; i += 1) await inTransaction(ctx, (tx) => enqueueOutbox(tx, productEvent(id)));
    expect(await relay.runOnce()).to.deep.include({ claimed: 3, jobsAdded: 1 });
    await inTransaction(ctx, (tx) => enqueueOutbox(tx, productEvent(id)));
    expect(await relay.runOnce()).to.deep.include({ claimed: 1, jobsAdded: 0, collapsed: 1 });
    expect(await waitingJobs(queues.get('index'))).to.have.length(1);

    const seen: OutboxDelivery[] = [];
    const consume = outboxConsumer(runtime.dataSource, 'index', settings, async (delivery) => {
      seen.push(delivery);
    });
    const [job] = await waitingJobs(queues.get('index'));
    expect(await consume(job!)).to.deep.equal({ rounds: 1, messages: 4 });
    expect(seen[0]!.messages).to.have.length(4);
    expect((await rowsOf(runtime.dataSource, id)).every((r) => r.status === 'done')).to.equal(true);
  });

  it('delivers again what a crash left between claim and acknowledgement', async () => {
    const id = uuidv7();
    await inTransaction(ctx, (tx) => enqueueOutbox(tx, productEvent(id)));
    await relay.runOnce();
    // The crash: the job vanishes with Redis (or a worker dies) before anyone acknowledged the row.
    await queues.get('index').removeJob(jobIdFor('product', id));
    expect(await waitingJobs(queues.get('index'))).to.deep.equal([]);
    expect((await rowsOf(runtime.dataSource, id))[0]!.status).to.equal('in_flight');
    // Not yet due: a row is reclaimed only after reclaimAfterMs.
    expect(await relay.runOnce()).to.deep.include({ claimed: 0 });
    await sleep(settings.reclaimAfterMs + 50); // time passes until the row is due again
    expect(await relay.runOnce()).to.deep.include({ claimed: 1, jobsAdded: 1 });
    const [job] = await waitingJobs(queues.get('index'));
    expect(job!.id).to.equal(jobIdFor('product', id));
    const row = (await rowsOf(runtime.dataSource, id))[0]!;
    expect(row).to.include({ status: 'in_flight', attempts: 2 });
  });

  it('leaves the row pending with a backoff and the reason when the consumer fails', async () => {
    const id = uuidv7();
    await inTransaction(ctx, (tx) => enqueueOutbox(tx, productEvent(id)));
    await relay.runOnce();
    const consume = outboxConsumer(runtime.dataSource, 'index', settings, async () => {
      throw new Error('Meilisearch is down');
    });
    const [job] = await waitingJobs(queues.get('index'));
    let failure: Error | undefined;
    await consume(job!).catch((e: Error) => (failure = e));
    expect(failure?.message).to.equal('Meilisearch is down');
    const row = (await rowsOf(runtime.dataSource, id))[0]!;
    expect(row).to.include({ status: 'pending', attempts: 1, last_error: 'Meilisearch is down' });
    const delayMs = new Date(row.available_at).getTime() - Date.now();
    expect(delayMs).to.be.within(500, settings.retryBaseMs + 50);
    // Not claimed again before the backoff ends.
    await queues.get('index').removeJob(job!.id);
    expect(await relay.runOnce()).to.deep.include({ claimed: 0 });
  });

  it('runs end to end with a worker: relay → queue → consumer → done', async () => {
    const id = uuidv7();
    const handled: string[] = [];
    const consumers = startConsumers(
      { dataSource: runtime.dataSource, redisUrl: runtime.config.redisUrl, logger: silent, outbox: settings, prefix },
      { index: { concurrency: 1, handle: async (d) => void handled.push(d.aggregateId) } },
    );
    try {
      relay.start();
      await inTransaction(ctx, (tx) => enqueueOutbox(tx, productEvent(id)));
      await eventually(async () => (await rowsOf(runtime.dataSource, id))[0]?.status === 'done', 'the row to be done');
      expect(handled).to.deep.equal([id]);
    } finally {
      await relay.stop();
      await consumers.stop(2_000);
    }
  });

  it('is woken by the commit of outbox rows instead of waiting for its poll, also after its listening connection was cut', async () => {
    const slow = new OutboxRelay(runtime.dataSource, queues, { ...settings, pollIntervalMs: 120_000 }, silent, 'listening-relay');
    const claimed = (id: string): Promise<true> =>
      eventually(async () => (await rowsOf(runtime.dataSource, id))[0]?.status === 'in_flight', `the relay to claim ${id}`, 3_000);
    /** The backend of the relay's listener once it has issued LISTEN (undefined before). */
    const listener = async (): Promise<number | undefined> =>
      (
        await runtime.dataSource.query(
          "SELECT pid FROM pg_stat_activity WHERE application_name = 'commerce-outbox-listener' AND datname = current_database() AND state = 'idle' AND query LIKE 'LISTEN %'",
        )
      )[0]?.pid;
    // The relay keeps its pass count and timer private; the test reads them to know when it is quiet.
    const internals = slow as unknown as { passes: number; running?: Promise<void>; timer?: NodeJS.Timeout };
    /** At least `passes` passes done, and between two: none running, the next one only at the poll (120 s) or at a notification. */
    const quietAfter = (passes: number): boolean =>
      internals.passes >= passes && internals.running === undefined && internals.timer !== undefined;
    slow.start({ listenUrl: runtime.config.databaseUrl });
    try {
      // The pass at start and the one after LISTEN find nothing; from then on only a notification can wake it within the test.
      const listening = await eventually(async () => quietAfter(2) && (await listener()), 'the relay to listen and be quiet');
      const first = uuidv7();
      await inTransaction(ctx, (tx) => enqueueOutbox(tx, productEvent(first)));
      await claimed(first);

      // A write that rolls back wakes nobody and leaves nothing.
      const rolledBack = uuidv7();
      await inTransaction(ctx, async (tx) => {
        await enqueueOutbox(tx, productEvent(rolledBack));
        throw new Error('roll back');
      }).catch(() => undefined);
      expect(await rowsOf(runtime.dataSource, rolledBack)).to.deep.equal([]);

      // The listening connection is cut: the listener reconnects and the next commit still wakes the relay.
      const passes = internals.passes;
      await runtime.dataSource.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'commerce-outbox-listener' AND datname = current_database()",
      );
      // The listener reconnects (after a second) and wakes the relay once, for rows committed while it was away.
      await eventually(
        async () => ((await listener()) ?? listening) !== listening && quietAfter(passes + 1),
        'the listener to reconnect and the relay to be quiet',
        5_000,
      );
      const second = uuidv7();
      await inTransaction(ctx, (tx) => enqueueOutbox(tx, productEvent(second)));
      await claimed(second);
    } finally {
      await slow.stop();
    }
  });

  it('keeps rows pending when Redis cannot be reached, and hands them over once it can', async () => {
    const id = uuidv7();
    await inTransaction(ctx, (tx) => enqueueOutbox(tx, productEvent(id)));
    const unreachable = new QueueRegistry({ redisUrl: 'redis://127.0.0.1:1', isWorker: false, logger: silent, prefix });
    const brokenRelay = new OutboxRelay(runtime.dataSource, unreachable, { ...settings, retryBaseMs: 1 }, silent, 'broken');
    try {
      expect(await brokenRelay.runOnce()).to.deep.include({ claimed: 1, released: 1 });
    } finally {
      await unreachable.close(100);
    }
    const row = (await rowsOf(runtime.dataSource, id))[0]!;
    expect(row.status).to.equal('pending');
    expect(row.last_error).to.match(/timed out|ECONNREFUSED/);
    await eventually(
      async () => (await runtime.dataSource.query('SELECT available_at <= now() AS due FROM outbox WHERE id = $1', [row.id]))[0].due,
      'the retry to be due',
    );
    expect(await relay.runOnce()).to.deep.include({ claimed: 1, jobsAdded: 1 });
  });
});
