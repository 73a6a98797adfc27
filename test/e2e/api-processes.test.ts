/**
 * Several api processes behind one port (API_PROCESSES=2, app/cluster.ts): the built entry point as
 * an operator starts it, with ROLES=api,relay,indexer. Each request goes over a connection of its
 * own (the primary hands new connections to the workers in turn) and `X-Served-By` names the worker
 * that answered, so every check below knows that both processes were asked.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { expect } from 'chai';
import { relayHeaders } from '../../api/http/client-relay';
import { storeIndexUid } from '../../search/index-names';
import { uuidv7 } from '../../storage/ids';
import { testRuntime, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { pendingIndexRows } from '../helpers/indexing';
import { merchant, type Merchant } from '../helpers/fixtures';
import { freePort } from '../helpers/ports';
import { eventually } from '../helpers/wait';
import { parseSamples, sumOf } from '../helpers/prometheus-text';

/** The entry point built next to this test (dist/app/main.js in a normal build). */
const MAIN = path.resolve(__dirname, '..', '..', 'app', 'main.js');
/** The client error batches one address may send per minute in this file (counted in Redis). */
const BATCH_LIMIT = 5;
/** Longest a write may take to show in both workers' search answers: index lag plus the announcement. */
const INVALIDATION_BOUND_MS = 10_000;

interface Answer {
  status: number;
  servedBy: string;
  json: any;
  text: string;
}

/** One request on a connection of its own (no keep-alive, so the next one may reach the other worker). */
function fresh(base: string, method: string, urlPath: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${urlPath}`,
      {
        method,
        agent: false,
        headers: { ...headers, ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, servedBy: String(res.headers['x-served-by'] ?? ''), json, text });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The workers of each slot as the primary logged them when it started them, latest last. */
function startedWorkers(output: string): Array<{ slot: string; worker: number; workerPid: number }> {
  return output
    .split('\n')
    .filter((line) => line.includes('"msg":"worker started"'))
    .map((line) => JSON.parse(line) as { slot: string; worker: number; workerPid: number });
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('several api processes behind one port (API_PROCESSES=2)', function () {
  this.timeout(120_000);
  let child: ChildProcess;
  let output = '';
  let exited: Promise<number | null>;
  let base: string;
  let server: TestServer;
  let m: Merchant;

  /** Asks `urlPath` on fresh connections until both api workers have answered; answers every answer by worker. */
  async function fromBothWorkers(urlPath: string, headers: Record<string, string> = {}): Promise<Map<string, Answer>> {
    const answers = new Map<string, Answer>();
    for (let i = 0; i < 20 && answers.size < 2; i += 1) {
      const answer = await fresh(base, 'GET', urlPath, undefined, headers);
      answers.set(answer.servedBy, answer);
    }
    expect([...answers.keys()], 'answers came from two workers').to.have.length(2);
    return answers;
  }

  const suite = apiSuite((started) => (server = started), {
    start: async () => {
      const runtime = await testRuntime();
      const port = await freePort();
      child = spawn(process.execPath, [MAIN], {
        env: {
          ...process.env,
          NODE_ENV: 'test',
          LOG_LEVEL: 'info',
          LOG_FORMAT: 'json',
          PORT: String(port),
          HOST: '127.0.0.1',
          API_PROCESSES: '2',
          ROLES: 'api,relay,indexer',
          // The test runtime's prefix: its rate limits and invalidation channel are the processes' own.
          QUEUE_PREFIX: runtime.config.queuePrefix,
          CLIENT_ERROR_BATCHES_PER_MINUTE: String(BATCH_LIMIT),
          // Long enough that only the invalidation, never the expiry, can refresh a cached answer here.
          SEARCH_CACHE_TTL_MS: '3600000',
          DEMO_SANDBOX: 'false',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.on('data', (d) => (output += d));
      child.stderr!.on('data', (d) => (output += d));
      exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
      base = `http://127.0.0.1:${port}`;
      await eventually(
        async () => {
          if (child.exitCode !== null) throw new Error(`process exited early with ${child.exitCode}:\n${output}`);
          return (
            output.split('"msg":"api listening"').length - 1 === 2 &&
            (await fresh(base, 'GET', '/readyz').catch(() => undefined))?.status === 200
          );
        },
        'both api workers to be ready',
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      return { baseUrl: base, runtime, close: async () => undefined };
    },
  });

  before(async () => {
    m = suite.addMerchant(await merchant(server), { indexed: true });
  });

  after(async () => {
    if (child?.exitCode === null) child.kill('SIGKILL');
    // Workers whose primary is gone drain and exit by themselves (app/cluster.ts, followPrimary).
    const pids = startedWorkers(output).map((w) => w.workerPid);
    await eventually(() => pids.every((pid) => !alive(pid)), 'every worker to exit', { timeoutMs: 30_000, intervalMs: 100 });
  });

  it('runs one supervisor, two api workers and one background worker for the other roles, each answering on the port', async () => {
    const workers = startedWorkers(output);
    expect(workers.map((w) => w.slot)).to.deep.equal(['api-1', 'api-2', 'background']);
    expect(output).to.match(/"roles":\["relay","indexer"\],"msg":"started"/);
    const answers = await fromBothWorkers('/readyz');
    expect([...answers.keys()].sort()).to.deep.equal(workers.slice(0, 2).map((w) => String(w.worker)));
    for (const answer of answers.values()) expect(answer.status).to.equal(200);
  });

  it("drops both workers' cached search answers once a product write through one of them is indexed", async () => {
    const word = `quokka${uuidv7().replace(/-/g, '').slice(-10)}`;
    const created = await fresh(
      base,
      'POST',
      '/api/v1/catalog/products',
      { storeId: m.storeId, title: `${word} lamp`, type: 'PHYSICAL', price: 10 },
      m.headers,
    );
    expect(created.status, JSON.stringify(created.json)).to.equal(201);
    const productId = created.json.id as string;
    expect((await fresh(base, 'POST', `/api/v1/catalog/products/${productId}/publish`, undefined, m.headers)).status).to.equal(201);
    const searchPath = `/api/v1/catalog/public/search?storeId=${m.storeId}&q=${word}`;
    const titles = (answer: Answer): string[] => (answer.json?.items ?? []).map((item: { title: string }) => item.title);

    // Both workers answer (and cache) the indexed product under its first title, once the indexer
    // has done every row of the tenant (so no later announcement of these writes drops the caches).
    await eventually(
      async () =>
        (await pendingIndexRows(server, m.owner.tenantId)) === 0 &&
        [...(await fromBothWorkers(searchPath)).values()].every((a) => titles(a).join() === `${word} lamp`),
      'the product to be searchable from both workers',
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    // The index changed behind the caches' back (nothing announced): both still answer the first
    // title, so both answers come from their caches (the TTL is an hour).
    await server.runtime.meiliAdmin
      .index(storeIndexUid(m.storeId))
      .updateDocuments([{ id: productId, title: `${word} decoy` }])
      .waitTask({ timeout: 10_000 });
    for (const answer of (await fromBothWorkers(searchPath)).values()) expect(titles(answer)).to.deep.equal([`${word} lamp`]);

    const renamed = await fresh(
      base,
      'PUT',
      `/api/v1/catalog/products/${productId}`,
      { type: 'PHYSICAL', title: `${word} lantern`, price: 10 },
      m.headers,
    );
    expect(renamed.status, JSON.stringify(renamed.json)).to.equal(200);
    const writtenAt = Date.now();
    const latest = new Map<string, string[]>();
    await eventually(
      async () => {
        const answer = await fresh(base, 'GET', searchPath);
        latest.set(answer.servedBy, titles(answer));
        return latest.size === 2 && [...latest.values()].every((t) => t.join() === `${word} lantern`);
      },
      'both workers to answer the new title',
      { timeoutMs: INVALIDATION_BOUND_MS, intervalMs: 50 },
    );
    expect(Date.now() - writtenAt).to.be.below(INVALIDATION_BOUND_MS);
    // And neither falls back to the old answer.
    for (const answer of (await fromBothWorkers(searchPath)).values()) expect(titles(answer)).to.deep.equal([`${word} lantern`]);
  });

  it('counts a rate limit across both workers: the address gets the limit in total, not the limit per worker', async () => {
    const ip = `10.77.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    const headers = relayHeaders(server.runtime.config.appSecret, ip);
    const body = { app: `t-${uuidv7().replace(/-/g, '').slice(-20)}`, events: [{ kind: 'window', message: 'several processes' }] };
    const answers: Answer[] = [];
    for (let i = 0; i < BATCH_LIMIT * 2 + 2; i += 1) answers.push(await fresh(base, 'POST', '/api/v1/client-errors/events', body, headers));
    const accepted = answers.filter((a) => a.status === 202);
    const refused = answers.filter((a) => a.status === 429);
    expect(accepted, 'accepted').to.have.length(BATCH_LIMIT);
    expect(refused, 'refused').to.have.length(answers.length - BATCH_LIMIT);
    expect(answers.slice(0, BATCH_LIMIT).every((a) => a.status === 202)).to.equal(true);
    for (const answer of refused) expect(answer.json).to.include({ code: 'rate_limited' });
    expect(new Set(accepted.map((a) => a.servedBy)).size, 'accepted by both workers').to.equal(2);
    expect(new Set(refused.map((a) => a.servedBy)).size, 'refused by both workers').to.equal(2);
    const [{ n }] = await server.runtime.dataSource.query('SELECT count(*)::int AS n FROM client_error_events WHERE app = $1', [body.app]);
    expect(n).to.equal(BATCH_LIMIT);
  });

  it('answers /metrics with the sum over every process, whichever api worker the scrape reaches', async () => {
    const searches = (text: string) =>
      sumOf(parseSamples(text), 'commerce_http_request_duration_seconds_count', { operation: 'storefront.search', status: '200' });
    const before = await fromBothWorkers('/metrics');
    const counts = [...before.values()].map((a) => searches(a.text));
    expect(counts[0], 'both workers answer the same cluster-wide count').to.equal(counts[1]);
    const servedBy = new Set<string>();
    for (let i = 0; i < 12; i += 1) {
      const answer = await fresh(base, 'GET', `/api/v1/catalog/public/search?storeId=${m.storeId}&q=metrics${i}`);
      expect(answer.status, answer.text).to.equal(200);
      servedBy.add(answer.servedBy);
    }
    expect(servedBy.size, 'the searches reached both workers').to.equal(2);
    for (const answer of (await fromBothWorkers('/metrics')).values()) {
      expect(answer.status).to.equal(200);
      expect(searches(answer.text), `scrape answered by worker ${answer.servedBy}`).to.equal(counts[0]! + 12);
      // Shared state is one reading, not one per process (the outbox is read by all three).
      expect(answer.text).to.include('# TYPE commerce_outbox_rows gauge');
    }
  });

  it('starts a killed api worker again while the other one keeps answering', async () => {
    const before = startedWorkers(output);
    const victim = before.find((w) => w.slot === 'api-1')!;
    const survivor = before.filter((w) => w.slot === 'api-2').at(-1)!;
    process.kill(victim.workerPid, 'SIGKILL');
    await eventually(() => !alive(victim.workerPid), 'the worker to die', { timeoutMs: 10_000, intervalMs: 50 });
    // Meanwhile the port is answered by the other worker.
    const meanwhile = await fresh(base, 'GET', '/livez');
    expect(meanwhile.status).to.equal(200);
    let replacement: { worker: number; workerPid: number } | undefined;
    await eventually(
      () => (replacement = startedWorkers(output).find((w) => w.slot === 'api-1' && w.worker !== victim.worker)) !== undefined,
      'the primary to start api-1 again',
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(output).to.match(/"slot":"api-1".*"signal":"SIGKILL".*"msg":"worker exited; starting it again"/);
    await eventually(
      async () => {
        const answers = await fromBothWorkers('/readyz').catch(() => undefined);
        return answers !== undefined && answers.has(String(replacement!.worker)) && answers.has(String(survivor.worker));
      },
      'the new worker and the other one to answer',
      { timeoutMs: 60_000, intervalMs: 200 },
    );
  });

  it('stops every worker and exits 0 on SIGTERM', async () => {
    const pids = startedWorkers(output)
      .map((w) => w.workerPid)
      .filter(alive);
    expect(pids).to.have.length(3);
    child.kill('SIGTERM');
    expect(await exited).to.equal(0);
    expect(output).to.match(/"name":"commerce-cluster".*"msg":"stopped"/);
    for (const pid of pids) expect(alive(pid), `worker ${pid} is gone`).to.equal(false);
    expect(await fresh(base, 'GET', '/livez').catch(() => 'refused')).to.equal('refused');
  });
});
