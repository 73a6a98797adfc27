/**
 * The web deliverable's only way to data: the platform's own public and merchant HTTP API, called
 * over HTTP on the address this very request arrived at (so the storefront and console use exactly
 * what a merchant's own tools would, never the database or a service function).
 */
import type Koa from 'koa';

/** A JSON answer of the API, read loosely: the API's OpenAPI schemas are the contract, the templates are forgiving. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface ApiAnswer<T = Json> {
  status: number;
  json: T;
  ok: boolean;
}

/** Counts data calls against a section's operation budget (see web/theme-engine.ts). */
export interface CallMeter {
  dataCall(path: string): void;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Json,
    path: string,
  ) {
    super(`${path} answered ${status}${body?.code ? ` (${body.code})` : ''}`);
  }
}

export type Query = Record<string, string | number | boolean | undefined | null | Array<string | number>>;

export function toSearchParams(query: Query): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) for (const v of value) params.append(key, String(v));
    else params.append(key, String(value));
  }
  return params;
}

/** The API base of the process that received this request (loopback-safe, works on any port). */
export function apiBaseFor(ctx: Koa.Context): string {
  const socket = ctx.req.socket;
  let host = socket.localAddress ?? '127.0.0.1';
  if (host.startsWith('::ffff:')) host = host.slice(7);
  if (host === '::' || host === '0.0.0.0') host = '127.0.0.1';
  if (host.includes(':')) host = `[${host}]`;
  return `http://${host}:${socket.localPort}/api/v1`;
}

/**
 * The API of this process, called on behalf of the person whose request this is: the calls carry
 * that person's address (api/http/client-relay.ts), so the API's per-client limits (sign-in, sandbox
 * creation, photo searches) count each shopper or merchant on their own, not this server.
 */
export function apiClientFor(ctx: Koa.Context, headers: Record<string, string> = {}): ApiClient {
  return new ApiClient(apiBaseFor(ctx), { ...((ctx.state.relayHeaders as Record<string, string> | undefined) ?? {}), ...headers });
}

export class ApiClient {
  constructor(
    readonly base: string,
    private readonly headers: Record<string, string> = {},
    private meter?: CallMeter,
  ) {}

  /** The same client counting its calls against another meter (one per section). */
  metered(meter: CallMeter): ApiClient {
    return new ApiClient(this.base, this.headers, meter);
  }

  withHeaders(headers: Record<string, string>): ApiClient {
    return new ApiClient(this.base, { ...this.headers, ...headers }, this.meter);
  }

  async request<T = Json>(
    method: string,
    path: string,
    options: { query?: Query; body?: unknown; raw?: { body: Buffer; contentType: string } } = {},
  ): Promise<ApiAnswer<T>> {
    this.meter?.dataCall(path);
    const qs = options.query ? toSearchParams(options.query).toString() : '';
    const headers: Record<string, string> = { Accept: 'application/json', ...this.headers };
    let body: string | Buffer | undefined;
    if (options.raw) {
      body = options.raw.body;
      headers['Content-Type'] = options.raw.contentType;
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['Content-Type'] = 'application/json';
    }
    const res = await fetch(`${this.base}${path}${qs ? `?${qs}` : ''}`, { method, headers, body });
    const text = await res.text();
    let json: Json;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, json, ok: res.ok };
  }

  /** GET that throws ApiError unless 2xx. */
  async get<T = Json>(path: string, query?: Query): Promise<T> {
    const res = await this.request<T>('GET', path, { query });
    if (!res.ok) throw new ApiError(res.status, res.json, path);
    return res.json;
  }

  /** GET answering undefined for a 404 (and throwing for other failures). */
  async find<T = Json>(path: string, query?: Query): Promise<T | undefined> {
    const res = await this.request<T>('GET', path, { query });
    if (res.status === 404) return undefined;
    if (!res.ok) throw new ApiError(res.status, res.json, path);
    return res.json;
  }
}
