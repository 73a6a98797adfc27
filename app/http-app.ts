/**
 * Builds the Koa application: request ids, access log, the problem+json error handler, the system
 * routes, every operation of the route tables, and 404/405 for the rest.
 */
import Koa from 'koa';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import type { Meilisearch } from 'meilisearch';
import type { Config } from '../lib/config';
import { accessLog, errorHandler, requestId } from '../api/http/middleware';
import { relayedClientIp } from '../api/http/client-relay';
import { buildOpenApiDocument } from '../api/http/openapi';
import type { RouteDef } from '../api/http/route';
import { buildRouter, exactPathRoutes, fallback } from '../api/http/router';
import { allRoutes } from '../api/routes';
import { registerScopesOf } from '../api/api-keys/api-keys.scopes';
import { buildSystemRouter } from '../api/system/system.router';
import type Redis from 'ioredis';
import { setScrapeSources } from '../lib/metrics';
import { httpMetrics, metricsRoute, scrapeSourcesOf } from './metrics';
import { setAuthenticator } from '../api/http/auth';
import { buildWeb } from '../web/web.router';
import { servedBy } from './cluster';
import { PlatformAuthenticator } from '../api/auth/authenticator';
import type { ContextServices } from '../storage/request-context';
import type { DependencyMonitor } from '../storage/dependency-monitor';

export interface AppDeps {
  config: Pick<Config, 'redisUrl' | 'bodyLimitJsonBytes' | 'bodyLimitCsvBytes' | 'bodyLimitFormBytes'> &
    Partial<Pick<Config, 'metricsPort' | 'metricsToken'>>;
  /** The plain Redis client (queue depths on /metrics); absent: they are left out. */
  redis?: Redis;
  logger: Logger;
  dataSource: DataSource;
  meiliAdmin: Meilisearch;
  services: ContextServices;
  /** Readiness probes (the runtime's). */
  monitor: DependencyMonitor;
  /** Defaults to every operation of the specification; tests may pass their own. */
  routes?: RouteDef[];
}

export const API_VERSION = '1.0.0';

function securityHeaders(): Koa.Middleware {
  return async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Frame-Options', 'DENY');
    await next();
  };
}

export function createApp(deps: AppDeps): Koa {
  const routes = deps.routes ?? allRoutes;
  // The scopes an API key may hold come from every operation, whatever subset this app serves.
  registerScopesOf(allRoutes);
  const app = new Koa();
  // Koa would print errors a second time; the error handler below logs them with the request id.
  app.silent = true;
  app.proxy = deps.services.config.trustProxy;
  const openApiJson = JSON.stringify(buildOpenApiDocument(routes, { version: API_VERSION }));
  const system = buildSystemRouter({ monitor: deps.monitor, openApiJson });
  setAuthenticator(new PlatformAuthenticator(deps.dataSource, deps.services.config.appSecret));
  const api = buildRouter(routes, {
    dataSource: deps.dataSource,
    services: deps.services,
    bodyLimits: { jsonBytes: deps.config.bodyLimitJsonBytes, csvBytes: deps.config.bodyLimitCsvBytes },
  });

  // Every request timed by operation id (docs/operations.md); /metrics here unless METRICS_PORT has a listener of its own.
  app.use(httpMetrics());
  if (!deps.config.metricsPort) {
    const { config, search } = deps.services;
    setScrapeSources(scrapeSourcesOf({ ...deps, queuePrefix: config.queuePrefix, search, roles: config.roles }));
  }
  app.use(requestId());
  app.use(relayedClientIp(deps.services.config.appSecret));
  app.use(accessLog(deps.logger));
  app.use(errorHandler(deps.logger));
  app.use(securityHeaders());
  app.use(servedBy()); // X-Served-By: the answering api worker, only when API_PROCESSES > 1 (app/cluster.ts)
  if (!deps.config.metricsPort) app.use(metricsRoute({ token: deps.config.metricsToken, loopbackOnly: true }));
  // Operations at a path without parameters (public search and suggest among them) in one lookup;
  // the routers below serve the rest exactly as before.
  app.use(exactPathRoutes(api, [system]));
  app.use(system.routes());
  app.use(api.routes());
  // The storefront and merchant console (web/), built on the HTTP API above.
  const web = buildWeb({
    config: { ...deps.services.config, bodyLimitFormBytes: deps.config.bodyLimitFormBytes },
    logger: deps.logger,
  });
  app.use(web.middleware);
  app.use(fallback([system, api, ...web.routers]));
  return app;
}
