/**
 * The Redis rate limiter at the edges of its connection: a request in the first moments of a
 * process (before the connection is ready) is counted, not waved through with a warning; with Redis
 * unreachable requests pass and the outage is logged once, without a stack.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import Redis from 'ioredis';
import { testConfig } from '../helpers/harness';
import { RateLimiter } from '../../storage/rate-limit';
import { RateLimitedError } from '../../lib/errors';
import { captureLog } from '../helpers/log-capture';

describe('rate limiter (Redis)', () => {
  // The test environment's Redis (REDIS_URL or the local services on REDIS_PORT), as every test uses.
  const config = testConfig();
  const clients: Redis[] = [];
  const client = (url: string) => {
    const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy: () => 1_000 });
    redis.on('error', () => undefined);
    clients.push(redis);
    return redis;
  };
  after(() => clients.forEach((c) => c.disconnect()));

  it('counts the hits a process makes before its connection is first ready', async () => {
    const { logger, lines } = captureLog();
    const limiter = new RateLimiter(client(config.redisUrl), logger, `test-rl-${randomBytes(4).toString('hex')}`);
    const rule = { limit: 2, windowSeconds: 60 };
    // Straight after the client is made: it is still connecting.
    await limiter.hit('k', rule);
    await limiter.hit('k', rule);
    let refused: unknown;
    await limiter.hit('k', rule).catch((error) => (refused = error));
    expect(refused).to.be.instanceOf(RateLimitedError);
    expect(lines().filter((l) => l.level >= 40)).to.deep.equal([]);
  });

  it('lets requests through while Redis is unreachable and says so once, without a stack', async () => {
    const { logger, lines } = captureLog();
    // A port nothing listens on.
    const limiter = new RateLimiter(client('redis://127.0.0.1:1'), logger, 'test-rl-down');
    for (let i = 0; i < 5; i += 1) await limiter.hit('k', { limit: 1, windowSeconds: 60 });
    const warnings = lines().filter((l) => l.level >= 40);
    expect(warnings).to.have.length(1);
    expect(warnings[0]!.msg).to.match(/rate limiter unavailable/);
    expect(JSON.stringify(warnings[0])).not.to.include('"stack"');
  });
});
