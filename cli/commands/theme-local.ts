/** `svc-theme init` and `svc-theme validate`: commands on a folder, no instance needed. */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { validateThemePackage, type ThemeFinding } from '../../domain/theme-package/validate';
import { CliError } from '../cli-error';
import { findingLines, info, json, out, summary } from '../output';
import { skeletonFiles } from '../skeleton';
import { readThemeFolder } from '../theme-files';

/** The folder's findings: what reading it found, then the validator's. */
export function validateFolder(dir: string, allowedScriptHosts: string[] = []): ThemeFinding[] {
  const folder = readThemeFolder(dir);
  return [...folder.findings, ...validateThemePackage(folder.files, { allowedScriptHosts })];
}

const hostList = (value: string, previous: string[] = []): string[] => [
  ...previous,
  ...value
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean),
];

export function addLocalThemeCommands(program: Command): void {
  program
    .command('init')
    .description('create a working theme skeleton (layout, templates, sections with schemas, snippets, assets) in a new folder')
    .argument('<folder>', 'the folder to create (must not exist, or be empty)')
    .option('--name <name>', 'the theme name written to theme.json (default: the folder name)')
    .action((folder: string, opts: { name?: string }) => {
      const dir = path.resolve(folder);
      if (fs.existsSync(dir) && fs.readdirSync(dir).length) throw new CliError(`${folder} exists and is not empty.`);
      const name = (opts.name ?? path.basename(dir)).trim().slice(0, 100) || 'My theme';
      for (const [file, content] of Object.entries(skeletonFiles(name))) {
        const target = path.join(dir, ...file.split('/'));
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.writeFileSync(target, content);
      }
      out(`Created the theme "${name}" in ${folder}`);
      out(`Next: svc-theme dev ${folder}    (preview on sample data)`);
      out(`      svc-theme validate ${folder}`);
      out(`      svc-theme push ${folder} --store <storeId>`);
    });

  program
    .command('validate')
    .description('check a theme: security, structure, section schemas and Liquid syntax (exit code 1 when there are errors)')
    .argument('[folder]', 'the theme folder', '.')
    .option('--json', 'print the findings as JSON: { ok, errors, warnings, findings: [{ severity, rule, file, line, column, message }] }')
    .option('--allow-script-host <hosts>', 'hosts whose scripts the theme may load (comma-separated, repeatable)', hostList, [])
    .action((folder: string, opts: { json?: boolean; allowScriptHost: string[] }) => {
      const findings = validateFolder(folder, opts.allowScriptHost);
      const errors = findings.filter((f) => f.severity === 'error').length;
      if (opts.json) json({ ok: errors === 0, errors, warnings: findings.length - errors, findings });
      else {
        for (const line of findingLines(findings)) out(line);
        info(`${folder}: ${summary(findings)}`);
      }
      if (errors) process.exitCode = 1;
    });
}
