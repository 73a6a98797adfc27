/**
 * Logging of failures that repeat, such as every delivery failing while Meilisearch is down: the
 * first failure of a kind is logged in full, the repeats are only counted, and one summary line per
 * window says how many there were. So an outage writes a handful of lines, not one (with a stack)
 * per attempt, and a failure that keeps happening is still visible every window.
 *
 * A "kind" is the caller's key (e.g. `consumer:index`) plus the error's class (see `errorKind`), so
 * a new, different failure is logged at once even while an old one is being counted.
 */
import type { Logger } from 'pino';

export const DEFAULT_SUMMARY_WINDOW_MS = 30_000;

/** Error codes of a dependency that cannot be reached; they are logged without a stack. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ECONNABORTED',
  'NR_CLOSED',
  'UNCERTAIN_STATE',
  'CONNECTION_BROKEN',
  '57P01',
  '57P02',
  '57P03',
]);
const UNREACHABLE_MESSAGES =
  /connection (is )?(closed|terminated|lost|refused)|ECONNREFUSED|ECONNRESET|socket hang up|timed out|timeout exceeded|not queryable|fetch failed|Redis connection|stream isn't writeable|NOSCRIPT/i;

interface ErrorLike {
  name?: string;
  code?: string;
  message?: string;
  cause?: unknown;
}

/** True for the errors of a dependency that is down or unreachable (not a bug, not bad data). */
export function isUnreachableError(error: unknown): boolean {
  for (let e = error as ErrorLike | undefined, depth = 0; e && depth < 4; e = e.cause as ErrorLike | undefined, depth += 1) {
    if (e.code && UNREACHABLE_CODES.has(e.code)) return true;
    if (typeof e.message === 'string' && UNREACHABLE_MESSAGES.test(e.message)) return true;
    if (e.name === 'MeiliSearchRequestError' || e.name === 'MeiliSearchCommunicationError') return true;
  }
  return false;
}

/** A short, stable name for the class of an error: its code, or its name. */
export function errorKind(error: unknown): string {
  const e = (error ?? {}) as ErrorLike;
  return String(e.code ?? e.name ?? 'Error');
}

/** What is logged of an error: a dependency that is unreachable needs no stack. */
export function loggableError(error: unknown): unknown {
  if (!isUnreachableError(error)) return error;
  const e = error as ErrorLike;
  return { type: e.name, code: e.code, message: e.message };
}

interface Counter {
  repeats: number;
  first: number;
  msg: string;
  context: Record<string, unknown>;
}

export class CalmLog {
  private readonly counters = new Map<string, Counter>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly logger: Logger,
    windowMs = DEFAULT_SUMMARY_WINDOW_MS,
  ) {
    this.timer = setInterval(() => this.flush(), windowMs);
    this.timer.unref();
  }

  /**
   * Logs `msg` at warn the first time `key` + the error's kind happens in a window; later ones are
   * counted and summarised when the window ends.
   */
  warn(key: string, error: unknown, context: Record<string, unknown>, msg: string): void {
    const kind = `${key}\u0000${errorKind(error)}`;
    const counter = this.counters.get(kind);
    if (counter) {
      counter.repeats += 1;
      return;
    }
    this.counters.set(kind, { repeats: 0, first: Date.now(), msg, context });
    const logged = loggableError(error);
    // pino's `err` serializer is for Error objects (it adds a stack field); a summary goes under `error`.
    this.logger.warn({ ...context, [logged instanceof Error ? 'err' : 'error']: logged }, msg);
  }

  /** Writes one summary line per kind that repeated, and starts a new window. */
  flush(): void {
    for (const [kind, counter] of this.counters) {
      if (counter.repeats > 0) {
        this.logger.warn(
          { ...counter.context, repeated: counter.repeats, windowSeconds: Math.round((Date.now() - counter.first) / 1000) },
          `${counter.msg} (repeated)`,
        );
      }
      this.counters.delete(kind);
    }
  }

  close(): void {
    clearInterval(this.timer);
    this.flush();
  }
}

const shared = new WeakMap<Logger, CalmLog>();

/** The CalmLog of a logger, shared by every component that logs through it. */
export function calmLog(logger: Logger): CalmLog {
  let calm = shared.get(logger);
  if (!calm) {
    calm = new CalmLog(logger);
    shared.set(logger, calm);
  }
  return calm;
}
