/**
 * A deploy as the api role sees it: SIGTERM arrives while clients hold keep-alive connections and
 * requests are in flight, among them an upload still sending its body. Every request in flight is
 * answered in full with `Connection: close`, including one whose headers arrive on an existing
 * connection during the drain; new connections are refused; idle connections are closed after a short grace;
 * the process exits 0 as soon as the last answer is out, long before SHUTDOWN_TIMEOUT_MS.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { PROJECT_ROOT } from '../../lib/config';
import { freePort } from '../helpers/ports';
import { eventually, sleep } from '../helpers/wait';

const SHUTDOWN_TIMEOUT_MS = 20_000;

interface ApiProcess {
  child: ChildProcess;
  port: number;
  output(): string;
  /** Resolves with the exit code and the time the process exited. */
  exited: Promise<{ code: number | null; at: number }>;
  /** Sends SIGTERM and waits until the process says it is shutting down. */
  terminate(): Promise<number>;
}

async function startApi(): Promise<ApiProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist', 'app', 'main.js')], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      ROLES: 'api',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      QUEUE_PREFIX: `e2e-drain-${port}`,
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.once('exit', (code) => resolve({ code, at: Date.now() })),
  );
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`api exited early with ${child.exitCode}:\n${output}`);
      return fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
    },
    () => `the api to be ready:\n${output}`,
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  return {
    child,
    port,
    output: () => output,
    exited,
    async terminate() {
      const at = Date.now();
      child.kill('SIGTERM');
      await eventually(
        () => /"msg":"shutting down"/.test(output),
        () => `the shutdown line after SIGTERM:\n${output}`,
        { timeoutMs: 5_000, intervalMs: 10 },
      );
      // The api role logs when its drain begins; this waits up to 3 s from SIGTERM for it, and no
      // longer (whatever lifecycle does first is not waited for longer).
      await eventually(() => /"msg":"api draining"/.test(output), 'the api drain to begin', {
        timeoutMs: Math.max(0, at + 3_000 - Date.now()),
        intervalMs: 10,
      }).catch(() => undefined);
      return at;
    },
  };
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
  at: number;
}

/** One request over `agent`; `body` may write the request body itself (in pieces) before it ends. */
function send(
  port: number,
  agent: http.Agent,
  method: string,
  pathname: string,
  options: { headers?: Record<string, string>; body?: string | ((req: http.ClientRequest) => Promise<void>) } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: pathname, agent, headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      // A connection cut mid-answer surfaces here as ECONNRESET / aborted.
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode!, headers: res.headers, text, json, at: Date.now() });
      });
    });
    req.on('error', reject);
    if (typeof options.body === 'function') options.body(req).then(() => req.end(), reject);
    else req.end(options.body);
  });
}

/**
 * A request written by hand on its own socket, so its headers can be held back until the drain has
 * begun. `answered` resolves once the whole body (Content-Length) is in; `closed` when the server
 * closed the connection.
 */
function rawRequest(port: number, head: string) {
  const socket = net.connect(port, '127.0.0.1');
  let data = Buffer.alloc(0);
  let resolveAnswer!: (a: { head: string; body: Buffer; at: number }) => void;
  let rejectAnswer!: (e: Error) => void;
  const answered = new Promise<{ head: string; body: Buffer; at: number }>((resolve, reject) => {
    resolveAnswer = resolve;
    rejectAnswer = reject;
  });
  // Awaited only by the callers that expect an answer.
  answered.catch(() => undefined);
  let done = false;
  socket.on('data', (chunk: Buffer) => {
    data = Buffer.concat([data, chunk]);
    const end = data.indexOf('\r\n\r\n');
    if (end < 0 || done) return;
    const headText = data.subarray(0, end).toString('latin1');
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(headText)?.[1] ?? NaN);
    if (data.length - end - 4 >= length) {
      done = true;
      resolveAnswer({ head: headText, body: data.subarray(end + 4, end + 4 + length), at: Date.now() });
    }
  });
  const closed = new Promise<number>((resolve) =>
    socket.once('close', () => {
      if (!done) rejectAnswer(new Error(`connection closed before a complete answer (${data.length} bytes)`));
      resolve(Date.now());
    }),
  );
  socket.on('error', () => undefined);
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, answered, closed, connected, write: (text: string) => socket.write(text), request: head };
}

async function connectRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

async function merchantStore(port: number, agent: http.Agent): Promise<{ headers: Record<string, string>; storeId: string }> {
  const email = `drain-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;
  const json = { 'Content-Type': 'application/json' };
  const registered = await send(port, agent, 'POST', '/api/v1/auth/register', {
    headers: json,
    body: JSON.stringify({ email, password: 'Correct-Horse-42-Battery', name: 'Drain Owner', companyName: 'Drain Co' }),
  });
  expect(registered.status, registered.text).to.equal(201);
  const headers = { Authorization: `Bearer ${registered.json.accessToken}` };
  const store = await send(port, agent, 'POST', '/api/v1/organization/stores', {
    headers: { ...headers, ...json },
    body: JSON.stringify({ name: 'Before' }),
  });
  expect(store.status, store.text).to.equal(201);
  return { headers, storeId: store.json.id };
}

describe('graceful shutdown of the api role', function () {
  this.timeout(90_000);
  let api: ApiProcess | undefined;
  afterEach(() => {
    if (api && api.child.exitCode === null) api.child.kill('SIGKILL');
    api = undefined;
  });

  it('answers every request in flight in full with Connection: close, refuses new connections, and exits 0 once they are done', async () => {
    api = await startApi();
    const { port } = api;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    try {
      const m = await merchantStore(port, agent);
      // Warm keep-alive connections that sit idle when SIGTERM comes.
      await Promise.all([1, 2, 3].map(() => send(port, agent, 'GET', '/healthz')));

      // An upload of 200 customer rows sent in 10 pieces over about 2 s; SIGTERM comes after the 2nd.
      const rows = Array.from({ length: 200 }, (_, i) => `drain-${i}@example.test,Customer ${i}`);
      let piecesSent = 0;
      const upload = send(port, agent, 'POST', `/api/v1/customers/import?storeId=${m.storeId}`, {
        headers: { ...m.headers, 'Content-Type': 'text/csv' },
        body: async (req) => {
          req.write('email,name\n');
          for (let i = 0; i < 10; i += 1) {
            req.write(`${rows.slice(i * 20, i * 20 + 20).join('\n')}\n`);
            piecesSent += 1;
            await sleep(200); // the upload is paced: it is still being sent while the api drains
          }
        },
      });

      // A JSON write whose body is half sent when SIGTERM comes.
      const storeBody = JSON.stringify({ name: 'Created while draining' });
      let releaseStoreBody!: () => void;
      const storeBodyReleased = new Promise<void>((r) => (releaseStoreBody = r));
      const created = send(port, agent, 'POST', '/api/v1/organization/stores', {
        headers: { ...m.headers, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(storeBody)) },
        body: async (req) => {
          req.write(storeBody.slice(0, 10));
          await storeBodyReleased;
          req.write(storeBody.slice(10));
        },
      });

      // A request whose headers are only completed once the drain has begun: it arrives on an
      // existing connection while draining (a large answer, so a cut would show).
      const late = rawRequest(port, `GET /api/v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n`);
      await late.connected;
      late.write(late.request);

      await eventually(() => piecesSent >= 2, 'two pieces of the upload to be sent', { timeoutMs: 10_000, intervalMs: 10 });
      const sigterm = await api.terminate();
      late.write('\r\n');
      releaseStoreBody();

      await eventually(() => connectRefused(port), 'a new connection after SIGTERM to be refused', { timeoutMs: 3_000, intervalMs: 100 });

      const [imported, store, lateAnswer] = await Promise.all([upload, created, late.answered]);
      expect(piecesSent, 'the whole upload was sent after SIGTERM').to.equal(10);

      expect(imported.status, imported.text).to.equal(200);
      expect(imported.json.rows).to.deep.equal({ read: 200, failed: 0 });
      expect(imported.json.customers).to.include({ created: 200, failed: 0 });
      expect(imported.headers.connection, 'upload answered with Connection: close').to.equal('close');

      expect(store.status, store.text).to.equal(201);
      expect(store.json.name).to.equal('Created while draining');
      expect(store.headers.connection, 'JSON write answered with Connection: close').to.equal('close');

      expect(lateAnswer.head).to.match(/^HTTP\/1\.1 200 /);
      expect(lateAnswer.head).to.match(/\r\nconnection: close(\r\n|$)/i);
      expect(JSON.parse(lateAnswer.body.toString('utf8')).openapi).to.equal('3.1.0');
      const lateClosed = await late.closed;
      expect(lateClosed - lateAnswer.at, 'the connection is closed right after its last answer').to.be.below(1_000);

      const lastAnswer = Math.max(imported.at, store.at, lateAnswer.at);
      const exit = await api.exited;
      expect(exit.code, api.output()).to.equal(0);
      expect(exit.at - lastAnswer, 'exits once the requests are done').to.be.below(2_500);
      expect(exit.at - sigterm, 'well before the shutdown timeout').to.be.below(SHUTDOWN_TIMEOUT_MS / 2);
      expect(api.output()).not.to.match(/timed out|cutting/);
    } finally {
      agent.destroy();
    }
  });

  it('closes idle keep-alive connections after the short idle grace and exits promptly when nothing is in flight', async () => {
    api = await startApi();
    const { port } = api;
    const idle = rawRequest(port, `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    await idle.connected;
    idle.write(idle.request);
    const answer = await idle.answered;
    expect(answer.head).to.match(/\r\nconnection: keep-alive/i);
    // A connection opened and never used.
    const unused = rawRequest(port, '');
    await unused.connected;

    const sigterm = await api.terminate();
    const [idleClosed, unusedClosed] = await Promise.all([idle.closed, unused.closed]);
    expect(idleClosed - sigterm, 'idle keep-alive connection closed').to.be.below(1_000);
    expect(unusedClosed - sigterm, 'unused connection closed').to.be.below(1_000);
    const exit = await api.exited;
    expect(exit.code, api.output()).to.equal(0);
    expect(exit.at - sigterm).to.be.below(2_500);
  });
});
