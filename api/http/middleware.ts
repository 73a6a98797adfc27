/**
 * Cross-cutting HTTP middleware: request ids, the structured access log, and the single error
 * handler that renders every failure as problem+json without internals.
 */
import type Koa from 'koa';
import type { Logger } from 'pino';
import { QueryFailedError } from 'typeorm';
import { AppError, InternalError, type ProblemBody } from '../../lib/errors';
import { translateDatabaseError } from './db-errors';
import { uuidv7 } from '../../storage/ids';
import { calmLog } from '../../lib/calm-log';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** Honours a well-formed incoming X-Request-Id (so traces join up across services), else makes one. */
export function requestId(): Koa.Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get('X-Request-Id');
    const id = REQUEST_ID_PATTERN.test(incoming) ? incoming : uuidv7();
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
    await next();
  };
}

/** One JSON line per request, written when the response is finished (so streamed bodies count). */
export function accessLog(logger: Logger): Koa.Middleware {
  return async (ctx, next) => {
    // While the logger's level leaves request lines out, nothing is timed or built for them.
    if (!logger.isLevelEnabled('info')) return next();
    const started = process.hrtime.bigint();
    ctx.res.once('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info(
        {
          requestId: ctx.state.requestId,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          durationMs: Math.round(durationMs * 100) / 100,
          bytes: ctx.response.length ?? undefined,
          tenantId: ctx.state.tenantId,
          ip: ctx.ip,
        },
        'request',
      );
    });
    await next();
  };
}

export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const translated = translateDatabaseError(error);
  if (translated) return translated;
  return new InternalError();
}

export function problemResponse(ctx: Koa.Context, error: AppError): void {
  const body: ProblemBody = { ...error.toProblem(), instance: ctx.path, requestId: ctx.state.requestId as string | undefined };
  ctx.status = error.status;
  for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
  ctx.type = 'application/problem+json';
  ctx.body = body;
}

/** Query errors carry the statement's parameters (hashes, tokens); log only what identifies the failure. */
function loggable(error: unknown): unknown {
  if (error instanceof QueryFailedError) {
    const driver = error.driverError as { code?: string; constraint?: string; table?: string };
    return { name: 'QueryFailedError', message: error.message, code: driver.code, constraint: driver.constraint, table: driver.table };
  }
  return error;
}

/** The name, code and message of an error, without its stack or a query's parameters. */
function briefly(error: unknown): Record<string, unknown> {
  const e = (error ?? {}) as { name?: unknown; message?: unknown; code?: unknown; driverError?: { code?: unknown } };
  return { name: e.name, code: e.code ?? e.driverError?.code, message: e.message };
}

export function errorHandler(logger: Logger): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const appError = toAppError(error);
      const where = { requestId: ctx.state.requestId, method: ctx.method, path: ctx.path };
      if (appError.status === 503) {
        // Expected while a backing service is down or restarting, and then for many requests at once:
        // the first of a kind is logged naming its cause, without a stack, the rest are counted
        // (lib/calm-log.ts). A stack is kept for the failures that are bugs.
        calmLog(logger).warn(
          `http:${appError.code}`,
          briefly(error),
          { ...where, code: appError.code },
          'request failed: service unavailable',
        );
      } else if (appError.status >= 500 && appError.status !== 501) {
        logger.error({ err: loggable(error), ...where }, 'request failed');
      }
      problemResponse(ctx, appError);
    }
  };
}
