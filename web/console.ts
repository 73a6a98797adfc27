/**
 * The merchant console under /console: sign in, pick a store, then fix search (zero-result queries
 * to synonyms, the synonym list), watch the visual index and undo bulk edits. Every action is a call
 * to the merchant API with the signed-in user's token, exactly what a merchant's own tool would send.
 * The tokens live in HttpOnly, SameSite=Strict cookies scoped to /console; form posts must come from
 * this origin.
 */
import Router from '@koa/router';
import type Koa from 'koa';
import { apiClientFor, type ApiAnswer, type ApiClient, type Json, type Query } from './api-client';
import type { ThemeEngine } from './theme-engine';
import { FormBodyError, readFormBody } from './form-body';
import { isUuid } from '../storage/ids';

const ACCESS = 'console_at';
const REFRESH = 'console_rt';

function cookieOptions(ctx: Koa.Context, maxAgeSeconds?: number) {
  return {
    httpOnly: true,
    sameSite: 'strict' as const,
    path: '/console',
    overwrite: true,
    secure: ctx.secure,
    ...(maxAgeSeconds ? { maxAge: maxAgeSeconds * 1000 } : {}),
  };
}

/** A console form post, at most `limitBytes` (BODY_LIMIT_FORM); other content types read as empty. */
async function readForm(ctx: Koa.Context, limitBytes: number): Promise<URLSearchParams> {
  if (!ctx.is('application/x-www-form-urlencoded')) return new URLSearchParams();
  return readFormBody(ctx, limitBytes);
}

const list = (value: string | null): string[] =>
  (value ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

/** The API with the console user's token; refreshes it once on a 401. */
class ConsoleApi {
  private api: ApiClient;
  constructor(private readonly ctx: Koa.Context) {
    this.api = apiClientFor(ctx);
  }

  get token(): string | undefined {
    return this.ctx.cookies.get(ACCESS) ?? undefined;
  }

  async call<T = Json>(method: string, path: string, options: { query?: Query; body?: unknown } = {}): Promise<ApiAnswer<T>> {
    const send = () => this.api.withHeaders({ Authorization: `Bearer ${this.token ?? ''}` }).request<T>(method, path, options);
    let res = await send();
    const refreshToken = this.ctx.cookies.get(REFRESH);
    if (res.status === 401 && refreshToken) {
      const refreshed = await this.api.request('POST', '/auth/refresh', { body: { refreshToken } });
      if (refreshed.ok) {
        setTokens(this.ctx, refreshed.json);
        res = await send();
      }
    }
    return res;
  }
}

function setTokens(ctx: Koa.Context, pair: { accessToken: string; refreshToken?: string; refreshExpiresIn?: number }): void {
  ctx.cookies.set(ACCESS, pair.accessToken, cookieOptions(ctx, pair.refreshExpiresIn));
  // koa's cookie jar reads the request's cookies; remember the new token for the rest of this request.
  ctx.request.headers.cookie = `${ACCESS}=${pair.accessToken}${pair.refreshToken ? `; ${REFRESH}=${pair.refreshToken}` : ''}`;
  if (pair.refreshToken) ctx.cookies.set(REFRESH, pair.refreshToken, cookieOptions(ctx, pair.refreshExpiresIn));
}

function problemText(res: ApiAnswer): string {
  const detail = res.json?.detail ?? res.json?.title ?? `The API answered ${res.status}.`;
  const fields = Array.isArray(res.json?.errors)
    ? res.json.errors.map((e: { path: string; message: string }) => `${e.path}: ${e.message}`).join('; ')
    : '';
  return fields ? `${detail} (${fields})` : detail;
}

export function buildConsoleRouter(theme: ThemeEngine, options: { formLimitBytes: number }): Router {
  const router = new Router({ prefix: '/console' });
  const form = (ctx: Koa.Context): Promise<URLSearchParams> => readForm(ctx, options.formLimitBytes);

  async function page(ctx: Koa.Context, name: string, title: string, scope: Record<string, unknown> = {}): Promise<void> {
    const storeId = ctx.params.storeId;
    const content = await theme.renderFile(`console/${name}.liquid`, {
      ...scope,
      store_id: storeId,
      base: storeId ? `/console/stores/${storeId}` : '/console',
      flash: ctx.query.flash,
      error: scope.error ?? ctx.query.error,
    });
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = await theme.renderFile('layout/console.liquid', {
      page_title: title,
      content,
      store_id: storeId,
      signed_in: Boolean(ctx.cookies.get(ACCESS)),
      section: name,
    });
  }

  router.use(async (ctx, next) => {
    ctx.set(
      'Content-Security-Policy',
      "default-src 'self'; img-src 'self' http: https: data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'",
    );
    ctx.set('Cache-Control', 'no-store');
    if (ctx.method === 'POST') {
      const origin = ctx.get('Origin');
      const site = ctx.get('Sec-Fetch-Site');
      if ((origin && origin !== ctx.origin) || (site && !['same-origin', 'none'].includes(site))) {
        ctx.status = 403;
        ctx.body = 'Cross-site form posts are refused.';
        return;
      }
    }
    try {
      await next();
    } catch (error) {
      // A form body over BODY_LIMIT_FORM (or otherwise unreadable): the page again, with the reason.
      if (!(error instanceof FormBodyError)) throw error;
      ctx.status = error.status;
      await page(ctx, ctx.path === '/console/login' ? 'login' : 'message', ctx.path === '/console/login' ? 'Sign in' : 'Form not sent', {
        error: error.message,
      });
    }
  });

  router.param('storeId', async (id, ctx, next) => {
    if (!isUuid(id)) {
      ctx.status = 404;
      return page(ctx, 'message', 'Not found', { error: 'No such store.' });
    }
    if (!ctx.cookies.get(ACCESS)) return ctx.redirect('/console');
    await next();
  });

  router.get('/', async (ctx) => {
    if (!ctx.cookies.get(ACCESS)) return page(ctx, 'login', 'Sign in');
    const res = await new ConsoleApi(ctx).call('GET', '/organization/summary');
    if (res.status === 401) {
      ctx.cookies.set(ACCESS, null, cookieOptions(ctx));
      return page(ctx, 'login', 'Sign in', { error: 'Your session ended; please sign in again.' });
    }
    if (!res.ok) {
      // An API key (a sandbox token) cannot read the organization; a sandbox token knows its one store.
      const sandbox = await new ConsoleApi(ctx).call('GET', '/sandbox');
      if (sandbox.ok && sandbox.json?.storeId) return ctx.redirect(`/console/stores/${sandbox.json.storeId}/zero-results`);
    }
    const stores = res.ok ? (res.json.stores as Array<{ status: string }>).filter((s) => s.status === 'active') : [];
    if (stores.length === 1 && ctx.query.pick === undefined)
      return ctx.redirect(`/console/stores/${(stores[0] as unknown as { id: string }).id}/zero-results`);
    return page(ctx, 'stores', 'Pick a store', { stores, summary_error: res.ok ? undefined : problemText(res) });
  });

  router.post('/login', async (ctx) => {
    const body = await form(ctx);
    const api = apiClientFor(ctx);
    const token = body.get('token')?.trim();
    if (token) {
      setTokens(ctx, { accessToken: token });
      return ctx.redirect('/console');
    }
    const res = await api.request('POST', '/auth/login', {
      body: { email: body.get('email') ?? '', password: body.get('password') ?? '' },
    });
    if (!res.ok) {
      ctx.status = res.status === 429 ? 429 : 401;
      return page(ctx, 'login', 'Sign in', {
        error:
          res.status === 429 ? 'Too many attempts; wait a minute.' : res.status === 400 ? problemText(res) : 'E-mail or password is wrong.',
        email: body.get('email'),
      });
    }
    if (res.json.twoFactorRequired)
      return page(ctx, 'login', 'Sign in', {
        error: 'This account uses a second factor, which the console does not support yet; use an API token.',
      });
    setTokens(ctx, res.json);
    ctx.redirect('/console');
  });

  router.post('/logout', async (ctx) => {
    await new ConsoleApi(ctx).call('POST', '/auth/logout').catch(() => undefined);
    ctx.cookies.set(ACCESS, null, cookieOptions(ctx));
    ctx.cookies.set(REFRESH, null, cookieOptions(ctx));
    ctx.redirect('/console');
  });

  router.post('/pick', async (ctx) => {
    const storeId = (await form(ctx)).get('storeId') ?? '';
    ctx.redirect(isUuid(storeId) ? `/console/stores/${storeId}/zero-results` : '/console?pick&error=Enter+a+store+id');
  });

  router.get('/stores/:storeId', (ctx) => ctx.redirect(`/console/stores/${ctx.params.storeId}/zero-results`));

  // Zero-result queries and one-click synonyms.
  router.get('/stores/:storeId/zero-results', async (ctx) => {
    const res = await new ConsoleApi(ctx).call('GET', '/search-synonyms/zero-result-queries', { query: { storeId: ctx.params.storeId } });
    if (!res.ok) return page(ctx, 'message', 'Zero-result queries', { error: problemText(res) });
    await page(ctx, 'zero-results', 'Zero-result queries', { queries: res.json.items, shop: `/shop/${ctx.params.storeId}` });
  });

  router.post('/stores/:storeId/zero-results/synonym', async (ctx) => {
    const body = await form(ctx);
    const input = (body.get('query') ?? '').trim();
    const synonyms = list(body.get('synonyms'));
    const res = await new ConsoleApi(ctx).call('POST', '/search-synonyms', {
      body: { storeId: ctx.params.storeId, type: 'ONE_WAY', input, synonyms },
    });
    const base = `/console/stores/${ctx.params.storeId}/zero-results`;
    if (!res.ok) return ctx.redirect(`${base}?error=${encodeURIComponent(problemText(res))}`);
    ctx.redirect(`${base}?flash=${encodeURIComponent(`“${input}” now also finds ${synonyms.map((s) => `“${s}”`).join(', ')}.`)}`);
  });

  // Synonyms: list, create, edit, delete.
  router.get('/stores/:storeId/synonyms', async (ctx) => {
    const res = await new ConsoleApi(ctx).call('GET', '/search-synonyms', { query: { storeId: ctx.params.storeId, limit: 100 } });
    if (!res.ok) return page(ctx, 'message', 'Synonyms', { error: problemText(res) });
    await page(ctx, 'synonyms', 'Synonyms', { rules: res.json.items });
  });

  function synonymBody(body: URLSearchParams): Record<string, unknown> {
    const type = body.get('type') === 'MULTI_WAY' ? 'MULTI_WAY' : 'ONE_WAY';
    const out: Record<string, unknown> =
      type === 'MULTI_WAY'
        ? { terms: list(body.get('terms')) }
        : { input: (body.get('input') ?? '').trim(), synonyms: list(body.get('synonyms')) };
    out.isActive = body.get('isActive') !== null ? body.get('isActive') === 'true' : true;
    return { type, ...out };
  }

  router.post('/stores/:storeId/synonyms', async (ctx) => {
    const res = await new ConsoleApi(ctx).call('POST', '/search-synonyms', {
      body: { storeId: ctx.params.storeId, ...synonymBody(await form(ctx)) },
    });
    const base = `/console/stores/${ctx.params.storeId}/synonyms`;
    ctx.redirect(res.ok ? `${base}?flash=Synonym+rule+added.` : `${base}?error=${encodeURIComponent(problemText(res))}`);
  });

  router.post('/stores/:storeId/synonyms/:id', async (ctx) => {
    const { type: _type, ...changes } = synonymBody(await form(ctx));
    void _type;
    const res = await new ConsoleApi(ctx).call('PATCH', `/search-synonyms/${encodeURIComponent(ctx.params.id!)}`, { body: changes });
    const base = `/console/stores/${ctx.params.storeId}/synonyms`;
    ctx.redirect(res.ok ? `${base}?flash=Synonym+rule+saved.` : `${base}?error=${encodeURIComponent(problemText(res))}`);
  });

  router.post('/stores/:storeId/synonyms/:id/delete', async (ctx) => {
    const res = await new ConsoleApi(ctx).call('DELETE', `/search-synonyms/${encodeURIComponent(ctx.params.id!)}`);
    const base = `/console/stores/${ctx.params.storeId}/synonyms`;
    ctx.redirect(res.ok ? `${base}?flash=Synonym+rule+deleted.` : `${base}?error=${encodeURIComponent(problemText(res))}`);
  });

  // Visual index status, re-index, enable.
  router.get('/stores/:storeId/visual', async (ctx) => {
    const res = await new ConsoleApi(ctx).call('GET', `/visual-search/stores/${ctx.params.storeId}/index`);
    if (!res.ok) return page(ctx, 'message', 'Visual search', { error: problemText(res) });
    await page(ctx, 'visual', 'Visual search', { status: res.json });
  });

  router.post('/stores/:storeId/visual/reindex', async (ctx) => {
    const force = (await form(ctx)).get('force') === 'true';
    const res = await new ConsoleApi(ctx).call('POST', `/visual-search/stores/${ctx.params.storeId}/index`, {
      body: force ? { force: true } : {},
    });
    const base = `/console/stores/${ctx.params.storeId}/visual`;
    ctx.redirect(
      res.ok
        ? `${base}?flash=${encodeURIComponent(`${res.json.queued} products queued for indexing.`)}`
        : `${base}?error=${encodeURIComponent(problemText(res))}`,
    );
  });

  router.post('/stores/:storeId/visual/settings', async (ctx) => {
    const enabled = (await form(ctx)).get('enabled') === 'true';
    const res = await new ConsoleApi(ctx).call('PATCH', `/visual-search/stores/${ctx.params.storeId}/settings`, { body: { enabled } });
    const base = `/console/stores/${ctx.params.storeId}/visual`;
    ctx.redirect(
      res.ok
        ? `${base}?flash=${enabled ? 'Visual+search+is+on.' : 'Visual+search+is+off.'}`
        : `${base}?error=${encodeURIComponent(problemText(res))}`,
    );
  });

  // Bulk edit history and revert.
  router.get('/stores/:storeId/bulk-edits', async (ctx) => {
    const cursor = isUuid(ctx.query.cursor) ? ctx.query.cursor : undefined;
    const res = await new ConsoleApi(ctx).call('GET', '/product-bulk-edits', { query: { storeId: ctx.params.storeId, limit: 25, cursor } });
    if (!res.ok) return page(ctx, 'message', 'Bulk edits', { error: problemText(res) });
    await page(ctx, 'bulk-edits', 'Bulk edits', { edits: res.json.items, next_cursor: res.json.nextCursor });
  });

  router.post('/stores/:storeId/bulk-edits/:id/revert', async (ctx) => {
    const res = await new ConsoleApi(ctx).call('POST', `/product-bulk-edits/${encodeURIComponent(ctx.params.id!)}/revert`);
    const base = `/console/stores/${ctx.params.storeId}/bulk-edits`;
    ctx.redirect(
      res.ok
        ? `${base}?flash=${encodeURIComponent(`Reverted: ${res.json.okCount} products restored.`)}`
        : `${base}?error=${encodeURIComponent(problemText(res))}`,
    );
  });

  return router;
}
