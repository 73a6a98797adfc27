/**
 * `npm run restore -- <file> [--database-url <url>] [--data-dir <dir>] [--force-secrets]`: brings a
 * backup made by `npm run backup` back into an EMPTY database, checks it against the backup's
 * manifest, puts the app secret where the platform reads it, and rebuilds every store's search index
 * in the configured Meilisearch (MEILI_URL / MEILI_MASTER_KEY, or the local services).
 *
 * Everything that can refuse is checked before the database is touched: the archive, the settings,
 * an empty target, the secrets, Meilisearch being reachable. pg_restore then runs in one transaction
 * and stops at the first error, so a failed restore leaves the target as empty as it was.
 *
 * Triggers: pg_restore creates a table's triggers after its rows are loaded (they belong to the
 * dump's post-data section), so the rows of `orders`, `order_items` and `customers` do not fire the
 * insight triggers a second time; the summary tables come back as they were dumped, from the same
 * snapshot, and the manifest's row counts check that.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { ConfigError, loadConfig, type Config } from '../lib/config';
import { createDataSource } from '../storage/data-source';
import pino from 'pino';
import { MeiliNodes, nodeConfigsOf } from '../search/meili-nodes';
import { StorePlacements } from '../search/store-placement';
import { reindexStores, type ReindexResult } from '../indexer/reindex';
import {
  APP_SECRET_FILE,
  CommandError,
  DEFAULT_DATA_DIR,
  MIGRATIONS_TABLE,
  PUBLIC_TABLES_SQL,
  clientConnection,
  databaseName,
  pgTool,
  quoteIdent,
  readArchive,
  resolveDatabaseUrl,
  runCommand,
  runTool,
  type BackupManifest,
  type BackupSecrets,
} from './backup-archive';

const USAGE = 'usage: npm run restore -- <backup file> [--database-url <url>] [--data-dir <dir>] [--force-secrets]';

interface RestoreOptions {
  file: string;
  databaseUrl: string;
  dataDir: string;
  forceSecrets: boolean;
}

function parseOptions(argv: string[]): RestoreOptions {
  let parsed: { values: { 'database-url'?: string; 'data-dir'?: string; 'force-secrets'?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { 'database-url': { type: 'string' }, 'data-dir': { type: 'string' }, 'force-secrets': { type: 'boolean' } },
    });
  } catch (error) {
    throw new CommandError(`${(error as Error).message}\n${USAGE}`);
  }
  if (parsed.positionals.length !== 1) throw new CommandError(`name exactly one backup file\n${USAGE}`);
  return {
    file: path.resolve(parsed.positionals[0]!),
    databaseUrl: resolveDatabaseUrl(parsed.values['database-url']),
    dataDir: path.resolve(parsed.values['data-dir'] ?? DEFAULT_DATA_DIR),
    forceSecrets: parsed.values['force-secrets'] === true,
  };
}

/**
 * The platform's settings for the reindex, on the target database and with the backup's app secret
 * (so reading them never generates a new secret file as a side effect).
 */
function restoreConfig(databaseUrl: string, secrets: BackupSecrets): Config {
  try {
    return loadConfig({ ...process.env, DATABASE_URL: databaseUrl, APP_SECRET: secrets.appSecret, LOG_LEVEL: 'silent' });
  } catch (error) {
    if (error instanceof ConfigError) throw new CommandError(error.message);
    throw error;
  }
}

/**
 * Refuses a target that already holds anything of the public schema: a table with rows, the
 * migrations table, or any table at all (pg_restore would fail on it half-way otherwise).
 */
async function assertEmptyTarget(client: Client, dbName: string): Promise<void> {
  const tables = (await client.query<{ name: string }>(PUBLIC_TABLES_SQL)).rows.map((r) => r.name);
  if (tables.length === 0) return;
  if (tables.includes(MIGRATIONS_TABLE))
    throw new CommandError(
      `database ${dbName} is not empty: it has the ${MIGRATIONS_TABLE} table (a platform database). Restore only into a new, empty database (CREATE DATABASE ...)`,
    );
  for (const name of tables) {
    const { rows } = await client.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM public.${quoteIdent(name)}) AS any`);
    if (rows[0]!.any)
      throw new CommandError(`database ${dbName} is not empty: table ${name} has rows. Restore only into a new, empty database`);
  }
  throw new CommandError(
    `database ${dbName} is not empty: it has ${tables.length} table(s) (${tables.slice(0, 5).join(', ')}). Restore only into a new, empty database`,
  );
}

type SecretAction = { kind: 'write' } | { kind: 'unchanged' } | { kind: 'replace'; previousTo: string };

/**
 * What happens to `<data dir>/app-secret`. A different secret already there (or in APP_SECRET) is
 * refused without --force-secrets: the platform would otherwise run with a key that cannot open the
 * restored integration, webhook and two-factor secrets, nor verify the restored sessions' tokens.
 */
function planSecrets(options: RestoreOptions, secrets: BackupSecrets): { action: SecretAction; warnings: string[] } {
  const warnings: string[] = [];
  const envSecret = process.env.APP_SECRET;
  if (envSecret && envSecret !== secrets.appSecret) {
    const message =
      'APP_SECRET in the environment differs from the backup\'s app secret: a platform started with it cannot read the restored encrypted secrets. Unset it, or set it to the backup\'s ("appSecret" in secrets.json of the archive)';
    if (!options.forceSecrets) throw new CommandError(`${message}; or pass --force-secrets to restore anyway`);
    warnings.push(message);
  }
  const file = path.join(options.dataDir, APP_SECRET_FILE);
  if (!fs.existsSync(file)) return { action: { kind: 'write' }, warnings };
  const existing = fs.readFileSync(file, 'utf8').trim();
  if (existing === secrets.appSecret) return { action: { kind: 'unchanged' }, warnings };
  if (!options.forceSecrets)
    throw new CommandError(
      `${file} holds a different app secret than the backup; pass --force-secrets to replace it (the old one is kept beside it), or restore with another --data-dir`,
    );
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return { action: { kind: 'replace', previousTo: `${file}.replaced-${stamp}` }, warnings };
}

function writeSecrets(dataDir: string, secrets: BackupSecrets, action: SecretAction): string {
  const file = path.join(dataDir, APP_SECRET_FILE);
  if (action.kind === 'unchanged') return `${file} already holds the backup's app secret`;
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (action.kind === 'replace') fs.copyFileSync(file, action.previousTo);
  // Written beside it and renamed: the file is never half-written, and never readable by others.
  const temporary = `${file}.restoring-${process.pid}`;
  fs.writeFileSync(temporary, `${secrets.appSecret}\n`, { mode: 0o600, flag: 'w' });
  fs.renameSync(temporary, file);
  return action.kind === 'replace'
    ? `${file} replaced with the backup's app secret (the previous one is in ${action.previousTo})`
    : `${file} written with the backup's app secret`;
}

/** Compares the restored database with the manifest: the same migrations, and every table's rows. */
async function verifyAgainstManifest(client: Client, manifest: BackupManifest): Promise<number> {
  const problems: string[] = [];
  const migrations = (
    await client.query<{ name: string }>(`SELECT name FROM public.${quoteIdent(MIGRATIONS_TABLE)} ORDER BY timestamp, id`)
  ).rows.map((r) => r.name);
  if (JSON.stringify(migrations) !== JSON.stringify(manifest.migrations))
    problems.push(`migrations: ${migrations.length} restored, ${manifest.migrations.length} in the manifest`);
  const restored = new Set((await client.query<{ name: string }>(PUBLIC_TABLES_SQL)).rows.map((r) => r.name));
  let rows = 0;
  for (const [name, expected] of Object.entries(manifest.tables)) {
    if (!restored.has(name)) {
      problems.push(`table ${name} missing`);
      continue;
    }
    const { rows: counted } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM public.${quoteIdent(name)}`);
    const n = Number(counted[0]!.n);
    rows += n;
    if (n !== expected) problems.push(`table ${name}: ${n} rows restored, ${expected} in the manifest`);
  }
  if (problems.length > 0)
    throw new CommandError(
      `the restored database does not match the backup (drop it before trying again):\n  - ${problems.slice(0, 20).join('\n  - ')}`,
    );
  return rows;
}

async function reindex(config: Config): Promise<ReindexResult[]> {
  const dataSource = await createDataSource(config, 'commerce-restore').initialize();
  try {
    // Meilisearch is rebuilt, never restored: each store is placed anew on this deployment's nodes.
    await dataSource.query('DELETE FROM search_placements');
    const meili = new StorePlacements(dataSource, MeiliNodes.fromConfig(config, { adminTimeoutMs: 60_000 }), pino({ level: 'silent' }));
    return await reindexStores(dataSource, meili, undefined, (result) =>
      process.stdout.write(`${JSON.stringify({ reindexed: result })}\n`),
    );
  } finally {
    await dataSource.destroy();
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const options = parseOptions(process.argv.slice(2));
  const dbName = databaseName(options.databaseUrl);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'commerce-restore-'));
  const client = new Client({ connectionString: options.databaseUrl, application_name: 'commerce-restore' });
  client.on('error', () => undefined);
  let connected = false;
  try {
    const { manifest, secrets, dumpPath } = await readArchive(options.file, work);
    const config = restoreConfig(options.databaseUrl, secrets);
    const pgRestore = await pgTool('pg_restore');
    await client.connect().catch((error: Error) => {
      throw new CommandError(`cannot connect to database ${dbName}: ${error.message}`);
    });
    connected = true;
    await assertEmptyTarget(client, dbName);
    const { action, warnings } = planSecrets(options, secrets);
    for (const warning of warnings) process.stderr.write(`restore: warning: ${warning}\n`);
    for (const node of MeiliNodes.fromConfig(config, { adminTimeoutMs: 10_000 }).all)
      await node.admin.health().catch((error: Error) => {
        throw new CommandError(`Meilisearch at ${node.url} is not reachable (${error.message}); the indexes are rebuilt there`);
      });

    const connection = clientConnection(options.databaseUrl);
    await runTool(
      pgRestore.path,
      [
        '--no-owner',
        '--no-privileges',
        '--exit-on-error',
        '--single-transaction',
        '--no-password',
        `--dbname=${connection.dbname}`,
        dumpPath,
      ],
      connection.env,
    );
    const rows = await verifyAgainstManifest(client, manifest);
    process.stdout.write(
      `restored ${manifest.database.name} of ${manifest.createdAt} into ${dbName}: ${Object.keys(manifest.tables).length} tables, ${rows} rows, ${manifest.migrations.length} migrations (as the manifest says)\n`,
    );
    process.stdout.write(`${writeSecrets(options.dataDir, secrets, action)}\n`);
    if (secrets.appSecretSource === 'environment')
      process.stdout.write('the backed-up platform read its app secret from APP_SECRET: give the restored one the same APP_SECRET\n');

    const results = await reindex(config);
    const documents = results.reduce((sum, r) => sum + r.documents, 0);
    process.stdout.write(
      `search indexes rebuilt in ${nodeConfigsOf(config)
        .map((n) => n.url)
        .join(', ')}: ${results.length} stores, ${documents} documents\n` +
        `restore complete in ${((Date.now() - started) / 1000).toFixed(1)} s; start the platform on ${dbName}\n`,
    );
  } finally {
    if (connected) await client.end().catch(() => undefined);
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (require.main === module) runCommand('restore', main);
