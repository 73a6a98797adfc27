/**
 * The indexer against the real services: catalog writes through the API → outbox rows → the `index`
 * consumer → the store's Meilisearch index. Outbox rows of the test's own tenant are delivered
 * deterministically (claimed here and handed to outboxConsumer with the real handler), so other
 * tests' rows are never touched; one test runs the registered consumer table on a worker.
 */
import { expect } from 'chai';
import { Meilisearch } from 'meilisearch';
import { jobIdFor } from '../../storage/outbox';
import { call, testConfig, type TestServer } from '../helpers/harness';
import { deliverIndexRows, indexHandler, RETRY, silentLogger as silent } from '../helpers/indexing';
import { captureLog } from '../helpers/log-capture';
import { attribute, merchant, type Merchant } from '../helpers/fixtures';
import { apiSuite } from '../helpers/api-suite';
import { eventually } from '../helpers/wait';
import { QueueRegistry } from '../../storage/queues';
import { startConsumers, type DeliveryHandler } from '../../storage/consumers';
import { createIndexHandler } from '../../indexer/index-consumer';
import { indexerConsumers } from '../../app/roles/indexer';
import { plainText, type ProductDocument } from '../../search/product-document';
import { discountPercent } from '../../domain/money';
import { indexSettings, settingsMatch, MAX_TOTAL_HITS } from '../../search/index-settings';
import { mergeSynonyms } from '../../search/unit-synonyms';
import { reindexStore } from '../../indexer/reindex';
import { storeIndexUid, tmpIndexUid } from '../../search/index-names';

const settings = RETRY;

describe('indexer: products into one Meilisearch index per store', function () {
  this.timeout(60_000);
  let server: TestServer;
  let meili: Meilisearch;
  let handle: DeliveryHandler;

  // At the end no row of the file's tenants may be delivered later by another test's relay (it would recreate an index).
  const suite = apiSuite((started) => (server = started));
  before(() => {
    meili = server.runtime.meiliAdmin;
    handle = indexHandler(server);
  });

  const newMerchant = async (): Promise<Merchant> => suite.addMerchant(await merchant(server), { indexed: true });

  async function post(m: Merchant, path: string, body: Record<string, unknown>): Promise<Record<string, any>> {
    const res = await call(server, 'POST', `/api/v1${path}`, { headers: m.headers, body: { storeId: m.storeId, ...body } });
    expect(res.status, res.text).to.equal(201);
    return res.json;
  }

  async function publishedProduct(m: Merchant, body: Record<string, unknown>): Promise<string> {
    const product = await post(m, '/catalog/products', { type: 'PHYSICAL', price: 10, ...body });
    const res = await call(server, 'POST', `/api/v1/catalog/products/${product.id}/publish`, { headers: m.headers });
    expect(res.status, res.text).to.equal(201);
    return product.id;
  }

  /** Delivers the tenant's pending index rows through `handler`; returns the failures. */
  const drain = (m: Merchant, handler: DeliveryHandler = handle): Promise<Error[]> => deliverIndexRows(server, m.owner.tenantId, handler);

  async function statuses(m: Merchant): Promise<Record<string, number>> {
    const rows: Array<{ status: string; n: number }> = await server.runtime.dataSource.query(
      "SELECT status, count(*)::int AS n FROM outbox WHERE tenant_id = $1 AND queue = 'index' GROUP BY 1",
      [m.owner.tenantId],
    );
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  async function doc(storeId: string, id: string): Promise<ProductDocument | undefined> {
    return meili
      .index<ProductDocument>(storeIndexUid(storeId))
      .getDocument(id)
      .catch(() => undefined);
  }

  it('builds plain text and discounts without floating point on amounts', () => {
    expect(plainText('<p>Soft&nbsp;cotton</p><p>Tom &amp; Jerry&#39;s <strong>tee</strong></p><ul><li>a</li><li>b</li></ul>')).to.equal(
      "Soft cotton Tom & Jerry's tee a b",
    );
    // Plain paragraphs and plain text take the short way, with the same result.
    expect(plainText('<p>Soft cotton</p>\n<p>Tom "Jerry\'s" tee</p>')).to.equal('Soft cotton Tom "Jerry\'s" tee');
    expect(plainText('  one\n two  ')).to.equal('one two');
    expect(plainText('<p>a</p><p>b</p>')).to.equal(plainText('<p>a</p><div>b</div>'));
    expect(discountPercent('75.0000', '100.0000')).to.equal(25);
    expect(discountPercent('66.6700', '100')).to.equal(33);
    expect(discountPercent('10', '10')).to.equal(0);
    expect(discountPercent('10', null)).to.equal(0);
    const s = indexSettings({ defaultLocale: 'en', locales: ['de', 'pt-BR'], synonyms: {} });
    expect(s.searchableAttributes?.slice(0, 5)).to.deep.equal(['brand', 'titleProductWords', 'title', 'title_de', 'title_pt_br']);
    expect(s.localizedAttributes).to.deep.include({ attributePatterns: ['title_de', 'description_de'], locales: ['deu'] });
    expect(s.pagination?.maxTotalHits).to.be.at.least(100 * 60);
  });

  it('indexes a published product with every field, through the registered consumer table on a worker', async () => {
    const m = await newMerchant();
    const brand = await post(m, '/catalog/brands', { name: 'Northwind' });
    const parent = await post(m, '/catalog/categories', { name: 'Apparel' });
    const category = await post(m, '/catalog/categories', { name: 'Shirts', parentId: parent.id });
    await attribute(server, m, category.id, { name: 'material', type: 'text' });
    const tag = await post(m, '/catalog/product-tags', { name: 'Summer' });
    const id = await publishedProduct(m, {
      title: 'Linen Shirt',
      descriptionHtml: '<p>Breathable <strong>linen</strong></p>',
      price: 75,
      compareAtPrice: 100,
      brandId: brand.id,
      categoryIds: [category.id],
      tagIds: [tag.id],
      attributes: { material: 'linen' },
      variants: [
        { sku: `S-${m.storeId.slice(-6)}`, options: { size: 'S', colour: 'White' }, stock: 0 },
        { sku: `M-${m.storeId.slice(-6)}`, options: { size: 'M', colour: 'White' }, stock: 3 },
      ],
      images: [{ url: 'https://img.example.test/a.jpg' }, { url: 'https://img.example.test/b.jpg' }],
      translations: { de: { title: 'Leinenhemd', descriptionHtml: '<p>Luftig</p>' } },
    });
    const draft = await post(m, '/catalog/products', { title: 'Draft Shirt', type: 'PHYSICAL', price: 5 });

    // The consumer table of the indexer role (app/roles/indexer.ts) on a worker of its own queue prefix; jobs made like the relay makes them.
    const prefix = testConfig().queuePrefix;
    const producers = new QueueRegistry({ redisUrl: server.runtime.config.redisUrl, isWorker: false, logger: silent, prefix });
    // Warnings kept, so a delivery that fails says why in the assertion below.
    const log = captureLog('warn');
    const consumers = startConsumers(
      { dataSource: server.runtime.dataSource, redisUrl: server.runtime.config.redisUrl, logger: log.logger, outbox: settings, prefix },
      indexerConsumers({
        dataSource: server.runtime.dataSource,
        searchNodes: server.runtime.searchNodes,
        logger: log.logger,
        publishStoreChanges: server.runtime.publishStoreChanges,
      }),
    );
    try {
      const rows: Array<{ aggregate_type: string; aggregate_id: string }> = await server.runtime.dataSource.query(
        `WITH c AS (UPDATE outbox SET status = 'in_flight', claimed_at = now(), attempts = attempts + 1
                     WHERE tenant_id = $1 AND queue = 'index' AND status = 'pending' RETURNING aggregate_type, aggregate_id)
         SELECT * FROM c`,
        [m.owner.tenantId],
      );
      const seen = new Set<string>();
      for (const row of rows) {
        const key = jobIdFor(row.aggregate_type, row.aggregate_id);
        if (seen.has(key)) continue;
        seen.add(key);
        await producers
          .get('index')
          .createJob({ aggregateType: row.aggregate_type, aggregateId: row.aggregate_id, tenantId: m.owner.tenantId })
          .setId(key)
          .save();
      }
      await eventually(async () => !(await statuses(m)).in_flight, 'the worker to deliver every row', 20_000);
      expect(await statuses(m), JSON.stringify(log.lines())).to.deep.equal({ done: rows.length });
    } finally {
      await consumers.stop(2_000);
      await producers.close(1_000);
    }

    const document = await doc(m.storeId, id);
    expect(document).to.deep.include({
      id,
      storeId: m.storeId,
      status: 'PUBLISHED',
      type: 'PHYSICAL',
      title: 'Linen Shirt',
      description: 'Breathable linen',
      title_de: 'Leinenhemd',
      description_de: 'Luftig',
      brandId: brand.id,
      brand: 'Northwind',
      categories: ['Shirts'],
      categoryPath: ['Apparel'],
      tags: ['Summer'],
      tagIds: [tag.id],
      price: 75,
      compareAtPrice: 100,
      discountPercent: 25,
      discounted: true,
      inStock: true,
      rating: 0,
      reviewCount: 0,
      salesCount: 0,
      viewCount: 0,
      imageUrl: 'https://img.example.test/a.jpg',
    });
    expect(document!.categoryIds).to.have.members([category.id, parent.id]);
    expect(document!.options).to.have.members(['size:S', 'colour:White', 'size:M']);
    expect(document!.attrs).to.deep.equal(['material:linen']);
    expect(document!.optionValues).to.have.members(['S', 'White', 'M']);
    expect(document!.attrValues).to.deep.equal(['linen']);
    expect(document!.stars).to.equal(0);
    expect(document!.createdAt)
      .to.be.a('number')
      .within(Date.now() / 1000 - 600, Date.now() / 1000 + 5);
    expect(document!.publishedAt).to.be.a('number');
    expect(await doc(m.storeId, draft.id)).to.equal(undefined);

    const index = meili.index(storeIndexUid(m.storeId));
    const settingsNow = await index.getSettings();
    expect(settingsMatch(indexSettings({ defaultLocale: 'en', locales: ['de'], synonyms: mergeSynonyms([]) }), settingsNow)).to.equal(true);
    expect(settingsNow.pagination?.maxTotalHits).to.equal(MAX_TOTAL_HITS);
    const hits = await index.search('linen shirt', {
      filter: `status = PUBLISHED AND categoryIds = "${parent.id}" AND options = "size:M" AND inStock = true`,
      sort: ['price:asc'],
    });
    expect(hits.hits.map((h) => h.id)).to.deep.equal([id]);
    expect((await index.search('Leinenhemd')).hits.map((h) => h.id)).to.deep.equal([id]);
  });

  it('carries a brand rename, a category rename and a tag rename to every product', async () => {
    const m = await newMerchant();
    const brand = await post(m, '/catalog/brands', { name: 'Oldname' });
    const category = await post(m, '/catalog/categories', { name: 'Mugs' });
    const tag = await post(m, '/catalog/product-tags', { name: 'Gift' });
    const ids = [];
    for (let i = 0; i < 3; i += 1)
      ids.push(await publishedProduct(m, { title: `Mug ${i}`, brandId: brand.id, categoryIds: [category.id], tagIds: [tag.id] }));
    expect(await drain(m)).to.deep.equal([]);
    for (const id of ids) expect((await doc(m.storeId, id))?.brand).to.equal('Oldname');

    expect(
      (await call(server, 'PATCH', `/api/v1/catalog/brands/${brand.id}`, { headers: m.headers, body: { name: 'Newname' } })).status,
    ).to.equal(200);
    const catRes = await call(server, 'PUT', `/api/v1/catalog/categories/${category.id}`, { headers: m.headers, body: { name: 'Cups' } });
    expect(catRes.status, catRes.text).to.equal(200);
    const tagRes = await call(server, 'PATCH', `/api/v1/catalog/product-tags/${tag.id}`, { headers: m.headers, body: { name: 'Present' } });
    expect(tagRes.status, tagRes.text).to.equal(200);
    expect(await drain(m)).to.deep.equal([]);
    for (const id of ids) expect(await doc(m.storeId, id)).to.deep.include({ brand: 'Newname', categories: ['Cups'], tags: ['Present'] });
    const hits = await meili.index(storeIndexUid(m.storeId)).search('newname');
    expect(hits.hits.map((h) => h.id)).to.have.members(ids);

    // Deleting the brand detaches it from the products: their documents follow.
    expect((await call(server, 'DELETE', `/api/v1/catalog/brands/${brand.id}`, { headers: m.headers })).status).to.equal(204);
    expect(await drain(m)).to.deep.equal([]);
    for (const id of ids) expect(await doc(m.storeId, id)).to.deep.include({ brand: null, brandId: null });
  });

  it('removes archived and deleted products, and keeps each store in its own index', async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    const kept = await publishedProduct(a, { title: 'Teapot' });
    const archived = await publishedProduct(a, { title: 'Kettle' });
    const deleted = await publishedProduct(a, { title: 'Toaster' });
    const other = await publishedProduct(b, { title: 'Teapot' });
    expect(await drain(a)).to.deep.equal([]);
    expect(await drain(b)).to.deep.equal([]);
    expect(await doc(a.storeId, archived)).to.not.equal(undefined);

    expect((await call(server, 'POST', `/api/v1/catalog/products/${archived}/archive`, { headers: a.headers })).status).to.equal(201);
    expect((await call(server, 'DELETE', `/api/v1/catalog/products/${deleted}`, { headers: a.headers })).status).to.equal(204);
    expect(await drain(a)).to.deep.equal([]);
    expect(await doc(a.storeId, archived)).to.equal(undefined);
    expect(await doc(a.storeId, deleted)).to.equal(undefined);
    expect(await doc(a.storeId, kept)).to.not.equal(undefined);

    expect((await meili.index(storeIndexUid(a.storeId)).search('teapot')).hits.map((h) => h.id)).to.deep.equal([kept]);
    expect((await meili.index(storeIndexUid(b.storeId)).search('teapot')).hits.map((h) => h.id)).to.deep.equal([other]);
  });

  it('indexes the products of an import batch from its one outbox row, published ones only', async () => {
    const m = await newMerchant();
    const csv = [
      'handle,title,status,price',
      'oak-desk,Oak Desk,PUBLISHED,120',
      'pine-shelf,Pine Shelf,PUBLISHED,45',
      'draft-stool,Draft Stool,DRAFT,20',
    ].join('\n');
    const res = await call(server, 'POST', `/api/v1/bulk-import/products?storeId=${m.storeId}`, {
      headers: m.headers,
      rawBody: csv,
      contentType: 'text/csv',
    });
    expect(res.status, res.text).to.equal(200);
    const rows: Array<{ id: string; slug: string }> = await server.runtime.dataSource.query(
      'SELECT id, slug FROM products WHERE store_id = $1',
      [m.storeId],
    );
    const idOf = Object.fromEntries(rows.map((r) => [r.slug, r.id]));
    expect(await statuses(m)).to.deep.equal({ pending: 1 });
    expect(await drain(m)).to.deep.equal([]);
    expect(await statuses(m)).to.deep.equal({ done: 1 });
    expect((await doc(m.storeId, idOf['oak-desk']!))?.title).to.equal('Oak Desk');
    expect((await doc(m.storeId, idOf['pine-shelf']!))?.title).to.equal('Pine Shelf');
    expect(await doc(m.storeId, idOf['draft-stool']!)).to.equal(undefined);
  });

  it('keeps rows pending while Meilisearch is unreachable, and catches up once it is back', async () => {
    const m = await newMerchant();
    const id = await publishedProduct(m, { title: 'Waffle Iron' });
    const down = new Meilisearch({ host: 'http://127.0.0.1:1', apiKey: server.runtime.config.meiliMasterKey, timeout: 1_000 });
    const failures = await drain(m, createIndexHandler({ dataSource: server.runtime.dataSource, meili: down, logger: silent }));
    expect(failures).to.have.length.at.least(1);
    const pending: Array<{ status: string; last_error: string | null }> = await server.runtime.dataSource.query(
      'SELECT status, last_error FROM outbox WHERE tenant_id = $1 AND aggregate_id = $2',
      [m.owner.tenantId, id],
    );
    expect(pending.length).to.be.at.least(1);
    for (const row of pending) expect(row.status).to.equal('pending');
    expect(pending[0]!.last_error).to.be.a('string').and.not.equal('');
    expect(await doc(m.storeId, id)).to.equal(undefined);

    // Back: the rows are due again (the backoff is skipped here) and the real client delivers them.
    await server.runtime.dataSource.query("UPDATE outbox SET available_at = now() WHERE tenant_id = $1 AND status = 'pending'", [
      m.owner.tenantId,
    ]);
    expect(await drain(m)).to.deep.equal([]);
    expect(await statuses(m)).to.not.have.property('pending');
    expect((await meili.index(storeIndexUid(m.storeId)).search('waffle')).hits.map((h) => h.id)).to.deep.equal([id]);
  });

  it('reindex rebuilds a store from PostgreSQL into a fresh index and swaps it in', async () => {
    const m = await newMerchant();
    const ids = [];
    for (let i = 0; i < 5; i += 1) ids.push(await publishedProduct(m, { title: `Lamp ${i}` }));
    await post(m, '/catalog/products', { title: 'Draft Lamp', type: 'PHYSICAL', price: 1 });
    expect(await drain(m)).to.deep.equal([]);
    const index = meili.index(storeIndexUid(m.storeId));
    // Drift the read model: a stale document and a missing one.
    await index.addDocuments([{ id: '00000000-0000-4000-8000-000000000001', storeId: m.storeId, title: 'Stale' }]).waitTask();
    await index.deleteDocument(ids[0]!).waitTask();

    const result = await reindexStore(server.runtime.dataSource, meili, m.storeId, { batchSize: 2 });
    expect(result).to.include({ storeId: m.storeId, index: storeIndexUid(m.storeId), documents: 5 });
    expect(result.ms).to.be.a('number');
    const all = await index.getDocuments({ fields: ['id'], limit: 100 });
    expect(all.results.map((d) => d.id)).to.have.members(ids);
    expect(
      settingsMatch(indexSettings({ defaultLocale: 'en', locales: [], synonyms: mergeSynonyms([]) }), await index.getSettings()),
    ).to.equal(true);
    const tmpGone = await meili.getIndex(tmpIndexUid(m.storeId)).then(
      () => false,
      () => true,
    );
    expect(tmpGone).to.equal(true);

    // A store without an index yet gets one.
    const fresh = await newMerchant();
    const only = await publishedProduct(fresh, { title: 'Desk' });
    expect((await reindexStore(server.runtime.dataSource, meili, fresh.storeId)).documents).to.equal(1);
    expect((await doc(fresh.storeId, only))?.title).to.equal('Desk');
    expect(await drain(fresh)).to.deep.equal([]);
  });

  it('applies settings on a store event only to an index that exists', async () => {
    const m = await newMerchant();
    await handle({ queue: 'index', aggregateType: 'store', aggregateId: m.storeId, tenantId: m.owner.tenantId, messages: [] });
    expect(
      await meili.getIndex(storeIndexUid(m.storeId)).then(
        () => true,
        () => false,
      ),
    ).to.equal(false);
    await publishedProduct(m, { title: 'Chair' });
    expect(await drain(m)).to.deep.equal([]);
    await meili
      .index(storeIndexUid(m.storeId))
      .updateSettings({ rankingRules: ['words'] })
      .waitTask();
    await handle({ queue: 'index', aggregateType: 'store', aggregateId: m.storeId, tenantId: m.owner.tenantId, messages: [] });
    expect((await meili.index(storeIndexUid(m.storeId)).getSettings()).rankingRules).to.deep.equal(
      indexSettings({ defaultLocale: 'en', locales: [], synonyms: {} }).rankingRules,
    );
  });
});
