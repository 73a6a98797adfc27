/**
 * The jobs faults: an asynchronous import of a few thousand rows into a store of its own is hit
 * mid-way (kill -9, SIGTERM) while the writer and the reader run. The import must end COMPLETED
 * with exactly its rows (no product missing, none twice, no SKU twice, every row counted created
 * once), and both stores' indexes must equal PostgreSQL, within 35 s of the hit.
 */
import { createStore } from './api';
import { OBSERVE_MS, steady, WORKER_TARGET_MS } from './flow';
import { importOutcome, startImport, waitForImportEnd, waitUntilMidImport, type ImportRun } from './imports';
import { guarded, missedTargets, report } from './results';
import { world, type World } from './world';

export const IMPORT_ROWS = Number(process.env.FAULTS_IMPORT_ROWS ?? 6_000);

export interface ImportHit {
  fault: string;
  /** Hits the import under way; resolves with the moment measuring starts from and what to note. */
  hit: (w: World, run: ImportRun) => Promise<{ since: number; notes: string }>;
}

export function importFault(spec: ImportHit): Promise<void> {
  return guarded(spec.fault, () => runImportFault(spec));
}

async function runImportFault(spec: ImportHit): Promise<void> {
  const w = world();
  const storeId = await createStore(w.bulk.api, 'Import');
  const checks = [{ storeId: w.shop.storeId }, { storeId }];
  await steady([checks[0]!], w);
  w.writer.take();
  w.reader.take();
  w.writer.start();
  w.reader.start();
  let since: number;
  let hitNotes: string;
  let run: ImportRun;
  let end: Awaited<ReturnType<typeof waitForImportEnd>>;
  try {
    await w.writer.waitForAcks(5, 30_000);
    run = await startImport(w.bulk.api, storeId, IMPORT_ROWS);
    const under = await waitUntilMidImport(w.bulk.api, run, 60_000);
    ({ since, notes: hitNotes } = await spec.hit(w, run));
    hitNotes += `; hit at ${under.products.created} of ${IMPORT_ROWS} products committed`;
    end = await waitForImportEnd(w.bulk.api, run, since + OBSERVE_MS);
  } finally {
    await w.writer.stop();
    await w.reader.stop();
  }
  const settled = await w.db.waitUntilIndexEqual(checks, since, OBSERVE_MS);
  const outcome = await importOutcome(w.db, run);
  const lost = await w.db.lostWrites(w.writer);
  const recoveryMs = end && settled.elapsedMs !== null ? Math.max(end.at - since, settled.elapsedMs) : null;
  const figures = {
    recoveryMs,
    targetMs: WORKER_TARGET_MS,
    lostWrites: outcome.missing + lost.lost,
    duplicates: outcome.duplicates + (await w.db.duplicateTitles(w.shop.storeId)),
    resetRequests: null,
  };
  const failures = missedTargets(figures, OBSERVE_MS);
  const p = end?.progress;
  if (!p) failures.push(`import not finished within ${OBSERVE_MS} ms of the hit`);
  else if (p.state !== 'COMPLETED') failures.push(`import ${p.state}: ${p.failure ?? ''}`);
  else if (
    p.products.created !== IMPORT_ROWS ||
    p.products.updated + p.products.failed + p.rows.failed !== 0 ||
    p.rows.read !== IMPORT_ROWS
  ) {
    failures.push(
      `import counted ${JSON.stringify({ rows: p.rows, products: p.products })}, expected ${IMPORT_ROWS} rows read and created, nothing else`,
    );
  }
  report({
    fault: spec.fault,
    ...figures,
    failures,
    notes: [
      hitNotes,
      p
        ? `import ${p.state} after ${end!.at - since} ms (${p.products.created} created, ${p.products.updated} updated)`
        : 'import not finished',
      `store holds ${outcome.total} products, ${outcome.missing} of the CSV missing, ${outcome.duplicates} duplicates`,
      w.writer.take(),
      w.reader.take(),
      ...settled.diffs
        .filter((d) => !d.equal)
        .map((d) => `index: ${d.error ?? `missing ${d.missing}, stale ${d.stale}, deleted-but-visible ${d.deletedVisible}`}`),
    ].join('; '),
  });
}
