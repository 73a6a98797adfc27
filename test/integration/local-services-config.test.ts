/**
 * The configuration against the local services of the run (the rest of it is in
 * test/unit/config.test.ts, which needs none): the Meilisearch master key that scripts/services
 * wrote is found without MEILI_URL.
 */
import { expect } from 'chai';
import { loadConfig } from '../../lib/config';

describe('configuration (loadConfig) with the local services', () => {
  it('reads the Meilisearch master key of the local services when MEILI_URL is unset', () => {
    // scripts/services writes .data/meili-master-key; the services of this run are started.
    const config = loadConfig({ APP_SECRET: 's'.repeat(32) });
    expect(config.meiliMasterKey).to.be.a('string');
    expect(config.meiliMasterKey.length).to.be.at.least(16);
  });
});
