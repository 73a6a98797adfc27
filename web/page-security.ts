/**
 * What the web pages send and check to keep other sites out: the Content-Security-Policy of the
 * start page, the storefront and the console, their Referrer-Policy, and the same-origin check of
 * every HTML form post that changes something (the start page's sandbox form, every console form,
 * the device, e-mail and password pages).
 *
 * Where a post may come from. A browser names the page a form was sent from in `Origin` (every
 * current browser does so on a POST; `Referer` is read only when `Origin` is absent). The post is
 * accepted when that origin is one of:
 * - the configured public address of the platform (`PUBLIC_BASE_URL`: the one its e-mails and the
 *   device flow send people to), and
 * - the address this request itself was sent to, as the browser wrote it: the scheme and the `Host`
 *   header (`X-Forwarded-Proto` and `X-Forwarded-Host` only with `TRUST_PROXY=true`, as everywhere in
 *   Koa). A page of another site cannot choose the `Host` its victim's browser sends, so this refuses
 *   cross-site posts as surely as the configured address does, and it keeps the pages working when
 *   the same server is opened under another name (`127.0.0.1` besides `localhost`, a second domain).
 *
 * Refused: `Origin: null` (sandboxed frames, `data:` pages, redirects across sites), any other
 * origin, an unreadable `Referer`, and `Sec-Fetch-Site` other than `same-origin` (or `none`, the
 * person's own navigation) whatever the other headers say. A post with neither `Origin` nor
 * `Referer` is not a current browser's form post (they all send `Origin` with a POST, `null` where
 * they will not say more), so it carries no visitor's cookies and is let through: scripts and tests
 * post that way.
 *
 * Comparing with Koa's `ctx.origin` would not do: Koa 3 answers there the request's own `Origin`
 * header, so the comparison always holds.
 */
import type Koa from 'koa';
import { httpOrigin } from './own-url';

/** A Content-Security-Policy allowing nothing but this server's styles and scripts (no inline code), and images from `imageSources`. */
const pageCsp = (imageSources: string): string =>
  `default-src 'self'; img-src ${imageSources}; style-src 'self'; script-src 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'; form-action 'self'`;

/** The console, the start page and the account pages. */
export const PAGE_CSP = pageCsp("'self' http: https: data:");

/** The storefront: also `blob:` images (the photo search previews the chosen file). */
export const STOREFRONT_CSP = pageCsp("'self' http: https: data: blob:");

/**
 * The storefront of a store with enabled analytics tags (web/integrations-head.ts): scripts also from
 * the tags' fixed hosts and beacons (connect-src) to theirs, nothing more; without tags, STOREFRONT_CSP.
 */
export function storefrontCsp(hosts: { scripts: readonly string[]; connect: readonly string[] }): string {
  if (hosts.scripts.length === 0 && hosts.connect.length === 0) return STOREFRONT_CSP;
  const scripts = ["'self'", ...hosts.scripts].join(' ');
  return `${STOREFRONT_CSP.replace("script-src 'self'", `script-src ${scripts}`)}; connect-src ${["'self'", ...hosts.connect].join(' ')}`;
}

/**
 * The API answers every response with `Referrer-Policy: no-referrer`. Pages with forms need
 * `same-origin` instead: under `no-referrer` a browser sends `Origin: null` with its form posts (the
 * Fetch standard says so), which the check below refuses. `same-origin` still sends nothing to other
 * sites, so the tokens in the e-mailed links' addresses do not leak through a link.
 */
export function pageHeaders(ctx: Koa.Context, csp: string = PAGE_CSP): void {
  ctx.set('Content-Security-Policy', csp);
  ctx.set('Referrer-Policy', 'same-origin');
}

/** The origins a form post of this server's pages may come from (see the header of this file). */
export function trustedOrigins(ctx: Koa.Context, publicBaseUrl: string): Set<string> {
  const trusted = new Set<string>();
  const configured = httpOrigin(publicBaseUrl);
  if (configured) trusted.add(configured);
  const host = ctx.host;
  if (host) {
    const own = httpOrigin(`${ctx.protocol}://${host}`);
    if (own) trusted.add(own);
  }
  return trusted;
}

/** Why this post must be refused as coming from another site, or undefined when it may go on. */
export function crossSiteReason(ctx: Koa.Context, publicBaseUrl: string): string | undefined {
  const site = ctx.get('Sec-Fetch-Site');
  if (site && site !== 'same-origin' && site !== 'none') return `Sec-Fetch-Site: ${site}`;
  const origin = ctx.get('Origin');
  let source: string | undefined;
  if (origin) {
    if (origin.trim() === 'null') return 'Origin: null';
    source = httpOrigin(origin.trim());
    if (!source) return 'an unreadable Origin';
  } else {
    const referer = ctx.get('Referer');
    if (!referer) return undefined;
    source = httpOrigin(referer);
    if (!source) return 'an unreadable Referer';
  }
  return trustedOrigins(ctx, publicBaseUrl).has(source) ? undefined : 'another origin';
}

/** The sentence a refused post's page shows. */
export const CROSS_SITE_MESSAGE =
  'This form was sent from another site and was refused; nothing was changed. Open the page here and send it again.';
