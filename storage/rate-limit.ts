/**
 * Fixed-window rate limits in Redis (shared by every api process). Over the limit answers 429 with
 * Retry-After. When Redis is unreachable the limiter lets requests through and logs it: signing in
 * must keep working while the queue store is down, and the account lockouts stay in PostgreSQL.
 */
import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type Redis from 'ioredis';
import type { Logger } from 'pino';
import { RateLimitedError } from '../lib/errors';
import { calmLog } from '../lib/calm-log';

export interface RateLimitRule {
  /** Requests allowed per window. */
  limit: number;
  windowSeconds: number;
}

/** How long a hit waits for the connection a process opens at start before letting the request through. */
const FIRST_CONNECT_WAIT_MS = 2_000;

export class RateLimiter {
  private firstConnect: Promise<void> | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
    private readonly prefix = 'rl',
  ) {}

  /** Counts one hit on `key`; throws RateLimitedError when the window's limit is exceeded. */
  async hit(key: string, rule: RateLimitRule): Promise<void> {
    const redisKey = `${this.prefix}:${key}`;
    let count: number;
    let ttlMs: number;
    try {
      await this.connected();
      const result = await this.redis
        .multi()
        .incr(redisKey)
        .pexpire(redisKey, rule.windowSeconds * 1000, 'NX')
        .pttl(redisKey)
        .exec();
      count = Number(result?.[0]?.[1] ?? 0);
      ttlMs = Number(result?.[2]?.[1] ?? rule.windowSeconds * 1000);
    } catch (error) {
      // Expected while Redis is down: one line (no stack) and a count per window, not a stack per request.
      calmLog(this.logger).warn('rate-limit', error, {}, 'rate limiter unavailable; allowing requests until Redis answers');
      return;
    }
    if (count > rule.limit) throw new RateLimitedError(Math.max(1, Math.ceil(ttlMs / 1000)));
  }

  /**
   * The connection refuses commands until it is first ready (no offline queue, so a request never
   * waits behind an outage); a request in the first moments of the process waits for it briefly.
   */
  private connected(): Promise<void> {
    if (this.firstConnect) return this.firstConnect;
    const status = this.redis.status;
    if (status !== 'wait' && status !== 'connecting' && status !== 'connect') {
      this.firstConnect = Promise.resolve();
      return this.firstConnect;
    }
    if (status === 'wait') void this.redis.connect().catch(() => undefined);
    // Once: after the first connection (or the first wait for it), requests never wait for Redis.
    this.firstConnect = new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, FIRST_CONNECT_WAIT_MS);
      this.redis.once('ready', done);
    });
    return this.firstConnect;
  }

  /** Forgets the counts of `key` (e.g. after a successful sign-in). */
  async reset(key: string): Promise<void> {
    await this.redis.del(`${this.prefix}:${key}`).catch(() => undefined);
  }
}

/**
 * A short key for limit counts made of values that should not sit readable in Redis (addresses,
 * visitor ids): the first 32 characters of the base64url SHA-256 of the parts, one per line.
 */
export function hashedLimitKey(parts: string[]): string {
  return createHash('sha256').update(parts.join('\n')).digest('base64url').slice(0, 32);
}

/**
 * The client a per-client limit counts: an IPv4 address as it is (also when written as an
 * IPv4-mapped IPv6 address), an IPv6 address by its /64 network, which one subscriber is normally
 * given whole (counting single IPv6 addresses would let one client spread its requests over 2^64
 * of them). Anything else (no address known) is one client, `unknown`.
 */
export function clientKey(ip: string | undefined): string {
  if (!ip) return 'unknown';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!isIPv6(ip)) return ip;
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
