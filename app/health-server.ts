/**
 * The health endpoints of a process that does not run the api role: /livez (alias /healthz) and
 * /readyz for its worker roles, on HEALTH_PORT (nothing is served when it is unset). Same answers as
 * the api's own endpoints (api/system/health.ts), for an orchestrator's probes.
 */
import http from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import type { ProcessRole } from '../lib/config';
import type { RunningRole } from './lifecycle';
import type { Runtime } from './runtime';
import { addHealthRoutes } from '../api/system/system.router';
import { errorHandler } from '../api/http/middleware';
import { setScrapeSources } from '../lib/metrics';
import { metricsRoute, runtimeSources } from './metrics';

export async function startHealthServer(runtime: Runtime, roles: readonly ProcessRole[], port: number): Promise<RunningRole> {
  const app = new Koa();
  app.silent = true;
  const router = new Router();
  addHealthRoutes(router, { monitor: runtime.monitor }, roles);
  app.use(errorHandler(runtime.logger));
  // /metrics here too, unless METRICS_PORT gives it a listener of its own (app/metrics.ts).
  if (!runtime.config.metricsPort) {
    setScrapeSources(runtimeSources(runtime));
    app.use(metricsRoute({ token: runtime.config.metricsToken, loopbackOnly: true }));
  }
  app.use(router.routes());
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, runtime.config.host, () => resolve());
  });
  runtime.logger.info({ port, roles }, 'health endpoints listening');
  return {
    name: 'health',
    async stop() {
      // Kept answering (not ready) until the roles have stopped: lifecycle stops this one last.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
