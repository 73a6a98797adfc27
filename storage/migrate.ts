/**
 * Runs migrations under a PostgreSQL advisory lock, so several processes starting together apply
 * them once. `npm run migrate` runs this file: `run` (default), `revert` (the last one) or `show`.
 */
import type { DataSource } from 'typeorm';
import { loadConfigOrExit } from '../lib/config';
import { createDataSource } from './data-source';

const MIGRATION_LOCK = 7_305_118_201; // arbitrary, stable

export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
  }
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const command = process.argv[2] ?? 'run';
  const dataSource = await createDataSource(config, 'commerce-migrate').initialize();
  try {
    if (command === 'run') {
      const applied = await runMigrations(dataSource);
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'no pending migrations\n');
    } else if (command === 'revert') {
      await dataSource.undoLastMigration({ transaction: 'each' });
      process.stdout.write('reverted the last migration\n');
    } else if (command === 'show') {
      const pending = await dataSource.showMigrations();
      process.stdout.write(pending ? 'there are pending migrations\n' : 'all migrations applied\n');
      process.exitCode = pending ? 1 : 0;
    } else {
      process.stderr.write(`unknown command ${command}; use run, revert or show\n`);
      process.exitCode = 64;
    }
  } finally {
    await dataSource.destroy();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`migration failed: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
