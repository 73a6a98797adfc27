/**
 * The shape shared by the faults that hit a dependency or a worker while traffic runs:
 *
 * 1. steady state: every process up, the index equal to PostgreSQL;
 * 2. the writer and the reader start, and the platform must acknowledge writes (it works);
 * 3. the fault is injected while they run; it returns the moment measuring starts from (the
 *    dependency is back, or the worker died);
 * 4. the writer stops, so "index equals PostgreSQL" has one answer, and the suite polls for it;
 * 5. the row: time to equal, acknowledged writes PostgreSQL lost, duplicates; then the targets.
 */
import { guarded, missedTargets, report } from './results';
import type { StoreCheck } from './consistency';
import type { Writer } from './workload';
import { world, type World } from './world';

/**
 * The targets: the index equals PostgreSQL this soon after a dependency (Meilisearch, PostgreSQL,
 * and Redis, held to the same bar) returns, and this soon after a worker dies.
 */
export const DEPENDENCY_TARGET_MS = 5_000;
export const WORKER_TARGET_MS = 35_000;
/**
 * How long the suite keeps watching for "index equals PostgreSQL" before it gives up: beyond the
 * targets, so a miss still reports the real recovery time (e.g. the outbox's 60 s reclaim).
 */
export const OBSERVE_MS = Number(process.env.FAULTS_OBSERVE_MS ?? 75_000);
/** Mocha timeout for one fault: the observation window plus the fault's own downtime and set-up. */
export const FAULT_TIMEOUT_MS = OBSERVE_MS + 150_000;

/** Every process of the platform alive (restarting any a failed fault left dead, except parked ones) and the services up. */
export async function restore(w: World = world()): Promise<void> {
  await w.services.start();
  for (const role of Object.values(w.roles)) if (!role.alive && !role.parked) await role.start();
}

/** Before a fault: the index must already equal PostgreSQL, or the figures would belong to the last fault. */
export async function steady(checks: StoreCheck[], w: World = world()): Promise<void> {
  await restore(w);
  // Short: the last fault already watched for OBSERVE_MS; a platform still behind fails fast here.
  const settled = await w.db.waitUntilIndexEqual(checks, Date.now(), 30_000);
  if (settled.elapsedMs === null)
    throw new Error(`precondition: the index is not equal to PostgreSQL before the fault: ${JSON.stringify(settled.diffs)}`);
}

export interface TrafficFault {
  fault: string;
  targetMs: number;
  /** Injects the fault while the traffic runs; resolves with the moment measuring starts from. */
  inject: (w: World) => Promise<number>;
  /** Stores to judge (default: the shop's). */
  checks?: StoreCheck[];
  /** Writers running during the fault (default: the shop's). */
  writers?: Writer[];
}

export function trafficFault(spec: TrafficFault): Promise<void> {
  return guarded(spec.fault, () => runTrafficFault(spec));
}

async function runTrafficFault(spec: TrafficFault): Promise<void> {
  const w = world();
  const checks = spec.checks ?? [{ storeId: w.shop.storeId }];
  const writers = spec.writers ?? [w.writer];
  await steady(checks, w);
  w.reader.take();
  for (const writer of writers) writer.take();
  for (const writer of writers) writer.start();
  w.reader.start();
  let since: number;
  try {
    for (const writer of writers) await writer.waitForAcks(5, 30_000);
    since = await spec.inject(w);
  } finally {
    await Promise.all(writers.map((writer) => writer.stop()));
    await w.reader.stop();
  }
  const settled = await w.db.waitUntilIndexEqual(checks, since, OBSERVE_MS);
  const lost = await Promise.all(writers.map((writer) => w.db.lostWrites(writer)));
  const duplicates = (await Promise.all(writers.map((writer) => w.db.duplicateTitles(writer.storeId)))).reduce((a, b) => a + b, 0);
  const figures = {
    recoveryMs: settled.elapsedMs,
    targetMs: spec.targetMs,
    lostWrites: lost.reduce((sum, l) => sum + l.lost, 0),
    duplicates,
    resetRequests: null,
  };
  const diff = settled.diffs.map((d) =>
    d.error
      ? `error ${d.error}`
      : `missing ${d.missing}, stale ${d.stale}, deleted-but-visible ${d.deletedVisible}${d.visionPending ? `, images not embedded ${d.visionPending}` : ''}${d.sample.length ? ` e.g. ${d.sample.join(' | ')}` : ''}`,
  );
  report({
    fault: spec.fault,
    ...figures,
    failures: missedTargets(figures, OBSERVE_MS),
    notes: [
      writers.map((wr) => wr.take()).join('; '),
      w.reader.take(),
      `index at the end: ${diff.join('; ')}`,
      ...lost
        .filter((l) => l.lost || l.uncertain)
        .map((l) => `lost ${l.lost} of ${l.judged} judged (${l.uncertain} uncertain)${l.sample.length ? `: ${l.sample.join(' | ')}` : ''}`),
    ]
      .filter(Boolean)
      .join('; '),
  });
}
