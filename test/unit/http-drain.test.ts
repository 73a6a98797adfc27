/**
 * The drain of the api role's HTTP server, in process and to the byte: an answer still being flushed
 * to a slow reader is not truncated, a keep-alive answer that began before the drain is finished and
 * then its connection closed after the idle grace, a client that sends its next request on an idle
 * connection just after the drain began is answered (with `Connection: close`) instead of reset, and
 * what never finishes is cut at the timeout.
 */
import http from 'node:http';
import net from 'node:net';
import { expect } from 'chai';
import pino from 'pino';
import { createDrainableServer, DRAIN_IDLE_GRACE_MS, type DrainableServer } from '../../app/roles/api';
import { eventually, sleep } from '../helpers/wait';

const logger = pino({ level: 'silent' });

async function listen(listener: http.RequestListener, timeoutMs = 10_000): Promise<DrainableServer & { port: number }> {
  const drainable = createDrainableServer(listener, { timeoutMs, logger });
  drainable.server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => drainable.server.listen(0, '127.0.0.1', () => resolve()));
  return { ...drainable, port: (drainable.server.address() as net.AddressInfo).port };
}

describe('api server drain', () => {
  it('does not truncate an answer that was ended but is still being flushed to a slow reader', async () => {
    const big = Buffer.alloc(40 * 1024 * 1024, 'a');
    let answer: http.ServerResponse | undefined;
    const s = await listen((_req, res) => {
      answer = res;
      res.setHeader('Content-Length', big.length);
      res.end(big);
    });
    const socket = net.connect(s.port, '127.0.0.1');
    let received = 0;
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
    socket.once('connect', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    socket.pause();
    // The server end()s the answer and fills the socket buffers while the client reads nothing.
    await eventually(() => answer?.writableEnded, 'the server to end the answer');
    expect(answer!.writableFinished, 'the answer is still being flushed').to.equal(false);
    expect(s.inFlight(), 'the answer is still being flushed').to.equal(1);
    const drained = s.drain();
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    socket.resume();
    await closed;
    await drained;
    const head = 'HTTP/1.1 200 OK\r\n'.length;
    expect(received, 'whole answer received').to.be.above(big.length + head);
  });

  it('finishes a keep-alive answer whose headers went out before the drain, then closes its connection after the idle grace', async () => {
    const s = await listen((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('first ');
      setTimeout(() => res.end('last'), 300);
    });
    const agent = new http.Agent({ keepAlive: true });
    let socketClosedAt = 0;
    const answer = await new Promise<{ text: string; connection?: string; endedAt: number }>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: s.port, path: '/', agent }, (res) => {
        res.socket.once('close', () => (socketClosedAt = Date.now()));
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('error', reject);
        res.on('end', () => resolve({ text, connection: res.headers.connection, endedAt: Date.now() }));
        void s.drain();
      });
      req.on('error', reject);
    });
    expect(answer.text).to.equal('first last');
    expect(answer.connection, 'headers were sent before the drain').to.equal('keep-alive');
    const started = Date.now();
    await s.drain();
    expect(Date.now() - started, 'drain ends without waiting for the keep-alive timeout').to.be.below(1_000);
    await eventually(() => socketClosedAt > 0, 'the idle connection to be closed', 2_000);
    expect(socketClosedAt - answer.endedAt).to.be.within(0, 1_000);
    agent.destroy();
  });

  it('answers a request sent on an idle keep-alive connection just after the drain began, with Connection: close, instead of resetting it', async () => {
    const s = await listen((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => res.end(`got ${body}`));
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const post = (body: string) =>
      new Promise<{ text: string; connection?: string }>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port: s.port, path: '/', method: 'POST', agent }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ text, connection: res.headers.connection }));
        });
        req.on('error', reject);
        req.end(body);
      });
    expect((await post('one')).connection).to.equal('keep-alive');
    const drained = s.drain();
    // A client between two requests of a series (a pause well within the idle grace): the next one goes out on the same connection.
    await sleep(Math.round(DRAIN_IDLE_GRACE_MS / 5));
    expect(await post('two')).to.deep.equal({ text: 'got two', connection: 'close' });
    await drained;
    agent.destroy();
  });

  it('cuts what is still open at the timeout', async () => {
    const s = await listen(() => undefined, 300);
    const failed = new Promise<string>((resolve) => {
      const req = http.get({ host: '127.0.0.1', port: s.port, path: '/' }, () => resolve('answered'));
      req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });
    await eventually(() => s.inFlight() > 0, 'the request to be in flight');
    const started = Date.now();
    await s.drain();
    expect(Date.now() - started).to.be.within(250, 1_500);
    expect(await failed).to.equal('ECONNRESET');
  });
});
