/**
 * The indexer process (outbox relay and index consumers) killed with -9 mid-traffic and started
 * again 3 s later. Rows it had claimed or was indexing must be delivered again: the index equals
 * PostgreSQL within 35 s of its death.
 */
import { FAULT_TIMEOUT_MS, restore, trafficFault, WORKER_TARGET_MS } from './flow';
import { sleep } from './util';

describe('fault: indexer kill -9, restart after 3 s', function () {
  this.timeout(FAULT_TIMEOUT_MS);
  after(() => restore());

  it('loses no acknowledged write and the index equals PostgreSQL within 35 s of the death', () =>
    trafficFault({
      fault: 'indexer kill -9, restart after 3 s',
      targetMs: WORKER_TARGET_MS,
      inject: async (w) => {
        const died = await w.roles.indexer.kill9();
        await sleep(3_000);
        await w.roles.indexer.start();
        return died;
      },
    }));
});
