/**
 * `svc-theme push`, `deploy` and `pull`: theme packages of a store through the themes API
 * (docs/themes.md, "API"). `push` validates the folder first (the API would refuse the same errors),
 * packs it as tar.gz and uploads it as a draft; `deploy` publishes a draft, which activates it;
 * `pull` downloads a package's information and files into a folder.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { ThemeFinding } from '../../domain/theme-package/validate';
import { CliApi, problemText } from '../api-client';
import { CliError } from '../cli-error';
import { findingLines, info, json, out, summary } from '../output';
import { envOption } from '../program';
import { packTheme, readThemeFolder, unpackTheme, writeThemeFolder } from '../theme-files';
import { validateThemePackage } from '../../domain/theme-package/validate';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface ThemePackage {
  id: string;
  storeId: string;
  name: string;
  version: string;
  status: string;
  active: boolean;
  fileCount: number;
  bytes: number;
  checksum: string;
  createdAt: string;
  publishedAt: string | null;
  findings: ThemeFinding[];
  files?: Array<{ path: string; bytes: number; sha256: string }>;
}

function packageId(value: string): string {
  if (!UUID.test(value)) throw new CliError(`"${value}" is not a package id (a UUID, as push prints it).`, 2);
  return value.toLowerCase();
}

const describe = (p: ThemePackage): string =>
  `${p.name} ${p.version} (${p.id}): ${p.status.toLowerCase()}${p.active ? ', active' : ''}, ${p.fileCount} files, ${p.bytes} bytes`;

export function addPackageCommands(program: Command): void {
  program
    .command('push')
    .description('upload the theme folder to a store as a draft package (not published); prints the package id')
    .argument('[folder]', 'the theme folder', '.')
    .option('--store <id>', "the store (default: the environment's store)")
    .option('--json', 'print the package as JSON')
    .action(async (folder: string, opts: { store?: string; json?: boolean }, command: Command) => {
      const api = CliApi.forEnv(envOption(command));
      const storeId = api.store(opts.store);
      const theme = readThemeFolder(folder);
      const local = [...theme.findings, ...validateThemePackage(theme.files)];
      if (local.some((f) => f.severity === 'error')) {
        for (const line of findingLines(local)) info(line);
        throw new CliError(`${folder} has errors (${summary(local)}); nothing was uploaded.`);
      }
      const archive = await packTheme(theme.files);
      const res = await api.request('POST', '/themes/packages', {
        query: { storeId },
        raw: { bytes: archive, contentType: 'application/gzip' },
      });
      if (res.status === 422 && Array.isArray(res.json?.findings)) {
        for (const line of findingLines(res.json.findings as ThemeFinding[])) info(line);
        throw new CliError(`The store refused the package: ${problemText(res)}`);
      }
      if (!res.ok) throw new CliError(`Upload failed: ${problemText(res)}`);
      const pkg = res.json as ThemePackage;
      for (const line of findingLines(pkg.findings ?? [])) info(line);
      if (opts.json) json(pkg);
      else {
        info(`Pushed ${describe(pkg)}`);
        info(`Publish it with: svc-theme deploy ${pkg.id}`);
        out(pkg.id);
      }
    });

  program
    .command('deploy')
    .description('publish a draft package: it becomes the store’s active theme (publishing is activating)')
    .argument('<packageId>', 'the id push printed')
    .option('--json', 'print the package as JSON')
    .action(async (id: string, opts: { json?: boolean }, command: Command) => {
      const api = CliApi.forEnv(envOption(command));
      const res = await api.expect('POST', `/themes/packages/${packageId(id)}/publish`);
      const pkg = res.json as ThemePackage;
      if (opts.json) json(pkg);
      else out(`Published ${describe(pkg)}; the storefront of store ${pkg.storeId} now renders it.`);
    });

  program
    .command('pull')
    .description('download a package: its information and its files, into a folder')
    .argument('<packageId>', 'the package id')
    .option('--out <folder>', 'where to write the files (default: ./<package id>); must not exist or be empty')
    .option('--json', 'print the package information as JSON')
    .action(async (id: string, opts: { out?: string; json?: boolean }, command: Command) => {
      const api = CliApi.forEnv(envOption(command));
      const checked = packageId(id);
      const pkg = (await api.expect('GET', `/themes/packages/${checked}`)).json as ThemePackage;
      const archive = await api.expect('GET', `/themes/packages/${checked}/archive`);
      const files = await unpackTheme(archive.bytes);
      // The archive must be exactly the files the package lists, byte for byte.
      for (const listed of pkg.files ?? []) {
        const bytes = files.get(listed.path);
        if (!bytes || crypto.createHash('sha256').update(bytes).digest('hex') !== listed.sha256)
          throw new CliError(`The archive does not match the package's file list at ${listed.path}; nothing was written.`);
      }
      const dir = path.resolve(opts.out ?? checked);
      if (fs.existsSync(dir) && fs.readdirSync(dir).length) throw new CliError(`${opts.out ?? checked} exists and is not empty.`);
      writeThemeFolder(dir, files);
      // The package's information next to its files (a dot file: not part of the theme, not pushed again).
      fs.writeFileSync(path.join(dir, '.svc-theme.json'), `${JSON.stringify({ ...pkg, files: undefined }, null, 2)}\n`);
      if (opts.json) json(pkg);
      else {
        out(describe(pkg));
        out(`checksum ${pkg.checksum}`);
        out(`${files.size} files written to ${path.relative(process.cwd(), dir) || '.'}`);
      }
    });
}
