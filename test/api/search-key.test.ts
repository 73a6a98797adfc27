/**
 * The search-only Meilisearch key: derived from the master key (same in every process), provisioned
 * idempotently, able to search and unable to change anything.
 */
import { expect } from 'chai';
import { MeilisearchApiError } from 'meilisearch';
import { testRuntime } from '../helpers/harness';
import { createSearchClient, ensureSearchKey, keyValueFor, searchKeyUid } from '../../search/meili';
import { UUID_PATTERN } from '../../api/http/schema-types';
import { uuidv7 } from '../../storage/ids';

describe('Meilisearch search-only key', () => {
  it('is derived deterministically from the master key and is not the master key', () => {
    const uid = searchKeyUid('a-master-key-of-some-length');
    expect(uid).to.equal(searchKeyUid('a-master-key-of-some-length'));
    expect(uid).to.match(UUID_PATTERN);
    expect(searchKeyUid('another-master-key-value')).not.to.equal(uid);
    expect(keyValueFor(uid, 'a-master-key-of-some-length')).to.match(/^[0-9a-f]{64}$/);
  });

  it('is provisioned idempotently and equals the derived value', async () => {
    const runtime = await testRuntime();
    const first = await ensureSearchKey(runtime.meiliAdmin, runtime.config.meiliMasterKey);
    const second = await ensureSearchKey(runtime.meiliAdmin, runtime.config.meiliMasterKey);
    expect(first).to.equal(second);
    expect(first).to.equal(keyValueFor(searchKeyUid(runtime.config.meiliMasterKey), runtime.config.meiliMasterKey));
    expect(first).not.to.equal(runtime.config.meiliMasterKey);
  });

  it('can search an index but cannot write to it or read keys', async () => {
    const runtime = await testRuntime();
    const key = await ensureSearchKey(runtime.meiliAdmin, runtime.config.meiliMasterKey);
    const uid = `test-key-${uuidv7()}`;
    const task = await runtime.meiliAdmin
      .index(uid)
      .addDocuments([{ id: 1, title: 'Blue mug' }])
      .waitTask();
    expect(task.status).to.equal('succeeded');
    const search = createSearchClient(runtime.config.meiliUrl, key);
    try {
      const result = await search.index(uid).search('mug');
      expect(result.hits.map((h) => h.title)).to.deep.equal(['Blue mug']);
      let refused: unknown;
      await search
        .index(uid)
        .addDocuments([{ id: 2, title: 'Red mug' }])
        .catch((e: unknown) => (refused = e));
      expect(refused).to.be.instanceOf(MeilisearchApiError);
      expect((refused as MeilisearchApiError).cause?.code).to.equal('invalid_api_key');
      let keysRefused: unknown;
      await search.getKeys().catch((e: unknown) => (keysRefused = e));
      expect(keysRefused).to.be.instanceOf(MeilisearchApiError);
    } finally {
      await runtime.meiliAdmin.deleteIndex(uid).waitTask();
    }
  });
});
