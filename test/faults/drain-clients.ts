/**
 * HTTP clients for the graceful-shutdown fault, on node:http (not fetch) so the suite sees exactly
 * what happened on the wire: whether a connection was refused (the server never got the request),
 * or a request that was sent got no complete answer (reset), and the answer's Connection header.
 */
import http from 'node:http';
import net from 'node:net';

export interface Outcome {
  label: string;
  startedAt: number;
  /** When the answer's headers arrived. */
  answeredAt?: number;
  status?: number;
  /** The answer said `Connection: close`. */
  closes?: boolean;
  json?: any;
  /** No complete answer: the error code (ECONNREFUSED: never received by the server). */
  error?: string;
  /** Sent on a keep-alive connection that an earlier request had used (not a fresh one). */
  reused?: boolean;
}

export interface SendOptions {
  label: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** The body, sent in pieces with a pause after each (a slow client), or at once. */
  pieces?: Buffer[];
  pauseMs?: number;
  agent?: http.Agent | false;
}

/** Sends one request to 127.0.0.1:`port` and resolves with what came of it (never rejects). */
export function send(port: number, options: SendOptions): Promise<Outcome> {
  const outcome: Outcome = { label: options.label, startedAt: Date.now() };
  return new Promise((resolve) => {
    let done = false;
    const finish = (extra: Partial<Outcome>): void => {
      if (done) return;
      done = true;
      resolve({ ...outcome, ...extra });
    };
    const pieces = options.pieces ?? [];
    const length = pieces.reduce((sum, p) => sum + p.length, 0);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: options.method,
        path: options.path,
        agent: options.agent ?? false,
        headers: { ...options.headers, ...(pieces.length ? { 'Content-Length': String(length) } : {}) },
        timeout: 60_000,
      },
      (res) => {
        outcome.answeredAt = Date.now();
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (error: NodeJS.ErrnoException) => finish({ error: error.code ?? error.message }));
        res.on('aborted', () => finish({ error: 'response aborted' }));
        res.on('end', () => {
          let json: any;
          try {
            json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            json = undefined;
          }
          finish({ status: res.statusCode, closes: res.headers.connection === 'close', json });
        });
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => finish({ error: error.code ?? error.message, reused: req.reusedSocket }));
    req.on('timeout', () => req.destroy(new Error('client timeout')));
    void (async () => {
      for (const piece of pieces) {
        if (done) return;
        req.write(piece);
        if (options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
      }
      req.end();
    })();
  });
}

/** Requests one after another on one keep-alive connection until `until()` says stop or the server refuses. */
export async function keepAliveLoop(
  port: number,
  label: string,
  next: (i: number) => Omit<SendOptions, 'label' | 'agent'>,
  until: () => boolean,
): Promise<Outcome[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const outcomes: Outcome[] = [];
  try {
    for (let i = 0; !until(); i += 1) {
      const outcome = await send(port, { ...next(i), label: `${label} #${i}`, agent });
      outcomes.push(outcome);
      if (outcome.error === 'ECONNREFUSED') break;
    }
  } finally {
    agent.destroy();
  }
  return outcomes;
}

/**
 * A GET on a connection of its own, opened now with all of the request but its final CRLF: to the
 * server a request is arriving, so the connection is in use, not idle. `complete()` sends the rest
 * (e.g. once the server drains) and resolves with the answer, read off the raw socket.
 */
export async function heldRequest(port: number, label: string, path: string): Promise<{ complete(): Promise<Outcome> }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
  let received = Buffer.alloc(0);
  let early: string | undefined;
  socket.on('data', (c: Buffer) => (received = Buffer.concat([received, c])));
  // The server may cut the connection before complete() (that is a reset); never an unhandled error.
  socket.on('error', (error: NodeJS.ErrnoException) => (early ??= error.code ?? error.message));
  return {
    complete() {
      const outcome: Outcome = { label, startedAt: Date.now() };
      return new Promise((resolve) => {
        let done = false;
        const finish = (error?: string): void => {
          if (done) return;
          done = true;
          socket.destroy();
          const text = received.toString('utf8');
          const cut = text.indexOf('\r\n\r\n');
          const head = cut >= 0 ? text.slice(0, cut) : text;
          const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
          if (!status) resolve({ ...outcome, error: error ?? early ?? 'closed without an answer' });
          else resolve({ ...outcome, answeredAt: Date.now(), status, closes: /\r\nconnection: close\r\n/i.test(`${head}\r\n`) });
        };
        // Answered in full: the headers and Content-Length bytes of body (the server may keep the connection).
        const check = (): void => {
          const end = received.indexOf('\r\n\r\n');
          const length = Number(/\r\ncontent-length: (\d+)/i.exec(received.subarray(0, end).toString('utf8'))?.[1]);
          if (end >= 0 && Number.isFinite(length) && received.length >= end + 4 + length) finish();
        };
        socket.on('data', check);
        socket.once('close', () => finish());
        socket.once('error', (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
        if (socket.destroyed) return finish();
        socket.setTimeout(30_000, () => finish('client timeout'));
        socket.write('\r\n');
        check();
      });
    },
  };
}
