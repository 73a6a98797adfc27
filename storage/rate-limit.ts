/**
 * Fixed-window rate limits in Redis (shared by every api process). Over the limit answers 429 with
 * Retry-After. When Redis is unreachable the limiter lets requests through and logs it: signing in
 * must keep working while the queue store is down, and the account lockouts stay in PostgreSQL.
 */
import type Redis from 'ioredis';
import type { Logger } from 'pino';
import { RateLimitedError } from '../lib/errors';

export interface RateLimitRule {
  /** Requests allowed per window. */
  limit: number;
  windowSeconds: number;
}

export class RateLimiter {
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
      const result = await this.redis
        .multi()
        .incr(redisKey)
        .pexpire(redisKey, rule.windowSeconds * 1000, 'NX')
        .pttl(redisKey)
        .exec();
      count = Number(result?.[0]?.[1] ?? 0);
      ttlMs = Number(result?.[2]?.[1] ?? rule.windowSeconds * 1000);
    } catch (error) {
      this.logger.warn({ err: error, key }, 'rate limiter unavailable; allowing the request');
      return;
    }
    if (count > rule.limit) throw new RateLimitedError(Math.max(1, Math.ceil(ttlMs / 1000)));
  }

  /** Forgets the counts of `key` (e.g. after a successful sign-in). */
  async reset(key: string): Promise<void> {
    await this.redis.del(`${this.prefix}:${key}`).catch(() => undefined);
  }
}
