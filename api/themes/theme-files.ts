/**
 * What a package is made of: name and version from its theme.json, the checksum of its files, and
 * the deterministic tar.gz of them that the download answers.
 */
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import tar from 'tar-stream';

export const DEFAULT_THEME_NAME = 'Untitled theme';
export const DEFAULT_THEME_VERSION = '0.0.0';

export const sha256Hex = (bytes: Buffer | string): string => crypto.createHash('sha256').update(bytes).digest('hex');

/** Over the files sorted by path: `<path>\0<sha256 hex>\n` each; the same files always give the same checksum. */
export function packageChecksum(files: ReadonlyArray<{ path: string; sha256: string }>): string {
  const hash = crypto.createHash('sha256');
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) hash.update(`${f.path}\0${f.sha256}\n`);
  return hash.digest('hex');
}

/** Name and version of theme.json (the validator has checked them), or the defaults. */
export function themeIdentity(files: ReadonlyMap<string, Buffer>): { name: string; version: string } {
  const raw = files.get('theme.json');
  let parsed: { name?: unknown; version?: unknown } = {};
  if (raw) {
    try {
      parsed = JSON.parse(raw.toString('utf8')) as { name?: unknown; version?: unknown };
    } catch {
      parsed = {};
    }
  }
  return {
    name: typeof parsed.name === 'string' && parsed.name.trim() !== '' ? parsed.name.trim().slice(0, 100) : DEFAULT_THEME_NAME,
    version: typeof parsed.version === 'string' && parsed.version !== '' ? parsed.version.slice(0, 64) : DEFAULT_THEME_VERSION,
  };
}

/** A tar.gz of the files by path, with fixed modes and times so the same files give the same bytes. */
export async function packTarGz(files: ReadonlyArray<{ path: string; content: Buffer }>): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const gzip = zlib.createGzip();
  gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    gzip.on('end', resolve);
    gzip.on('error', reject);
    pack.on('error', reject);
  });
  pack.pipe(gzip);
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    await new Promise<void>((resolve, reject) =>
      pack.entry({ name: f.path, size: f.content.length, mode: 0o644, mtime: new Date(0), type: 'file' }, f.content, (error) =>
        error ? reject(error) : resolve(),
      ),
    );
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}
