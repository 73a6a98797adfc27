/**
 * The suite's report: one row per fault, printed at the end of the run as JSON (one line, for
 * machines) and as a table (for people), and written to test-artifacts/faults/results.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

export interface FaultResult {
  fault: string;
  /** From the dependency's return (or the worker's death) to "index equals PostgreSQL"; null: not within the observation window. */
  recoveryMs: number | null;
  targetMs: number | null;
  lostWrites: number | null;
  duplicates: number | null;
  resetRequests: number | null;
  passed: boolean;
  /** What failed against the targets; empty when passed. */
  failures: string[];
  notes: string;
}

const results: FaultResult[] = [];

/**
 * Records the row, then fails the test with every missed target at once. Recording first means the
 * table shows the figures of failed faults too.
 */
export function report(row: Omit<FaultResult, 'passed'>): void {
  results.push({ ...row, passed: row.failures.length === 0 });
  expect(row.failures, `${row.fault}: ${row.failures.join('; ')}`).to.deep.equal([]);
}

/**
 * Runs a fault's test; when it throws before reporting (a precondition, a timeout, a crash of the
 * suite itself), the table still gets a failed row for it, with the error.
 */
export async function guarded(fault: string, test: () => Promise<void>): Promise<void> {
  const before = results.length;
  try {
    await test();
  } catch (error) {
    if (results.length === before) {
      results.push({
        fault,
        recoveryMs: null,
        targetMs: null,
        lostWrites: null,
        duplicates: null,
        resetRequests: null,
        passed: false,
        failures: [`did not complete: ${(error as Error).message.split('\n')[0]}`],
        notes: '',
      });
    }
    throw error;
  }
}

/** Targets every fault is held to (the bar: not loosened when a fault misses it). */
export function missedTargets(
  figures: {
    recoveryMs: number | null;
    targetMs: number | null;
    lostWrites?: number | null;
    duplicates?: number | null;
    resetRequests?: number | null;
  },
  limitMs: number,
): string[] {
  const failures: string[] = [];
  if (figures.targetMs !== null) {
    if (figures.recoveryMs === null) failures.push(`index not equal to PostgreSQL within ${limitMs} ms (target ${figures.targetMs} ms)`);
    else if (figures.recoveryMs > figures.targetMs)
      failures.push(`index equal to PostgreSQL after ${figures.recoveryMs} ms, target ${figures.targetMs} ms`);
  }
  if (figures.lostWrites) failures.push(`${figures.lostWrites} acknowledged writes lost`);
  if (figures.duplicates) failures.push(`${figures.duplicates} duplicates`);
  if (figures.resetRequests) failures.push(`${figures.resetRequests} requests reset`);
  return failures;
}

const cell = (value: number | null): string => (value === null ? '-' : String(value));

export function printResults(artifactsDir: string): void {
  if (results.length === 0) return;
  const json = JSON.stringify({ faults: results });
  fs.mkdirSync(artifactsDir, { recursive: true });
  fs.writeFileSync(path.join(artifactsDir, 'results.json'), `${JSON.stringify({ faults: results }, null, 2)}\n`);
  const header = ['fault', 'recovery ms', 'target ms', 'lost', 'dupes', 'resets', 'result'];
  const rows = results.map((r) => [
    r.fault,
    cell(r.recoveryMs),
    cell(r.targetMs),
    cell(r.lostWrites),
    cell(r.duplicates),
    cell(r.resetRequests),
    r.passed ? 'pass' : 'FAIL',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  const out = [
    '',
    'Fault injection results',
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    '',
    ...results.flatMap((r) => [`${r.fault}: ${r.notes}`, ...r.failures.map((f) => `  missed: ${f}`)]),
    '',
    `FAULT_RESULTS_JSON ${json}`,
    `(also in ${path.join(artifactsDir, 'results.json')}; process and service logs beside it)`,
    '',
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}
