/**
 * A pino logger that keeps what it writes, for tests that assert what a component logged (and that
 * it stayed quiet): `lines()` answers the entries written so far as parsed JSON objects.
 */
import { Writable } from 'node:stream';
import pino from 'pino';

export interface CapturedLog {
  logger: pino.Logger;
  lines: () => Array<Record<string, any>>;
}

export function captureLog(level: pino.LevelWithSilent = 'debug'): CapturedLog {
  const out: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      out.push(String(chunk));
      done();
    },
  });
  return {
    logger: pino({ level }, stream),
    lines: () =>
      out
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, any>),
  };
}
