/** Closes the shared test runtime once every test file has run, so mocha exits on its own. */
import { closeTestRuntime } from './harness';

export const mochaHooks = {
  async afterAll(): Promise<void> {
    await closeTestRuntime();
  },
};
