/**
 * Reads request bodies with a size limit and a content-type check per route. Only routes that
 * declare a body read one; the limit is enforced while streaming, so an oversized upload is cut
 * off at the limit instead of being buffered whole.
 */
import type Koa from 'koa';
import getRawBody from 'raw-body';
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from './errors';
import type { BodyContentType } from './route';

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

async function readText(ctx: Koa.Context, limit: number): Promise<string> {
  const encoding = ctx.get('Content-Encoding').toLowerCase();
  if (encoding !== '' && encoding !== 'identity') {
    throw new UnsupportedMediaTypeError(`Content-Encoding ${encoding}`, ['an unencoded body']);
  }
  const declared = Number(ctx.get('Content-Length') || '0');
  if (declared > limit) throw new PayloadTooLargeError(limit);
  try {
    return await getRawBody(ctx.req, { limit, encoding: 'utf8', length: ctx.get('Content-Length') || undefined });
  } catch (error) {
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') throw new PayloadTooLargeError(limit);
    if (type === 'request.aborted') throw new BadRequestError('The request body was not received completely.', 'body_incomplete');
    if (type === 'encoding.unsupported' || type === 'charset.unsupported') throw new UnsupportedMediaTypeError(ctx.get('Content-Type'), ['UTF-8 text']);
    throw new BadRequestError('The request body could not be read.', 'body_unreadable');
  }
}

/** Reads the body a route declares; JSON is parsed, CSV is returned as text. */
export async function readDeclaredBody(ctx: Koa.Context, contentType: BodyContentType, limits: BodyLimits): Promise<unknown> {
  const type = mediaType(ctx);
  if (contentType === 'application/json') {
    if (!hasBody(ctx)) return undefined;
    if (!isJsonMediaType(type)) throw new UnsupportedMediaTypeError(type, ['application/json']);
    const raw = await readText(ctx, limits.jsonBytes);
    if (raw.trim() === '') return undefined;
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      throw new BadRequestError('The request body is not valid JSON.', 'invalid_json');
    }
  }
  if (!hasBody(ctx)) return undefined;
  if (type !== 'text/csv' && type !== 'application/csv') throw new UnsupportedMediaTypeError(type, ['text/csv']);
  return readText(ctx, limits.csvBytes);
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
  throw new BadRequestError('This operation takes no request body.', 'unexpected_body');
}
