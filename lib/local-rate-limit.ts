/**
 * Fixed-window request counts in this process's memory, for limits on hot paths where a Redis round
 * trip per request would cost more than the request itself (public search and suggest answer from
 * the cache in well under a millisecond). The bound is per process: with N api processes behind a
 * load balancer a client may make up to N times the limit, which still stops one client from
 * flooding the service. Limits that must hold across processes (sign-in, views) use the Redis limiter.
 *
 * Memory is bounded: at most `maxKeys` windows are kept; when full, expired windows are dropped,
 * then the least recently started ones.
 */
import { RateLimitedError } from './errors';

export interface LocalRateRule {
  limit: number;
  windowSeconds: number;
}

export class LocalRateLimiter {
  private readonly windows = new Map<string, { startedAt: number; count: number }>();

  constructor(
    private readonly maxKeys = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request of `key`; throws RateLimitedError (with the seconds left in the window) over the limit. */
  hit(key: string, rule: LocalRateRule): void {
    const now = this.now();
    const windowMs = rule.windowSeconds * 1000;
    let window = this.windows.get(key);
    if (!window || now - window.startedAt >= windowMs) {
      if (window) this.windows.delete(key);
      else if (this.windows.size >= this.maxKeys) this.makeRoom(now, windowMs);
      window = { startedAt: now, count: 0 };
      // Insertion order is start order, so the oldest windows are the first ones.
      this.windows.set(key, window);
    }
    window.count += 1;
    if (window.count > rule.limit) throw new RateLimitedError(Math.max(1, Math.ceil((window.startedAt + windowMs - now) / 1000)));
  }

  get size(): number {
    return this.windows.size;
  }

  private makeRoom(now: number, windowMs: number): void {
    for (const [key, window] of this.windows) {
      if (now - window.startedAt < windowMs) break;
      this.windows.delete(key);
    }
    // Still full of live windows: forget the oldest tenth (their clients start a new window).
    if (this.windows.size >= this.maxKeys) {
      let drop = Math.max(1, Math.floor(this.maxKeys / 10));
      for (const key of this.windows.keys()) {
        if (drop-- <= 0) break;
        this.windows.delete(key);
      }
    }
  }
}
