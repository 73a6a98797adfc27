/**
 * Serving the Prometheus metrics of lib/metrics.ts (docs/operations.md): `GET /metrics` on the api
 * port, on the health server of a worker-only process, or on a listener of its own (METRICS_PORT,
 * bound to METRICS_HOST); the timing of every HTTP request by operation id; and the scrape-time
 * sources (outbox backlog, queue depths, caches, readiness) read from a process's runtime.
 *
 * Who may read /metrics:
 * - METRICS_TOKEN set: whoever sends `Authorization: Bearer <token>` (compared in constant time),
 *   wherever it is served;
 * - unset, on the api port or the health server: only a client on the loopback interface whose
 *   request was not relayed by a proxy (no Forwarded or X-Forwarded-For header);
 * - unset, on the metrics listener: whoever can reach METRICS_HOST (loopback by default): the
 *   interface it is bound to is the guard.
 */
import http from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import Koa from 'koa';
import type Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import type { ProcessRole } from '../lib/config';
import { ForbiddenError, UnauthorizedError } from '../lib/errors';
import { observeHttpRequest, renderMetrics, setScrapeSources, type CacheStats, type ScrapeSources } from '../lib/metrics';
import { QUEUE_NAMES } from '../storage/queues';
import type { DependencyMonitor } from '../storage/dependency-monitor';
import type { SearchEngine } from '../search/public-search';
import { checkReadiness } from '../api/system/health';
import { errorHandler } from '../api/http/middleware';
import type { RunningRole } from './lifecycle';
import type { Runtime } from './runtime';

export const METRICS_PATH = '/metrics';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** True when the request carries `Authorization: Bearer <token>`; digests keep the comparison constant-time whatever the lengths. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer ([\x21-\x7e]+)$/i.exec(header ?? '');
  return timingSafeEqual(digest(match?.[1] ?? ''), digest(token)) && match !== null;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** The TCP peer is this machine and no proxy relayed the request (a local proxy would make every client look local). */
function isLocalUnrelayed(ctx: Koa.Context): boolean {
  const peer = ctx.req.socket.remoteAddress ?? '';
  return (LOOPBACK.has(peer) || peer.startsWith('127.')) && !ctx.get('X-Forwarded-For') && !ctx.get('Forwarded');
}

export interface MetricsGuard {
  /** METRICS_TOKEN: required of every scrape when set. */
  token?: string;
  /** Without a token: answer only loopback clients (api port, health server) or anyone (the metrics listener). */
  loopbackOnly: boolean;
}

/** Answers `GET /metrics` (anything else goes on), guarded as the header of this file says. */
export function metricsRoute(guard: MetricsGuard): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.path !== METRICS_PATH || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    if (guard.token !== undefined) {
      if (!bearerMatches(ctx.get('Authorization') || undefined, guard.token))
        throw new UnauthorizedError('The metrics need the bearer token configured in METRICS_TOKEN.');
    } else if (guard.loopbackOnly && !isLocalUnrelayed(ctx)) {
      throw new ForbiddenError('Without METRICS_TOKEN the metrics are served only to clients on this machine.');
    }
    const { contentType, body } = await renderMetrics();
    ctx.set('Cache-Control', 'no-store');
    ctx.type = contentType;
    ctx.body = body;
  };
}

/**
 * Times every request of the Koa app by the operation id of the route that served it (the router
 * names each route after its operation). Mounted first, so the status is the final one, errors
 * included; a streamed body's transfer after the handler is not part of the time.
 */
export function httpMetrics(): Koa.Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } catch (error) {
      observeHttpRequest(operationOf(ctx), 500, (performance.now() - started) / 1000);
      throw error;
    }
    observeHttpRequest(operationOf(ctx), ctx.status, (performance.now() - started) / 1000);
  };
}

function operationOf(ctx: Koa.Context): string {
  const routed = ctx as Koa.Context & { _matchedRouteName?: string; _matchedRoute?: unknown };
  return routed._matchedRouteName ?? (routed._matchedRoute === undefined ? 'none' : 'other');
}

export interface SourceDeps {
  dataSource: DataSource;
  /** A plain Redis client that fails fast while Redis is down (the runtime's). */
  redis?: Pick<Redis, 'pipeline'>;
  queuePrefix: string;
  search?: SearchEngine;
  monitor: DependencyMonitor;
  roles: readonly ProcessRole[];
}

/** One cheap statement over the partial index of rows not done (outbox_claimable). */
const OUTBOX_BACKLOG_SQL = `SELECT queue, status, count(*)::int AS rows,
        EXTRACT(EPOCH FROM clock_timestamp() - min(created_at))::float8 AS age
   FROM outbox WHERE status <> 'done' GROUP BY queue, status`;

/** The scrape-time sources of a process, read from its runtime's connections. */
export function scrapeSourcesOf(deps: SourceDeps): ScrapeSources {
  return {
    async outbox() {
      const rows: Array<{ queue: string; status: string; rows: number; age: number }> = await deps.dataSource.query(OUTBOX_BACKLOG_SQL);
      return rows.map((r) => ({ queue: r.queue, status: r.status, rows: r.rows, oldestAgeSeconds: Math.max(0, r.age) }));
    },
    queues: deps.redis
      ? async () => {
          // bee-queue's own keys (the same counts as its checkHealth), all queues in one round trip.
          const pipeline = deps.redis!.pipeline();
          for (const queue of QUEUE_NAMES) {
            const key = (suffix: string): string => `${deps.queuePrefix}:${queue}:${suffix}`;
            pipeline.llen(key('waiting')).llen(key('active')).zcard(key('delayed')).scard(key('failed'));
          }
          const results = (await pipeline.exec()) ?? [];
          const count = (i: number): number => {
            const [error, value] = results[i] ?? [new Error('no answer'), 0];
            if (error) throw error;
            return Number(value);
          };
          return QUEUE_NAMES.map((queue, q) => ({
            queue,
            waiting: count(q * 4),
            active: count(q * 4 + 1),
            delayed: count(q * 4 + 2),
            failed: count(q * 4 + 3),
          }));
        }
      : undefined,
    caches: deps.search
      ? (): CacheStats[] => {
          const engine = deps.search!;
          return (['answers', 'profiles', 'snapshots', 'counts'] as const).map((cache) => ({
            cache,
            entries: engine[cache].size,
            bytes: engine[cache].usedBytes,
            hits: engine[cache].hits,
            misses: engine[cache].misses,
          }));
        }
      : undefined,
    async readiness() {
      const readiness = await checkReadiness({ monitor: deps.monitor }, deps.roles);
      const dependencies = Object.fromEntries(Object.entries(readiness.checks).map(([name, check]) => [name, check.status === 'up']));
      return { ready: readiness.ready, dependencies };
    },
  };
}

/** The sources of a runtime (the api role, the metrics listener, the health server). */
export function runtimeSources(runtime: Pick<Runtime, 'dataSource' | 'redis' | 'config' | 'monitor' | 'services'>): ScrapeSources {
  return scrapeSourcesOf({
    dataSource: runtime.dataSource,
    redis: runtime.redis,
    queuePrefix: runtime.config.queuePrefix,
    search: runtime.services.search,
    monitor: runtime.monitor,
    roles: runtime.config.roles,
  });
}

/**
 * The metrics listener of METRICS_PORT on METRICS_HOST: `GET /metrics` only. A process with it
 * serves its metrics nowhere else.
 */
export async function startMetricsServer(
  runtime: Runtime,
  port: number,
  host = runtime.config.metricsHost,
): Promise<RunningRole & { server: http.Server }> {
  setScrapeSources(runtimeSources(runtime));
  const app = new Koa();
  app.silent = true;
  app.use(errorHandler(runtime.logger));
  app.use(metricsRoute({ token: runtime.config.metricsToken, loopbackOnly: false }));
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  runtime.logger.info({ host, port }, 'metrics listening');
  return {
    name: 'metrics',
    server,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
