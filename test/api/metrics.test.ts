/**
 * GET /metrics (docs/operations.md): the bearer token of METRICS_TOKEN, the loopback-only answer
 * without it, the listener of METRICS_PORT; and that a public search (a miss, then a hit), a write,
 * an import and the indexer's delivery move their series, that the scrape-time gauges (outbox,
 * queues, caches, readiness) and Node's own metrics are there, and that no label carries an id or
 * query text.
 */
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { call, startTestServer, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { createProduct, merchant } from '../helpers/fixtures';
import { deliverIndexRows } from '../helpers/indexing';
import { eventually } from '../helpers/wait';
import { hasSample, parseSamples, sumOf, type Sample } from '../helpers/prometheus-text';
import { startMetricsServer } from '../../app/metrics';
import { QUEUE_NAMES } from '../../storage/queues';

const TOKEN = 'metrics-test-token-0123456789abcdef';

describe('metrics', function () {
  this.timeout(60_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started), { config: { metricsToken: TOKEN } });

  const scrape = async (target = server.baseUrl, token: string | undefined = TOKEN): Promise<Sample[]> => {
    const res = await fetch(`${target}/metrics`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    const text = await res.text();
    expect(res.status, text).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    return parseSamples(text);
  };
  const httpCount = (samples: Sample[], operation: string, status: string): number =>
    sumOf(samples, 'commerce_http_request_duration_seconds_count', { operation, status });

  describe('who may read it', () => {
    it('needs the bearer token when METRICS_TOKEN is set: 401 without it or with another one', async () => {
      for (const headers of [
        {} as Record<string, string>,
        { Authorization: 'Bearer wrong-token-0123456789abcdef' },
        { Authorization: `Basic ${TOKEN}` },
        { Authorization: `Bearer ${TOKEN}x` },
      ]) {
        const res = await call(server, 'GET', '/metrics', { headers });
        expect(res.status, res.text).to.equal(401);
        expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
        expect(res.headers.get('www-authenticate')).to.equal('Bearer');
        expect(res.json).to.include({ code: 'unauthorized', status: 401 });
        expect(res.text).to.not.include('commerce_');
      }
      const ok = await call(server, 'GET', '/metrics', { headers: { Authorization: `bearer ${TOKEN}` } });
      expect(ok.status).to.equal(200);
      expect(ok.text).to.include('# TYPE commerce_http_request_duration_seconds histogram');
    });

    it('is not an API operation: other methods get the usual 404, and it is not in the OpenAPI document', async () => {
      const post = await call(server, 'POST', '/metrics', { headers: { Authorization: `Bearer ${TOKEN}` }, body: {} });
      expect(post.status).to.equal(404);
      const doc = await call(server, 'GET', '/api/v1/openapi.json');
      expect(Object.keys(doc.json.paths)).to.not.include('/metrics');
    });

    it('without METRICS_TOKEN answers only a client on this machine whose request no proxy relayed', async () => {
      const open = await startTestServer({ config: { metricsToken: undefined } });
      try {
        expect(await scrape(open.baseUrl, undefined)).to.satisfy((s: Sample[]) => hasSample(s, 'process_resident_memory_bytes'));
        for (const header of [{ 'X-Forwarded-For': '203.0.113.9' }, { Forwarded: 'for=203.0.113.9' }] as Array<Record<string, string>>) {
          const relayed = await call(open, 'GET', '/metrics', { headers: header });
          expect(relayed.status, relayed.text).to.equal(403);
          expect(relayed.json).to.include({ code: 'forbidden' });
          expect(relayed.text).to.not.include('commerce_');
        }
      } finally {
        await open.close();
      }
    });

    it('with METRICS_PORT set, the api port does not serve it: the listener of its own does', async () => {
      const elsewhere = await startTestServer({ config: { metricsPort: 1, metricsToken: TOKEN } });
      try {
        const res = await call(elsewhere, 'GET', '/metrics', { headers: { Authorization: `Bearer ${TOKEN}` } });
        expect(res.status).to.equal(404);
      } finally {
        await elsewhere.close();
      }
    });

    it('the METRICS_PORT listener serves /metrics only, with the token when one is set', async () => {
      const runtime = { ...server.runtime, config: { ...server.runtime.config, metricsToken: TOKEN } };
      const listener = await startMetricsServer(runtime, 0, '127.0.0.1');
      try {
        const base = `http://127.0.0.1:${(listener.server.address() as AddressInfo).port}`;
        expect((await fetch(`${base}/metrics`)).status).to.equal(401);
        const samples = await scrape(base, TOKEN);
        for (const queue of QUEUE_NAMES)
          expect(hasSample(samples, 'commerce_queue_jobs', { queue, state: 'waiting' }), queue).to.equal(true);
        expect((await fetch(`${base}/livez`)).status).to.equal(404);
      } finally {
        await listener.stop();
      }
      // Without a token it answers whoever reaches its interface (here loopback).
      const open = await startMetricsServer(
        { ...server.runtime, config: { ...server.runtime.config, metricsToken: undefined } },
        0,
        '127.0.0.1',
      );
      try {
        const port = (open.server.address() as AddressInfo).port;
        expect(await scrape(`http://127.0.0.1:${port}`, undefined)).to.satisfy((s: Sample[]) => hasSample(s, 'commerce_ready'));
      } finally {
        await open.stop();
      }
    });
  });

  describe('what moves', () => {
    it('a write, the indexer, a search (miss then hit), a suggest and an import move their series; no label carries an id or query text', async () => {
      const m = suite.addMerchant(await merchant(server), { indexed: true });
      await eventually(() => server.runtime.services.search!.cacheLive, 'the public-read cache to listen for store changes');
      const before = await scrape();

      // A write: its outbox row is pending until the indexer delivers it.
      const product = await createProduct(server, m, { title: 'Zephyrlamp', status: 'PUBLISHED' });
      const pending = await scrape();
      expect(sumOf(pending, 'commerce_outbox_rows', { queue: 'index', status: 'pending' })).to.be.greaterThan(0);
      expect(sumOf(pending, 'commerce_outbox_oldest_age_seconds', { queue: 'index' })).to.be.greaterThan(0);
      expect(await deliverIndexRows(server, m.owner.tenantId)).to.deep.equal([]);

      const search = (): Promise<unknown> =>
        call(server, 'GET', `/api/v1/catalog/public/search?storeId=${m.storeId}&q=zephyrlamp`).then((res) => {
          expect(res.status, res.text).to.equal(200);
          expect(res.json.items.map((i: { id: string }) => i.id)).to.deep.equal([product.id]);
        });
      await search();
      await search();
      for (let i = 0; i < 2; i += 1) {
        const res = await call(server, 'GET', `/api/v1/catalog/public/suggest?storeId=${m.storeId}&q=zeph`);
        expect(res.status, res.text).to.equal(200);
      }
      const csv = [
        'handle,title,price,sku,option1Name,option1Value,stock',
        'mx-1,Metrics One,10.5,MX-1,Size,S,1',
        'mx-2,Metrics Two,11.5,MX-2,Size,S,1',
        'mx-3,Metrics Three,not-a-price,MX-3,Size,S,1',
      ].join('\n');
      const imported = await call(server, 'POST', `/api/v1/bulk-import/products?storeId=${m.storeId}`, {
        headers: m.headers,
        rawBody: csv,
        contentType: 'text/csv',
      });
      expect(imported.status, imported.text).to.equal(200);
      expect(imported.json.rows).to.deep.equal({ read: 3, failed: 1 });

      const after = await scrape();
      const moved = (name: string, labels: Record<string, string> = {}): number => sumOf(after, name, labels) - sumOf(before, name, labels);
      // HTTP requests by operation id and status.
      expect(httpCount(after, 'products.create', '201') - httpCount(before, 'products.create', '201')).to.equal(1);
      expect(httpCount(after, 'storefront.search', '200') - httpCount(before, 'storefront.search', '200')).to.equal(2);
      expect(httpCount(after, 'storefront.suggest', '200') - httpCount(before, 'storefront.suggest', '200')).to.equal(2);
      expect(httpCount(after, 'imports.importProducts', '200') - httpCount(before, 'imports.importProducts', '200')).to.equal(1);
      expect(moved('commerce_http_request_duration_seconds_sum', { operation: 'storefront.search' })).to.be.greaterThan(0);
      // Public search and suggest: one miss, then one hit each.
      for (const operation of ['search', 'suggest'])
        for (const cache of ['miss', 'hit'])
          expect(moved('commerce_public_search_duration_seconds_count', { operation, cache }), `${operation} ${cache}`).to.equal(1);
      expect(moved('commerce_search_cache_lookups_total', { cache: 'answers', result: 'hit' })).to.be.at.least(2);
      expect(moved('commerce_search_cache_lookups_total', { cache: 'answers', result: 'miss' })).to.be.at.least(2);
      expect(sumOf(after, 'commerce_search_cache_entries', { cache: 'answers' })).to.be.at.least(2);
      expect(sumOf(after, 'commerce_search_cache_bytes', { cache: 'answers' })).to.be.greaterThan(0);
      // Meilisearch requests of the misses, none failed.
      expect(moved('commerce_meili_request_duration_seconds_count', { outcome: 'ok' })).to.be.at.least(2);
      expect(moved('commerce_meili_request_errors_total')).to.equal(0);
      // The index row done: commit to searchable observed.
      expect(moved('commerce_outbox_delivery_lag_seconds_count', { queue: 'index' })).to.be.at.least(1);
      expect(moved('commerce_outbox_delivery_lag_seconds_sum', { queue: 'index' })).to.be.greaterThan(0);
      // Import rows.
      expect(moved('commerce_import_rows_total', { mode: 'sync', outcome: 'imported' })).to.equal(2);
      expect(moved('commerce_import_rows_total', { mode: 'sync', outcome: 'failed' })).to.equal(1);

      // Scrape-time gauges and Node's own metrics.
      for (const queue of QUEUE_NAMES) expect(hasSample(after, 'commerce_queue_jobs', { queue, state: 'failed' }), queue).to.equal(true);
      expect(sumOf(after, 'commerce_ready')).to.equal(1);
      for (const dependency of ['postgres', 'redis', 'meilisearch', 'migrations'])
        expect(sumOf(after, 'commerce_dependency_up', { dependency }), dependency).to.equal(1);
      for (const name of [
        'process_resident_memory_bytes',
        'nodejs_heap_size_used_bytes',
        'nodejs_eventloop_lag_seconds',
        'nodejs_gc_duration_seconds_count',
      ])
        expect(hasSample(after, name), name).to.equal(true);
      expect(sumOf(after, 'commerce_metrics_collect_failures_total')).to.equal(sumOf(before, 'commerce_metrics_collect_failures_total'));

      // Bounded labels: no store, tenant or product id, no query text, no raw path.
      const text = await (await fetch(`${server.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } })).text();
      for (const secret of [m.storeId, m.owner.tenantId, product.id as string, 'zephyrlamp', 'zeph', '/api/v1/'])
        expect(text, secret).to.not.include(secret);
    });

    it('an unknown path and a refused request are counted under none and their status', async () => {
      const before = await scrape();
      expect((await call(server, 'GET', '/api/v1/no-such-thing')).status).to.equal(404);
      expect((await call(server, 'POST', '/api/v1/catalog/products', { body: {} })).status).to.equal(401);
      const after = await scrape();
      expect(httpCount(after, 'none', '404') - httpCount(before, 'none', '404')).to.equal(1);
      expect(httpCount(after, 'products.create', '401') - httpCount(before, 'products.create', '401')).to.equal(1);
    });
  });
});
