/**
 * The process's Prometheus metrics (docs/operations.md): one registry with Node's default metrics
 * (memory, CPU, event-loop lag, GC, handles) and the platform's own series, all named `commerce_…`
 * with their unit in the name.
 *
 * This module sits in lib/ so every layer can record into it; it imports nothing of the project.
 * What can only be read at scrape time (outbox backlog, queue depths, cache sizes, readiness) comes
 * from sources the process shell registers (`setScrapeSources`, app/metrics.ts), each collected with
 * a deadline so a slow database or Redis never hangs a scrape.
 *
 * Labels are bounded on purpose: an operation id, a status code, a queue, a cache, an outcome,
 * never an id, a path or query text.
 */
import cluster from 'node:cluster';
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

/** Request-time buckets (seconds): from a cached search (sub-millisecond) to a slow import. */
const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Lag buckets (seconds): from the indexer's 1 s freshness target to an hour-long backlog. */
const LAG_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600];

const registers = [metricsRegistry];

// ---- HTTP --------------------------------------------------------------------------------------

export const httpRequestDuration = new Histogram({
  name: 'commerce_http_request_duration_seconds',
  help: 'HTTP requests by operation id (other: system routes and pages; none: no route matched) and status code, until the answer is produced',
  labelNames: ['operation', 'status'] as const,
  buckets: REQUEST_BUCKETS,
  registers,
});

type HttpChild = ReturnType<typeof httpRequestDuration.labels>;
/** One labelled child per (operation, status), built once: the hot path does two map lookups. */
const httpChildren = new Map<string, Map<number, HttpChild>>();

export function observeHttpRequest(operation: string, status: number, seconds: number): void {
  let byStatus = httpChildren.get(operation);
  if (!byStatus) httpChildren.set(operation, (byStatus = new Map()));
  let child = byStatus.get(status);
  if (!child) byStatus.set(status, (child = httpRequestDuration.labels(operation, String(status))));
  child.observe(seconds);
}

// ---- Public search -----------------------------------------------------------------------------

export const publicSearchDuration = new Histogram({
  name: 'commerce_public_search_duration_seconds',
  help: 'Public search and suggest answers (operation: search, suggest) split by whether the answer came from the result cache (cache: hit, miss)',
  labelNames: ['operation', 'cache'] as const,
  buckets: REQUEST_BUCKETS,
  registers,
});

const searchChildren = {
  search: { hit: publicSearchDuration.labels('search', 'hit'), miss: publicSearchDuration.labels('search', 'miss') },
  suggest: { hit: publicSearchDuration.labels('suggest', 'hit'), miss: publicSearchDuration.labels('suggest', 'miss') },
};

/** Records a public search or suggest answer that took `seconds`; `hit`: served from the cache. */
export function observePublicSearch(operation: 'search' | 'suggest', hit: boolean, seconds: number): void {
  searchChildren[operation][hit ? 'hit' : 'miss'].observe(seconds);
}

export const meiliRequestDuration = new Histogram({
  name: 'commerce_meili_request_duration_seconds',
  help: "Requests of the public search's Meilisearch connection (node: a name of MEILI_NODES, main with one; operation: multi_search, search; outcome: ok, error)",
  labelNames: ['node', 'operation', 'outcome'] as const,
  buckets: REQUEST_BUCKETS,
  registers,
});

export const meiliRequestErrors = new Counter({
  name: 'commerce_meili_request_errors_total',
  help: "Failed requests of the public search's Meilisearch connection (kind: unreachable, response)",
  labelNames: ['node', 'operation', 'kind'] as const,
  registers,
});

type MeiliOperation = 'multi_search' | 'search';

/**
 * Times the Meilisearch requests of one node's search transport and counts their failures. The
 * series' children are looked up once here, not per request (the public search's hot path).
 */
export function meiliRequestTimer(node: string): <T>(operation: MeiliOperation, request: Promise<T>) => Promise<T> {
  const children = (operation: MeiliOperation) => ({
    ok: meiliRequestDuration.labels(node, operation, 'ok'),
    error: meiliRequestDuration.labels(node, operation, 'error'),
    response: meiliRequestErrors.labels(node, operation, 'response'),
    unreachable: meiliRequestErrors.labels(node, operation, 'unreachable'),
  });
  const of = { multi_search: children('multi_search'), search: children('search') };
  return (operation, request) => {
    const started = performance.now();
    const series = of[operation];
    return request.then(
      (value) => {
        series.ok.observe((performance.now() - started) / 1000);
        return value;
      },
      (error: unknown) => {
        series.error.observe((performance.now() - started) / 1000);
        // A status means Meilisearch answered (a bad request, a missing index); none: it was not reached.
        series[typeof (error as { status?: unknown })?.status === 'number' ? 'response' : 'unreachable'].inc();
        throw error;
      },
    );
  };
}

/** Times a Meilisearch request of the first (or only) node's search transport. */
export const timeMeiliRequest = meiliRequestTimer('main');

// ---- Outbox, indexer, queues -------------------------------------------------------------------

export const outboxDeliveryLag = new Histogram({
  name: 'commerce_outbox_delivery_lag_seconds',
  help: 'From an outbox row being written (its transaction) to its consumer finishing it, per queue; for queue="index" this is commit to searchable',
  labelNames: ['queue'] as const,
  buckets: LAG_BUCKETS,
  registers,
});

// ---- Webhooks, vision, imports -----------------------------------------------------------------

export const webhookDeliveries = new Counter({
  name: 'commerce_webhook_deliveries_total',
  help: 'Webhook delivery attempts by outcome: delivered, retry (failed, tried again later), dead (failed for the last time: dead-lettered)',
  labelNames: ['outcome'] as const,
  registers,
});

export const visionEmbeddings = new Counter({
  name: 'commerce_vision_embeddings_total',
  help: 'Product images handled by the vision worker, by model and outcome (embedded, failed: not fetchable or not an image)',
  labelNames: ['model', 'outcome'] as const,
  registers,
});

export const visionEmbeddingDuration = new Histogram({
  name: 'commerce_vision_embedding_duration_seconds',
  help: 'Time to fetch, normalise and embed one product image, by model',
  labelNames: ['model'] as const,
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers,
});

export const importRows = new Counter({
  name: 'commerce_import_rows_total',
  help: 'Product CSV rows committed by imports (mode: sync, async; outcome: imported, failed)',
  labelNames: ['mode', 'outcome'] as const,
  registers,
});

/** Counts the rows of an import batch once its transaction has committed. */
export function recordImportRows(mode: 'sync' | 'async', counts: { rowsRead: number; rowsFailed: number }): void {
  const failed = Math.max(0, counts.rowsFailed);
  importRows.labels(mode, 'imported').inc(Math.max(0, counts.rowsRead - failed));
  importRows.labels(mode, 'failed').inc(failed);
}

// ---- Collected at scrape time ------------------------------------------------------------------

export interface OutboxBacklog {
  queue: string;
  status: string;
  rows: number;
  oldestAgeSeconds: number;
}

export interface QueueDepth {
  queue: string;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
}

export interface CacheStats {
  cache: string;
  entries: number;
  bytes: number;
  /** Lookups since the cache was made (cumulative). */
  hits: number;
  misses: number;
}

export interface ReadinessStats {
  ready: boolean;
  /** Each dependency the process probes, and whether it is up. */
  dependencies: Record<string, boolean>;
}

/** What only the running process can read; each is optional (a process reports what it has). */
export interface ScrapeSources {
  outbox?: () => Promise<OutboxBacklog[]>;
  queues?: () => Promise<QueueDepth[]>;
  caches?: () => CacheStats[];
  readiness?: () => Promise<ReadinessStats>;
}

/** How long one source may take before the scrape goes on without it. */
export const DEFAULT_COLLECT_TIMEOUT_MS = 2_000;

let sources: ScrapeSources = {};
let collectTimeoutMs = DEFAULT_COLLECT_TIMEOUT_MS;
interface Collection {
  /** The source's answer; a collection still running when the next scrape comes is shared, not started again. */
  running: Promise<unknown>;
  /** That answer or, past the deadline, undefined: shared by the series of one scrape, so a failure counts once. */
  awaited?: Promise<unknown>;
}
const inFlight = new Map<keyof ScrapeSources, Collection>();

/** Replaces the scrape-time sources (the process shell calls it once it has its runtime). */
export function setScrapeSources(next: ScrapeSources, options: { timeoutMs?: number } = {}): void {
  sources = next;
  collectTimeoutMs = options.timeoutMs ?? DEFAULT_COLLECT_TIMEOUT_MS;
  inFlight.clear();
}

export const collectFailures = new Counter({
  name: 'commerce_metrics_collect_failures_total',
  help: 'Scrape-time sources that failed or missed their deadline (source: outbox, queues, readiness); their series are left out of that scrape',
  labelNames: ['source'] as const,
  registers,
});

async function collectFrom<K extends 'outbox' | 'queues' | 'readiness'>(
  name: K,
): Promise<Awaited<ReturnType<NonNullable<ScrapeSources[K]>>> | undefined> {
  const source = sources[name];
  if (!source) return undefined;
  type Result = Awaited<ReturnType<NonNullable<ScrapeSources[K]>>>;
  let collection = inFlight.get(name);
  if (!collection) {
    const started: Collection = { running: Promise.resolve().then(() => (source as () => Promise<unknown>)()) };
    started.running.then(
      () => inFlight.delete(name),
      () => inFlight.delete(name),
    );
    inFlight.set(name, (collection = started));
  }
  const current = collection;
  current.awaited ??= (async () => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), collectTimeoutMs);
      timer.unref();
    });
    try {
      const result = await Promise.race([current.running, deadline]);
      if (result === undefined) collectFailures.labels(name).inc();
      return result;
    } catch {
      collectFailures.labels(name).inc();
      return undefined;
    } finally {
      clearTimeout(timer);
      current.awaited = undefined;
    }
  })();
  return (await current.awaited) as Result | undefined;
}

new Gauge({
  name: 'commerce_outbox_rows',
  help: 'Outbox rows not done yet, per queue and status (pending: waiting for the relay or a retry; in_flight: handed to a queue)',
  labelNames: ['queue', 'status'] as const,
  registers,
  // Every process reads the same table: several processes' readings are one figure, not a sum.
  aggregator: 'max',
  async collect() {
    const rows = await collectFrom('outbox');
    this.reset();
    for (const row of rows ?? []) this.labels(row.queue, row.status).set(row.rows);
  },
});

new Gauge({
  name: 'commerce_outbox_oldest_age_seconds',
  help: 'Age of the oldest outbox row not done yet, per queue (0 series: nothing waiting)',
  labelNames: ['queue'] as const,
  registers,
  aggregator: 'max',
  async collect() {
    const rows = await collectFrom('outbox');
    this.reset();
    const oldest = new Map<string, number>();
    for (const row of rows ?? []) oldest.set(row.queue, Math.max(oldest.get(row.queue) ?? 0, row.oldestAgeSeconds));
    for (const [queue, age] of oldest) this.labels(queue).set(age);
  },
});

new Gauge({
  name: 'commerce_queue_jobs',
  help: 'Jobs in each Redis queue by state (waiting, active, delayed, failed)',
  labelNames: ['queue', 'state'] as const,
  registers,
  aggregator: 'max',
  async collect() {
    const depths = await collectFrom('queues');
    this.reset();
    for (const d of depths ?? []) {
      this.labels(d.queue, 'waiting').set(d.waiting);
      this.labels(d.queue, 'active').set(d.active);
      this.labels(d.queue, 'delayed').set(d.delayed);
      this.labels(d.queue, 'failed').set(d.failed);
    }
  },
});

new Gauge({
  name: 'commerce_search_cache_entries',
  help: "Entries in the api process's public read caches (cache: answers, profiles, snapshots, counts)",
  labelNames: ['cache'] as const,
  registers,
  collect() {
    this.reset();
    for (const c of sources.caches?.() ?? []) this.labels(c.cache).set(c.entries);
  },
});

new Gauge({
  name: 'commerce_search_cache_bytes',
  help: "Estimated bytes held by the api process's public read caches (bounded by SEARCH_CACHE_SIZE)",
  labelNames: ['cache'] as const,
  registers,
  collect() {
    this.reset();
    for (const c of sources.caches?.() ?? []) this.labels(c.cache).set(c.bytes);
  },
});

/** Last cumulative counts seen per cache, so the counter below grows by what happened since. */
const cacheSeen = new Map<string, { hits: number; misses: number }>();

new Counter({
  name: 'commerce_search_cache_lookups_total',
  help: 'Lookups in the public read caches by cache and result (hit, miss); hit ratio = rate(hit) / rate(all)',
  labelNames: ['cache', 'result'] as const,
  registers,
  collect() {
    for (const c of sources.caches?.() ?? []) {
      const seen = cacheSeen.get(c.cache) ?? { hits: 0, misses: 0 };
      // Counts below the last ones: the cache was replaced (a new engine); it starts from zero.
      this.labels(c.cache, 'hit').inc(c.hits >= seen.hits ? c.hits - seen.hits : c.hits);
      this.labels(c.cache, 'miss').inc(c.misses >= seen.misses ? c.misses - seen.misses : c.misses);
      cacheSeen.set(c.cache, { hits: c.hits, misses: c.misses });
    }
  },
});

new Gauge({
  name: 'commerce_ready',
  help: 'Whether this process is ready for its roles (1) or not (0), as /readyz answers; several processes: 1 only when all are',
  registers,
  aggregator: 'min',
  async collect() {
    const readiness = await collectFrom('readiness');
    this.reset();
    if (readiness) this.set(readiness.ready ? 1 : 0);
    else if (sources.readiness) this.set(0);
  },
});

new Gauge({
  name: 'commerce_dependency_up',
  help: 'Whether each dependency (postgres, migrations, redis, meilisearch) answered its last probe (1) or not (0); several processes: 1 only when every one says so',
  labelNames: ['dependency'] as const,
  registers,
  aggregator: 'min',
  async collect() {
    const readiness = await collectFrom('readiness');
    this.reset();
    for (const [name, up] of Object.entries(readiness?.dependencies ?? {})) this.labels(name).set(up ? 1 : 0);
  },
});

// ---- several processes (API_PROCESSES > 1) -------------------------------------------------------

/** A worker's request for the whole cluster's metrics, and the supervisor's answer. */
const CLUSTER_REQUEST = 'commerce:metrics-request';
const CLUSTER_ANSWER = 'commerce:metrics-answer';
/** prom-client gives up on a worker after 5 s; the worker that asked waits a little longer. */
const CLUSTER_WAIT_MS = 6_000;

let clusterView = false;
let clusterRequests = 0;
const awaitingCluster = new Map<number, { resolve: (body: string) => void; reject: (error: Error) => void }>();

/**
 * In a worker of several api processes: every scrape, whichever worker it reaches, answers the
 * sum over all workers (the supervisor gathers them with prom-client's AggregatorRegistry; counters
 * and histograms add up, gauges of shared state take their max or min as declared above).
 */
export function shareMetricsWithCluster(): void {
  if (!cluster.isWorker || clusterView) return;
  clusterView = true;
  AggregatorRegistry.setRegistries([metricsRegistry]);
  // Constructed for its side effect: the worker answers the supervisor's requests for its metrics.
  new AggregatorRegistry();
  process.on('message', (message: { type?: string; id?: number; body?: string; error?: string }) => {
    if (message?.type !== CLUSTER_ANSWER || message.id === undefined) return;
    const waiting = awaitingCluster.get(message.id);
    awaitingCluster.delete(message.id);
    if (message.error !== undefined) waiting?.reject(new Error(message.error));
    else waiting?.resolve(message.body ?? '');
  });
}

/** In the supervisor: answers the workers' requests for the cluster-wide metrics. */
export function serveClusterMetrics(): void {
  if (!cluster.isPrimary) return;
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: { type?: string; id?: number }) => {
    if (message?.type !== CLUSTER_REQUEST) return;
    aggregator.clusterMetrics().then(
      (body) => worker.isConnected() && worker.send({ type: CLUSTER_ANSWER, id: message.id, body }),
      (error: Error) => worker.isConnected() && worker.send({ type: CLUSTER_ANSWER, id: message.id, error: error.message }),
    );
  });
}

function askCluster(): Promise<string> {
  const id = (clusterRequests += 1);
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      awaitingCluster.delete(id);
      reject(new Error(`no answer from the supervisor within ${CLUSTER_WAIT_MS} ms`));
    }, CLUSTER_WAIT_MS);
    awaitingCluster.set(id, {
      resolve: (body) => (clearTimeout(timer), resolve(body)),
      reject: (error) => (clearTimeout(timer), reject(error)),
    });
    process.send!({ type: CLUSTER_REQUEST, id });
  });
}

/**
 * The text exposition of every metric, and its content type: this process's, or in a worker of
 * several api processes the whole cluster's (this process's alone, marked so, when the supervisor
 * cannot answer).
 */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  if (clusterView && process.connected) {
    try {
      return { contentType: metricsRegistry.contentType, body: await askCluster() };
    } catch (error) {
      const note = `# The cluster-wide view failed (${(error as Error).message.replace(/\s+/g, ' ')}); these are process ${process.pid}'s figures only.\n`;
      return { contentType: metricsRegistry.contentType, body: note + (await metricsRegistry.metrics()) };
    }
  }
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}
