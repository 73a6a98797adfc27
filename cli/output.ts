/** What the commands write: results on stdout, progress and problems on stderr (no console: the project's lint). */
import type { ThemeFinding } from '../domain/theme-package/validate';

export function out(line = ''): void {
  process.stdout.write(`${line}\n`);
}

export function info(line = ''): void {
  process.stderr.write(`${line}\n`);
}

export function json(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** `error  sections/hero.liquid:3:5  security.unescaped-setting  message`, errors first. */
export function findingLines(findings: readonly ThemeFinding[]): string[] {
  const ordered = [...findings].sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
  return ordered.map((f) => {
    const where = f.file ? `${f.file}${f.line ? `:${f.line}${f.column ? `:${f.column}` : ''}` : ''}` : '(package)';
    return `${f.severity === 'error' ? 'error  ' : 'warning'}  ${where}  ${f.rule}  ${f.message}`;
  });
}

export function summary(findings: readonly ThemeFinding[]): string {
  const errors = findings.filter((f) => f.severity === 'error').length;
  const warnings = findings.length - errors;
  return `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`;
}
