/**
 * A theme folder on disk as the validator and the API see it (path relative to the theme root,
 * `/`-separated → bytes), packed as the tar.gz `push` uploads and unpacked from the one `pull`
 * downloads. Files and folders whose name starts with a dot (.git, .DS_Store, the .svc-theme.json
 * `pull` writes) and node_modules are not part of a theme.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import tar from 'tar-stream';
import type { ThemeFinding } from '../domain/theme-package/validate';
import { CliError } from './cli-error';

const gzip = promisify(zlib.gzip);
const gunzip = promisify(zlib.gunzip);

export interface ThemeFolder {
  files: Map<string, Buffer>;
  /** What reading the folder found itself (links, which a theme may not contain). */
  findings: ThemeFinding[];
}

export function readThemeFolder(root: string): ThemeFolder {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(root);
  } catch {
    throw new CliError(`There is no folder ${root}.`);
  }
  if (!stat.isDirectory()) throw new CliError(`${root} is not a folder.`);
  const files = new Map<string, Buffer>();
  const findings: ThemeFinding[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const full = path.join(dir, entry.name);
      const relative = path.relative(root, full).split(path.sep).join('/');
      if (entry.isSymbolicLink())
        findings.push({
          severity: 'error',
          rule: 'security.path-traversal',
          file: relative,
          message: 'A theme may not contain links; copy the file in.',
        });
      else if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) files.set(relative, fs.readFileSync(full));
    }
  };
  walk(root);
  return { files, findings };
}

/** The files as a tar.gz, sorted by path, with fixed dates and modes (the same files give the same archive). */
export async function packTheme(files: ReadonlyMap<string, Buffer>): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    pack.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
    pack.on('end', resolve);
    pack.on('error', reject);
  });
  for (const name of [...files.keys()].sort()) {
    const bytes = files.get(name)!;
    await new Promise<void>((resolve, reject) =>
      pack.entry({ name, size: bytes.length, mode: 0o644, mtime: new Date(0), type: 'file' }, bytes, (err) =>
        err ? reject(err) : resolve(),
      ),
    );
  }
  pack.finalize();
  await done;
  return gzip(Buffer.concat(chunks));
}

/** Where a downloaded entry may be written: a plain relative path inside the folder, nothing else. */
function safeEntryPath(name: string): string | undefined {
  const clean = name.replace(/^\.\//, '');
  if (!clean || clean.includes('\0') || clean.includes('\\') || clean.startsWith('/') || /^[A-Za-z]:/.test(clean)) return undefined;
  const segments = clean.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) return undefined;
  return clean;
}

/** The regular files of a tar.gz; links, devices and paths leaving the folder are refused. */
export async function unpackTheme(archive: Buffer): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const extract = tar.extract();
  const finished = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
      stream.on('end', () => {
        if (header.type === 'file') {
          const name = safeEntryPath(header.name);
          if (!name) return reject(new CliError(`The archive holds an unsafe path: ${JSON.stringify(header.name)}.`));
          files.set(name, Buffer.concat(chunks));
        } else if (header.type !== 'directory') {
          return reject(new CliError(`The archive holds a ${header.type} entry (${header.name}); only files are accepted.`));
        }
        next();
      });
      stream.resume();
    });
    extract.on('finish', resolve);
    extract.on('error', reject);
  });
  extract.end(await gunzip(archive));
  await finished;
  return files;
}

export function writeThemeFolder(root: string, files: ReadonlyMap<string, Buffer>): void {
  const base = path.resolve(root);
  for (const [name, bytes] of files) {
    const target = path.resolve(base, ...name.split('/'));
    if (!target.startsWith(base + path.sep)) throw new CliError(`Refusing to write ${name} outside ${root}.`);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, bytes);
  }
}
