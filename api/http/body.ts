/**
 * Reads request bodies with a size limit and a content-type check per route. Only routes that
 * declare a body read one; the limit is enforced while streaming, so an oversized upload is cut
 * off at the limit instead of being buffered whole. A route row with `streamBody` gets its CSV body
 * unread, as a stream the handler consumes (streamDeclaredBody), with the same checks and limit.
 */
import type Koa from 'koa';
import getRawBody from 'raw-body';
import { AppError, BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../lib/errors';
import type { BodyContentType } from './route';
import { httpError } from './http.errors';

export interface BodyLimits {
  jsonBytes: number;
  csvBytes: number;
}

function mediaType(ctx: Koa.Context): string | undefined {
  const header = ctx.get('Content-Type');
  return header ? header.split(';')[0]!.trim().toLowerCase() : undefined;
}

function isJsonMediaType(type: string | undefined): boolean {
  return type === 'application/json' || (type !== undefined && /^application\/[a-z0-9.+-]+\+json$/.test(type));
}

function hasBody(ctx: Koa.Context): boolean {
  const length = ctx.get('Content-Length');
  if (length !== '') return Number(length) > 0;
  return ctx.get('Transfer-Encoding') !== '';
}

/** Refuses a compressed body and one whose declared length is already over `limit`. */
function checkBeforeReading(ctx: Koa.Context, limit: number): void {
  const encoding = ctx.get('Content-Encoding').toLowerCase();
  if (encoding !== '' && encoding !== 'identity') {
    throw new UnsupportedMediaTypeError(`Content-Encoding ${encoding}`, ['an unencoded body']);
  }
  const declared = Number(ctx.get('Content-Length') || '0');
  if (declared > limit) throw new PayloadTooLargeError(limit);
}

const incompleteBody = (): BadRequestError => httpError('body_incomplete', 'The request body was not received completely.');

async function readText(ctx: Koa.Context, limit: number): Promise<string> {
  checkBeforeReading(ctx, limit);
  try {
    return await getRawBody(ctx.req, { limit, encoding: 'utf8', length: ctx.get('Content-Length') || undefined });
  } catch (error) {
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') throw new PayloadTooLargeError(limit);
    if (type === 'request.aborted') throw incompleteBody();
    if (type === 'encoding.unsupported' || type === 'charset.unsupported')
      throw new UnsupportedMediaTypeError(ctx.get('Content-Type'), ['UTF-8 text']);
    throw httpError('body_unreadable', 'The request body could not be read.');
  }
}

/** Reads the body a route declares; JSON is parsed, CSV is returned as text. */
export async function readDeclaredBody(ctx: Koa.Context, contentType: BodyContentType, limits: BodyLimits): Promise<unknown> {
  const type = mediaType(ctx);
  if (contentType === 'application/json') {
    if (!hasBody(ctx)) return undefined;
    if (!isJsonMediaType(type)) throw new UnsupportedMediaTypeError(type, ['application/json']);
    const raw = await readText(ctx, limits.jsonBytes);
    // Kept as received for signatures over the raw body (rawBodyOf in api/http/route.ts).
    (ctx.state as { rawBody?: Buffer }).rawBody = Buffer.from(raw, 'utf8');
    if (raw.trim() === '') return undefined;
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      throw httpError('invalid_json', 'The request body is not valid JSON.');
    }
  }
  if (contentType === 'application/x-www-form-urlencoded') {
    // An HTML form post: flat fields, each once (a repeated field is refused by the DTO as an array).
    if (!hasBody(ctx)) return undefined;
    if (type !== 'application/x-www-form-urlencoded') throw new UnsupportedMediaTypeError(type, ['application/x-www-form-urlencoded']);
    const raw = await readText(ctx, limits.jsonBytes);
    const fields: Record<string, string | string[]> = {};
    for (const [key, value] of new URLSearchParams(raw)) {
      const seen = fields[key];
      fields[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
    }
    return fields;
  }
  if (contentType !== 'text/csv') throw new Error(`${contentType} is not a request body type.`);
  if (!hasBody(ctx)) return undefined;
  if (type !== 'text/csv' && type !== 'application/csv') throw new UnsupportedMediaTypeError(type, ['text/csv']);
  return readText(ctx, limits.csvBytes);
}

/** A request body handed over as it arrives (route row `streamBody`); iterate it once. */
export type StreamedBody = AsyncIterable<Buffer>;

const STREAM_STATE = Symbol('streamedBody');

/** The media types a streamed body of each declared type may arrive as (archives: the handler tells tar.gz from zip). */
const STREAMED_MEDIA_TYPES: Partial<Record<BodyContentType, readonly string[]>> = {
  'text/csv': ['text/csv', 'application/csv'],
  'application/gzip': ['application/gzip', 'application/x-gzip', 'application/zip', 'application/x-zip-compressed'],
};

interface StreamState {
  started: boolean;
  finished: boolean;
}

async function* limitedBody(ctx: Koa.Context, limit: number, state: StreamState): AsyncGenerator<Buffer> {
  state.started = true;
  let received = 0;
  try {
    // destroyOnReturn false: a handler that stops early must not kill the socket its answer goes out on.
    for await (const piece of ctx.req.iterator({ destroyOnReturn: false })) {
      const chunk = piece as Buffer;
      received += chunk.length;
      if (received > limit) {
        const error = new PayloadTooLargeError(limit);
        // The rest of the upload is not read; the connection is closed after the answer.
        error.headers.Connection = 'close';
        throw error;
      }
      yield chunk;
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw incompleteBody();
  }
  if (!ctx.req.complete) throw incompleteBody();
  state.finished = true;
}

/**
 * The CSV body of a streaming route, not read yet: the Content-Type (415), Content-Encoding and a
 * declared Content-Length over the limit (413) are checked now; the stream enforces the limit as the
 * bytes arrive (413) and reports a client that went away (400 body_incomplete). No body is an empty stream.
 */
export function streamDeclaredBody(ctx: Koa.Context, contentType: BodyContentType, limits: BodyLimits): StreamedBody {
  const accepted = STREAMED_MEDIA_TYPES[contentType];
  if (!accepted) throw new Error('Only text/csv bodies and archives can be streamed.');
  const state: StreamState = { started: false, finished: false };
  (ctx.state as Record<symbol, StreamState>)[STREAM_STATE] = state;
  if (!hasBody(ctx)) {
    state.finished = true;
    return (async function* empty(): AsyncGenerator<Buffer> {})();
  }
  const type = mediaType(ctx);
  if (type === undefined || !accepted.includes(type))
    throw new UnsupportedMediaTypeError(type, contentType === 'text/csv' ? ['text/csv'] : ['application/gzip', 'application/zip']);
  checkBeforeReading(ctx, limits.csvBytes);
  return limitedBody(ctx, limits.csvBytes, state);
}

/**
 * After the handler: the part of a streamed body it did not read (it answered early, e.g. a bad
 * header or 413) is drained without being kept, so the answer reaches the client; the connection is
 * then closed rather than reused. A body it never touched is left to Node, which discards it.
 */
export function settleStreamedBody(ctx: Koa.Context): void {
  const state = (ctx.state as Record<symbol, StreamState | undefined>)[STREAM_STATE];
  if (!state || !state.started || state.finished || ctx.req.complete || ctx.req.destroyed) return;
  ctx.set('Connection', 'close');
  ctx.req.resume();
}

/**
 * Operations without a body accept none, an empty one, or `{}` (many clients send it on POST);
 * anything else is refused so a caller never believes fields were applied.
 */
export async function refuseUndeclaredBody(ctx: Koa.Context, limits: BodyLimits): Promise<void> {
  if (!hasBody(ctx)) return;
  const raw = await readText(ctx, limits.jsonBytes);
  const trimmed = raw.trim();
  if (trimmed === '' || trimmed === '{}') return;
  throw httpError('unexpected_body', 'This operation takes no request body.');
}
