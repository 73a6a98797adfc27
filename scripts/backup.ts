/**
 * `npm run backup [-- --out <file>] [--database-url <url>] [--data-dir <dir>]`: one archive file
 * holding a consistent dump of the platform's PostgreSQL database (pg_dump's custom format), the
 * secrets a restore needs (the app secret) and a manifest (versions, applied migrations, rows per
 * table). Meilisearch is not in it: a restore rebuilds the indexes from the database.
 *
 * The dump and the row counts come from one snapshot: a repeatable-read transaction exports its
 * snapshot, counts the rows, and pg_dump reads that same snapshot (`--snapshot`), so the counts a
 * restore checks are exactly the dump's, however busy the database is meanwhile.
 *
 * The file is written with mode 0600 under a temporary name and renamed when complete: a failed
 * backup leaves no partial file. Its path is printed; the exit code is 0 only for a complete file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { PROJECT_ROOT } from '../lib/config';
import {
  APP_SECRET_FILE,
  ARCHIVE_FORMAT,
  ARCHIVE_VERSION,
  CommandError,
  DEFAULT_DATA_DIR,
  DUMP_FILE,
  MIGRATIONS_TABLE,
  PUBLIC_TABLES_SQL,
  clientConnection,
  databaseName,
  pgTool,
  quoteIdent,
  resolveDatabaseUrl,
  runCommand,
  runTool,
  writeArchive,
  type BackupManifest,
  type BackupSecrets,
} from './backup-archive';

const USAGE = 'usage: npm run backup [-- --out <file>] [--database-url <url>] [--data-dir <dir>]';

interface BackupOptions {
  out?: string;
  databaseUrl: string;
  dataDir: string;
}

function parseOptions(argv: string[]): BackupOptions {
  let values: { out?: string; 'database-url'?: string; 'data-dir'?: string };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { out: { type: 'string' }, 'database-url': { type: 'string' }, 'data-dir': { type: 'string' } },
    }));
  } catch (error) {
    throw new CommandError(`${(error as Error).message}\n${USAGE}`);
  }
  return {
    out: values.out,
    databaseUrl: resolveDatabaseUrl(values['database-url']),
    dataDir: path.resolve(values['data-dir'] ?? DEFAULT_DATA_DIR),
  };
}

/**
 * The app secret the platform runs with: APP_SECRET when set, else `<data dir>/app-secret` (what the
 * platform generates outside production). Without one a backup would lose every encrypted secret.
 */
function readSecrets(dataDir: string): BackupSecrets {
  const fromEnv = process.env.APP_SECRET;
  if (fromEnv) {
    if (fromEnv.length < 32) throw new CommandError('APP_SECRET is shorter than 32 characters; the platform would not start with it');
    return { appSecret: fromEnv, appSecretSource: 'environment' };
  }
  const file = path.join(dataDir, APP_SECRET_FILE);
  if (!fs.existsSync(file))
    throw new CommandError(
      `no app secret: APP_SECRET is not set and ${file} does not exist; run the backup with the environment the platform runs with`,
    );
  const secret = fs.readFileSync(file, 'utf8').trim();
  if (secret.length < 32) throw new CommandError(`${file} holds no app secret of at least 32 characters`);
  return { appSecret: secret, appSecretSource: 'data-dir' };
}

function defaultOut(dbName: string, createdAt: Date): string {
  const stamp = createdAt
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return path.join(DEFAULT_DATA_DIR, 'backups', `${dbName}-${stamp}.tar`);
}

function platformVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? 'unknown';
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const secrets = readSecrets(options.dataDir);
  const pgDump = await pgTool('pg_dump');
  const createdAt = new Date();
  const dbName = databaseName(options.databaseUrl);
  const out = path.resolve(options.out ?? defaultOut(dbName, createdAt));
  if (fs.existsSync(out)) throw new CommandError(`${out} exists; choose another --out (a backup never overwrites a file)`);
  fs.mkdirSync(path.dirname(out), { recursive: true, mode: 0o700 });

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'commerce-backup-'));
  const partial = `${out}.partial-${process.pid}`;
  const client = new Client({ connectionString: options.databaseUrl, application_name: 'commerce-backup' });
  let connected = false;
  // A backup interrupted by a signal leaves no partial file either.
  const interrupted = (signal: NodeJS.Signals) => {
    fs.rmSync(partial, { force: true });
    fs.rmSync(work, { recursive: true, force: true });
    process.stderr.write(`backup interrupted (${signal}); no file written\n`);
    process.exit(1);
  };
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  // A connection lost mid-way fails the query that uses it; the event itself must not end the process unhandled.
  client.on('error', () => undefined);
  try {
    await client.connect().catch((error: Error) => {
      throw new CommandError(`cannot connect to database ${dbName}: ${error.message}`);
    });
    connected = true;
    // One snapshot for the counts and the dump; the transaction stays open until pg_dump is done.
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const snapshot = (await client.query<{ id: string }>('SELECT pg_export_snapshot() AS id')).rows[0]!.id;
    const serverVersion = (await client.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v;
    const tableNames = (await client.query<{ name: string }>(PUBLIC_TABLES_SQL)).rows.map((r) => r.name);
    if (!tableNames.includes(MIGRATIONS_TABLE))
      throw new CommandError(`database ${dbName} has no ${MIGRATIONS_TABLE} table: it is not a database of this platform`);
    const tables: Record<string, number> = {};
    for (const name of tableNames) {
      const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM public.${quoteIdent(name)}`);
      tables[name] = Number(rows[0]!.n);
    }
    const migrations = (
      await client.query<{ name: string }>(`SELECT name FROM public.${quoteIdent(MIGRATIONS_TABLE)} ORDER BY timestamp, id`)
    ).rows.map((r) => r.name);

    const dumpPath = path.join(work, DUMP_FILE);
    const connection = clientConnection(options.databaseUrl);
    await runTool(
      pgDump.path,
      ['--format=custom', `--snapshot=${snapshot}`, '--no-password', `--file=${dumpPath}`, `--dbname=${connection.dbname}`],
      connection.env,
    );
    await client.query('COMMIT');

    const manifest: BackupManifest = {
      format: ARCHIVE_FORMAT,
      version: ARCHIVE_VERSION,
      createdAt: createdAt.toISOString(),
      platformVersion: platformVersion(),
      database: { name: dbName, serverVersion },
      pgDumpVersion: pgDump.version,
      migrations,
      tables,
      secrets: ['appSecret'],
    };
    const stream = fs.createWriteStream(partial, { mode: 0o600, flags: 'wx' });
    await writeArchive(stream, manifest, secrets, dumpPath);
    fs.chmodSync(partial, 0o600);
    fs.renameSync(partial, out);
    const rows = Object.values(tables).reduce((sum, n) => sum + n, 0);
    process.stdout.write(
      `backup of ${dbName}: ${tableNames.length} tables, ${rows} rows, ${migrations.length} migrations, ` +
        `${fs.statSync(out).size} bytes (mode 0600; it holds the app secret: keep it as safe as the secret itself)\n${out}\n`,
    );
  } finally {
    if (connected) await client.end().catch(() => undefined);
    fs.rmSync(partial, { force: true });
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (require.main === module) runCommand('backup', main);
