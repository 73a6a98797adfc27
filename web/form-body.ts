/**
 * Reading an HTML form post (application/x-www-form-urlencoded) for the start page and the
 * console. The body is read up to `limit` bytes (BODY_LIMIT_FORM); a larger one (a declared
 * Content-Length above it is refused before reading), a charset this server does not read or an
 * aborted upload is a client error that the page answers in its own way, not a server error: the
 * reader throws a `FormBodyError` with the status and a sentence to show.
 */
import type Koa from 'koa';
import rawBody from 'raw-body';

export class FormBodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'FormBodyError';
  }
}

const MESSAGES: Record<number, string> = {
  413: 'The form is too large to send.',
  415: 'The form was sent in a character set this server does not read.',
};

export async function readFormBody(ctx: Koa.Context, limit: number): Promise<URLSearchParams> {
  const length = ctx.get('Content-Length');
  let text: string;
  try {
    text = await rawBody(ctx.req, { limit, encoding: 'utf8', ...(/^\d+$/.test(length) ? { length: Number(length) } : {}) });
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    if (typeof status !== 'number' || status < 400 || status > 499) throw error;
    // raw-body stops reading at the limit and pauses the request; discard the rest, so that the
    // browser, still sending, gets the answer rather than a reset connection.
    ctx.req.resume();
    throw new FormBodyError(status, MESSAGES[status] ?? 'The form could not be read; please send it again.');
  }
  return new URLSearchParams(text);
}
