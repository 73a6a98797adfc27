/**
 * SIGTERM to the only jobs process while it runs an import, then a restart of it: it must stop
 * within its shutdown timeout, and the import must finish (where it stopped or after the restart)
 * with exactly its rows. The second jobs process is stopped first, so nothing else can take over.
 */
import { FAULT_TIMEOUT_MS, restore } from './flow';
import { importFault, IMPORT_ROWS } from './import-flow';
import { world } from './world';

describe('fault: SIGTERM of the jobs process mid-import, then restart', function () {
  this.timeout(FAULT_TIMEOUT_MS);
  before(async () => {
    world().roles.jobsB.parked = true;
    await world().roles.jobsB.stop('SIGTERM');
  });
  after(async () => {
    world().roles.jobsB.parked = false;
    await restore();
  });

  it(`the restarted jobs process finishes the import with exactly its ${IMPORT_ROWS} rows`, () =>
    importFault({
      fault: 'jobs SIGTERM mid-import, restart',
      hit: async (w) => {
        const since = Date.now();
        const code = await w.roles.jobsA.stop('SIGTERM', 30_000);
        const stoppedMs = Date.now() - since;
        await w.roles.jobsA.start();
        return {
          since,
          notes: `jobs-a exited with ${String(code)} ${stoppedMs} ms after SIGTERM, ready again after ${Date.now() - since} ms`,
        };
      },
    }));
});
