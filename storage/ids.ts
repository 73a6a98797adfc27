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

/** The two lowercase hex digits of each byte value. */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

export function uuidv7(now: number = Date.now()): string {
  // 16 random bytes read in place from the pool (no copy, no BigInt: ids are made for every request).
  if (poolOffset + 16 > POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  const at = poolOffset;
  poolOffset += 16;
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
    sequence = POOL[at + 6]! & 0x07; // random start, leaving room to count up
  }
  // The 48-bit big-endian milliseconds (the low 48 bits of a larger value, as a bit mask would give).
  const ms = Number.isSafeInteger(now) && now >= 0 ? now % 2 ** 48 : Number(BigInt.asUintN(48, BigInt(now)));
  const high = Math.floor(ms / 2 ** 24);
  const low = ms % 2 ** 24;
  return (
    HEX[(high >>> 16) & 0xff]! +
    HEX[(high >>> 8) & 0xff]! +
    HEX[high & 0xff]! +
    HEX[(low >>> 16) & 0xff]! +
    '-' +
    HEX[(low >>> 8) & 0xff]! +
    HEX[low & 0xff]! +
    '-' +
    HEX[0x70 | ((sequence >> 8) & 0x0f)]! +
    HEX[sequence & 0xff]! +
    '-' +
    HEX[0x80 | (POOL[at + 8]! & 0x3f)]! +
    HEX[POOL[at + 9]!]! +
    '-' +
    HEX[POOL[at + 10]!]! +
    HEX[POOL[at + 11]!]! +
    HEX[POOL[at + 12]!]! +
    HEX[POOL[at + 13]!]! +
    HEX[POOL[at + 14]!]! +
    HEX[POOL[at + 15]!]!
  );
}
