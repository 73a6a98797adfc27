/**
 * PostgreSQL stopped in immediate mode (every backend quits, no checkpoint: recovery from the WAL at
 * the next start, as after a crash), down about 10 s, started again. Writes during the outage fail
 * (their outcome is unknown and not judged); every acknowledged one must survive, and the index must
 * equal PostgreSQL within 5 s of its return.
 */
import { DEPENDENCY_TARGET_MS, FAULT_TIMEOUT_MS, restore, trafficFault } from './flow';
import { sleep } from './util';

describe('fault: PostgreSQL immediate stop, down 10 s, start', function () {
  this.timeout(FAULT_TIMEOUT_MS);
  after(() => restore());

  it('loses no acknowledged write and the index equals PostgreSQL within 5 s of its return', () =>
    trafficFault({
      fault: 'postgres immediate stop, down 10 s, start',
      targetMs: DEPENDENCY_TARGET_MS,
      inject: async (w) => {
        await w.services.stopPostgresImmediately();
        await sleep(10_000);
        await w.services.start();
        return Date.now();
      },
    }));
});
