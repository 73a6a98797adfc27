/**
 * The local preview of `svc-theme dev` (and the renderer `svc-theme audit` walks): the storefront's
 * own router and theme engine (web/storefront.ts, web/theme-engine.ts) over a theme folder, so a
 * page renders exactly as the platform will render it, budgets included. The storefront reads its
 * data from `/api/v1` of the address it was reached at; here that is this server, answering from the
 * bundled sample shop (cli/sample-data.ts) or, with an API URL, forwarding to a real instance.
 *
 * On every change in the folder the engine is rebuilt and the open pages reload (server-sent events
 * on /__svc/events, listened to by /__svc/reload.js). Each page shows a panel with what went wrong
 * in it: sections left out for their render budget, sections that failed (Liquid errors with line
 * and column), and the validator's errors for the folder.
 */
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import rawBody from 'raw-body';
import { watch as watchFolder, type FSWatcher } from 'chokidar';
import pino from 'pino';
import type { RenderBudgetConfig } from '../lib/config';
import { ThemeEngine, type PageContext, type SectionMeter, type SectionRef, type SectionResult } from '../web/theme-engine';
import { buildStorefrontRouter, sectionLoaders } from '../web/storefront';
import type { ApiClient } from '../web/api-client';
import { validateThemePackage, type ThemeFinding } from '../domain/theme-package/validate';
import { SAMPLE_STORE_ID, sampleApi } from './sample-data';
import { readThemeFolder } from './theme-files';
import { ASSET_TYPES } from '../lib/asset-types';

/** One section of one rendered page: what it cost against its budget. */
export interface SectionMetric {
  type: string;
  ms: number;
  /** Liquid nodes rendered plus data calls (undefined when it failed before rendering). */
  ops?: number;
  calls?: number;
  bytes: number;
  budget: { ms: number; ops: number; bytes: number };
  omitted?: string;
  error?: string;
}

export interface PageMetrics {
  status: number;
  sections: SectionMetric[];
  problems: string[];
}

export interface DevServerOptions {
  dir: string;
  port?: number;
  host?: string;
  /** A real instance's base URL and store: its public API gives the data instead of the sample shop. */
  api?: { url: string; storeId: string };
  watch?: boolean;
  budgets?: RenderBudgetConfig;
  log?: (line: string) => void;
}

export interface DevServer {
  url: string;
  storeId: string;
  /** The metrics of the last render of a path (with its query string). */
  metricsFor(pathAndQuery: string): PageMetrics | undefined;
  close(): Promise<void>;
}

/** The storefront's defaults (RENDER_BUDGET_MS, _OPS, _BYTES), or those variables when set. */
export function defaultBudgets(env: NodeJS.ProcessEnv = process.env): RenderBudgetConfig {
  const number = (name: string, fallback: number): number => {
    const value = Number(env[name]);
    return Number.isInteger(value) && value > 0 ? value : fallback;
  };
  return {
    defaults: {
      ms: number('RENDER_BUDGET_MS', 1_500),
      ops: number('RENDER_BUDGET_OPS', 50_000),
      bytes: number('RENDER_BUDGET_BYTES', 256 * 1024),
    },
    overrides: {},
  };
}

interface RequestRecord {
  sections: SectionMetric[];
  problems: string[];
}
const requestRecord = new AsyncLocalStorage<RequestRecord>();
const sectionProbe = new AsyncLocalStorage<{ meter?: SectionMeter; error?: string }>();

/** The storefront's engine, measuring each section as it renders (the meter is the engine's own). */
class MeasuredEngine extends ThemeEngine {
  constructor(budgets: RenderBudgetConfig, logger: pino.Logger, dir: string, publicBaseUrl: string) {
    super(budgets, logger, sectionLoaders, dir, publicBaseUrl);
    const renderer = this.liquid.renderer;
    const inner = renderer.renderTemplates.bind(renderer);
    renderer.renderTemplates = function* (templates, ctx, emitter) {
      const probe = sectionProbe.getStore();
      const meter = (ctx.globals as { __meter?: SectionMeter }).__meter;
      if (probe && meter && !probe.meter) probe.meter = meter;
      return yield* inner(templates, ctx, emitter);
    };
    // Assets of the folder being previewed (the platform serves a package's own the same way).
    this.liquid.registerFilter('asset_url', (name: unknown) => `/assets/theme/${encodeURIComponent(String(name ?? ''))}`);
  }

  override async renderSection(ref: SectionRef, page: PageContext, api: ApiClient): Promise<SectionResult> {
    const probe: { meter?: SectionMeter; error?: string } = {};
    const started = performance.now();
    const result = await sectionProbe.run(probe, () => super.renderSection(ref, page, api));
    const budget = this.budgetFor(ref.type);
    requestRecord.getStore()?.sections.push({
      type: ref.type,
      ms: Math.round((performance.now() - started) * 10) / 10,
      ops: probe.meter?.ops,
      calls: probe.meter?.calls,
      bytes: result.omitted ? 0 : Buffer.byteLength(result.html),
      budget,
      ...(result.omitted ? { omitted: result.omitted } : {}),
      ...(probe.error ? { error: probe.error } : {}),
    });
    return result;
  }
}

const RELOAD_JS = `// svc-theme dev: reload when a file of the theme changes.
new EventSource('/__svc/events').addEventListener('reload', function () { location.reload(); });
`;
const OVERLAY_CSS = `.svc-dev-panel{position:fixed;z-index:2147483647;bottom:0;left:0;right:0;max-height:40vh;overflow:auto;margin:0;padding:.75rem 1rem;
background:#7f1d1d;color:#fff;font:13px/1.4 ui-monospace,monospace;box-shadow:0 -2px 8px rgba(0,0,0,.4)}
.svc-dev-panel h2{font-size:14px;margin:0 0 .25rem}.svc-dev-panel ul{margin:0;padding-left:1.25rem}
`;

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function panel(problems: string[]): string {
  if (!problems.length) return '';
  return `<aside class="svc-dev-panel" role="status" aria-label="Theme problems"><h2>svc-theme dev: ${problems.length} problem${problems.length === 1 ? '' : 's'} on this page</h2><ul>${problems
    .map((p) => `<li>${escapeHtml(p)}</li>`)
    .join('')}</ul></aside>`;
}

function inject(html: string, problems: string[]): string {
  const head = '<link rel="stylesheet" href="/__svc/overlay.css"><script src="/__svc/reload.js" defer></script>';
  let out = html.includes('</head>') ? html.replace('</head>', `${head}</head>`) : `${head}${html}`;
  const shown = panel(problems);
  if (shown) out = out.includes('</body>') ? out.replace('</body>', `${shown}</body>`) : `${out}${shown}`;
  return out;
}

function errorText(err: unknown): string {
  const e = err as Error & { token?: { getPosition?: () => [number, number]; file?: string } };
  const position = e.token?.getPosition?.();
  return `${e.message ?? String(err)}${position && !/line:\d+/.test(e.message ?? '') ? ` (line ${position[0]}, column ${position[1]})` : ''}`;
}

export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const dir = path.resolve(options.dir);
  const log = options.log ?? (() => undefined);
  const storeId = options.api?.storeId ?? SAMPLE_STORE_ID;
  const budgets = options.budgets ?? defaultBudgets();
  const metrics = new Map<string, PageMetrics>();
  const listeners = new Set<http.ServerResponse>();
  let publicBaseUrl = 'http://127.0.0.1';

  // The engine's warnings (sections left out, sections that failed) go to the page being rendered.
  const logger = pino(
    { level: 'warn', base: undefined, timestamp: false },
    {
      write(line: string): void {
        const record = JSON.parse(line) as {
          msg?: string;
          section?: string;
          budget?: string;
          limit?: number;
          used?: number;
          err?: { message?: string };
        };
        const text =
          record.budget !== undefined
            ? `section ${record.section} omitted: over its ${record.budget} budget (${record.used} > ${record.limit})`
            : `section ${record.section ?? '?'} failed: ${record.err?.message ?? record.msg}`;
        const store = requestRecord.getStore();
        store?.problems.push(text);
        const probe = sectionProbe.getStore();
        if (probe && record.budget === undefined) probe.error = record.err?.message ?? record.msg;
        log(`  ${text}`);
      },
    },
  );

  let findings: ThemeFinding[] = [];
  let router: ReturnType<typeof buildStorefrontRouter>;
  const rebuild = (): void => {
    const engine = new MeasuredEngine(budgets, logger, dir, publicBaseUrl);
    router = buildStorefrontRouter(engine, { uploadMaxBytes: 10 * 1024 * 1024 });
    const folder = readThemeFolder(dir);
    findings = [...folder.findings, ...validateThemePackage(folder.files)].filter((f) => f.severity === 'error');
  };

  const app = new Koa();
  app.use(async (ctx, next) => {
    if (ctx.path === '/__svc/reload.js') {
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.body = RELOAD_JS;
      return;
    }
    if (ctx.path === '/__svc/overlay.css') {
      ctx.type = 'text/css; charset=utf-8';
      ctx.body = OVERLAY_CSS;
      return;
    }
    if (ctx.path === '/__svc/events') {
      ctx.respond = false;
      const res = ctx.res;
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
      res.write(': connected\n\n');
      listeners.add(res);
      res.on('close', () => listeners.delete(res));
      return;
    }
    if (ctx.path === '/') return ctx.redirect(`/shop/${storeId}`);
    const asset = /^\/assets\/theme\/([A-Za-z0-9_][A-Za-z0-9._-]*)$/.exec(ctx.path);
    if (asset) {
      const type = ASSET_TYPES[path.extname(asset[1]!).toLowerCase()];
      const full = path.join(dir, 'assets', asset[1]!);
      if (!type || !fs.existsSync(full)) return;
      ctx.type = type;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = fs.readFileSync(full);
      return;
    }
    if (ctx.path.startsWith('/api/v1/')) return answerApi(ctx);
    await next();
  });

  async function answerApi(ctx: Koa.Context): Promise<void> {
    const apiPath = ctx.path.slice('/api/v1'.length);
    if (apiPath === `/themes/public/stores/${storeId}/active` && ctx.method === 'GET') {
      // The folder being previewed stands in for whatever theme the store has active.
      ctx.body = { theme: 'default', package: null, sectionSettings: [] };
      return;
    }
    if (!options.api) {
      const answer = sampleApi(ctx.method, apiPath, ctx.query);
      ctx.status = answer.status;
      ctx.type = answer.status >= 400 ? 'application/problem+json' : 'application/json';
      ctx.body = answer.body;
      return;
    }
    // The real store's public API, as the storefront would call it (no credentials are involved).
    const body = ctx.method === 'GET' || ctx.method === 'HEAD' ? undefined : await rawBody(ctx.req, { limit: 11 * 1024 * 1024 });
    const headers: Record<string, string> = { Accept: ctx.get('Accept') || 'application/json' };
    if (ctx.get('Content-Type')) headers['Content-Type'] = ctx.get('Content-Type');
    const res = await fetch(`${options.api.url}/api/v1${apiPath}${ctx.querystring ? `?${ctx.querystring}` : ''}`, {
      method: ctx.method,
      headers,
      body,
    });
    ctx.status = res.status;
    ctx.type = res.headers.get('content-type') ?? 'application/octet-stream';
    ctx.body = Buffer.from(await res.arrayBuffer());
  }

  app.use(async (ctx, next) => {
    const record: RequestRecord = { sections: [], problems: [] };
    try {
      await requestRecord.run(record, next);
    } catch (err) {
      // The layout or a template failed as a whole: show why instead of a bare 500.
      record.problems.push(`page failed: ${errorText(err)}`);
      log(`  page failed: ${errorText(err)}`);
      ctx.status = 500;
      ctx.type = 'text/html; charset=utf-8';
      ctx.body =
        '<!doctype html><html lang="en"><head><title>Render error</title></head><body><main><h1>The page could not be rendered</h1></main></body></html>';
    }
    const problems = [
      ...findings.map((f) => `${f.file ?? ''}${f.line ? `:${f.line}:${f.column}` : ''} ${f.rule}: ${f.message}`),
      ...record.problems,
    ];
    metrics.set(ctx.url, { status: ctx.status, sections: record.sections, problems });
    if (typeof ctx.body === 'string' && (ctx.type ?? '').startsWith('text/html')) ctx.body = inject(ctx.body, problems);
  });
  app.use((ctx, next) => router.routes()(ctx as Parameters<ReturnType<typeof router.routes>>[0], next));

  const server = http.createServer(app.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host && options.host !== '0.0.0.0' ? options.host : '127.0.0.1'}:${port}`;
  publicBaseUrl = url;
  rebuild();

  const keepAlive = setInterval(() => {
    for (const res of listeners) res.write(': keep-alive\n\n');
  }, 15_000);
  keepAlive.unref();

  let watcher: FSWatcher | undefined;
  if (options.watch !== false) {
    let timer: NodeJS.Timeout | undefined;
    watcher = watchFolder(dir, { ignoreInitial: true, ignored: (file: string) => path.basename(file).startsWith('.') && file !== dir });
    watcher.on('all', (event: string, file: string) => {
      clearTimeout(timer);
      // A save often touches a file twice; one reload for the burst.
      timer = setTimeout(() => {
        try {
          rebuild();
          log(`${event} ${path.relative(dir, file)}: reloading`);
        } catch (err) {
          log(`rebuild failed: ${errorText(err)}`);
        }
        for (const res of listeners) res.write(`event: reload\ndata: ${JSON.stringify({ file: path.relative(dir, file) })}\n\n`);
      }, 50);
    });
    await new Promise<void>((resolve) => watcher!.once('ready', () => resolve()));
  }

  return {
    url,
    storeId,
    metricsFor: (pathAndQuery) => metrics.get(pathAndQuery),
    close: async () => {
      clearInterval(keepAlive);
      await watcher?.close();
      for (const res of listeners) res.end();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
