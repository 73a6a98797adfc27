/**
 * Meilisearch killed with -9, down for about 20 s while merchants keep writing, then started again
 * (same database, same key). Every change made meanwhile waits in the outbox; the index must equal
 * PostgreSQL within 5 s of Meilisearch's return.
 */
import { DEPENDENCY_TARGET_MS, FAULT_TIMEOUT_MS, restore, trafficFault } from './flow';
import { sleep } from './util';

describe('fault: Meilisearch kill -9, down 20 s, restart', function () {
  this.timeout(FAULT_TIMEOUT_MS);
  after(() => restore());

  it('loses no acknowledged write and the index equals PostgreSQL within 5 s of its return', () =>
    trafficFault({
      fault: 'meilisearch kill -9, down 20 s, restart',
      targetMs: DEPENDENCY_TARGET_MS,
      inject: async (w) => {
        await w.services.kill9('meilisearch');
        await sleep(20_000);
        await w.services.start();
        return Date.now();
      },
    }));
});
