/**
 * The TypeORM data source. Migrations only: `synchronize` stays off everywhere (docs/architecture.md,
 * "An area module"), so the schema is exactly what storage/migrations says.
 */
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import type { Config } from '../lib/config';
import { entities } from './entities';
import { migrations } from './migrations';

export function createDataSource(config: Pick<Config, 'databaseUrl' | 'dbPoolSize'>, applicationName = 'commerce'): DataSource {
  return new DataSource({
    type: 'postgres',
    url: config.databaseUrl,
    entities,
    migrations,
    migrationsTableName: 'schema_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    // TypeORM's own logger prints failed queries with their parameters (password hashes, tokens);
    // errors are logged by the HTTP error handler and the workers instead, without parameters.
    logging: false,
    extra: {
      max: config.dbPoolSize,
      application_name: applicationName,
      connectionTimeoutMillis: 5_000,
      // A stuck query must not hold a request forever; long jobs set their own timeout per transaction.
      statement_timeout: 30_000,
      idle_in_transaction_session_timeout: 60_000,
    },
  });
}
