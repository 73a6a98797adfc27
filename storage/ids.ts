/**
 * UUIDv7 (RFC 9562): 48-bit Unix milliseconds, then random bits. Time-ordered, so ids double as
 * stable cursors and index well (docs/decisions.md, Identifiers). Monotonic within one process: ids
 * made in the same millisecond keep increasing.
 */
import { randomFillSync } from 'node:crypto';

/**
 * What "a UUID" is wherever one is checked (request validation, cursors, outbox aggregate ids, page
 * addresses), after the identifiers rule (docs/decisions.md, Identifiers): versions 1 to 8 with the
 * RFC 9562 variant bits, plus the nil and max UUIDs; hyphenated, no braces or prefix;
 * case-insensitive.
 */
export const UUID_PATTERN =
  /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|0{8}-0{4}-0{4}-0{4}-0{12}|f{8}-f{4}-f{4}-f{4}-f{12})$/i;

/** Whether `value` is a UUID (UUID_PATTERN). */
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID_PATTERN.test(value);

let lastMillis = 0;
let sequence = 0;

/** Random bytes drawn 4 KiB at a time: one call into the system's generator per 256 ids, not per id (imports make millions). */
const POOL = Buffer.alloc(4096);
let poolOffset = POOL.length;

function random16(): Buffer {
  if (poolOffset + 16 > POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  const bytes = Buffer.from(POOL.subarray(poolOffset, poolOffset + 16));
  poolOffset += 16;
  return bytes;
}

export function uuidv7(now: number = Date.now()): string {
  const bytes = random16();
  if (now <= lastMillis) {
    // Same (or earlier, after a clock step back) millisecond: keep order with a 12-bit counter in rand_a.
    sequence += 1;
    if (sequence > 0xfff) {
      lastMillis += 1;
      sequence = 0;
    }
    now = lastMillis;
  } else {
    lastMillis = now;
    sequence = bytes[6]! & 0x07; // random start, leaving room to count up
  }
  const ms = BigInt(now);
  for (let i = 0; i < 6; i += 1) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = 0x70 | ((sequence >> 8) & 0x0f);
  bytes[7] = sequence & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
