/**
 * Operational routes that are not operations of the specification: health, readiness, the OpenAPI
 * document and its reference page. The page and its assets are served from the installed
 * swagger-ui-dist package, never from a CDN.
 */
import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import type Koa from 'koa';
import { NotFoundError, NotReadyError } from '../../lib/errors';
import { problemResponse } from '../http/middleware';
import { API_PREFIX } from '../http/router';
import type { ProcessRole } from '../../lib/config';
import { checkReadiness, notReadyDetail, type ReadinessDeps } from './health';

const SWAGGER_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const DOC_ASSETS: Record<string, { file: string; type: string }> = {
  'swagger-ui.css': { file: path.join(SWAGGER_DIR, 'swagger-ui.css'), type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: path.join(SWAGGER_DIR, 'swagger-ui-bundle.js'), type: 'application/javascript; charset=utf-8' },
};

const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: '${API_PREFIX}/openapi.json', dom_id: '#reference', deepLinking: true, docExpansion: 'none', defaultModelsExpandDepth: 0 });
});\n`;

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Commerce platform API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <main id="reference" aria-label="API reference"><p>Loading the reference of <a href="${API_PREFIX}/openapi.json">${API_PREFIX}/openapi.json</a>…</p></main>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/init.js"></script>
</body>
</html>
`;

/**
 * Adds /livez (alias /healthz) and /readyz for `roles` to a router: the api's own router, or the
 * small health server of a worker-only process (app/health-server.ts).
 */
export function addHealthRoutes(router: Router, deps: ReadinessDeps, roles: readonly ProcessRole[]): void {
  const startedAt = Date.now();
  const live = (ctx: Koa.Context): void => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'ok', uptimeSeconds: Math.round((Date.now() - startedAt) / 1000) };
  };
  router.get('/livez', live);
  router.get('/healthz', live);

  router.get('/readyz', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const readiness = await checkReadiness(deps, roles);
    const { checks } = readiness;
    // Down but not needed by these roles: they work, with less (e.g. the api without Redis).
    const degraded = Object.entries(checks)
      .filter(([, c]) => c.status === 'down')
      .map(([name]) => name);
    if (readiness.ready) {
      ctx.body = { status: 'ready', checks, roles: readiness.roles, ...(degraded.length ? { degraded } : {}) };
      return;
    }
    problemResponse(ctx, new NotReadyError(notReadyDetail(readiness)));
    ctx.body = { ...(ctx.body as object), checks, roles: readiness.roles, shuttingDown: readiness.shuttingDown };
  });
}

export function buildSystemRouter(deps: ReadinessDeps & { openApiJson: string }): Router {
  const router = new Router();
  // The api port answers for the api role: whether this process can serve requests.
  addHealthRoutes(router, deps, ['api']);

  router.get(`${API_PREFIX}/openapi.json`, (ctx) => {
    ctx.type = 'application/json';
    ctx.body = deps.openApiJson;
  });

  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Content-Security-Policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'");
    ctx.body = DOCS_PAGE;
  });

  router.get('/docs/assets/:file', (ctx) => {
    const name = ctx.params.file as string;
    if (name === 'init.js') {
      ctx.type = 'application/javascript; charset=utf-8';
      ctx.body = INIT_SCRIPT;
      return;
    }
    const asset = DOC_ASSETS[name];
    if (!asset) throw new NotFoundError('No such documentation asset.');
    ctx.type = asset.type;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = fs.createReadStream(asset.file);
  });

  return router;
}
