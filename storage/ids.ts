/**
 * UUIDv7 (RFC 9562): 48-bit Unix milliseconds, then random bits. Time-ordered, so ids double as
 * stable cursors and index well (DESIGN ruling 4). Monotonic within one process: ids made in the
 * same millisecond keep increasing.
 */
import { randomFillSync } from 'node:crypto';

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
