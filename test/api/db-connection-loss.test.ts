/**
 * PostgreSQL drops the connection of a request that holds a transaction (a restart, a failover, an
 * administrator's pg_terminate_backend): the client gets 503 problem+json with Retry-After, never a
 * 500, nothing of the transaction is committed, the log has one warn line without a stack, and the
 * next request gets a healthy connection from the pool.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import Joi from 'joi';
import { Client } from 'pg';
import pino from 'pino';
import { createApp } from '../../app/http-app';
import { isConnectionLoss } from '../../api/http/db-errors';
import { dto, type RouteDef, type RouteRequest } from '../../api/http/route';
import { inTransaction } from '../../storage/request-context';
import { call, testRuntime, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { eventually, sleep } from '../helpers/wait';

const TABLE = 'test_connection_loss_rows';

type Mode = 'between' | 'during' | 'commit' | 'ok' | 'bug';

/** Where a request's handler waits, inside its transaction, for the test to drop its connection. */
interface Hold {
  pid?: number;
  reached: Promise<void>;
  markReached(): void;
  release(): void;
  released: Promise<void>;
}

function newHold(): Hold {
  const hold = {} as Hold;
  hold.reached = new Promise((r) => (hold.markReached = r));
  hold.released = new Promise((r) => (hold.release = r));
  return hold;
}

const holds = new Map<string, Hold>();

/**
 * A write through the real request path (router, error handler, inTransaction): it inserts a row,
 * then, by mode, loses its connection between two statements, during a statement, or just before
 * the commit.
 */
const route: RouteDef = {
  operationId: 'test.connectionLoss',
  method: 'POST',
  path: '/test/connection-loss',
  summary: 'Test only: a write whose connection the test drops',
  tag: 'test',
  auth: 'public',
  query: { id: Joi.string().uuid().required(), mode: Joi.string().valid('between', 'during', 'commit', 'ok', 'bug').required() },
  response: dto('ConnectionLossWrite', Joi.object({ id: Joi.string() })),
  status: 201,
  handler: async (req: RouteRequest) => {
    const { id, mode } = req.query as { id: string; mode: Mode };
    return inTransaction(req.context, async (tx) => {
      await tx.manager.query(`INSERT INTO ${TABLE} (id, note) VALUES ($1, 'before')`, [id]);
      if (mode === 'ok') return { id };
      if (mode === 'bug') throw new TypeError('a bug in the handler');
      const [{ pid }] = (await tx.manager.query('SELECT pg_backend_pid() AS pid')) as Array<{ pid: number }>;
      const hold = holds.get(id)!;
      hold.pid = pid;
      hold.markReached();
      if (mode === 'during') {
        await tx.manager.query('SELECT pg_sleep(20)');
      } else {
        await hold.released;
        if (mode === 'between') await tx.manager.query(`UPDATE ${TABLE} SET note = 'after' WHERE id = $1`, [id]);
      }
      return { id };
    });
  },
};

describe('a database connection lost mid-request', function () {
  this.timeout(30_000);
  let server: TestServer;
  const logLines: Array<Record<string, unknown>> = [];

  /** The app with the test route above and a logger whose lines the tests read (startTestServer's server logs nowhere). */
  async function startLossServer(): Promise<TestServer> {
    const runtime = await testRuntime();
    await runtime.dataSource.query(`CREATE TABLE IF NOT EXISTS ${TABLE} (id uuid PRIMARY KEY, note text NOT NULL)`);
    const logger = pino({ level: 'info' }, { write: (line: string) => logLines.push(JSON.parse(line) as Record<string, unknown>) });
    const app = createApp({ ...runtime, logger, routes: [route] });
    const httpServer = http.createServer(app.callback());
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', () => resolve()));
    return {
      baseUrl: `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`,
      runtime,
      close: () => new Promise<void>((resolve) => httpServer.close(() => resolve())),
    };
  }

  apiSuite((started) => (server = started), { start: startLossServer });
  after(async () => {
    await server.runtime.dataSource.query(`DROP TABLE IF EXISTS ${TABLE}`);
  });

  const rowsOf = async (id: string) =>
    (await server.runtime.dataSource.query(`SELECT note FROM ${TABLE} WHERE id = $1`, [id])) as Array<{ note: string }>;

  /** Terminates the backend of `pid` from another connection and waits until it is gone. */
  async function terminate(pid: number): Promise<void> {
    const dataSource = server.runtime.dataSource;
    await dataSource.query('SELECT pg_terminate_backend($1)', [pid]);
    const gone = async (): Promise<boolean> =>
      ((await dataSource.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1', [pid])) as Array<{ n: number }>)[0]!.n ===
      0;
    await eventually(gone, `backend ${pid} to be gone`, 2_000);
    // Lets the client read the server's goodbye before the handler's next statement. Nothing public
    // tells when the pooled client has read it, so a little time passes instead.
    await sleep(50);
  }

  async function writeAndDrop(mode: Exclude<Mode, 'ok' | 'bug'>): Promise<{ id: string; res: TestResponse }> {
    const id = randomUUID();
    const hold = newHold();
    holds.set(id, hold);
    const answer = call(server, 'POST', `/api/v1/test/connection-loss?id=${id}&mode=${mode}`);
    await hold.reached;
    await terminate(hold.pid!);
    hold.release();
    return { id, res: await answer };
  }

  function expect503(res: TestResponse): void {
    expect(res.status, res.text).to.equal(503);
    expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(res.headers.get('retry-after')).to.equal('1');
    expect(res.json).to.include({ status: 503, code: 'service_unavailable', type: 'urn:problem-type:service_unavailable' });
    expect(res.json.detail).to.match(/database is unavailable/);
    expect(res.json.requestId).to.equal(res.headers.get('x-request-id'));
    expect(res.text).not.to.match(/terminat|pg_|QueryRunner|\bat [A-Za-z.]+ \(/);
  }

  /** The first 503 of a kind is logged (warn, no stack); repeats within the window are only counted. */
  function expectCalmLog(requestId: string): void {
    const lines = logLines.filter((line) => line.requestId === requestId && line.msg !== 'request');
    expect(lines.length, JSON.stringify(lines)).to.be.at.most(1);
    const failures = logLines.filter((line) => line.msg === 'request failed: service unavailable');
    expect(failures.length, 'the first 503 of a kind is logged').to.be.at.least(1);
    const kinds = failures.map((line) =>
      JSON.stringify([(line.error as { code?: string; name?: string }).code, (line.error as { name?: string }).name]),
    );
    expect(new Set(kinds).size, `one line per kind: ${kinds.join(' ')}`).to.equal(kinds.length);
    for (const line of failures) expect(line).to.include({ level: 40, code: 'service_unavailable' });
    for (const line of [...lines, ...failures]) expect(JSON.stringify(line)).not.to.match(/"stack"|\\n\s+at /);
  }

  for (const [mode, when] of [
    ['between', 'between two statements of its transaction'],
    ['during', 'while a statement runs'],
    ['commit', 'just before its commit'],
  ] as const) {
    it(`answers 503 with Retry-After, commits nothing and logs calmly when the connection drops ${when}`, async () => {
      const { id, res } = await writeAndDrop(mode);
      expect503(res);
      expect(await rowsOf(id), 'nothing committed').to.deep.equal([]);
      expectCalmLog(res.json.requestId);
      // The broken connection left the pool: the next write commits.
      const next = randomUUID();
      const ok = await call(server, 'POST', `/api/v1/test/connection-loss?id=${next}&mode=ok`);
      expect(ok.status, ok.text).to.equal(201);
      expect(await rowsOf(next)).to.deep.equal([{ note: 'before' }]);
    });
  }

  it('keeps the stack in the log of a real 500', async () => {
    const id = randomUUID();
    const res = await call(server, 'POST', `/api/v1/test/connection-loss?id=${id}&mode=bug`);
    expect(res.status, res.text).to.equal(500);
    expect(await rowsOf(id), 'rolled back').to.deep.equal([]);
    const lines = logLines.filter((line) => line.requestId === res.json.requestId && line.msg === 'request failed');
    expect(lines).to.have.length(1);
    expect(lines[0]!.level).to.equal(50);
    expect((lines[0]!.err as { stack?: string }).stack).to.match(/TypeError: a bug in the handler\n\s+at /);
  });

  it('classifies what a plain node-postgres client reports after its backend was terminated', async () => {
    const client = new Client({ connectionString: server.runtime.config.databaseUrl });
    const events: Error[] = [];
    client.on('error', (error) => events.push(error));
    await client.connect();
    try {
      const [{ pid }] = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
      await terminate(pid!);
      const error = await client.query('SELECT 1').then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error, 'the query fails').to.be.instanceOf(Error);
      expect(isConnectionLoss(error), error!.message).to.equal(true);
      expect(events.length, 'the client reported the loss').to.be.greaterThan(0);
      for (const event of events) expect(isConnectionLoss(event), event.message).to.equal(true);
    } finally {
      await client.end().catch(() => undefined);
    }
  });
});
