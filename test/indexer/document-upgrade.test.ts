/**
 * Stores whose search documents predate the current document shape are rebuilt once by the indexer
 * (indexer/document-upgrade.ts), one process at a time, and marked current.
 */
import { expect } from 'chai';
import type { Meilisearch } from 'meilisearch';
import { call, type TestServer } from '../helpers/harness';
import { indexHandler, silentLogger } from '../helpers/indexing';
import { merchant, product, type Merchant } from '../helpers/fixtures';
import { apiSuite } from '../helpers/api-suite';
import { storeIndexUid } from '../../search/index-names';
import { SEARCH_DOCUMENT_VERSION, upgradeStoreDocuments } from '../../indexer/document-upgrade';
import { ladderCell } from '../../search/price-buckets';

describe('indexer: rebuilding stores whose documents have an older shape', function () {
  this.timeout(120_000);
  let server: TestServer;
  let meili: Meilisearch;
  const suite = apiSuite((started) => (server = started));
  const db = (sql: string, params: unknown[] = []): Promise<any> => server.runtime.dataSource.query(sql, params);
  const version = async (storeId: string): Promise<number> =>
    (await db('SELECT search_document_version AS v FROM stores WHERE id = $1', [storeId]))[0].v;

  /** A store with one published product, indexed, whose document then loses the fields of the current shape. */
  async function staleStore(): Promise<{ m: Merchant; id: string }> {
    const m = suite.addMerchant(await merchant(server), { indexed: true });
    expect(await version(m.storeId)).to.equal(SEARCH_DOCUMENT_VERSION);
    const id = await product(server, m, { title: 'Yellow Dress Shirt', status: 'PUBLISHED', price: 10, published_at: new Date() });
    await indexHandler(server).indexer.syncProducts([id]);
    const index = meili.index(storeIndexUid(m.storeId));
    const { titleProductWords: _words, titleWords: _count, priceCell: _cell, ...old } = await index.getDocument(id);
    await index.addDocuments([old]).waitTask();
    expect(await index.getDocument(id)).to.not.have.any.keys('titleProductWords', 'priceCell');
    await db('UPDATE stores SET search_document_version = 0 WHERE id = $1', [m.storeId]);
    return { m, id };
  }

  before(() => {
    meili = server.runtime.meiliAdmin;
  });

  it('rebuilds a stale store once, with the current document fields, and marks it current', async () => {
    const { m, id } = await staleStore();
    const upgraded = await upgradeStoreDocuments(server.runtime.dataSource, meili, silentLogger, { storeIds: [m.storeId] });
    expect(upgraded).to.deep.equal([m.storeId]);
    expect(await meili.index(storeIndexUid(m.storeId)).getDocument(id)).to.deep.include({
      titleProductWords: ['shirt'],
      titleWords: 3,
      priceCell: ladderCell(10),
    });
    expect(await version(m.storeId)).to.equal(SEARCH_DOCUMENT_VERSION);
    const search = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${m.storeId}&q=shirt`);
    expect(search.json.items.map((i: { title: string }) => i.title)).to.deep.equal(['Yellow Dress Shirt']);
    expect(await upgradeStoreDocuments(server.runtime.dataSource, meili, silentLogger, { storeIds: [m.storeId] })).to.deep.equal([]);
  });

  it('leaves a store another process is rebuilding to that process, and takes it up once the lock is gone', async () => {
    const { m } = await staleStore();
    const other = server.runtime.dataSource.createQueryRunner();
    await other.connect();
    try {
      await other.query('SELECT pg_advisory_lock(hashtext($1))', [`search-documents:${m.storeId}`]);
      expect(await upgradeStoreDocuments(server.runtime.dataSource, meili, silentLogger, { storeIds: [m.storeId] })).to.deep.equal([]);
      expect(await version(m.storeId)).to.equal(0);
    } finally {
      await other.query('SELECT pg_advisory_unlock_all()');
      await other.release();
    }
    expect(await upgradeStoreDocuments(server.runtime.dataSource, meili, silentLogger, { storeIds: [m.storeId] })).to.deep.equal([
      m.storeId,
    ]);
  });

  it('marks a store with nothing published current without rebuilding anything', async () => {
    const m = suite.addMerchant(await merchant(server), { indexed: true });
    await product(server, m, { title: 'Draft only' });
    await db('UPDATE stores SET search_document_version = 0 WHERE id = $1', [m.storeId]);
    expect(await upgradeStoreDocuments(server.runtime.dataSource, meili, silentLogger, { storeIds: [m.storeId] })).to.deep.equal([]);
    expect(await version(m.storeId)).to.equal(SEARCH_DOCUMENT_VERSION);
  });
});
