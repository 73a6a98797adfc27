/**
 * The api process the writer and the reader use killed with -9 and started again 3 s later (same
 * port). Requests in flight get no answer (their outcome is unknown and not judged); every
 * acknowledged write must be in PostgreSQL and the index must equal it within 35 s of the death.
 */
import { FAULT_TIMEOUT_MS, restore, trafficFault, WORKER_TARGET_MS } from './flow';
import { sleep } from './util';

describe('fault: api kill -9, restart after 3 s', function () {
  this.timeout(FAULT_TIMEOUT_MS);
  after(() => restore());

  it('loses no acknowledged write and the index equals PostgreSQL within 35 s of the death', () =>
    trafficFault({
      fault: 'api kill -9, restart after 3 s',
      targetMs: WORKER_TARGET_MS,
      inject: async (w) => {
        const died = await w.roles.api.kill9();
        await sleep(3_000);
        await w.roles.api.start();
        return died;
      },
    }));
});
