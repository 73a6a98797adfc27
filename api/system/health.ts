/**
 * Liveness and readiness. /healthz says the process answers; /readyz says every backing service is
 * reachable and the schema is current. Checks run in parallel, each with a deadline, so the answer
 * comes within a second even when a service hangs.
 */
import type { DataSource } from 'typeorm';
import type { Meilisearch } from 'meilisearch';
import { migrationsApplied } from '../../storage/data-source';
import { pingRedis } from '../../storage/redis-probe';
import { withTimeout } from '../../storage/queues';

export interface CheckResult {
  status: 'up' | 'down';
  durationMs: number;
  error?: string;
}

export interface ReadinessDeps {
  dataSource: DataSource;
  redisUrl: string;
  meiliAdmin: Meilisearch;
}

/** Each check's deadline; all run in parallel, so /readyz answers within about 0.7 s even when one hangs. */
const CHECK_DEADLINE_MS = 700;

async function timed(check: () => Promise<void>): Promise<CheckResult> {
  const started = Date.now();
  try {
    await withTimeout(check(), CHECK_DEADLINE_MS, 'check');
    return { status: 'up', durationMs: Date.now() - started };
  } catch (error) {
    return { status: 'down', durationMs: Date.now() - started, error: (error as Error).message };
  }
}

export async function checkReadiness(deps: ReadinessDeps): Promise<{ ready: boolean; checks: Record<string, CheckResult> }> {
  const [postgres, migrations, redis, meilisearch] = await Promise.all([
    timed(async () => {
      await deps.dataSource.query('SELECT 1');
    }),
    timed(async () => {
      if (!(await migrationsApplied(deps.dataSource))) throw new Error('migrations are pending');
    }),
    timed(() => pingRedis(deps.redisUrl, CHECK_DEADLINE_MS)),
    timed(async () => {
      const health = await deps.meiliAdmin.health();
      if (health.status !== 'available') throw new Error(`status ${health.status}`);
    }),
  ]);
  const checks = { postgres, migrations, redis, meilisearch };
  return { ready: Object.values(checks).every((c) => c.status === 'up'), checks };
}
