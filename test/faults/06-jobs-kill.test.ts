/**
 * One of two jobs processes killed with -9 while it runs an import: the other one must take the
 * import over and finish it with exactly its rows. The killed one stays down until the end of the
 * measurement (restarted by the after hook).
 */
import { FAULT_TIMEOUT_MS, restore } from './flow';
import { busiest } from './imports';
import { importFault, IMPORT_ROWS } from './import-flow';

describe('fault: jobs process kill -9 mid-import, a second jobs process running', function () {
  this.timeout(FAULT_TIMEOUT_MS);
  after(() => restore());

  it(`the other jobs process finishes the import with exactly its ${IMPORT_ROWS} rows`, () =>
    importFault({
      fault: 'jobs kill -9 mid-import (other jobs process finishes)',
      hit: async (w) => {
        const { process: target, ticks } = await busiest([w.roles.jobsA, w.roles.jobsB]);
        const since = await target.kill9();
        return { since, notes: `killed ${target.name} (CPU ticks over 0.4 s: jobs-a ${ticks[0]}, jobs-b ${ticks[1]})` };
      },
    }));
});
