/**
 * The api role: serves the Koa app over HTTP and, on stop, drains it the way a rolling deploy needs:
 * readiness turns to 503 at once, the listener closes, idle connections are closed, every request in
 * flight (an upload still sending its body included) is answered in full with `Connection: close`,
 * and stop() resolves when the last one is out; after SHUTDOWN_TIMEOUT_MS whatever is left is cut.
 */
import http from 'node:http';
import type net from 'node:net';
import type { Logger } from 'pino';
import { createApp } from '../http-app';
import type { RunningRole } from '../lifecycle';
import { markShuttingDown } from '../../lib/process-state';
import type { Runtime } from '../runtime';

export interface DrainableServer {
  server: http.Server;
  /** Requests whose answer is not finished yet. */
  inFlight(): number;
  /** Stops listening and waits for the requests in flight (at most `timeoutMs`, then cuts them). */
  drain(): Promise<void>;
}

interface ConnectionState {
  /** Requests on this connection whose response has not closed yet. */
  open: number;
  /** socket.bytesRead when the last response closed: more bytes since means a request is arriving. */
  readWhenIdle: number;
  /** When the connection last became idle (opened, or its last response closed). */
  idleSince: number;
}

/**
 * While draining, an idle keep-alive connection is closed once it has been idle this long, not at
 * once: a client in the middle of a series of requests sends its next one within moments, and would
 * see it reset if the connection closed under it (for a POST it could not know whether it was done).
 * That next request is answered with `Connection: close` instead, and the client moves on cleanly.
 */
export const DRAIN_IDLE_GRACE_MS = 500;

/**
 * An HTTP server that knows, per connection, whether a request is in progress. Node's own idle
 * detection is not enough for a drain: it counts a connection as idle once the response has been
 * ended, even while its last bytes still wait in the socket buffer for a slow reader (server.close()
 * would destroy it and truncate the body), and it counts a connection that never sent a byte (a
 * browser's preconnect) as busy, so it stays open until the shutdown timeout.
 */
export function createDrainableServer(
  listener: http.RequestListener,
  options: { timeoutMs: number; logger: Logger; idleGraceMs?: number },
): DrainableServer {
  const graceMs = options.idleGraceMs ?? DRAIN_IDLE_GRACE_MS;
  const connections = new Map<net.Socket, ConnectionState>();
  const responses = new Set<http.ServerResponse>();
  let draining: Promise<void> | undefined;

  const track = (socket: net.Socket): ConnectionState => {
    let state = connections.get(socket);
    if (!state) {
      state = { open: 0, readWhenIdle: 0, idleSince: Date.now() };
      connections.set(socket, state);
      socket.once('close', () => connections.delete(socket));
    }
    return state;
  };

  // Closed gracefully (FIN after what was written), as Node does after a `Connection: close` answer.
  const closeIfIdle = (socket: net.Socket, state: ConnectionState): void => {
    if (state.open === 0 && socket.bytesRead === state.readWhenIdle && Date.now() - state.idleSince >= graceMs && !socket.destroyed)
      socket.destroySoon();
  };

  const server = http.createServer((req, res) => {
    const socket = req.socket;
    const state = track(socket);
    state.open += 1;
    responses.add(res);
    // Set before the app runs, so it holds for every kind of answer (streamed ones too, and those
    // whose headers Koa resets on an error): Node then writes `Connection: close` and closes the
    // connection once this answer is out.
    if (draining) res.shouldKeepAlive = false;
    res.once('close', () => {
      state.open -= 1;
      responses.delete(res);
      const settle = (): void => {
        state.readWhenIdle = socket.bytesRead;
        state.idleSince = Date.now();
      };
      // A body the app did not read is still arriving (Node discards it); bytes up to its end are not
      // a new request.
      if (req.complete) settle();
      else req.once('end', settle);
    });
    listener(req, res);
  });
  server.on('connection', track);
  // server.close() calls this; Node's version would truncate answers still being flushed (see above).
  server.closeIdleConnections = () => {
    for (const [socket, state] of connections) closeIfIdle(socket, state);
  };

  return {
    server,
    inFlight: () => responses.size,
    drain() {
      draining ??= new Promise<void>((resolve) => {
        // Answers not started yet close their connection; those already sending headers cannot be
        // changed and are closed by the 'close' handler above when they finish.
        for (const res of responses) if (!res.headersSent) res.shouldKeepAlive = false;
        options.logger.info({ requests: responses.size, connections: connections.size }, 'api draining');
        const forced = setTimeout(() => {
          options.logger.warn({ requests: responses.size, connections: connections.size }, 'api drain timed out; cutting what is left');
          clearInterval(sweep);
          server.closeAllConnections();
          for (const socket of connections.keys()) socket.destroy();
        }, options.timeoutMs);
        // Idle connections are closed once idle for the grace period (an answer whose headers went out
        // with keep-alive before the drain began leaves one too).
        const sweep = setInterval(() => server.closeIdleConnections(), Math.max(10, Math.min(100, graceMs / 2)));
        // Stops listening, closes the idle connections (our closeIdleConnections), and calls back once
        // the last connection has closed.
        server.close(() => {
          clearTimeout(forced);
          clearInterval(sweep);
          options.logger.info('api drained');
          resolve();
        });
      });
      return draining;
    },
  };
}

export async function startApiRole(runtime: Runtime): Promise<RunningRole & { server: http.Server }> {
  const app = createApp(runtime);
  const { server, drain } = createDrainableServer(app.callback(), { timeoutMs: runtime.config.shutdownTimeoutMs, logger: runtime.logger });
  server.requestTimeout = 120_000;
  server.headersTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(runtime.config.port, runtime.config.host, () => resolve());
  });
  runtime.logger.info({ host: runtime.config.host, port: runtime.config.port }, 'api listening');
  return {
    name: 'api',
    server,
    async stop() {
      // First, so readiness answers 503 even when stop() is called without lifecycle's shutdown.
      markShuttingDown();
      await drain();
    },
  };
}
