/**
 * The web deliverable (storefront and merchant console), served by the api role in the same process
 * as the API: `/` (landing: create a sandbox shop or open one), `/shop/<storeId>/…` (storefront),
 * `/console/…` (merchant console) and `/assets/theme/…` (the theme's CSS and scripts). The addresses
 * the platform sends people to (`/device`, `/verify-email`, `/reset-password`) lead to their console
 * pages.
 */
import { DEMO_SANDBOX_FILE } from '../api/sandbox/demo-sandbox';
import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import type Koa from 'koa';
import type { Logger } from 'pino';
import type { Config } from '../lib/config';
import { apiClientFor } from './api-client';
import { buildConsoleRouter } from './console';
import { buildStorefrontRouter, sectionLoaders } from './storefront';
import { THEME_DIR, ThemeEngine } from './theme-engine';
import { FormBodyError, readFormBody } from './form-body';
import { CROSS_SITE_MESSAGE, crossSiteReason, pageHeaders } from './page-security';

const ASSET_TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export interface WebDeps {
  config: Pick<Config, 'renderBudgets' | 'vision' | 'bodyLimitFormBytes' | 'publicBaseUrl'> & Partial<Pick<Config, 'appSecret'>>;
  logger: Logger;
}

export function buildWeb(deps: WebDeps): { middleware: Koa.Middleware; routers: Router[] } {
  const theme = new ThemeEngine(deps.config.renderBudgets, deps.logger, sectionLoaders, undefined, deps.config.publicBaseUrl);
  const root = new Router();

  root.get('/assets/theme/:file', async (ctx) => {
    const file = ctx.params.file!;
    const type = ASSET_TYPES[path.extname(file)];
    if (!type || !/^[a-z0-9-]+\.[a-z]+$/.test(file)) return;
    const full = path.join(THEME_DIR, 'assets', file);
    if (!fs.existsSync(full)) return;
    ctx.type = type;
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = fs.createReadStream(full);
  });

  root.get('/', async (ctx) => {
    pageHeaders(ctx);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = await theme.renderFile('landing.liquid', { demo: demoShop() });
  });

  // Creates a sandbox shop through the public sandbox operation, when the API offers one; only from
  // this server's own start page (web/page-security.ts), refused before the body is read otherwise.
  root.post('/', async (ctx) => {
    pageHeaders(ctx);
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-store');
    if (crossSiteReason(ctx, deps.config.publicBaseUrl)) {
      ctx.req.resume(); // discarded unread
      ctx.status = 403;
      ctx.body = await theme.renderFile('landing.liquid', { error: CROSS_SITE_MESSAGE });
      return;
    }
    let fields: URLSearchParams;
    try {
      fields = await readFormBody(ctx, deps.config.bodyLimitFormBytes);
    } catch (error) {
      // Over BODY_LIMIT_FORM (or unreadable): the start page with the reason, like the other refusals.
      if (!(error instanceof FormBodyError)) throw error;
      ctx.status = error.status;
      ctx.body = await theme.renderFile('landing.liquid', { error: error.message });
      return;
    }
    const email = fields.get('email') ?? '';
    const res = await apiClientFor(ctx).request('POST', '/sandbox', { body: { email } });
    if (res.status === 201) {
      ctx.body = await theme.renderFile('landing.liquid', { sandbox: res.json });
      return;
    }
    ctx.status = res.status === 429 ? 429 : res.status === 400 ? 400 : 503;
    ctx.body = await theme.renderFile('landing.liquid', { error: res.json?.detail ?? 'Sandboxes are not available on this server.' });
  });

  // The links in the device flow's answer and in the e-mails: their pages live in the console, where
  // its cookies are sent. The query (the user code, the token) goes along; nothing is cached.
  for (const [from, to] of [
    ['/device', '/console/device'],
    ['/verify-email', '/console/verify-email'],
    ['/reset-password', '/console/reset-password'],
    ['/register', '/console/register'],
  ] as const) {
    root.get(from, (ctx) => {
      ctx.set('Cache-Control', 'no-store');
      ctx.redirect(ctx.querystring ? `${to}?${ctx.querystring}` : to);
    });
  }

  root.get('/shop', (ctx) => {
    const store = typeof ctx.query.store === 'string' ? ctx.query.store.trim() : '';
    ctx.redirect(/^[0-9a-f-]{36}$/i.test(store) ? `/shop/${store}` : '/');
  });

  const storefront = buildStorefrontRouter(theme, {
    uploadMaxBytes: deps.config.vision.uploadMaxBytes,
    appSecret: deps.config.appSecret,
    formLimitBytes: deps.config.bodyLimitFormBytes,
  });
  const consoleRouter = buildConsoleRouter(theme, {
    formLimitBytes: deps.config.bodyLimitFormBytes,
    publicBaseUrl: deps.config.publicBaseUrl,
  });
  const routers = [root, storefront, consoleRouter];
  const dispatchers = routers.map((router) => router.routes() as Koa.Middleware);
  const middleware: Koa.Middleware = async (ctx, next) => {
    if (ctx.path.startsWith('/api/')) return next();
    const run = (i: number): Promise<unknown> =>
      i < dispatchers.length ? Promise.resolve(dispatchers[i]!(ctx, () => run(i + 1) as Promise<void>)) : next();
    await run(0);
  };
  return { middleware, routers };
}

/** The demo shop `npm start` prepared on this machine (its store id only; the token stays in the file). */
function demoShop(): { storeId: string } | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(DEMO_SANDBOX_FILE, 'utf8')) as { storeId?: unknown };
    return typeof parsed.storeId === 'string' ? { storeId: parsed.storeId } : undefined;
  } catch {
    return undefined;
  }
}
