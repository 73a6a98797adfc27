/**
 * The composition root shared by every process role: configuration, logger, the PostgreSQL data
 * source, queue producers and the Meilisearch admin client, opened once and closed once.
 */
import pino, { type Logger } from 'pino';
import type { DataSource } from 'typeorm';
import type { Meilisearch } from 'meilisearch';
import type { Config } from './config';
import { createDataSource } from '../storage/data-source';
import { runMigrations } from '../storage/migrate';
import { QueueRegistry } from '../storage/queues';
import type { ConsumerDeps } from '../storage/consumers';
import { createAdminClient } from '../search/meili';

export interface Runtime {
  config: Config;
  logger: Logger;
  dataSource: DataSource;
  /** Producers for every queue (the relay and the jobs console use them). */
  queues: QueueRegistry;
  meiliAdmin: Meilisearch;
  close(): Promise<void>;
}

export function createLogger(config: Pick<Config, 'logLevel'>, name: string): Logger {
  return pino({ name, level: config.logLevel, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime, redact: ['req.headers.authorization', '*.password', '*.token'] });
}

export async function createRuntime(config: Config, name = 'commerce'): Promise<Runtime> {
  const logger = createLogger(config, name);
  const dataSource = await createDataSource(config, name).initialize();
  if (config.runMigrationsAtStart) {
    const applied = await runMigrations(dataSource);
    if (applied.length) logger.info({ applied }, 'migrations applied');
  }
  const queues = new QueueRegistry({ redisUrl: config.redisUrl, isWorker: false, logger, prefix: config.queuePrefix });
  const meiliAdmin = createAdminClient(config);
  return {
    config,
    logger,
    dataSource,
    queues,
    meiliAdmin,
    async close() {
      await queues.close(config.shutdownTimeoutMs);
      if (dataSource.isInitialized) await dataSource.destroy();
    },
  };
}

/** What a role needs to run outbox consumers on this runtime's Redis and database. */
export function consumerDeps(runtime: Runtime): ConsumerDeps {
  return { dataSource: runtime.dataSource, redisUrl: runtime.config.redisUrl, logger: runtime.logger, outbox: runtime.config.outbox, prefix: runtime.config.queuePrefix };
}
