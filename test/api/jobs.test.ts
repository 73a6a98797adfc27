/**
 * The jobs console on the real bee-queue queues (the test run's own QUEUE_PREFIX) with a real
 * consumer (storage/consumers.ts): counts, job lists, a paused queue holding its jobs until resumed,
 * retry re-running a failed job, delete, and access for platform admins only.
 */
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { bearer, expectProblem, signUp } from '../helpers/accounts';
import { RETRY, silentLogger } from '../helpers/indexing';
import { eventually, sleep } from '../helpers/wait';
import { startConsumers, type RunningConsumers } from '../../storage/consumers';
import { uuidv7 } from '../../storage/ids';
import { OutboxRelay } from '../../relay/outbox-relay';

const QUEUE = 'export';
const AGGREGATE = 'jobs_console_test';

describe('jobs console', function () {
  this.timeout(60_000);
  let server: TestServer;
  let admin: Record<string, string>;
  let consumers: RunningConsumers;
  const handled: string[] = [];
  const failOnce = new Set<string>();
  const ids: string[] = [];

  // Registered before apiSuite's hooks, so it runs first (mocha runs `after` hooks in the order they
  // were registered), while the server still answers the resume.
  after(async () => {
    await call(server, 'POST', `/api/v1/jobs/queues/${QUEUE}/resume`, { headers: admin });
    await consumers.stop(2_000);
    await server.runtime.dataSource.query(
      "UPDATE outbox SET status = 'done', done_at = now() WHERE aggregate_type = $1 AND status <> 'done'",
      [AGGREGATE],
    );
  });
  apiSuite((started) => (server = started));

  before(async () => {
    const user = await signUp(server);
    await server.runtime.dataSource.query("UPDATE users SET platform_role = 'platform_admin' WHERE id = $1", [user.userId]);
    admin = bearer(user.accessToken);
    consumers = startConsumers(
      {
        dataSource: server.runtime.dataSource,
        redisUrl: server.runtime.config.redisUrl,
        logger: silentLogger,
        outbox: { ...RETRY, retryBaseMs: 600_000 },
        prefix: server.runtime.config.queuePrefix,
      },
      {
        [QUEUE]: {
          concurrency: 1,
          handle: async (delivery) => {
            handled.push(delivery.aggregateId);
            if (failOnce.delete(delivery.aggregateId)) throw new Error(`boom for ${delivery.aggregateId}`);
          },
        },
      },
    );
  });

  /**
   * What the outbox relay does for one aggregate: an in-flight row and a bee-queue job keyed by the
   * aggregate. `failOnce`: the consumer throws on the job's first run.
   */
  async function enqueue(options: { failOnce?: boolean } = {}): Promise<string> {
    const id = uuidv7();
    if (options.failOnce) failOnce.add(id);
    ids.push(id);
    await server.runtime.dataSource.query(
      "INSERT INTO outbox (queue, topic, aggregate_type, aggregate_id, status, claimed_at, claimed_by, attempts) VALUES ($1, 'test.run', $2, $3, 'in_flight', now(), 'test', 1)",
      [QUEUE, AGGREGATE, id],
    );
    await server.runtime.queues
      .get(QUEUE)
      .createJob({ aggregateType: AGGREGATE, aggregateId: id, tenantId: null })
      .setId(`${AGGREGATE}:${id}`)
      .save();
    return id;
  }

  const rowStatus = async (id: string): Promise<string> =>
    (await server.runtime.dataSource.query('SELECT status FROM outbox WHERE aggregate_id = $1', [id]))[0].status;
  const queue = async () => (await call(server, 'GET', `/api/v1/jobs/queues/${QUEUE}`, { headers: admin })).json;
  /** The workers read the paused flag through a cache: after a pause, time must pass before none takes a job. */
  const PAUSE_SEEN_MS = 700;

  it('lists every queue with its counts, and one queue', async () => {
    const res = await call(server, 'GET', '/api/v1/jobs/queues', { headers: admin });
    expect(res.status, res.text).to.equal(200);
    expect(res.json.items.map((q: { name: string }) => q.name)).to.deep.equal(['index', 'vision', 'jobs', 'webhooks', 'import', 'export']);
    for (const item of res.json.items) {
      expect(item.paused).to.be.a('boolean');
      expect(Object.keys(item.counts)).to.have.members(['waiting', 'active', 'succeeded', 'failed', 'delayed']);
    }
    const one = await call(server, 'GET', '/api/v1/jobs/queues/index', { headers: admin });
    expect(one.status).to.equal(200);
    expect(one.json).to.deep.include({ name: 'index', paused: false });
    expectProblem(await call(server, 'GET', '/api/v1/jobs/queues/nope', { headers: admin }), 404, 'queue_not_found');
    expectProblem(await call(server, 'GET', '/api/v1/jobs/queues/Bad_Name', { headers: admin }), 400, 'validation_failed');
    expectProblem(await call(server, 'GET', '/api/v1/jobs/queues/index/jobs?limit=101', { headers: admin }), 400, 'validation_failed');
    expectProblem(await call(server, 'GET', '/api/v1/jobs/queues/index/jobs?limit=0', { headers: admin }), 400, 'validation_failed');
  });

  it('runs jobs, and a paused queue holds its jobs until it is resumed, losing none', async () => {
    const first = await enqueue();
    await eventually(async () => (await rowStatus(first)) === 'done', 'the first job', 10_000);
    expect((await queue()).counts.succeeded).to.be.at.least(1);

    const paused = await call(server, 'POST', `/api/v1/jobs/queues/${QUEUE}/pause`, { headers: admin });
    expect(paused.status, paused.text).to.equal(200);
    expect(paused.json.paused).to.equal(true);
    expect((await call(server, 'POST', `/api/v1/jobs/queues/${QUEUE}/pause`, { headers: admin })).json.paused).to.equal(true);
    await sleep(PAUSE_SEEN_MS);
    const held = [await enqueue(), await enqueue(), await enqueue()];
    // Time passes with jobs waiting: none may run while the queue is paused.
    await sleep(1_500);
    expect(handled.filter((id) => held.includes(id))).to.deep.equal([]);
    const during = await queue();
    expect(during.paused).to.equal(true);
    expect(during.counts.waiting + during.counts.active).to.equal(3);
    const listed = await call(server, 'GET', `/api/v1/jobs/queues/${QUEUE}/jobs?limit=10`, { headers: admin });
    expect(listed.status).to.equal(200);
    expect(listed.json.items.map((j: { aggregateId: string }) => j.aggregateId)).to.have.members(held);
    expect(listed.json.items[0]).to.include.keys('id', 'status', 'aggregateType', 'createdAt', 'error');
    const limited = await call(server, 'GET', `/api/v1/jobs/queues/${QUEUE}/jobs?limit=2`, { headers: admin });
    expect(limited.json.items).to.have.length(2);
    for (const id of held) expect(await rowStatus(id)).to.equal('in_flight');

    const resumed = await call(server, 'POST', `/api/v1/jobs/queues/${QUEUE}/resume`, { headers: admin });
    expect(resumed.json.paused).to.equal(false);
    await eventually(async () => (await Promise.all(held.map(rowStatus))).every((s) => s === 'done'), 'the held jobs', 10_000);
    expect(handled.filter((id) => held.includes(id))).to.have.members(held);
    const after = await queue();
    expect(after.counts).to.include({ waiting: 0, active: 0 });
  });

  it('keeps a failed job, and retry runs it again', async () => {
    const id = await enqueue({ failOnce: true });
    const jobId = `${AGGREGATE}:${id}`;
    await eventually(async () => (await queue()).counts.failed >= 1, 'the failure', 10_000);
    expect(await rowStatus(id)).to.equal('pending');
    const listed = await call(server, 'GET', `/api/v1/jobs/queues/${QUEUE}/jobs?limit=100`, { headers: admin });
    const failed = listed.json.items.find((j: { id: string }) => j.id === jobId);
    expect(failed).to.deep.include({ status: 'failed', aggregateType: AGGREGATE, aggregateId: id });
    expect(failed.error).to.match(/boom for/);

    const retried = await call(server, 'POST', `/api/v1/jobs/queues/${QUEUE}/jobs/${encodeURIComponent(jobId)}/retry`, { headers: admin });
    expect(retried.status, retried.text).to.equal(200);
    expect(retried.json).to.deep.include({ id: jobId, status: 'waiting' });
    await eventually(async () => (await rowStatus(id)) === 'done', 'the retried job', 10_000);
    expect(handled.filter((h) => h === id)).to.have.length(2);
    expect((await queue()).counts.failed).to.equal(0);
    expectProblem(
      await call(server, 'POST', `/api/v1/jobs/queues/${QUEUE}/jobs/${encodeURIComponent(jobId)}/retry`, { headers: admin }),
      404,
      'job_not_found',
    );
  });

  it('lets the outbox relay replace a failed job when it delivers the rows again', async () => {
    const id = await enqueue({ failOnce: true });
    const jobId = `${AGGREGATE}:${id}`;
    await eventually(async () => (await rowStatus(id)) === 'pending', 'the failure', 10_000);
    expect((await server.runtime.queues.get(QUEUE).getJob(jobId))?.status).to.equal('failed');
    // The back-off is over: the relay claims the row again and must not collapse it into the failed job.
    await server.runtime.dataSource.query('UPDATE outbox SET available_at = now() WHERE aggregate_id = $1', [id]);
    const relay = new OutboxRelay(
      server.runtime.dataSource,
      server.runtime.queues,
      { pollIntervalMs: 20, batchSize: 1_000, reclaimAfterMs: 600_000, retryBaseMs: 600_000, retryMaxMs: 600_000 },
      silentLogger,
      'jobs-console-test',
    );
    for (let pass = 0; pass < 50 && (await rowStatus(id)) === 'pending'; pass += 1) await relay.runOnce();
    await eventually(async () => (await rowStatus(id)) === 'done', 'the redelivered job', 10_000);
    expect(handled.filter((h) => h === id)).to.have.length(2);
    // bee-queue removes a succeeded job just after its handler returned (the row is marked done inside the handler).
    await eventually(async () => (await server.runtime.queues.get(QUEUE).getJob(jobId)) === null, 'the succeeded job to be removed', 5_000);
  });

  it('refuses to retry a job that has not failed, and deletes jobs', async () => {
    await call(server, 'POST', `/api/v1/jobs/queues/${QUEUE}/pause`, { headers: admin });
    await sleep(PAUSE_SEEN_MS);
    const blocker = await enqueue();
    const waiting = await enqueue();
    const jobId = `${AGGREGATE}:${waiting}`;
    const jobIds = async (): Promise<string[]> =>
      (await call(server, 'GET', `/api/v1/jobs/queues/${QUEUE}/jobs?limit=100`, { headers: admin })).json.items.map(
        (j: { id: string }) => j.id,
      );
    await eventually(async () => (await jobIds()).includes(jobId), 'the waiting job to be listed');
    expectProblem(
      await call(server, 'POST', `/api/v1/jobs/queues/${QUEUE}/jobs/${encodeURIComponent(jobId)}/retry`, { headers: admin }),
      409,
      'job_not_failed',
    );
    const removed = await call(server, 'DELETE', `/api/v1/jobs/queues/${QUEUE}/jobs/${encodeURIComponent(jobId)}`, { headers: admin });
    expect(removed.status, removed.text).to.equal(200);
    expect(removed.json).to.deep.include({ removed: true });
    expect(removed.json.job.id).to.equal(jobId);
    expectProblem(
      await call(server, 'DELETE', `/api/v1/jobs/queues/${QUEUE}/jobs/${encodeURIComponent(jobId)}`, { headers: admin }),
      404,
      'job_not_found',
    );
    const listed = await call(server, 'GET', `/api/v1/jobs/queues/${QUEUE}/jobs?limit=100`, { headers: admin });
    expect(listed.json.items.map((j: { id: string }) => j.id)).to.not.include(jobId);
    // Its outbox row is not dropped: it stays in flight for the relay to deliver again.
    expect(await rowStatus(waiting)).to.equal('in_flight');
    await call(server, 'POST', `/api/v1/jobs/queues/${QUEUE}/resume`, { headers: admin });
    await eventually(async () => (await rowStatus(blocker)) === 'done', 'the blocker', 10_000);
    expect(handled).to.not.include(waiting);
  });

  it('is for platform admins only', async () => {
    const merchant = await signUp(server);
    const support = await signUp(server);
    const sales = await signUp(server);
    await server.runtime.dataSource.query("UPDATE users SET platform_role = 'support_agent' WHERE id = $1", [support.userId]);
    await server.runtime.dataSource.query("UPDATE users SET platform_role = 'sales_rep' WHERE id = $1", [sales.userId]);
    expectProblem(await call(server, 'GET', '/api/v1/jobs/queues', { headers: bearer(merchant.accessToken) }), 403, 'forbidden');
    const refused = await call(server, 'GET', '/api/v1/jobs/queues', { headers: bearer(support.accessToken) });
    expectProblem(refused, 403, 'platform_role_required');
    expect(refused.json.detail).to.equal('This operation is for platform_admin.');
    expectProblem(
      await call(server, 'POST', `/api/v1/jobs/queues/${QUEUE}/pause`, { headers: bearer(support.accessToken) }),
      403,
      'platform_role_required',
    );
    expectProblem(
      await call(server, 'GET', `/api/v1/jobs/queues/${QUEUE}/jobs`, { headers: bearer(sales.accessToken) }),
      403,
      'platform_role_required',
    );
    expectProblem(await call(server, 'GET', '/api/v1/jobs/queues'), 401, 'unauthorized');
    expect((await queue()).paused).to.equal(false);
  });
});
