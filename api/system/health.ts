/**
 * Liveness and readiness, per process role.
 *
 * Liveness (`/livez`, also `/healthz`): the process answers; nothing else. It stays 200 while the
 * process shuts down, so an orchestrator waits for it to finish instead of killing it.
 *
 * Readiness (`/readyz`): "can this role do its job now". Each role needs some dependencies
 * (ROLE_NEEDS); the others are reported but do not make it unready:
 * - api: PostgreSQL (with every migration applied) and Meilisearch. Redis is not needed: writes go to
 *   the outbox in PostgreSQL and reach the queues once Redis is back; only rate limits relax meanwhile.
 * - relay: PostgreSQL (the outbox) and Redis (the queues it hands rows to).
 * - indexer: PostgreSQL, Redis (its queue) and Meilisearch (what it writes to).
 * - jobs, vision: PostgreSQL and Redis (their queues).
 * Every role is unready from the moment the process starts shutting down.
 *
 * The probes run on connections of their own (storage/dependency-probes.ts), in parallel, each with a
 * deadline, so the answer comes within about a second even when a service hangs or the pools are busy.
 */
import type { ProcessRole } from '../../lib/config';
import type { DependencyMonitor } from '../../storage/dependency-monitor';
import { PROBE_DEADLINE_MS } from '../../storage/dependency-monitor';
import type { DependencyName } from '../../storage/dependency-probes';
import { isShuttingDown } from '../../lib/process-state';

export interface CheckResult {
  status: 'up' | 'down';
  durationMs: number;
  error?: string;
}

export type CheckName = DependencyName | 'migrations';

export const ROLE_NEEDS: Record<ProcessRole, readonly CheckName[]> = {
  api: ['postgres', 'migrations', 'meilisearch'],
  relay: ['postgres', 'migrations', 'redis'],
  indexer: ['postgres', 'migrations', 'redis', 'meilisearch'],
  jobs: ['postgres', 'migrations', 'redis'],
  vision: ['postgres', 'migrations', 'redis'],
};

export interface ReadinessDeps {
  monitor: DependencyMonitor;
}

export interface RoleReadiness {
  ready: boolean;
  /** What the role needs and cannot reach. */
  missing: CheckName[];
}

export interface Readiness {
  ready: boolean;
  shuttingDown: boolean;
  checks: Record<CheckName, CheckResult>;
  roles: Partial<Record<ProcessRole, RoleReadiness>>;
}

async function migrationsCheck(monitor: DependencyMonitor): Promise<CheckResult> {
  const started = Date.now();
  try {
    await monitor.probes.postgres.checkMigrations(PROBE_DEADLINE_MS);
    return { status: 'up', durationMs: Date.now() - started };
  } catch (error) {
    return { status: 'down', durationMs: Date.now() - started, error: (error as Error).message };
  }
}

/** Probes now and says whether each of `roles` can work; `ready` is true when all of them can. */
export async function checkReadiness(deps: ReadinessDeps, roles: readonly ProcessRole[]): Promise<Readiness> {
  const [states, migrations] = await Promise.all([deps.monitor.checkNow(), migrationsCheck(deps.monitor)]);
  const dependency = (name: DependencyName): CheckResult => {
    const state = states.get(name);
    if (!state) return { status: 'down', durationMs: 0, error: 'not probed yet' };
    return state.up ? { status: 'up', durationMs: state.durationMs } : { status: 'down', durationMs: state.durationMs, error: state.error };
  };
  const checks: Record<CheckName, CheckResult> = {
    postgres: dependency('postgres'),
    migrations,
    redis: dependency('redis'),
    meilisearch: dependency('meilisearch'),
  };
  const shuttingDown = isShuttingDown();
  const perRole: Partial<Record<ProcessRole, RoleReadiness>> = {};
  for (const role of roles) {
    const missing = ROLE_NEEDS[role].filter((name) => checks[name].status === 'down');
    perRole[role] = { ready: !shuttingDown && missing.length === 0, missing };
  }
  return { ready: roles.every((role) => perRole[role]!.ready), shuttingDown, checks, roles: perRole };
}

/** The detail of a 503 readiness answer: what is missing, or that the process is shutting down. */
export function notReadyDetail(readiness: Readiness): string {
  if (readiness.shuttingDown) return 'Not ready: shutting down.';
  const missing = [...new Set(Object.values(readiness.roles).flatMap((r) => r!.missing))];
  return `Not ready: ${missing.join(', ')} unavailable.`;
}
