/**
 * Redis killed with -9 and started again (AOF, as scripts/services runs it) while merchants write
 * and shoppers search. Redis holds only queues: every change is in the outbox, so nothing may be
 * lost and the index must catch up. Redis is a dependency like Meilisearch and PostgreSQL, so it is
 * held to the same bar: the index equals PostgreSQL within 5 s of its return.
 */
import { DEPENDENCY_TARGET_MS, FAULT_TIMEOUT_MS, restore, trafficFault } from './flow';
import { sleep } from './util';

describe('fault: Redis kill -9 and restart', function () {
  this.timeout(FAULT_TIMEOUT_MS);
  after(() => restore());

  it('loses no acknowledged write and the index equals PostgreSQL soon after Redis returns', () =>
    trafficFault({
      fault: 'redis kill -9, down 3 s, restart',
      targetMs: DEPENDENCY_TARGET_MS,
      inject: async (w) => {
        await w.services.kill9('redis');
        await sleep(3_000);
        await w.services.start();
        return Date.now();
      },
    }));
});
