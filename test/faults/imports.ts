/**
 * Asynchronous product imports for the jobs faults: a CSV of N published products (one row each,
 * unique handle and SKU), its job's progress, and the check that the store holds exactly those
 * products once it is done.
 */
import { randomBytes } from 'node:crypto';
import type { Api } from './api';
import type { Consistency } from './consistency';
import type { RoleProcess } from './roles';
import { cpuTicks, sleep } from './util';

export interface ImportRun {
  jobId: string;
  storeId: string;
  rows: number;
  prefix: string;
}

export interface JobProgress {
  state: 'QUEUED' | 'RUNNING' | 'COMPLETED' | 'FAILED';
  rows: { read: number; failed: number };
  products: { created: number; updated: number; unchanged: number; failed: number };
  failure: string | null;
}

export function importCsv(prefix: string, rows: number): string {
  const lines = ['handle,title,status,price,sku,stock'];
  for (let i = 1; i <= rows; i += 1)
    lines.push(`${prefix}-${i},Imported ${prefix} item ${i},PUBLISHED,${(5 + (i % 200)).toFixed(2)},${prefix.toUpperCase()}-${i},${i % 7}`);
  return `${lines.join('\n')}\n`;
}

export async function startImport(api: Api, storeId: string, rows: number): Promise<ImportRun> {
  const prefix = `imp${randomBytes(3).toString('hex')}`;
  const job = await api.expect(202, 'POST', `/api/v1/bulk-import/products/async?storeId=${storeId}`, {
    csv: importCsv(prefix, rows),
    timeoutMs: 60_000,
  });
  return { jobId: job.id, storeId, rows, prefix };
}

export async function progress(api: Api, run: ImportRun): Promise<JobProgress | undefined> {
  const res = await api.call('GET', `/api/v1/bulk-import/jobs/${run.jobId}`, { timeoutMs: 5_000 });
  return res.status === 200 ? (res.json as JobProgress) : undefined;
}

/** Waits until the import has committed some products but not all: the moment to inject the fault. */
export async function waitUntilMidImport(api: Api, run: ImportRun, timeoutMs: number): Promise<JobProgress> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const p = await progress(api, run);
    if (p?.state === 'COMPLETED' || p?.state === 'FAILED') {
      throw new Error(
        `the import ended (${p.state}, ${p.products.created} created) before the fault could be injected; raise FAULTS_IMPORT_ROWS`,
      );
    }
    if (p?.state === 'RUNNING' && p.products.created > 0) return p;
    await sleep(50);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for import ${run.jobId} to be under way`);
}

/** The job's progress once it is COMPLETED or FAILED, and when that was seen; undefined if not by `deadline`. */
export async function waitForImportEnd(
  api: Api,
  run: ImportRun,
  deadline: number,
): Promise<{ progress: JobProgress; at: number } | undefined> {
  while (Date.now() < deadline) {
    const p = await progress(api, run);
    if (p && (p.state === 'COMPLETED' || p.state === 'FAILED')) return { progress: p, at: Date.now() };
    await sleep(200);
  }
  return undefined;
}

/**
 * Which of the jobs processes runs the import: the one burning CPU. The job queue does not say
 * which worker took a job, but an import keeps its worker busy while the others idle.
 */
export async function busiest(processes: RoleProcess[], sampleMs = 400): Promise<{ process: RoleProcess; ticks: number[] }> {
  const before = processes.map((p) => cpuTicks(p.pid ?? 0));
  await sleep(sampleMs);
  const ticks = processes.map((p, i) => cpuTicks(p.pid ?? 0) - before[i]!);
  const top = ticks.indexOf(Math.max(...ticks));
  return { process: processes[top]!, ticks };
}

/** Products of the import in PostgreSQL: missing handles, extra or repeated products, repeated SKUs. */
export async function importOutcome(db: Consistency, run: ImportRun): Promise<{ missing: number; duplicates: number; total: number }> {
  const [row] = await db.query<{ total: number; handles: number; skus: number; sku_rows: number; expected: number }>(
    `SELECT count(*)::int AS total,
            count(DISTINCT lower(p.slug))::int AS handles,
            (SELECT count(DISTINCT lower(v.sku))::int FROM product_variants v WHERE v.store_id = $1) AS skus,
            (SELECT count(*)::int FROM product_variants v WHERE v.store_id = $1 AND v.sku IS NOT NULL) AS sku_rows,
            count(*) FILTER (WHERE p.slug ~ ('^' || $2 || '-[0-9]+$') AND substring(p.slug from '[0-9]+$')::int BETWEEN 1 AND $3)::int AS expected
       FROM products p WHERE p.store_id = $1`,
    [run.storeId, run.prefix, run.rows],
  );
  const r = row!;
  return {
    total: r.total,
    missing: run.rows - r.expected,
    duplicates: r.total - r.handles + (r.sku_rows - r.skus) + Math.max(0, r.handles - run.rows),
  };
}
