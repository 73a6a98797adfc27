/**
 * Several api processes behind one port (API_PROCESSES > 1 with the api role; docs/architecture.md,
 * "Several API processes"). The process started by the operator becomes a small supervisor (the
 * node:cluster primary): it opens no database, Redis or Meilisearch connection and serves nothing
 * itself. It forks
 *
 * - API_PROCESSES api workers, each running the api role alone on the shared PORT (the primary holds
 *   the listening socket and hands each new connection to the next worker in turn), and
 * - one background worker running the other roles of ROLES (relay, indexer, vision, jobs) once,
 *   with HEALTH_PORT for their health endpoints when set, as a worker-only process always has.
 *
 * Every worker is the ordinary entry point with ROLES narrowed to its share, so it starts, drains and
 * stops exactly as a single process does (app/lifecycle.ts). A worker that exits while the primary is
 * not stopping is started again, after a delay that doubles with each quick failure in a row. On
 * SIGTERM or SIGINT the primary passes SIGTERM to every worker and exits 0 once all have exited
 * cleanly (1 when one did not, or when they were still running past SHUTDOWN_TIMEOUT_MS + 5 s).
 */
import cluster, { type Worker } from 'node:cluster';
import type Koa from 'koa';
import type { Logger } from 'pino';
import type { Config, ProcessRole } from '../lib/config';
import { createLogger } from './runtime';
import { serveClusterMetrics, shareMetricsWithCluster } from '../lib/metrics';

/** The header that names the api worker that answered (only when API_PROCESSES > 1). */
export const SERVED_BY_HEADER = 'X-Served-By';
/** First restart delay after a quick failure; doubled per quick failure in a row, up to RESTART_MAX_MS. */
export const RESTART_BASE_MS = 500;
export const RESTART_MAX_MS = 30_000;
/** A worker that ran at least this long before it exited is restarted at once (its failure count starts over). */
export const RESTART_STABLE_MS = 30_000;
/** How long past SHUTDOWN_TIMEOUT_MS the primary waits for its workers before it kills them. */
const SHUTDOWN_GRACE_MS = 5_000;

/** Whether this process is the supervisor of several api processes rather than a process that runs its roles. */
export function runsAsClusterPrimary(config: Pick<Config, 'apiProcesses' | 'roles'>): boolean {
  return cluster.isPrimary && config.apiProcesses > 1 && config.roles.includes('api');
}

/**
 * Names the api worker that answered in `X-Served-By` (its cluster worker number, 1, 2, …; a
 * restarted worker gets the next number). Nothing is added in a process that is not a cluster
 * worker, so API_PROCESSES=1 answers exactly as before. The number says nothing about the host: the
 * header only shows that the answers of one port come from several processes.
 */
export function servedBy(): Koa.Middleware {
  const worker = cluster.isWorker ? cluster.worker : undefined;
  if (!worker) return async (_ctx, next) => next();
  const id = String(worker.id);
  return async (ctx, next) => {
    ctx.set(SERVED_BY_HEADER, id);
    await next();
  };
}

/**
 * In a worker: answers /metrics for the whole cluster, and drains and exits when the primary is gone (its channel closes), so no api process is
 * left serving the port without a supervisor. Emitted, not sent: a worker already stopping (its
 * SIGTERM handler used) ignores it instead of being killed by a second signal.
 */
export function followPrimary(): void {
  if (!cluster.isWorker) return;
  // A scrape of any worker shows the whole cluster (lib/metrics.ts).
  shareMetricsWithCluster();
  process.once('disconnect', () => {
    process.emit('SIGTERM', 'SIGTERM');
  });
}

interface Slot {
  /** Shown in the logs: `api-1` … `api-N`, or `background`. */
  name: string;
  env: NodeJS.ProcessEnv;
  worker?: Worker;
  startedAt: number;
  /** Quick failures in a row (exits within RESTART_STABLE_MS of the start). */
  failures: number;
  restartTimer?: NodeJS.Timeout;
}

/** The delay before a slot's worker is started again after it exited having run `ranMs`. */
export function restartDelay(failuresBefore: number, ranMs: number): { delayMs: number; failures: number } {
  if (ranMs >= RESTART_STABLE_MS) return { delayMs: 0, failures: 0 };
  const failures = failuresBefore + 1;
  return { delayMs: Math.min(RESTART_MAX_MS, RESTART_BASE_MS * 2 ** (failures - 1)), failures };
}

/** The workers of a configuration: the api ones first, then the background one when other roles remain. */
export function workerSlots(config: Pick<Config, 'apiProcesses' | 'roles'>): Array<Pick<Slot, 'name' | 'env'>> {
  const others = config.roles.filter((role): role is Exclude<ProcessRole, 'api'> => role !== 'api');
  const slots: Array<Pick<Slot, 'name' | 'env'>> = [];
  for (let i = 1; i <= config.apiProcesses; i += 1)
    // The demo sandbox is made by one api process only (the others would race to create it).
    slots.push({ name: `api-${i}`, env: { ROLES: 'api', ...(i > 1 ? { DEMO_SANDBOX: 'false' } : {}) } });
  if (others.length) slots.push({ name: 'background', env: { ROLES: others.join(','), DEMO_SANDBOX: 'false' } });
  return slots;
}

/** Runs the supervisor: forks the workers, restarts those that die, stops them all on SIGTERM or SIGINT. */
export function runClusterPrimary(config: Config): void {
  const logger = createLogger(config, 'commerce-cluster');
  serveClusterMetrics();
  const slots: Slot[] = workerSlots(config).map((s) => ({ ...s, startedAt: 0, failures: 0 }));
  const bySlot = new Map<number, Slot>();
  let stopping = false;

  const start = (slot: Slot): void => {
    slot.restartTimer = undefined;
    slot.startedAt = Date.now();
    const worker = cluster.fork(slot.env);
    slot.worker = worker;
    bySlot.set(worker.id, slot);
    logger.info({ slot: slot.name, worker: worker.id, workerPid: worker.process.pid, roles: slot.env.ROLES }, 'worker started');
  };

  const failedStops: string[] = [];
  const finishIfDone = (): void => {
    if (slots.some((s) => s.worker)) return;
    if (failedStops.length) {
      logger.error({ slots: failedStops }, 'stopped; some workers did not stop cleanly');
      process.exit(1);
    }
    logger.info('stopped');
    process.exit(0);
  };

  cluster.on('exit', (worker, code, signal) => {
    const slot = bySlot.get(worker.id);
    bySlot.delete(worker.id);
    if (!slot) return;
    slot.worker = undefined;
    const exit = { slot: slot.name, worker: worker.id, workerPid: worker.process.pid, code, signal };
    if (stopping) {
      logger.info(exit, 'worker stopped');
      if (code !== 0) failedStops.push(slot.name);
      finishIfDone();
      return;
    }
    const { delayMs, failures } = restartDelay(slot.failures, Date.now() - slot.startedAt);
    slot.failures = failures;
    logger.warn({ ...exit, restartInMs: delayMs }, 'worker exited; starting it again');
    slot.restartTimer = setTimeout(() => start(slot), delayMs);
  });

  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    for (const slot of slots) {
      if (slot.restartTimer) clearTimeout(slot.restartTimer);
      slot.restartTimer = undefined;
      // Each worker drains its connections and hands back its jobs (app/lifecycle.ts).
      slot.worker?.process.kill('SIGTERM');
    }
    const deadline = setTimeout(() => killRemaining(logger, slots), config.shutdownTimeoutMs + SHUTDOWN_GRACE_MS);
    deadline.unref();
    finishIfDone();
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));

  for (const slot of slots) start(slot);
  logger.info({ apiProcesses: config.apiProcesses, roles: config.roles, port: config.port }, 'started');
}

function killRemaining(logger: Logger, slots: Slot[]): void {
  const left = slots.filter((s) => s.worker).map((s) => s.name);
  logger.error({ slots: left }, 'shutdown timed out; killing the workers left');
  for (const slot of slots) slot.worker?.process.kill('SIGKILL');
  process.exit(1);
}
