/**
 * The composition root shared by every process role: configuration, logger, the PostgreSQL data
 * source, queue producers and the Meilisearch admin client, opened once and closed once.
 */
import pinoPretty from 'pino-pretty';
import { LocalRateLimiter } from '../lib/local-rate-limit';
import pino, { type Logger } from 'pino';
import type { DataSource } from 'typeorm';
import type { Meilisearch } from 'meilisearch';
import type { Config } from '../lib/config';
import { createDataSource } from '../storage/data-source';
import { runMigrations } from '../storage/migrate';
import { QueueRegistry } from '../storage/queues';
import type { ConsumerDeps } from '../storage/consumers';
import type { ContextServices } from '../storage/request-context';
import Redis from 'ioredis';
import { RateLimiter } from '../storage/rate-limit';
import { OutboundMessages } from '../storage/outbound-messages';
import { ensureSearchKey } from '../search/meili';
import type { SearchTransport } from '../search/search-transport';
import { MeiliNodes, type MeiliNode } from '../search/meili-nodes';
import { StorePlacements } from '../search/store-placement';
import { SearchEngine } from '../search/public-search';
import { ZeroResultRecorder } from '../api/search-synonyms/zero-result-queries.service';
import { invalidationChannel, listenForStoreChanges, storeChangePublisher } from '../search/invalidation';
import { DependencyProbes } from '../storage/dependency-probes';
import { DependencyMonitor } from '../storage/dependency-monitor';
import { calmLog } from '../lib/calm-log';

export interface Runtime {
  config: Config;
  logger: Logger;
  dataSource: DataSource;
  /** Producers for every queue (the relay and the jobs console use them). */
  queues: QueueRegistry;
  /** The admin client of the first Meilisearch node (tools and tests; a store's index is on searchNodes.adminFor). */
  meiliAdmin: Meilisearch;
  /** The public search's connection (search-only keys): each request goes to its store's node. */
  meiliSearch: SearchTransport;
  /** Which Meilisearch node holds each store's index (one node unless MEILI_NODES lists several). */
  searchNodes: StorePlacements;
  /** Plain Redis client for rate limits (the queues have their own connections). */
  redis: Redis;
  /** Probes PostgreSQL, Redis and Meilisearch: readiness, outage logs, catch-up when one is back. */
  monitor: DependencyMonitor;
  /** What request contexts carry: configuration, logger, rate limiter, outgoing messages, search, and this runtime's queue producers and Meilisearch clients. */
  services: ContextServices;
  /** Tells every api process that these stores' indexes changed (their cached search answers are dropped). */
  publishStoreChanges(storeIds: Iterable<string>): Promise<void>;
  close(): Promise<void>;
}

export function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>, name: string): Logger {
  const options: pino.LoggerOptions = {
    name,
    level: config.logLevel,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: ['req.headers.authorization', '*.password', '*.token'],
  };
  const pretty = config.logFormat === 'pretty' || (config.logFormat === 'auto' && process.stdout.isTTY === true);
  if (!pretty) return pino(options);
  // Synchronous: a terminal is slow anyway, and nothing is left in a buffer when the process exits.
  return pino(
    options,
    pinoPretty({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true }),
  );
}

export async function createRuntime(config: Config, name = 'commerce'): Promise<Runtime> {
  const logger = createLogger(config, name);
  const dataSource = await createDataSource(config, name).initialize();
  if (config.runMigrationsAtStart) {
    const applied = await runMigrations(dataSource);
    if (applied.length) logger.info({ applied }, 'migrations applied');
  }
  const queues = new QueueRegistry({
    redisUrl: config.redisUrl,
    isWorker: false,
    logger,
    prefix: config.queuePrefix,
    stallIntervalMs: config.queueStallIntervalMs,
  });
  const monitor = createMonitor(config, logger);
  const nodes = MeiliNodes.fromConfig(config);
  const searchNodes = new StorePlacements(dataSource, nodes, logger);
  const meiliAdmin = nodes.main.admin;
  // One node: its transport as it is, without the routing step.
  const meiliSearch = searchNodes.several ? searchNodes.searchTransport() : nodes.main.search;
  const keyRetries = nodes.all.map((node) => provisionSearchKey(node, logger));
  // Fail fast per command while Redis is down (the limiter then lets requests through) instead of queueing.
  const redis = new Redis(config.redisUrl, {
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    retryStrategy: () => 1_000,
  });
  redis.on('error', (error) => logger.debug({ err: error }, 'redis (rate limits) connection error'));
  const zeroResults = new ZeroResultRecorder(
    dataSource,
    (error) =>
      calmLog(logger).warn('zero-results:write', error, {}, 'search: could not write zero-result query counts; kept for the next write'),
    undefined,
    undefined,
    (error, entry) =>
      logger.warn(
        // The SQLSTATE only: the error's parameters hold the shoppers' raw queries.
        { code: (error as { driverError?: { code?: unknown } }).driverError?.code, storeId: entry.storeId, count: entry.count },
        'search: dropped a zero-result query count that the database refused for its content',
      ),
    () => config.search.zeroResultQueriesPerStore,
  );
  const search = new SearchEngine(dataSource, meiliSearch, logger, {
    cacheMaxBytes: config.search.cacheMaxBytes,
    cacheTtlMs: config.search.cacheTtlMs,
    splitMaxInFlight: config.search.splitMaxInFlight,
    recordQueryOutcome: async (storeId, q, outcome) => zeroResults.add(storeId, q, undefined, outcome),
  });
  // A connection of its own: a subscribed Redis connection takes no other commands.
  const subscriber = new Redis(config.redisUrl, {
    lazyConnect: false,
    maxRetriesPerRequest: null,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  // A store-change message also says a store may have moved to another node (npm run move-store).
  const stopListening = listenForStoreChanges(
    subscriber,
    invalidationChannel(config.queuePrefix),
    {
      get cacheLive() {
        return search.cacheLive;
      },
      set cacheLive(live: boolean) {
        search.cacheLive = live;
      },
      invalidate: (storeId: string) => {
        search.invalidate(storeId);
        searchNodes.forget(storeId);
      },
    },
    logger,
  );
  const services: ContextServices = {
    config,
    logger,
    rateLimiter: new RateLimiter(redis, logger, `${config.queuePrefix}:rl`),
    localRateLimiter: new LocalRateLimiter(),
    outbound: new OutboundMessages(logger, config.smtpUrl, config.mailFrom),
    queues,
    meiliAdmin,
    meiliSearch,
    searchNodes,
    search,
    announceStoreChanges: storeChangePublisher(redis, invalidationChannel(config.queuePrefix), logger),
  };
  return {
    config,
    logger,
    dataSource,
    queues,
    meiliAdmin,
    meiliSearch,
    searchNodes,
    redis,
    monitor,
    services,
    publishStoreChanges: storeChangePublisher(redis, invalidationChannel(config.queuePrefix), logger),
    async close() {
      for (const retry of keyRetries) retry.cancel();
      await monitor.stop();
      await stopListening();
      meiliSearch.close();
      await zeroResults.close();
      redis.disconnect();
      await queues.close(config.shutdownTimeoutMs);
      if (dataSource.isInitialized) await dataSource.destroy();
      // Failures counted since the last summary line are logged before the process ends.
      calmLog(logger).flush();
    },
  };
}

/**
 * Creates the search-only key on the server, retrying in the background while Meilisearch is not
 * reachable yet: a process may start before Meilisearch does, and /readyz reports that meanwhile.
 */
function provisionSearchKey(node: MeiliNode, logger: Logger): { cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  let cancelled = false;
  const attempt = (): void => {
    ensureSearchKey(node.admin, node.masterKey)
      .then(() => logger.debug({ node: node.name }, 'search-only key ready'))
      .catch((error: unknown) => {
        if (cancelled) return;
        calmLog(logger).warn(
          `search-key:${node.name}`,
          error,
          { node: node.name },
          'could not provision the Meilisearch search key; retrying in 5 s',
        );
        timer = setTimeout(attempt, 5_000);
        timer.unref();
      });
  };
  attempt();
  return {
    cancel() {
      cancelled = true;
      if (timer) clearTimeout(timer);
    },
  };
}

/** The dependency monitor of a configuration (not started: the process entry point starts it). */
export function createMonitor(
  config: Pick<Config, 'databaseUrl' | 'redisUrl' | 'meiliUrl' | 'meiliNodes' | 'healthProbeIntervalMs'>,
  logger: Logger,
): DependencyMonitor {
  return new DependencyMonitor(new DependencyProbes(config), logger, { intervalMs: config.healthProbeIntervalMs });
}

/** What a role needs to run outbox consumers on this runtime's Redis and database. */
export function consumerDeps(runtime: Runtime): ConsumerDeps {
  return {
    dataSource: runtime.dataSource,
    redisUrl: runtime.config.redisUrl,
    logger: runtime.logger,
    outbox: runtime.config.outbox,
    prefix: runtime.config.queuePrefix,
    stallIntervalMs: runtime.config.queueStallIntervalMs,
  };
}
