/** The supervisor's plan of workers and its restart delays (app/cluster.ts); the processes themselves are in e2e/api-processes. */
import { expect } from 'chai';
import { RESTART_MAX_MS, RESTART_STABLE_MS, restartDelay, runsAsClusterPrimary, workerSlots } from '../../app/cluster';

describe('api processes: the supervisor', () => {
  it('supervises only with more than one api process and the api role', () => {
    expect(runsAsClusterPrimary({ apiProcesses: 1, roles: ['api', 'relay'] })).to.equal(false);
    expect(runsAsClusterPrimary({ apiProcesses: 2, roles: ['indexer'] })).to.equal(false);
    expect(runsAsClusterPrimary({ apiProcesses: 2, roles: ['api'] })).to.equal(true);
  });

  it('forks N api workers (the demo sandbox in the first only) and one background worker for the other roles', () => {
    expect(workerSlots({ apiProcesses: 3, roles: ['api', 'relay', 'indexer', 'vision', 'jobs'] })).to.deep.equal([
      { name: 'api-1', env: { ROLES: 'api' } },
      { name: 'api-2', env: { ROLES: 'api', DEMO_SANDBOX: 'false' } },
      { name: 'api-3', env: { ROLES: 'api', DEMO_SANDBOX: 'false' } },
      { name: 'background', env: { ROLES: 'relay,indexer,vision,jobs', DEMO_SANDBOX: 'false' } },
    ]);
    expect(workerSlots({ apiProcesses: 2, roles: ['api'] }).map((s) => s.name)).to.deep.equal(['api-1', 'api-2']);
  });

  it('restarts at once after a long run and backs off exponentially after quick failures in a row', () => {
    expect(restartDelay(5, RESTART_STABLE_MS)).to.deep.equal({ delayMs: 0, failures: 0 });
    expect(restartDelay(0, 100)).to.deep.equal({ delayMs: 500, failures: 1 });
    expect(restartDelay(1, 100)).to.deep.equal({ delayMs: 1_000, failures: 2 });
    expect(restartDelay(3, 100)).to.deep.equal({ delayMs: 4_000, failures: 4 });
    expect(restartDelay(20, 100)).to.deep.equal({ delayMs: RESTART_MAX_MS, failures: 21 });
  });
});
