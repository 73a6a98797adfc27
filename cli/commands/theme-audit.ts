/**
 * `svc-theme audit`: every template of the theme rendered on the sample shop (cli/dev-server.ts) and
 * opened in headless Chromium — which sections render on which pages, each section's render time,
 * operations and bytes against the storefront's budgets, and accessibility (axe-core). Exit code 1
 * when a page fails, a section is left out or fails, or axe finds a serious or critical violation.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { CliError } from '../cli-error';
import { startDevServer, type SectionMetric } from '../dev-server';
import { info, json, out } from '../output';
import { SAMPLE_PAGES } from '../sample-data';
import { readThemeFolder } from '../theme-files';

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: number;
}

interface PageReport {
  template: string;
  path: string;
  status: number;
  sections: SectionMetric[];
  problems: string[];
  violations: Violation[];
}

const BLOCKING_IMPACTS = new Set(['serious', 'critical']);

/** --chromium, else $CHROMIUM_PATH, else the system's chromium, else playwright's own download. */
function chromiumPath(explicit?: string): string | undefined {
  const candidates = [explicit, process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
  for (const candidate of candidates) if (candidate && fs.existsSync(candidate)) return candidate;
  if (explicit) throw new CliError(`There is no browser at ${explicit}.`, 2);
  return undefined;
}

const percent = (used: number | undefined, limit: number): string =>
  used === undefined ? '   –' : `${String(Math.round((used / limit) * 100)).padStart(3)}%`;

export function addAuditCommand(program: Command): void {
  program
    .command('audit')
    .description('render every template on sample data in headless Chromium: section coverage, render budgets and accessibility (axe-core)')
    .argument('[folder]', 'the theme folder', '.')
    .option('--json', 'print the report as JSON')
    .option('--chromium <path>', 'the Chromium binary (default: $CHROMIUM_PATH or the system chromium)')
    .action(async (folder: string, opts: { json?: boolean; chromium?: string }) => {
      const theme = readThemeFolder(folder);
      const templates = [...theme.files.keys()].filter((f) => /^templates\/[^/]+\.json$/.test(f)).map((f) => f.slice(10, -5));
      const sectionTypes = [...theme.files.keys()].filter((f) => /^sections\/[^/]+\.liquid$/.test(f)).map((f) => f.slice(9, -7));
      const walked = SAMPLE_PAGES.filter((p) => templates.includes(p.template));
      const notWalked = templates.filter((t) => !SAMPLE_PAGES.some((p) => p.template === t));

      const { chromium } = await import('playwright-core');
      const server = await startDevServer({ dir: folder, port: 0, watch: false });
      const browser = await chromium
        .launch({ executablePath: chromiumPath(opts.chromium), args: ['--no-sandbox'] })
        .catch(async (error: Error) => {
          await server.close();
          throw new CliError(`Cannot start Chromium (${error.message.split('\n')[0]}); pass --chromium <path> or set CHROMIUM_PATH.`);
        });
      const pages: PageReport[] = [];
      try {
        // The storefront's CSP allows no injected script; axe is added by the audit, not by the theme.
        const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } });
        const axeSource = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
        for (const { template, path: pagePath } of walked) {
          const page = await context.newPage();
          const target = `/shop/${server.storeId}${pagePath}`;
          const response = await page.goto(`${server.url}${target}`, { waitUntil: 'load' });
          await page.addScriptTag({ content: axeSource });
          const violations = (await page.evaluate(async () => {
            const axe = (
              globalThis as unknown as {
                axe: {
                  run: (
                    ctx: unknown,
                    o: unknown,
                  ) => Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: unknown[] }> }>;
                };
              }
            ).axe;
            const result = await axe.run({ exclude: [['.svc-dev-panel']] }, { resultTypes: ['violations'] });
            return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length }));
          })) as Violation[];
          const metrics = server.metricsFor(target);
          pages.push({
            template,
            path: target,
            status: response?.status() ?? 0,
            sections: metrics?.sections ?? [],
            problems: metrics?.problems ?? [],
            violations,
          });
          await page.close();
        }
      } finally {
        await browser.close();
        await server.close();
      }

      const coverage: Record<string, string[]> = Object.fromEntries(sectionTypes.map((t) => [t, [] as string[]]));
      for (const p of pages)
        for (const s of p.sections) {
          const on = (coverage[s.type] ??= []);
          if (!s.omitted && !on.includes(p.template)) on.push(p.template);
        }
      const unused = Object.entries(coverage)
        .filter(([, on]) => on.length === 0)
        .map(([type]) => type);
      const failing = pages.filter(
        (p) => p.status >= 500 || p.sections.some((s) => s.omitted) || p.violations.some((v) => BLOCKING_IMPACTS.has(v.impact ?? '')),
      );
      const ok = failing.length === 0;

      if (opts.json) json({ ok, pages, coverage, unusedSections: unused, templatesNotWalked: notWalked });
      else {
        for (const p of pages) {
          out(`${p.template.padEnd(11)} ${p.path}  HTTP ${p.status}`);
          for (const s of p.sections)
            out(
              `  ${s.type.padEnd(22)} ${String(s.ms).padStart(7)} ms ${percent(s.ms, s.budget.ms)}  ${String(s.ops ?? '–').padStart(6)} ops ${percent(s.ops, s.budget.ops)}  ${String(s.bytes).padStart(7)} B ${percent(s.bytes, s.budget.bytes)}${s.omitted ? `  OMITTED (${s.omitted})` : ''}${s.error ? `  ${s.error}` : ''}`,
            );
          for (const v of p.violations)
            out(`  a11y ${v.impact ?? 'minor'}: ${v.id} (${v.nodes} element${v.nodes === 1 ? '' : 's'}): ${v.help}`);
        }
        out('');
        out('Coverage (section: pages it renders on)');
        for (const [type, on] of Object.entries(coverage)) out(`  ${type.padEnd(22)} ${on.length ? on.join(', ') : 'none'}`);
        if (notWalked.length) out(`Templates without a sample page (not walked): ${notWalked.join(', ')}`);
        info(
          ok
            ? `audit: ${pages.length} pages, no failures`
            : `audit: ${failing.length} of ${pages.length} pages with failures (5xx, sections left out, serious accessibility violations)`,
        );
      }
      if (!ok) process.exitCode = 1;
      if (!pages.length) info(`No template of ${path.resolve(folder)} has a sample page.`);
    });
}
