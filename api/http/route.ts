/**
 * The declarative route table row (docs/architecture.md, "An area module"). The router, input validation,
 * authentication and the OpenAPI 3.1 document are all generated from these rows, so behaviour
 * and documentation cannot drift apart.
 */
import type Koa from 'koa';
import Joi from 'joi';
import { CSV_CELLS_CHECKED } from './schema-types';
import type { RequestContext } from '../../storage/request-context';
import type { PlatformRole } from '../../storage/entities/user.entity';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call an operation.
 * - public: no token (storefront reads, paths containing `public`, sign-in and sign-up, provider callbacks).
 * - user: any signed-in user, whatever their tenant role (own account, sessions).
 * - merchant: a member or API key of a tenant; store-scoped operations also check the store is the tenant's.
 * - partner: a partner account (apps built for other tenants).
 * - platform: staff of the platform operator (moderation, CRM, support desk, queue administration).
 * - merchant_or_platform: a member or API key of a tenant acting for that tenant, or platform staff
 *   with one of the row's `platformRoles` acting platform-wide (a ticket read by both sides). The
 *   service asks which view the caller gets (the platform one when `actor.platformRole` is one of the
 *   row's roles, else the tenant one); staff of another role who are no tenant member answer 403
 *   `platform_role_required`.
 */
export type AuthRequirement = 'public' | 'user' | 'merchant' | 'partner' | 'platform' | 'merchant_or_platform';

/**
 * `text/html`: a response only (htmlDocument: a page served with the page security headers).
 * `application/x-www-form-urlencoded`: a request only (formDto: an HTML form post).
 * `application/gzip`: a binary archive upload, streamed only (`streamBody`); `application/zip` is accepted too.
 */
export type BodyContentType = 'application/json' | 'text/csv' | 'text/html' | 'application/x-www-form-urlencoded' | 'application/gzip';

/** A named request or response schema: one joi schema per DTO, also a component of the OpenAPI document. */
export interface NamedSchema {
  name: string;
  schema: Joi.Schema;
  contentType: BodyContentType;
  /**
   * True while the specification does not show the fields and the operation is not built: the schema
   * accepts any JSON object and the OpenAPI component says so. Building the operation replaces it.
   */
  pending: boolean;
}

/**
 * The validated input of a handler. The defaults are `any` on purpose: joi has already checked the
 * shapes, and a handler states its own types through the generics without casts.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface RouteRequest<P = Record<string, any>, Q = Record<string, any>, B = any> {
  params: P;
  query: Q;
  body: B;
  context: RequestContext;
  koa: Koa.Context;
}

/** Returns the response body (serialised as the route's response content type); the status comes from the row. */
export type RouteHandler = (request: RouteRequest) => Promise<unknown>;

export interface RouteDef {
  /** Unique, `<area>.<verb>`; also the OpenAPI operationId. */
  operationId: string;
  method: HttpMethod;
  /** The path exactly as the specification lists it, relative to /api/v1 (docs/decisions.md, Base path), with `{param}` placeholders. */
  path: string;
  /** The functional area tag (the specification's area names; API key scopes derive from it). */
  tag: string;
  summary: string;
  description?: string;
  auth: AuthRequirement;
  /**
   * With auth `platform` (or `merchant_or_platform`, for its platform side): the platform roles that may call the operation; staff with another role
   * answer 403 `platform_role_required`. Absent: any platform staff. Declared here, never checked by
   * hand in a service (docs/architecture.md, "An area module").
   */
  platformRoles?: readonly PlatformRole[];
  /** Overrides of the path parameter schemas derived from the placeholders (ids are UUIDs by default). */
  params?: Record<string, Joi.Schema>;
  /** Query parameters; unknown parameters are rejected with 400. */
  query?: Record<string, Joi.Schema>;
  body?: NamedSchema;
  /** The success body; undefined only for 204 and while the operation is not built. */
  response?: NamedSchema;
  /** The success status as listed in the specification. */
  status: number;
  /**
   * Error statuses the operation gives beyond those implied by its row (auth, path ids, body), e.g.
   * 401 on a public sign-in or 429 documented explicitly; the OpenAPI document lists them.
   */
  problems?: Array<401 | 403 | 404 | 409 | 429>;
  /** Absent while the operation is not built: the route validates its input, then answers 501. */
  handler?: RouteHandler;
  /**
   * The operation also takes its body as multipart/form-data with one file part `field` (at most
   * `maxBytes(config)` bytes, else 413); the other form fields are validated by `body` like JSON, and
   * the file reaches the handler as a Buffer in body[field]. Documented in the OpenAPI description.
   */
  upload?: RouteUpload;
  /**
   * The declared text/csv body is not read before the handler: it reaches the handler as a
   * StreamedBody (the Buffers as they arrive) in `body`, so an upload is never held whole in memory.
   * The router still checks the Content-Type (415) and a declared Content-Length (413) first; the
   * stream throws 413 once more than BODY_LIMIT_CSV bytes arrived and 400 body_incomplete when the
   * client goes away, so a handler that writes while reading does it in one transaction. The body
   * schema is then only the OpenAPI description (the handler checks the content).
   */
  streamBody?: boolean;
  /**
   * The operation takes an optional `Idempotency-Key` header (1 to 255 printable ASCII characters, 400
   * `idempotency_key_invalid` otherwise): the handler reads it with idempotencyKeyOf(request) and passes
   * it to storage/idempotency.ts idempotent(). The OpenAPI document lists the header parameter.
   */
  idempotencyKey?: boolean;
}

export interface RouteUpload {
  field: string;
  description: string;
  maxBytes: (config: import('../../lib/config').Config | undefined) => number;
}

/** Area-wide defaults so each row only says what is particular to it. */
export interface AreaDefaults {
  tag: string;
  auth: AuthRequirement;
  /** The platform roles of the area's `platform` and `merchant_or_platform` rows (rows with another `auth` ignore them). */
  platformRoles?: readonly PlatformRole[];
}

export type RouteRow = Omit<RouteDef, 'tag' | 'auth'> & Partial<Pick<RouteDef, 'tag' | 'auth'>>;

export function defineRoutes(defaults: AreaDefaults, rows: RouteRow[]): RouteDef[] {
  return rows.map((row) => {
    const { platformRoles, ...rest } = { ...defaults, ...row };
    return (rest.auth === 'platform' || rest.auth === 'merchant_or_platform') && platformRoles ? { ...rest, platformRoles } : rest;
  });
}

/** A DTO whose fields are known: validated strictly (unknown fields are a 400). */
export function dto(name: string, schema: Joi.ObjectSchema, contentType: BodyContentType = 'application/json'): NamedSchema {
  return { name, schema: schema.label(name), contentType, pending: false };
}

/** A DTO named by the specification whose fields are decided when its operation is built. */
export function pendingDto(name: string, contentType: BodyContentType = 'application/json'): NamedSchema {
  const schema =
    contentType === 'text/csv'
      ? Joi.string().description('CSV text; the columns are defined when this operation is built.')
      : Joi.object()
          .unknown(true)
          .description('The specification does not show these fields; they are defined when this operation is built.');
  return { name, schema, contentType, pending: true };
}

/** A CSV document (request or response) with a header row. */
export function csvDocument(name: string, description: string): NamedSchema {
  return { name, schema: Joi.string().description(description).meta(CSV_CELLS_CHECKED), contentType: 'text/csv', pending: false };
}

/**
 * An HTML page (a response): the handler returns the page as a string; the router answers it as
 * `text/html; charset=utf-8` with the page security headers (Content-Security-Policy without inline
 * code, Referrer-Policy same-origin: web/page-security.ts). Escape every value put into the page (lib
 * html escaping, e.g. escapeHtml in api/payments/providers/html.ts).
 */
export function htmlDocument(name: string, description: string): NamedSchema {
  return { name, schema: Joi.string().description(description), contentType: 'text/html', pending: false };
}

/** A request body sent by an HTML form (`application/x-www-form-urlencoded`), validated strictly like a JSON DTO. */
export function formDto(name: string, schema: Joi.ObjectSchema): NamedSchema {
  return { name, schema: schema.label(name), contentType: 'application/x-www-form-urlencoded', pending: false };
}

/**
 * What a handler returns to answer `303 See Other` with `Location: location` instead of its row's
 * status (a form post that sends the browser on, a page that redirects). Rows that do so say it in
 * their description; the body is empty.
 */
export class SeeOther {
  constructor(readonly location: string) {}
}

/** The validated `Idempotency-Key` header of a row with `idempotencyKey: true`; undefined when the request has none. */
export function idempotencyKeyOf(request: Pick<RouteRequest, 'koa'>): string | undefined {
  return (request.koa.state as { idempotencyKey?: string }).idempotencyKey;
}

/**
 * The request body exactly as received (JSON rows): what a signature over the raw body is checked
 * against (payment-provider callbacks). Empty when the request had no body.
 */
export function rawBodyOf(request: Pick<RouteRequest, 'koa'>): Buffer {
  return (request.koa.state as { rawBody?: Buffer }).rawBody ?? Buffer.alloc(0);
}

/**
 * The sentence every list gets that the specification shows without paging but that answers in pages
 * here (docs/api-conventions.md, "Lists and cursors"): a client written against a plain list must
 * learn from the operation itself that it has to follow nextCursor.
 */
export function pagedPlainList(defaultLimit: number, maxLimit: number): string {
  return `Paged, although the specification shows a plain list: each answer holds at most limit items (1 to ${maxLimit}, default ${defaultLimit}) and nextCursor, null on the last page; pass it back as cursor until it is null to read every item.`;
}

/** Marks a query parameter the specification lists as "(r)": optional here (docs/decisions.md, Optional filters), said so in the OpenAPI description. */
export function listedRequired<T extends Joi.Schema>(schema: T): T {
  return schema.meta({ listedRequired: true }) as T;
}

/** The placeholders of a path, in order: `/a/{id}/b/{slug}` → ['id', 'slug']. */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{([A-Za-z][A-Za-z0-9]*)\}/g)].map((m) => m[1] as string);
}
