/**
 * What `npm run backup` and `npm run restore` share: the archive layout (a tar holding
 * `manifest.json`, `secrets.json` and `database.dump`), the PostgreSQL client programs, the target
 * database's address, and the arguments both commands read.
 *
 * The Meilisearch indexes are never in an archive: they are derived from PostgreSQL and rebuilt by
 * the restore (as `npm run reindex` does), so a restored platform may use a new Meilisearch with a
 * new master key. The Meilisearch master key is therefore not backed up either.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import tar from 'tar-stream';
import { PROJECT_ROOT, localServices } from '../lib/config';

const execFileAsync = promisify(execFile);

export const ARCHIVE_FORMAT = 'commerce-backup';
export const ARCHIVE_VERSION = 1;
export const MANIFEST_FILE = 'manifest.json';
export const SECRETS_FILE = 'secrets.json';
export const DUMP_FILE = 'database.dump';
const ARCHIVE_FILES = [MANIFEST_FILE, SECRETS_FILE, DUMP_FILE] as const;
/** The table TypeORM records applied migrations in (storage/data-source.ts). */
export const MIGRATIONS_TABLE = 'schema_migrations';

export interface BackupManifest {
  format: typeof ARCHIVE_FORMAT;
  version: number;
  createdAt: string;
  /** The platform's version (package.json) that wrote the backup. */
  platformVersion: string;
  database: { name: string; serverVersion: string };
  pgDumpVersion: string;
  /** Applied migrations, oldest first: the schema the dump holds. */
  migrations: string[];
  /** Rows per table of the public schema, counted in the snapshot the dump was taken from. */
  tables: Record<string, number>;
  /** Names of the secrets in secrets.json (never their values). */
  secrets: string[];
}

export interface BackupSecrets {
  /** APP_SECRET: the access-token signing key and the at-rest encryption keys are derived from it. */
  appSecret: string;
  /** Where the backed-up platform read it from: `environment` (APP_SECRET) or `.data/app-secret`. */
  appSecretSource: 'environment' | 'data-dir';
}

/** The problem a command reports as one line before it exits 1 (no stack: the operator's mistake or the environment). */
export class CommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandError';
  }
}

/** `.data/` of the repository: where the platform reads `app-secret` when APP_SECRET is not set. */
export const DEFAULT_DATA_DIR = path.join(PROJECT_ROOT, '.data');
export const APP_SECRET_FILE = 'app-secret';

/**
 * The database the command works on: `--database-url`, else DATABASE_URL, else the local services'
 * database (`commerce`, or `commerce_test` under NODE_ENV=test), as the platform itself chooses.
 */
export function resolveDatabaseUrl(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const url =
    explicit || env.DATABASE_URL || (env.NODE_ENV === 'test' ? localServices(env).testDatabaseUrl : localServices(env).databaseUrl);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CommandError(`the database URL is not a URL; give one such as postgres://user@host:5432/commerce`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:')
    throw new CommandError('the database URL must start with postgres:// or postgresql://');
  if (!parsed.pathname.replace(/^\//, '')) throw new CommandError('the database URL names no database');
  return url;
}

/** The database name of a URL (for messages and the manifest). */
export function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
}

/**
 * What the PostgreSQL client programs get instead of the URL itself: the URL without its password
 * (so the password is not on their command line, which `ps` shows) and PGPASSWORD.
 */
export function clientConnection(url: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = '';
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (password) env.PGPASSWORD = password;
  return { dbname: parsed.toString(), env };
}

/**
 * A PostgreSQL client program (pg_dump, pg_restore) of the newest installed version: the highest
 * `/usr/lib/postgresql/<version>/bin` first (Debian keeps every version there, as scripts/services
 * looks for the server), then PATH. pg_dump refuses a server newer than itself with a clear message.
 */
export async function pgTool(name: 'pg_dump' | 'pg_restore'): Promise<{ path: string; version: string }> {
  const candidates: string[] = [];
  const root = '/usr/lib/postgresql';
  if (fs.existsSync(root)) {
    const versions = fs
      .readdirSync(root)
      .filter((v) => /^\d+(\.\d+)?$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) candidates.push(path.join(root, v, 'bin', name));
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) if (dir) candidates.push(path.join(dir, name));
  for (const candidate of candidates) {
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
    } catch {
      continue;
    }
    const { stdout } = await execFileAsync(candidate, ['--version']);
    return { path: candidate, version: stdout.trim() };
  }
  throw new CommandError(`${name} not found: install the PostgreSQL client programs (e.g. apt-get install postgresql-client)`);
}

/** Runs a client program; its stderr becomes the error's message when it fails. */
export async function runTool(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  try {
    await execFileAsync(file, args, { env, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new CommandError(`${path.basename(file)} failed: ${(e.stderr ?? '').trim() || e.message}`);
  }
}

/** Writes the archive: the two JSON files (mode 0600 inside the tar) and the dump, streamed. */
export async function writeArchive(out: fs.WriteStream, manifest: BackupManifest, secrets: BackupSecrets, dumpPath: string): Promise<void> {
  const pack = tar.pack();
  const written = pipeline(pack, out);
  const mtime = new Date(manifest.createdAt);
  const json = (name: string, value: unknown) =>
    new Promise<void>((resolve, reject) =>
      pack.entry({ name, mode: 0o600, mtime }, `${JSON.stringify(value, null, 2)}\n`, (error) => (error ? reject(error) : resolve())),
    );
  await json(MANIFEST_FILE, manifest);
  await json(SECRETS_FILE, secrets);
  const size = fs.statSync(dumpPath).size;
  await new Promise<void>((resolve, reject) => {
    const entry = pack.entry({ name: DUMP_FILE, size, mode: 0o600, mtime }, (error) => (error ? reject(error) : resolve()));
    fs.createReadStream(dumpPath).on('error', reject).pipe(entry);
  });
  pack.finalize();
  await written;
}

export interface ExtractedArchive {
  manifest: BackupManifest;
  secrets: BackupSecrets;
  dumpPath: string;
}

/**
 * Reads an archive into `dir` (a private temporary folder): only the three known files are taken,
 * each to a fixed name, so an entry's name can never place a file elsewhere.
 */
export async function readArchive(file: string, dir: string): Promise<ExtractedArchive> {
  if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw new CommandError(`${file} is not a file`);
  const extract = tar.extract();
  const source = fs.createReadStream(file);
  source.on('error', (error) => extract.destroy(error));
  source.pipe(extract);
  const found = new Set<string>();
  try {
    for await (const entry of extract) {
      const name = entry.header.name;
      if (!(ARCHIVE_FILES as readonly string[]).includes(name) || entry.header.type !== 'file' || found.has(name)) {
        entry.resume();
        throw new CommandError(`${file} is not a backup of this platform (unexpected entry ${JSON.stringify(name)})`);
      }
      found.add(name);
      await pipeline(entry, fs.createWriteStream(path.join(dir, name), { mode: 0o600, flags: 'wx' }));
    }
  } catch (error) {
    if (error instanceof CommandError) throw error;
    throw new CommandError(`${file} is not a readable backup archive (${(error as Error).message})`);
  }
  const missing = ARCHIVE_FILES.filter((name) => !found.has(name));
  if (missing.length > 0) throw new CommandError(`${file} is not a complete backup: ${missing.join(', ')} missing`);
  const manifest = parseJson<BackupManifest>(dir, MANIFEST_FILE);
  if (manifest.format !== ARCHIVE_FORMAT || manifest.version !== ARCHIVE_VERSION)
    throw new CommandError(
      `${file} has format ${String(manifest.format)} version ${String(manifest.version)}; this restore reads ${ARCHIVE_FORMAT} version ${ARCHIVE_VERSION}`,
    );
  if (!Array.isArray(manifest.migrations) || typeof manifest.tables !== 'object' || manifest.tables === null)
    throw new CommandError(`${file}: ${MANIFEST_FILE} lacks the migration list or the table counts`);
  const secrets = parseJson<BackupSecrets>(dir, SECRETS_FILE);
  if (typeof secrets.appSecret !== 'string' || secrets.appSecret.length < 32)
    throw new CommandError(`${file}: ${SECRETS_FILE} holds no app secret of at least 32 characters`);
  return { manifest, secrets, dumpPath: path.join(dir, DUMP_FILE) };
}

function parseJson<T>(dir: string, name: string): T {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as T;
  } catch {
    throw new CommandError(`${name} of the archive is not valid JSON`);
  }
}

/** The public schema's tables, by name. */
export const PUBLIC_TABLES_SQL = `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`;

/** A table name quoted for SQL (names come from the catalog, but are quoted all the same). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Runs `main`; a failure prints one line, `<label> failed: <message>`, and exits 1. */
export function runCommand(label: string, main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    process.stderr.write(`${label} failed: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
