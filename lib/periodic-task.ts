/**
 * A pass that a worker runs again and again (pricing windows, dunning, digests, marketing sends,
 * saved-report schedules, abandoned checkouts): one pass at a time, the next one `intervalMs` after
 * the last ended, a failed pass logged calmly and retried on the next turn, and `stop()` waiting for
 * the pass in flight so a shutdown never cuts one off.
 */
import type { Logger } from 'pino';
import { calmLog } from './calm-log';

export interface PeriodicTask {
  stop(): Promise<void>;
}

export interface PeriodicTaskOptions {
  logger: Logger;
  /** The calm-log key of a failed pass, e.g. `pricing:pass`. */
  failureKey: string;
  /** What the log says when a pass failed. */
  failureMessage: string;
  intervalMs: number;
  /** Delay before the first pass; absent: the first pass starts at once. */
  firstDelayMs?: number;
  run: () => Promise<void>;
}

export function startPeriodicTask(options: PeriodicTaskOptions): PeriodicTask {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  const loop = (): void => {
    if (stopped) return;
    running = options
      .run()
      .catch((error: unknown) => calmLog(options.logger).warn(options.failureKey, error, {}, options.failureMessage))
      .finally(() => {
        running = undefined;
        if (!stopped) timer = setTimeout(loop, options.intervalMs);
      });
  };
  if (options.firstDelayMs === undefined) loop();
  else timer = setTimeout(loop, options.firstDelayMs);
  return {
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
