/**
 * Makes bee-queue survive a Redis restart.
 *
 * bee-queue loads its Lua scripts into Redis once, when a queue connects, and from then on calls them
 * only by hash (EVALSHA). Redis forgets every loaded script when it restarts (or on SCRIPT FLUSH); from
 * then on each call fails with `NOSCRIPT` and bee-queue never loads them again, so every enqueue, stall
 * check and job removal of the process fails until it is restarted (an open upstream problem).
 *
 * This module patches the one method all of bee-queue's script calls go through, once, when it is
 * first imported (storage/queues.ts imports it, so every queue of the process has it): a call that
 * fails with NOSCRIPT is sent again as EVAL with the script's text on the queue's command connection.
 * EVAL also puts the script back into Redis's cache, so the calls after it succeed by hash again.
 * Nothing else changes: a script either ran or did not (NOSCRIPT means it did not), so sending it
 * again cannot apply it twice.
 */
import BeeQueue from 'bee-queue';

type Callback = (error: Error | null, value?: unknown) => void;
interface Commandable {
  evalsha(...args: unknown[]): unknown;
  eval(...args: unknown[]): unknown;
}
interface QueueInternals {
  client: Commandable;
  _evalScriptOn(commandable: Commandable, args: unknown[]): Promise<unknown>;
}

// bee-queue keeps its scripts and their hashes in this module; the same objects its queues use.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const lua = require('bee-queue/lib/lua') as { scripts: Record<string, string>; shas: Record<string, string> };

const PATCHED = Symbol.for('commerce.bee-queue.noscript-fallback');

export function isNoScriptError(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | null;
  return e?.code === 'NOSCRIPT' || (typeof e?.message === 'string' && e.message.startsWith('NOSCRIPT'));
}

/** How many script calls were sent again as EVAL since the process started (for tests and logs). */
export const scriptReloads = { count: 0 };

function install(): void {
  const proto = BeeQueue.prototype as unknown as QueueInternals & { [PATCHED]?: true };
  if (proto[PATCHED]) return;
  proto[PATCHED] = true;
  proto._evalScriptOn = function (this: QueueInternals, commandable: Commandable, args: unknown[]): Promise<unknown> {
    const name = args[0] as string;
    const rest = args.slice(1);
    return new Promise((resolve, reject) => {
      const done: Callback = (error, value) => {
        if (!error) return resolve(value);
        if (!isNoScriptError(error) || !lua.scripts[name]) return reject(error);
        scriptReloads.count += 1;
        // Commandable may be a batch already sent; the queue's own connection takes the retry.
        this.client.eval(lua.scripts[name], ...rest, ((retryError, retried) =>
          retryError ? reject(retryError) : resolve(retried)) as Callback);
      };
      commandable.evalsha(lua.shas[name], ...rest, done);
    });
  };
}

install();
