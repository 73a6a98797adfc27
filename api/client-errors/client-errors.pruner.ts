/**
 * Retention of client errors (docs/client-errors.md, "Retention"), run by the jobs worker every
 * hour: events received more than CLIENT_ERROR_RETENTION_DAYS days ago are deleted (in slices, so
 * no statement holds locks for long), so are the hourly counts that lie wholly before that time,
 * and the groups last seen before it together with their comments, except ignored groups, which
 * keep being ignored however long they stay quiet. `now` is a parameter so tests drive the clock.
 */
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { startPeriodicTask, type PeriodicTask } from '../../lib/periodic-task';
import { uuidv7 } from '../../storage/ids';
import { systemContext, type ContextServices, type RequestContext } from '../../storage/request-context';

export const CLIENT_ERROR_PRUNE_INTERVAL_MS = 3_600_000;
const SLICE = 10_000;
const DAY_MS = 86_400_000;

export interface PruneResult {
  events: number;
  hourly: number;
  groups: number;
}

async function count(ctx: RequestContext, sql: string, params: unknown[]): Promise<number> {
  const [row] = (await ctx.manager.query(`WITH d AS (${sql} RETURNING 1) SELECT count(*)::int AS n FROM d`, params)) as [{ n: number }];
  return row.n;
}

export async function pruneClientErrors(ctx: RequestContext, retentionDays: number, now: Date = new Date()): Promise<PruneResult> {
  const cutoff = new Date(now.getTime() - retentionDays * DAY_MS);
  let events = 0;
  for (;;) {
    const deleted = await count(
      ctx,
      `DELETE FROM client_error_events WHERE id IN (SELECT id FROM client_error_events WHERE received_at < $1 LIMIT ${SLICE})`,
      [cutoff],
    );
    events += deleted;
    if (deleted < SLICE) break;
  }
  // An hour's counts go once the whole hour is before the cutoff.
  const hourly = await count(ctx, `DELETE FROM client_error_hourly WHERE hour + interval '1 hour' <= $1`, [cutoff]);
  const groups = await count(ctx, `DELETE FROM client_error_groups WHERE last_seen_at < $1 AND status <> 'ignored'`, [cutoff]);
  return { events, hourly, groups };
}

/** Prunes every `intervalMs` until stopped (the jobs role starts it). */
export function startClientErrorPruner(
  dataSource: DataSource,
  logger: Logger,
  services: ContextServices,
  intervalMs = CLIENT_ERROR_PRUNE_INTERVAL_MS,
): PeriodicTask {
  return startPeriodicTask({
    logger,
    failureKey: 'client-errors:prune',
    failureMessage: 'client error pruning failed; retrying',
    intervalMs,
    firstDelayMs: 60_000,
    run: async () => {
      const ctx = systemContext(dataSource, uuidv7(), undefined, 'client-errors', services);
      const pruned = await pruneClientErrors(ctx, services.config.clientErrors.retentionDays);
      if (pruned.events || pruned.groups) logger.info(pruned, 'client errors: pruned past retention');
    },
  });
}
