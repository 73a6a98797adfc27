/**
 * The merchant console under /console: sign in, pick a store, then fix search (zero-result queries
 * to synonyms, the synonym list), watch the visual index and undo bulk edits. Every action is a call
 * to the merchant API with the signed-in user's token, exactly what a merchant's own tool would send.
 * The tokens live in HttpOnly, SameSite=Strict cookies scoped to /console; form posts must come from
 * this server's own pages (web/page-security.ts). Signing out revokes the session on the server.
 *
 * It also holds the pages the platform sends people to: `/device` (approve or deny a command line
 * sign-in), `/verify-email` and `/reset-password` (the e-mailed links) answer here, under /console,
 * where the console's cookies are sent (web/web.router.ts redirects the short addresses).
 */
import Router from '@koa/router';
import type Koa from 'koa';
import { apiClientFor, type ApiAnswer, type ApiClient, type Json, type Query } from './api-client';
import type { ThemeEngine } from './theme-engine';
import { FormBodyError, readFormBody } from './form-body';
import { CROSS_SITE_MESSAGE, crossSiteReason, pageHeaders } from './page-security';
import { addThemeEditorRoutes } from './theme-editor';
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

/** A place inside the console to go back to after signing in; anything else (another site, `//host`) is dropped. */
export function safeNext(value: string | null | undefined): string | undefined {
  if (!value || !value.startsWith('/console/') || value.includes('\\') || value.length > 300) return undefined;
  try {
    const url = new URL(value, 'http://console.invalid');
    return url.origin === 'http://console.invalid' && url.pathname.startsWith('/console/') ? `${url.pathname}${url.search}` : undefined;
  } catch {
    return undefined;
  }
}

/** A single query parameter as a string (the first of several), at most `max` characters; otherwise ''. */
function queryParam(ctx: Koa.Context, name: string, max: number): string {
  const raw = ctx.query[name];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? '';
  return value.length <= max ? value : '';
}

/** A user code as the command line tool shows it (XXXX-XXXX); the API decides whether it is valid. */
const USER_CODE_MAX = 32;
/** The e-mailed tokens are at most this long (the API's own bound). */
const EMAIL_TOKEN_MAX = 512;
const INCOMPLETE_LINK = 'This link is incomplete; open the whole link from the e-mail.';
const TOO_MANY_ATTEMPTS = 'Too many attempts; wait a minute.';
/** The pages the platform links to from outside (the device flow, the e-mails). */
const LINKED_PAGES = new Set(['device', 'verify-email', 'reset-password', 'register']);

export function buildConsoleRouter(theme: ThemeEngine, options: { formLimitBytes: number; publicBaseUrl: string }): Router {
  const router = new Router({ prefix: '/console' });
  const form = (ctx: Koa.Context): Promise<URLSearchParams> => readForm(ctx, options.formLimitBytes);

  async function page(ctx: Koa.Context, name: string, title: string, scope: Record<string, unknown> = {}): Promise<void> {
    const storeId = ctx.params.storeId;
    const content = await theme.renderFile(`console/${name}.liquid`, {
      ...scope,
      store_id: storeId,
      base: storeId ? `/console/stores/${storeId}` : '/console',
      // Pages reached from a link sent to someone (device, e-mail, password) show only their own messages.
      flash: scope.flash ?? (LINKED_PAGES.has(name) ? undefined : ctx.query.flash),
      error: scope.error ?? (LINKED_PAGES.has(name) ? undefined : ctx.query.error),
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
    pageHeaders(ctx);
    ctx.set('Cache-Control', 'no-store');
    // Every console post changes something (or signs in): refused, before its body is read, unless
    // it comes from this server's own pages.
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD' && crossSiteReason(ctx, options.publicBaseUrl)) {
      ctx.req.resume(); // the body is discarded unread, so the browser gets this answer rather than a reset
      ctx.status = 403;
      return page(ctx, 'message', 'Form refused', { error: CROSS_SITE_MESSAGE });
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
    const next = safeNext(body.get('next'));
    const token = body.get('token')?.trim();
    if (token) {
      setTokens(ctx, { accessToken: token });
      return ctx.redirect(next ?? '/console');
    }
    const res = await api.request('POST', '/auth/login', {
      body: { email: body.get('email') ?? '', password: body.get('password') ?? '' },
    });
    if (!res.ok) {
      ctx.status = res.status === 429 ? 429 : 401;
      return page(ctx, 'login', 'Sign in', {
        error: res.status === 429 ? TOO_MANY_ATTEMPTS : res.status === 400 ? problemText(res) : 'E-mail or password is wrong.',
        email: body.get('email'),
        next,
      });
    }
    if (res.json.twoFactorRequired)
      return page(ctx, 'login', 'Sign in', {
        error: 'This account uses a second factor, which the console does not support yet; use an API token.',
        next,
      });
    setTokens(ctx, res.json);
    ctx.redirect(next ?? '/console');
  });

  // Signing out ends the session on the server (POST /auth/logout with the refresh token: the session
  // is revoked, so its access token stops at once and the refresh token refreshes no more), then
  // forgets the cookies. A pasted token (an API or sandbox key) has no session here; it is only forgotten.
  router.post('/logout', async (ctx) => {
    const refreshToken = ctx.cookies.get(REFRESH);
    let revoked = true;
    if (refreshToken) {
      const res = await apiClientFor(ctx)
        .request('POST', '/auth/logout', { body: { refreshToken } })
        .catch(() => undefined);
      revoked = res?.status === 204;
    }
    ctx.cookies.set(ACCESS, null, cookieOptions(ctx));
    ctx.cookies.set(REFRESH, null, cookieOptions(ctx));
    ctx.redirect(
      revoked
        ? '/console?flash=Signed+out.'
        : `/console?error=${encodeURIComponent('Signed out here, but the server did not confirm that the session ended; sign in and sign out again, or end it under your sessions.')}`,
    );
  });

  // The command line device flow: the tool shows a code and this address; a signed-in person
  // approves or denies it with their own token (POST /auth/cli/approve or /auth/cli/deny).
  const deviceUrl = (code: string) => `/console/device${code ? `?user_code=${encodeURIComponent(code)}` : ''}`;
  const signInFirst = (ctx: Koa.Context, code: string, error?: string) =>
    page(ctx, 'login', 'Sign in', {
      next: deviceUrl(code),
      flash: error ? undefined : 'Sign in to approve or deny the command line sign-in.',
      error,
    });

  router.get('/device', async (ctx) => {
    const code = queryParam(ctx, 'user_code', USER_CODE_MAX) || queryParam(ctx, 'code', USER_CODE_MAX);
    if (!ctx.cookies.get(ACCESS)) return signInFirst(ctx, code);
    await page(ctx, 'device', 'Command line sign-in', { user_code: code });
  });

  router.post('/device', async (ctx) => {
    const body = await form(ctx);
    const code = (body.get('user_code') ?? '').trim().slice(0, USER_CODE_MAX);
    const decision = body.get('decision');
    if (!ctx.cookies.get(ACCESS)) return signInFirst(ctx, code);
    if (decision !== 'approve' && decision !== 'deny') {
      ctx.status = 400;
      return page(ctx, 'device', 'Command line sign-in', { user_code: code, error: 'Choose Approve or Deny.' });
    }
    const res = await new ConsoleApi(ctx).call('POST', `/auth/cli/${decision}`, { body: { userCode: code } });
    if (res.ok) return page(ctx, 'device', 'Command line sign-in', { decided: decision, user_code: code });
    if (res.status === 401) {
      ctx.cookies.set(ACCESS, null, cookieOptions(ctx));
      ctx.status = 401;
      return signInFirst(ctx, code, 'Your session ended; please sign in again.');
    }
    const messages: Record<number, string> = {
      403: 'Approving a command line sign-in needs an account signed in with its e-mail and password, not an API or sandbox token.',
      429: 'Too many codes tried; wait a few minutes.',
    };
    ctx.status = [400, 403, 404, 429].includes(res.status) ? res.status : 502;
    await page(ctx, 'device', 'Command line sign-in', { user_code: code, error: messages[res.status] ?? problemText(res) });
  });

  // The e-mailed link confirming an address: a button, so that mail scanners opening the link do
  // not spend the single-use token; the post calls POST /auth/verify-email.
  router.get('/verify-email', async (ctx) => {
    const token = queryParam(ctx, 'token', EMAIL_TOKEN_MAX);
    if (!token) ctx.status = 400;
    await page(ctx, 'verify-email', 'Confirm your e-mail address', {
      token,
      error: token ? undefined : INCOMPLETE_LINK,
    });
  });

  router.post('/verify-email', async (ctx) => {
    const token = ((await form(ctx)).get('token') ?? '').slice(0, EMAIL_TOKEN_MAX);
    const res = await apiClientFor(ctx).request('POST', '/auth/verify-email', { body: { token } });
    if (res.ok) return page(ctx, 'verify-email', 'E-mail address confirmed', { verified: res.json.email });
    ctx.status = res.status === 429 ? 429 : 400;
    await page(ctx, 'verify-email', 'Confirm your e-mail address', {
      error:
        res.status === 429
          ? TOO_MANY_ATTEMPTS
          : 'This link is invalid, already used or expired. Sign in and ask for a new verification e-mail.',
    });
  });

  // The e-mailed link resetting a password: a form for the new one (the rules are the API's,
  // GET /auth/password-rules; every broken rule is listed), sent to POST /auth/reset-password.
  async function resetPage(ctx: Koa.Context, scope: Record<string, unknown>): Promise<void> {
    const rules = await apiClientFor(ctx)
      .request('GET', '/auth/password-rules')
      .catch(() => undefined);
    await page(ctx, 'reset-password', 'Choose a new password', { ...scope, rules: rules?.ok ? rules.json : undefined });
  }

  const incompleteResetLink = (ctx: Koa.Context): Promise<void> => {
    ctx.status = 400;
    return page(ctx, 'reset-password', 'Choose a new password', { error: INCOMPLETE_LINK });
  };

  router.get('/reset-password', async (ctx) => {
    const token = queryParam(ctx, 'token', EMAIL_TOKEN_MAX);
    if (!token) return incompleteResetLink(ctx);
    await resetPage(ctx, { token });
  });

  router.post('/reset-password', async (ctx) => {
    const body = await form(ctx);
    const token = (body.get('token') ?? '').slice(0, EMAIL_TOKEN_MAX);
    const password = body.get('password') ?? '';
    if (!token) return incompleteResetLink(ctx);
    if (password !== (body.get('password_repeat') ?? '')) {
      ctx.status = 400;
      return resetPage(ctx, { token, error: 'The two passwords differ; type the same password twice.' });
    }
    const res = await apiClientFor(ctx).request('POST', '/auth/reset-password', { body: { token, password } });
    if (res.ok) return page(ctx, 'reset-password', 'Password changed', { reset: true, revoked: res.json.revokedSessions });
    ctx.status = res.status === 429 ? 429 : 400;
    if (res.json?.code === 'invalid_token')
      return page(ctx, 'reset-password', 'Choose a new password', {
        error: 'This link is invalid, already used or expired; ask for a new password reset e-mail.',
      });
    const broken = Array.isArray(res.json?.errors) ? (res.json.errors as Array<{ message: string }>).map((e) => e.message) : [];
    await resetPage(ctx, {
      token,
      error: res.status === 429 ? TOO_MANY_ATTEMPTS : broken.length ? 'The password breaks these rules:' : problemText(res),
      broken,
    });
  });

  // The e-mailed link of a sales team's store invitation: a sign-up form that spends the invitation
  // (POST /auth/register with invitationToken), signs the new owner in and creates their first
  // store (POST /organization/stores), which links it to the sales lead.
  router.get('/register', async (ctx) => {
    const token = queryParam(ctx, 'invitation_token', EMAIL_TOKEN_MAX);
    if (!token) ctx.status = 400;
    await page(ctx, 'register', 'Open your store', { token, error: token ? undefined : INCOMPLETE_LINK });
  });

  router.post('/register', async (ctx) => {
    const body = await form(ctx);
    const token = (body.get('invitation_token') ?? '').slice(0, EMAIL_TOKEN_MAX);
    const fields = {
      name: body.get('name') ?? '',
      company: body.get('company') ?? '',
      email: body.get('email') ?? '',
      store: body.get('store') ?? '',
    };
    const again = (status: number, error: string, broken: string[] = []): Promise<void> => {
      ctx.status = status;
      return page(ctx, 'register', 'Open your store', { ...fields, token, error, broken });
    };
    if (!token) return again(400, INCOMPLETE_LINK);
    const password = body.get('password') ?? '';
    if (password !== (body.get('password_repeat') ?? '')) return again(400, 'The two passwords differ; type the same password twice.');
    const api = apiClientFor(ctx);
    const res = await api.request('POST', '/auth/register', {
      body: { email: fields.email, password, name: fields.name, companyName: fields.company, invitationToken: token },
    });
    if (!res.ok) {
      if (res.json?.code === 'invitation_invalid')
        return again(400, 'This invitation is invalid, already used or expired; ask your contact for a new one.');
      if (res.status === 429) return again(429, TOO_MANY_ATTEMPTS);
      const broken =
        res.json?.code === 'validation_failed' && Array.isArray(res.json.errors)
          ? res.json.errors.map((e: { message: string }) => e.message)
          : [];
      return again(res.status === 409 ? 409 : 400, broken.length ? 'Please correct these:' : problemText(res), broken);
    }
    setTokens(ctx, res.json);
    const created = await api
      .withHeaders({ Authorization: `Bearer ${res.json.accessToken as string}` })
      .request('POST', '/organization/stores', { body: { name: fields.store.trim() || fields.company } });
    if (!created.ok)
      return ctx.redirect(
        `/console?flash=${encodeURIComponent('Your account is ready; creating the store failed, create it from the API.')}`,
      );
    ctx.redirect(`/console/stores/${created.json.id as string}/zero-results?flash=${encodeURIComponent('Your store is ready.')}`);
  });

  router.post('/pick', async (ctx) => {
    const storeId = (await form(ctx)).get('storeId') ?? '';
    ctx.redirect(isUuid(storeId) ? `/console/stores/${storeId}/zero-results` : '/console?pick&error=Enter+a+store+id');
  });

  router.get('/stores/:storeId', (ctx) => ctx.redirect(`/console/stores/${ctx.params.storeId}/zero-results`));

  // Zero-result and weak-result queries, and one-click synonyms.
  router.get('/stores/:storeId/zero-results', async (ctx) => {
    const api = new ConsoleApi(ctx);
    const query = { storeId: ctx.params.storeId };
    // One after the other: a first call may refresh the session, which the second then uses.
    const zero = await api.call('GET', '/search-synonyms/zero-result-queries', { query });
    if (!zero.ok) return page(ctx, 'message', 'Zero-result queries', { error: problemText(zero) });
    const weak = await api.call('GET', '/search-synonyms/weak-result-queries', { query });
    await page(ctx, 'zero-results', 'Zero-result queries', {
      groups: [
        {
          key: 'zero',
          title: 'No results',
          intro: 'Searches that found nothing at all.',
          empty: 'No zero-result queries yet.',
          items: zero.json.items,
        },
        {
          key: 'weak',
          title: 'Weak results',
          intro: 'Searches where not every word matched: shoppers saw only loosely related products.',
          empty: 'No weak results yet.',
          items: weak.ok ? weak.json.items : [],
          error: weak.ok ? undefined : problemText(weak),
        },
      ],
      shop: `/shop/${ctx.params.storeId}`,
    });
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
    const api = new ConsoleApi(ctx);
    const res = await api.call('GET', '/search-synonyms', { query: { storeId: ctx.params.storeId, limit: 100 } });
    if (!res.ok) return page(ctx, 'message', 'Synonyms', { error: problemText(res) });
    // After the first call, which may have refreshed the session.
    const builtIn = await api.call('GET', '/search-synonyms/built-in', { query: { storeId: ctx.params.storeId } });
    await page(ctx, 'synonyms', 'Synonyms', {
      rules: res.json.items,
      builtIn: builtIn.ok ? builtIn.json.items : [],
      builtInError: builtIn.ok ? undefined : problemText(builtIn),
    });
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
    const fields = await form(ctx);
    // One form turns visual search on or off, the other sets how similar products use categories.
    const sameCategory = fields.get('sameCategory');
    const enabled = fields.get('enabled') === 'true';
    const body = sameCategory !== null ? { sameCategory } : { enabled };
    const res = await new ConsoleApi(ctx).call('PATCH', `/visual-search/stores/${ctx.params.storeId}/settings`, { body });
    const base = `/console/stores/${ctx.params.storeId}/visual`;
    const done = sameCategory !== null ? 'Similar+products+setting+saved.' : enabled ? 'Visual+search+is+on.' : 'Visual+search+is+off.';
    ctx.redirect(res.ok ? `${base}?flash=${done}` : `${base}?error=${encodeURIComponent(problemText(res))}`);
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

  // The theme editor (web/theme-editor.ts): its routes on this router, under its checks.
  addThemeEditorRoutes(router, { page, form, api: (ctx) => new ConsoleApi(ctx), problemText });

  return router;
}
