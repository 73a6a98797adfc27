/**
 * Waiting for a state instead of a fixed time: `eventually` polls until what a test waits for has
 * happened. (A test that must let time pass, e.g. to show that nothing happens meanwhile, sleeps
 * with `sleep` and says why.)
 */

/** Not there yet: what a probe answers while the awaited state has not come. */
type NotYet = undefined | null | false;

export interface EventuallyOptions {
  /** How long to poll before failing (default 5 s). */
  timeoutMs?: number;
  /** The pause between two polls (default 25 ms). */
  intervalMs?: number;
  /** Count a probe that throws as "not yet" (e.g. a server still starting) instead of failing at once; the last error is reported on timeout. */
  ignoreErrors?: boolean;
}

/**
 * Polls `probe` until it answers something other than undefined, null or false, and answers that
 * (so a probe may answer the row or message it waited for); fails with "timed out waiting for
 * `what`" after the timeout (`what` may be a function, called then, e.g. to name the last value
 * seen). `options` is the timeout in milliseconds or an `EventuallyOptions`.
 */
export async function eventually<T>(
  probe: () => T | NotYet | Promise<T | NotYet>,
  what: string | (() => string) = 'the condition',
  options: number | EventuallyOptions = {},
): Promise<Exclude<T, NotYet>> {
  const { timeoutMs = 5_000, intervalMs = 25, ignoreErrors = false } = typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    let value: T | NotYet = undefined;
    try {
      value = await probe();
    } catch (error) {
      if (!ignoreErrors) throw error;
      lastError = error;
    }
    if (value !== undefined && value !== null && value !== false) return value as Exclude<T, NotYet>;
    if (Date.now() > deadline) {
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}${cause}`);
    }
    await sleep(intervalMs);
  }
}

/** Lets `ms` milliseconds pass. Only for tests that need time itself to pass; to wait for something to happen, use `eventually`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Lets time pass until `date` is `marginMs` behind (for a test of what changes when a date comes). */
export async function sleepUntil(date: Date, marginMs = 150): Promise<void> {
  const wait = date.getTime() - Date.now() + marginMs;
  if (wait > 0) await sleep(wait);
}
