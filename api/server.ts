/** The api role: serves the Koa app over HTTP and drains connections on stop. */
import http from 'node:http';
import { createApp } from './app';
import type { RunningRole } from './lifecycle';
import type { Runtime } from './runtime';

export async function startApiRole(runtime: Runtime): Promise<RunningRole & { server: http.Server }> {
  const app = createApp(runtime);
  const server = http.createServer(app.callback());
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
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const forced = setTimeout(() => server.closeAllConnections(), runtime.config.shutdownTimeoutMs);
      await closed;
      clearTimeout(forced);
    },
  };
}
