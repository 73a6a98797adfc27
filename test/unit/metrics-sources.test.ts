/**
 * The registry of lib/metrics.ts without services: a scrape-time source that hangs or fails leaves
 * its series out and is counted instead of holding the scrape; cache counters grow by what happened
 * since the last scrape; the HTTP histogram keeps one child per (operation, status); the bearer
 * token comparison of app/metrics.ts.
 */
import { expect } from 'chai';
import {
  metricsRegistry,
  observeHttpRequest,
  recordImportRows,
  renderMetrics,
  setScrapeSources,
  timeMeiliRequest,
  type CacheStats,
} from '../../lib/metrics';
import { bearerMatches } from '../../app/metrics';

const TOKEN = 'unit-test-token-0123456789abcdef';

async function sample(name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const metric = await metricsRegistry.getSingleMetric(name)?.get();
  const found = metric?.values.find(
    (v) => Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want) && !('le' in v.labels && !labels.le),
  );
  return found?.value;
}

describe('metrics registry', () => {
  afterEach(() => setScrapeSources({}));

  it('a source that never answers is given up after its deadline: the scrape goes on without its series and counts it', async () => {
    const before = (await sample('commerce_metrics_collect_failures_total', { source: 'outbox' })) ?? 0;
    setScrapeSources(
      {
        outbox: () => new Promise(() => undefined),
        queues: async () => {
          throw new Error('redis is down');
        },
        readiness: async () => ({ ready: true, dependencies: { postgres: true } }),
      },
      { timeoutMs: 50 },
    );
    const started = Date.now();
    const { body } = await renderMetrics();
    expect(Date.now() - started).to.be.below(2_000);
    expect(body).to.not.match(/^commerce_outbox_rows\{/m);
    expect(body).to.not.match(/^commerce_queue_jobs\{/m);
    expect(body).to.match(/^commerce_ready 1$/m);
    expect(body).to.match(/^commerce_dependency_up\{dependency="postgres"\} 1$/m);
    expect(await sample('commerce_metrics_collect_failures_total', { source: 'outbox' })).to.equal(before + 1);
    expect(await sample('commerce_metrics_collect_failures_total', { source: 'queues' })).to.be.at.least(1);
  });

  it('a collection still running is shared by the series that read it, and by the next scrape', async () => {
    let calls = 0;
    let release: (rows: []) => void = () => undefined;
    setScrapeSources(
      {
        outbox: () => {
          calls += 1;
          return new Promise((resolve) => (release = resolve));
        },
      },
      { timeoutMs: 30 },
    );
    await renderMetrics();
    await renderMetrics();
    expect(calls).to.equal(1);
    release([]);
    await new Promise((resolve) => setImmediate(resolve));
    setScrapeSources({ outbox: async () => [{ queue: 'index', status: 'pending', rows: 3, oldestAgeSeconds: 12.5 }] });
    const { body } = await renderMetrics();
    expect(body).to.match(/^commerce_outbox_rows\{queue="index",status="pending"\} 3$/m);
    expect(body).to.match(/^commerce_outbox_oldest_age_seconds\{queue="index"\} 12.5$/m);
  });

  it('cache lookups grow by what happened since the last scrape, and start again for a new cache', async () => {
    // Read before the source is set: reading a counter collects it.
    const base = (await sample('commerce_search_cache_lookups_total', { cache: 'answers', result: 'hit' })) ?? 0;
    const stats: CacheStats = { cache: 'answers', entries: 2, bytes: 900, hits: 5, misses: 3 };
    setScrapeSources({ caches: () => [stats] });
    await renderMetrics();
    expect(await sample('commerce_search_cache_lookups_total', { cache: 'answers', result: 'hit' })).to.equal(base + 5);
    stats.hits = 7;
    const { body } = await renderMetrics();
    expect(await sample('commerce_search_cache_lookups_total', { cache: 'answers', result: 'hit' })).to.equal(base + 7);
    expect(body).to.match(/^commerce_search_cache_bytes\{cache="answers"\} 900$/m);
    stats.hits = 1; // a new engine: its own count from zero
    await renderMetrics();
    expect(await sample('commerce_search_cache_lookups_total', { cache: 'answers', result: 'hit' })).to.equal(base + 8);
  });

  it('HTTP requests are counted per operation and status; Meilisearch failures by kind; import rows by outcome', async () => {
    observeHttpRequest('unit.op', 200, 0.002);
    observeHttpRequest('unit.op', 200, 0.004);
    observeHttpRequest('unit.op', 503, 0.5);
    expect(await sample('commerce_http_request_duration_seconds', { operation: 'unit.op', status: '200', le: '0.005' })).to.equal(2);
    const { body } = await renderMetrics();
    expect(body).to.match(/^commerce_http_request_duration_seconds_count\{operation="unit.op",status="200"\} 2$/m);
    expect(body).to.match(/^commerce_http_request_duration_seconds_count\{operation="unit.op",status="503"\} 1$/m);

    await timeMeiliRequest('search', Promise.resolve(1));
    const refused = Object.assign(new Error('bad'), { status: 400 });
    await timeMeiliRequest('search', Promise.reject(refused)).catch(() => undefined);
    await timeMeiliRequest('search', Promise.reject(new Error('connect ECONNREFUSED'))).catch(() => undefined);
    expect(await sample('commerce_meili_request_errors_total', { operation: 'search', kind: 'response' })).to.be.at.least(1);
    expect(await sample('commerce_meili_request_errors_total', { operation: 'search', kind: 'unreachable' })).to.be.at.least(1);

    const imported = (await sample('commerce_import_rows_total', { mode: 'async', outcome: 'imported' })) ?? 0;
    recordImportRows('async', { rowsRead: 10, rowsFailed: 3 });
    expect(await sample('commerce_import_rows_total', { mode: 'async', outcome: 'imported' })).to.equal(imported + 7);
  });

  it('observing a request costs microseconds (public search is a hot path)', () => {
    observeHttpRequest('unit.hot', 200, 0.001);
    const rounds = 100_000;
    const started = performance.now();
    for (let i = 0; i < rounds; i += 1) observeHttpRequest('unit.hot', 200, 0.001);
    const perCallUs = ((performance.now() - started) * 1000) / rounds;
    // Generous for a shared CI machine; measured well under 1 µs.
    expect(perCallUs).to.be.below(20);
  });

  it('the bearer token is compared whole, scheme case-insensitive, nothing else accepted', () => {
    expect(bearerMatches(`Bearer ${TOKEN}`, TOKEN)).to.equal(true);
    expect(bearerMatches(`bearer ${TOKEN}`, TOKEN)).to.equal(true);
    for (const header of [
      undefined,
      '',
      'Bearer',
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Bearer ${TOKEN}x`,
      `Basic ${TOKEN}`,
      `Bearer  ${TOKEN}`,
      TOKEN,
    ])
      expect(bearerMatches(header, TOKEN), String(header)).to.equal(false);
  });
});
