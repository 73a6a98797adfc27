/**
 * Reads an uploaded theme archive (a tar.gz or a zip of the theme folder's contents) into a map of
 * path → bytes, with every limit checked while reading: the archive's bytes as they arrive, the
 * number of files, each file's bytes and all files' bytes unpacked (a zip bomb stops at the limit,
 * never after inflating it). Only regular files and folders are accepted; a symlink, a hard link, a
 * device, an absolute path, a `..` segment, a NUL or control character, or the same path twice
 * refuses the whole archive, and nothing of it is kept.
 */
import zlib from 'node:zlib';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import yauzl from 'yauzl';
import type { AppError } from '../../lib/errors';
import { themesError } from './themes.errors';

export interface ThemeArchiveLimits {
  archiveBytes: number;
  fileBytes: number;
  totalBytes: number;
  files: number;
}

/** The bounds of a theme package (docs/themes.md, "API"). */
export const THEME_ARCHIVE_LIMITS: ThemeArchiveLimits = {
  archiveBytes: 10 * 1024 * 1024,
  fileBytes: 2 * 1024 * 1024,
  totalBytes: 20 * 1024 * 1024,
  files: 500,
};

export type ArchiveFormat = 'tar.gz' | 'zip';

/** The archive format a Content-Type names (the router accepted only these). */
export function archiveFormatOf(contentType: string): ArchiveFormat {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/zip' || type === 'application/x-zip-compressed' ? 'zip' : 'tar.gz';
}

const tooLarge = (what: string, limit: number): AppError =>
  themesError('theme_archive_too_large', `${what} is over its limit of ${limit} bytes.`);
const malformed = (detail: string): AppError => themesError('theme_archive_malformed', detail);

/** Why an entry path may not be a file of a theme; undefined when it may. */
export function entryPathProblem(raw: string): string | undefined {
  if (raw.includes('\0')) return 'contains a NUL character';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) return 'contains a control character';
  if (raw.includes('\ufffd')) return 'is not UTF-8';
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw)) return 'is absolute';
  if (raw.includes('\\')) return 'contains a backslash';
  const segments = raw.replace(/^\.\//, '').replace(/\/$/, '').split('/');
  if (segments.some((s) => s === '..')) return 'has a `..` segment';
  if (segments.some((s) => s === '' || s === '.')) return 'has an empty or `.` segment';
  return undefined;
}

/** The path as stored: `./` and a folder's trailing `/` dropped; refused with 400 when it is not a safe relative path. */
function checkedPath(raw: string): string {
  const problem = entryPathProblem(raw);
  if (problem) {
    const shown = JSON.stringify(raw.replace(/\0/g, '\\0').slice(0, 200));
    throw themesError('theme_archive_path_invalid', `The archive entry ${shown} ${problem}; entries are paths relative to the theme root.`);
  }
  return raw.replace(/^\.\//, '').replace(/\/$/, '');
}

/** Collects the files of one archive under the limits. */
class FileCollector {
  readonly files = new Map<string, Buffer>();
  private total = 0;
  constructor(private readonly limits: ThemeArchiveLimits) {}

  /** A file entry is about to be read: its path is checked and counted first. */
  begin(rawPath: string): string {
    const file = checkedPath(rawPath);
    if (this.files.has(file)) throw themesError('theme_archive_duplicate_path', `The archive holds ${JSON.stringify(file)} twice.`);
    if (this.files.size + 1 > this.limits.files)
      throw themesError('theme_archive_too_many_files', `The archive holds more than ${this.limits.files} files.`);
    return file;
  }

  /** Counts bytes of the file being read as they are inflated. */
  count(file: string, read: number, chunk: number): void {
    if (read > this.limits.fileBytes) throw tooLarge(`The file ${JSON.stringify(file)}`, this.limits.fileBytes);
    this.total += chunk;
    if (this.total > this.limits.totalBytes) throw tooLarge('The unpacked theme', this.limits.totalBytes);
  }

  limitOfFile(): number {
    return this.limits.fileBytes;
  }

  add(file: string, bytes: Buffer): void {
    this.files.set(file, bytes);
  }
}

/** The upload's bytes, refused with 413 past the archive limit (the rest is not read). */
export async function readArchiveBody(body: AsyncIterable<Buffer>, limits: ThemeArchiveLimits = THEME_ARCHIVE_LIMITS): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limits.archiveBytes) throw tooLarge('The archive', limits.archiveBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The files of an archive; refuses a bad one with a 400/413 themes error. */
export async function readThemeArchive(
  archive: Buffer,
  format: ArchiveFormat,
  limits: ThemeArchiveLimits = THEME_ARCHIVE_LIMITS,
): Promise<Map<string, Buffer>> {
  if (archive.length === 0) throw malformed('The archive is empty.');
  if (archive.length > limits.archiveBytes) throw tooLarge('The archive', limits.archiveBytes);
  const collector = new FileCollector(limits);
  if (format === 'zip') await readZip(archive, collector);
  else await readTarGz(archive, collector);
  if (collector.files.size === 0) throw malformed('The archive holds no files.');
  return collector.files;
}

const TAR_FILE_TYPES = new Set(['file', 'contiguous-file']);
const TAR_IGNORED_TYPES = new Set(['directory', 'pax-header', 'pax-global-header', 'gnu-long-path', 'gnu-long-link-path']);

async function readTarGz(archive: Buffer, collector: FileCollector): Promise<void> {
  if (archive[0] !== 0x1f || archive[1] !== 0x8b) throw malformed('The archive is not gzip-compressed (a tar.gz was declared).');
  const extract = tar.extract();
  // Inflated only as fast as the entries are read below, so a refusal stops the inflating too.
  const piping = pipeline(Readable.from([archive]), zlib.createGunzip(), extract);
  piping.catch(() => undefined);
  try {
    for await (const entry of extract) {
      const { header } = entry;
      const type = header.type ?? 'file';
      if (TAR_IGNORED_TYPES.has(type)) {
        if (type === 'directory') checkedPath(header.name);
        entry.resume();
        continue;
      }
      if (!TAR_FILE_TYPES.has(type)) {
        const kind = type === 'symlink' ? 'a symlink' : type === 'link' ? 'a hard link' : `a ${type} entry`;
        throw themesError(
          'theme_archive_entry_forbidden',
          `The archive entry ${JSON.stringify(header.name.slice(0, 200))} is ${kind}; a theme holds regular files and folders only.`,
        );
      }
      const file = collector.begin(header.name);
      const chunks: Buffer[] = [];
      let read = 0;
      for await (const data of entry) {
        const chunk = data as Buffer;
        read += chunk.length;
        collector.count(file, read, chunk.length);
        chunks.push(chunk);
      }
      collector.add(file, Buffer.concat(chunks));
    }
    await piping;
  } catch (error) {
    extract.destroy();
    if (isThemesError(error)) throw error;
    throw malformed(`The archive is not a readable tar.gz (${describe(error)}).`);
  }
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.slice(0, 200);
}

async function readZip(archive: Buffer, collector: FileCollector): Promise<void> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
    yauzl.fromBuffer(
      archive, // Names are decoded here (yauzl's own check would report a traversal as an unreadable zip).
      { lazyEntries: true, decodeStrings: false, validateEntrySizes: true },
      (error, opened) =>
        error || !opened ? reject(malformed(`The archive is not a readable zip (${describe(error)}).`)) : resolve(opened),
    );
  });
  try {
    await new Promise<void>((resolve, reject) => {
      const failed = (error: unknown): void => {
        zip.close();
        reject(isThemesError(error) ? error : malformed(`The archive is not a readable zip (${describe(error)}).`));
      };
      zip.on('error', failed);
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        try {
          const fileName = new TextDecoder('utf-8').decode(entry.fileName as unknown as Buffer);
          // Unix mode bits in the upper half of the external attributes: symlinks and devices are refused.
          const madeOnUnix = entry.versionMadeBy >> 8 === 3;
          const mode = (entry.externalFileAttributes >>> 16) & 0o170000;
          const isFolder = fileName.endsWith('/');
          if (madeOnUnix && mode !== 0 && mode !== 0o100000 && !(isFolder && mode === 0o040000)) {
            const kind = mode === 0o120000 ? 'a symlink' : 'not a regular file';
            throw themesError(
              'theme_archive_entry_forbidden',
              `The archive entry ${JSON.stringify(fileName.slice(0, 200))} is ${kind}; a theme holds regular files and folders only.`,
            );
          }
          if (isFolder) {
            checkedPath(fileName);
            zip.readEntry();
            return;
          }
          const file = collector.begin(fileName);
          if (entry.uncompressedSize > collector.limitOfFile()) throw tooLarge(`The file ${JSON.stringify(file)}`, collector.limitOfFile());
          zip.openReadStream(entry, (error, stream) => {
            if (error || !stream) return failed(error);
            const chunks: Buffer[] = [];
            let read = 0;
            stream.on('data', (chunk: Buffer) => {
              read += chunk.length;
              try {
                collector.count(file, read, chunk.length);
                chunks.push(chunk);
              } catch (refusal) {
                stream.destroy();
                failed(refusal);
              }
            });
            stream.on('error', failed);
            stream.on('end', () => {
              collector.add(file, Buffer.concat(chunks));
              zip.readEntry();
            });
          });
        } catch (error) {
          failed(error);
        }
      });
      zip.readEntry();
    });
  } finally {
    if (zip.isOpen) zip.close();
  }
}

function isThemesError(error: unknown): error is AppError {
  return typeof (error as { code?: unknown })?.code === 'string' && String((error as { code: string }).code).startsWith('theme_archive');
}
