/**
 * Builds the Koa router from the route tables: one pipeline per row (authenticate → read and
 * validate input → handler, or validate → 501 while the operation is not built), plus the
 * 404/405 answers for paths and methods that no row serves. With NODE_ENV=test the handler's body is
 * also checked against the row's response schema (a mismatch answers 500).
 */
import Router, { type RouterMiddleware } from '@koa/router';
import type Koa from 'koa';
import { authenticateRequest } from './auth';
import { RawJson } from '../../lib/raw-json';
import { readDeclaredBody, refuseUndeclaredBody, settleStreamedBody, streamDeclaredBody, type BodyLimits } from './body';
import { isMultipart, readMultipart } from './multipart';
import { MethodNotAllowedError, NotImplementedError, UnsupportedMediaTypeError } from '../../lib/errors';
import { SeeOther, type RouteDef } from './route';
import { IDEMPOTENCY_KEY_PATTERN, idempotencyError } from '../../storage/idempotency';
import { compileInput, normaliseQuery, validateParameters, validatePart } from './validation';
import type { ContextServices, RequestContext } from '../../storage/request-context';
import type { DataSource } from 'typeorm';
import { httpError } from './http.errors';
import { assertResponseMatches } from './response-check';

export const API_PREFIX = '/api/v1';

/** `/a/{id}/b` → `/a/:id/b` */
export function toKoaPath(path: string): string {
  return path.replace(/\{([A-Za-z][A-Za-z0-9]*)\}/g, ':$1');
}

/**
 * Static segments must win over parameters at the same depth (`/catalog/products/page` before
 * `/catalog/products/{id}`), because the router tries matching layers in registration order.
 */
export function compareSpecificity(a: RouteDef, b: RouteDef): number {
  const sa = a.path.split('/');
  const sb = b.path.split('/');
  for (let i = 0; i < Math.min(sa.length, sb.length); i += 1) {
    const pa = sa[i]!.startsWith('{') ? 1 : 0;
    const pb = sb[i]!.startsWith('{') ? 1 : 0;
    if (pa !== pb) return pa - pb;
  }
  return sb.length - sa.length;
}

export interface RouterDeps {
  dataSource: DataSource;
  bodyLimits: BodyLimits;
  services?: ContextServices;
}

async function readInput(route: RouteDef, ctx: Koa.Context, deps: RouterDeps, compiled: ReturnType<typeof compileInput>) {
  const params = validateParameters<Record<string, unknown>>('params', compiled.params, compiled.fastParams, ctx.params ?? {});
  const query = validateParameters<Record<string, unknown>>(
    'query',
    compiled.query,
    compiled.fastQuery,
    normaliseQuery(ctx.query, compiled.commaSeparated),
  );
  let body: unknown;
  if (route.body && route.upload && isMultipart(ctx)) {
    const upload = route.upload;
    const form = await readMultipart(ctx, { fileField: upload.field, maxFileBytes: upload.maxBytes(deps.services?.config) });
    body = validatePart<Record<string, unknown>>('body', route.body.schema, form.fields);
    if (form.file) body = { ...(body as Record<string, unknown>), [upload.field]: form.file.buffer };
  } else if (route.body && route.streamBody) {
    // Read by the handler as it arrives; the schema only documents the body.
    body = streamDeclaredBody(ctx, route.body.contentType, deps.bodyLimits);
  } else if (route.body) {
    const declared = route.body.contentType;
    const raw = await readDeclaredBody(ctx, declared, deps.bodyLimits).catch((error: unknown) => {
      // A route that also takes an upload says so when refusing another content type.
      if (route.upload && error instanceof UnsupportedMediaTypeError)
        throw new UnsupportedMediaTypeError(ctx.get('Content-Type') || undefined, [declared, 'multipart/form-data']);
      throw error;
    });
    const schema =
      raw === undefined && (declared === 'application/json' || declared === 'application/x-www-form-urlencoded')
        ? route.body.schema.required()
        : route.body.schema;
    body = validatePart('body', schema, raw);
  } else {
    await refuseUndeclaredBody(ctx, deps.bodyLimits);
  }
  return { params, query, body };
}

/**
 * The page security headers of htmlDocument rows: the policy of the web pages (web/page-security.ts
 * PAGE_CSP, which this layer may not import): nothing but this server's styles and scripts, no inline
 * code, forms posting only here, no framing. Referrer-Policy same-origin so form posts carry Origin.
 */
const HTML_PAGE_CSP =
  "default-src 'self'; img-src 'self' http: https: data:; style-src 'self'; script-src 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'; form-action 'self'";

/** Checks the optional Idempotency-Key header of a row that takes one and keeps it for idempotencyKeyOf. */
function readIdempotencyKey(ctx: Koa.Context): void {
  const header = ctx.get('Idempotency-Key');
  if (header === '') return;
  if (!IDEMPOTENCY_KEY_PATTERN.test(header))
    throw idempotencyError('idempotency_key_invalid', 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.');
  (ctx.state as { idempotencyKey?: string }).idempotencyKey = header;
}

function routeMiddleware(route: RouteDef, deps: RouterDeps): RouterMiddleware {
  const compiled = compileInput(route);
  const operation = `${route.method} ${route.path}`;
  // Tests only: every body a handler returns must match the route's declared response schema (api/http/response-check.ts).
  const checkResponse = (deps.services?.config.nodeEnv ?? process.env.NODE_ENV) === 'test';
  return async (ctx) => {
    const handler = route.handler;
    if (!handler) {
      // Unbuilt operations still check their input so clients can develop against the bounds.
      await readInput(route, ctx, deps, compiled);
      throw new NotImplementedError(operation);
    }
    const authenticated = await authenticateRequest(ctx, route);
    if (route.idempotencyKey) readIdempotencyKey(ctx);
    const input = await readInput(route, ctx, deps, compiled);
    const context: RequestContext = {
      requestId: ctx.state.requestId as string,
      tenantId: authenticated.tenantId,
      actor: authenticated.actor,
      dataSource: deps.dataSource,
      manager: deps.dataSource.manager,
      inTransaction: false,
      client: { ip: ctx.ip, userAgent: ctx.get('User-Agent') || undefined },
      services: deps.services,
    };
    ctx.state.tenantId = authenticated.tenantId;
    let result: unknown;
    try {
      result = await handler({ ...input, context, koa: ctx });
    } finally {
      if (route.streamBody) settleStreamedBody(ctx);
    }
    if (checkResponse) assertResponseMatches(route, result);
    ctx.status = route.status;
    if (route.status === 204) return;
    if (result instanceof SeeOther) {
      ctx.status = 303;
      ctx.set('Location', result.location);
      ctx.set('Referrer-Policy', 'same-origin');
      return;
    }
    if (route.response?.contentType === 'text/csv') ctx.type = 'text/csv; charset=utf-8';
    if (route.response?.contentType === 'text/html') {
      ctx.set('Content-Security-Policy', HTML_PAGE_CSP);
      ctx.set('Referrer-Policy', 'same-origin');
      ctx.type = 'text/html; charset=utf-8';
    }
    if (result instanceof RawJson) {
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = result.json;
      return;
    }
    ctx.body = result ?? null;
  };
}

export function buildRouter(routes: RouteDef[], deps: RouterDeps): Router {
  const router = new Router({ prefix: API_PREFIX });
  for (const route of [...routes].sort(compareSpecificity)) {
    router.register(toKoaPath(route.path), [route.method], routeMiddleware(route, deps), { name: route.operationId });
  }
  return router;
}

/**
 * The route of `router` for a method and a path without parameters, found in one map lookup instead
 * of the router testing the pattern of every route in turn (about 370 of them), the way it
 * dispatches otherwise. A row is taken only where the router itself would run it first for exactly
 * that method and path, and where none of the routers that run `before` it matches the path, so the
 * answer is the same; any other request (a path with parameters, another spelling such as a trailing
 * slash or other letter case, an unknown path) goes on to the routers unchanged. The rows' own
 * middleware never calls `next`, so the routes after the first match never run either way.
 */
export function exactPathRoutes(router: Router, before: Router[] = []): Koa.Middleware {
  type Layer = (typeof router.stack)[number];
  const exact = new Map<string, { layer: Layer; run: Koa.Middleware }>();
  for (const layer of router.stack) {
    const path = layer.path;
    if (typeof path !== 'string' || layer.paramNames.length > 0 || layer.methods.length === 0 || layer.stack.length !== 1) continue;
    for (const method of layer.methods) {
      const key = `${method} ${path}`;
      if (exact.has(key)) continue;
      if (router.match(path, method).pathAndMethod[0] !== layer) continue;
      if (before.some((other) => other.match(path, method).pathAndMethod.length > 0)) continue;
      exact.set(key, { layer, run: layer.stack[0] as Koa.Middleware });
    }
  }
  return (ctx, next) => {
    const found = exact.get(`${ctx.method} ${ctx.path}`);
    if (!found) return next();
    // What the router sets on the context for a route without parameters.
    const { layer } = found;
    const routed = ctx as Koa.Context & Record<string, unknown>;
    const params: Record<string, string> = {};
    (ctx.request as Koa.Request & { params: Record<string, string> }).params = params;
    ctx.params = params;
    routed.captures = [];
    routed.routerPath = layer.path;
    routed.routerName = layer.name || undefined;
    routed._matchedRoute = layer.path;
    if (layer.name) routed._matchedRouteName = layer.name;
    return found.run(ctx, next);
  };
}

/** Answers what no route served: 405 with Allow when the path exists under other methods, else 404. */
export function fallback(routers: Router[]): Koa.Middleware {
  return async (ctx) => {
    const allowed = new Set<string>();
    for (const router of routers) {
      for (const layer of router.match(ctx.path, ctx.method).path) for (const method of layer.methods) allowed.add(method);
    }
    if (allowed.size === 0) throw httpError('route_not_found', `No operation is served at ${ctx.path}.`);
    if (ctx.method === 'OPTIONS') {
      ctx.set('Allow', [...allowed, 'OPTIONS'].sort().join(', '));
      ctx.status = 204;
      return;
    }
    throw new MethodNotAllowedError(ctx.method, [...allowed].sort());
  };
}
