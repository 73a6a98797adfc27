/**
 * Root hooks of the fault suite (.mocharc.faults.json requires this file): the shared world is set
 * up once before the first fault and torn down after the last, and the results table is printed
 * then, whether the faults passed or not.
 */
import { printResults } from './results';
import { setUpWorld, tearDownWorld, world } from './world';

let artifacts = '';

export const mochaHooks = {
  async beforeAll(this: Mocha.Context): Promise<void> {
    this.timeout(240_000);
    await setUpWorld();
    artifacts = world().artifacts;
  },
  async afterAll(this: Mocha.Context): Promise<void> {
    this.timeout(120_000);
    await tearDownWorld();
    if (artifacts) printResults(artifacts);
  },
};
