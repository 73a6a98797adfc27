/**
 * The insight fold of the jobs worker (docs/insight.md, "How the reports stay fast"): every few
 * seconds it moves the deltas the order triggers appended into their summaries (`insight_fold`, a
 * batch at a time, until none is left), so the `_current` views the reports read stay small to add
 * up. Reports are exact whether or not a fold has run; folding only keeps them fast. Several
 * workers may fold at once (the function skips rows another fold holds).
 */
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { startPeriodicTask, type PeriodicTask } from '../../lib/periodic-task';

const BATCH = 5_000;
export const INSIGHT_FOLD_INTERVAL_MS = 2_000;

/** Folds every delta there is; answers how many summary rows changed. */
export async function foldInsightDeltas(dataSource: DataSource): Promise<number> {
  let changed = 0;
  for (;;) {
    const [row] = (await dataSource.query('SELECT insight_fold($1) AS n', [BATCH])) as Array<{ n: number }>;
    changed += row!.n;
    if (row!.n === 0) return changed;
  }
}

export function startInsightFolder(dataSource: DataSource, logger: Logger): PeriodicTask {
  return startPeriodicTask({
    logger,
    failureKey: 'insight:fold',
    failureMessage: 'folding the insight deltas failed; retrying',
    intervalMs: INSIGHT_FOLD_INTERVAL_MS,
    run: async () => {
      await foldInsightDeltas(dataSource);
    },
  });
}
