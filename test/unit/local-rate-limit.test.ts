/**
 * The in-process limiter of hot paths: a fixed window per key, 429 with the seconds left, a new
 * window once the old one is over, and bounded memory (expired windows first, then the oldest).
 */
import { expect } from 'chai';
import { LocalRateLimiter } from '../../lib/local-rate-limit';
import { RateLimitedError } from '../../lib/errors';

describe('LocalRateLimiter', () => {
  const rule = { limit: 3, windowSeconds: 60 };

  it('allows `limit` hits per key and window, then refuses with the seconds left; other keys are apart', () => {
    let now = 1_000_000;
    const limiter = new LocalRateLimiter(100, () => now);
    for (let i = 0; i < 3; i += 1) limiter.hit('a', rule);
    now += 15_500;
    let refused: unknown;
    try {
      limiter.hit('a', rule);
    } catch (error) {
      refused = error;
    }
    expect(refused).to.be.instanceOf(RateLimitedError);
    expect((refused as RateLimitedError).headers['Retry-After']).to.equal('45');
    limiter.hit('b', rule);
    now += 44_500;
    // The window is over: a new one starts.
    for (let i = 0; i < 3; i += 1) limiter.hit('a', rule);
    expect(() => limiter.hit('a', rule)).to.throw(RateLimitedError);
  });

  it('keeps at most maxKeys windows: expired ones go first, then the oldest', () => {
    let now = 0;
    const limiter = new LocalRateLimiter(10, () => now);
    for (let i = 0; i < 10; i += 1) limiter.hit(`old-${i}`, rule);
    now += 61_000;
    limiter.hit('new', rule);
    expect(limiter.size).to.equal(1);
    for (let i = 0; i < 9; i += 1) limiter.hit(`live-${i}`, rule);
    expect(limiter.size).to.equal(10);
    limiter.hit('one-more', rule);
    expect(limiter.size).to.be.at.most(10);
    // The newest windows are kept with their counts.
    limiter.hit('one-more', rule);
    limiter.hit('one-more', rule);
    expect(() => limiter.hit('one-more', rule)).to.throw(RateLimitedError);
  });
});
