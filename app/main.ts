/**
 * The process entry point. ROLES (default all five) picks what this process runs: `npm start` runs
 * api, relay, indexer, vision and jobs together; a deployment can run each alone and scale it out,
 * e.g. `ROLES=indexer node dist/app/main.js`. Each role's entry point is app/roles/<role>.ts.
 */
import { loadConfigOrExit, type ProcessRole } from '../lib/config';
import { installShutdown, type RunningRole } from './lifecycle';
import { createRuntime, type Runtime } from './runtime';
import { startApiRole } from './roles/api';
import { startJobsRole } from './roles/jobs';
import { startIndexerRole } from './roles/indexer';
import { startVisionRole } from './roles/vision';
import { startRelayRole } from './roles/relay';
import { ensureDemoSandbox } from '../api/sandbox/demo-sandbox';
import { startHealthServer } from './health-server';
import { followPrimary, runClusterPrimary, runsAsClusterPrimary } from './cluster';
import { startMetricsServer } from './metrics';

const STARTERS: Record<ProcessRole, (runtime: Runtime) => Promise<RunningRole>> = {
  relay: startRelayRole,
  indexer: startIndexerRole,
  vision: startVisionRole,
  jobs: startJobsRole,
  api: startApiRole,
};

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  // API_PROCESSES > 1: this process only supervises the workers that run the roles (app/cluster.ts).
  if (runsAsClusterPrimary(config)) return runClusterPrimary(config);
  followPrimary();
  // A SIGTERM or SIGINT while the roles start is held, then stops them like any other once the
  // shutdown handlers are in place (the default action would kill the process half-started).
  let heldSignal: NodeJS.Signals | undefined;
  const hold = (signal: NodeJS.Signals): void => void (heldSignal ??= signal);
  process.on('SIGTERM', hold);
  process.on('SIGINT', hold);
  const runtime = await createRuntime(config, `commerce-${config.roles.join('+')}`);
  runtime.monitor.start();
  const roles: RunningRole[] = [];
  // Workers first, api last: the api only takes traffic once everything behind it runs.
  for (const name of (['relay', 'indexer', 'vision', 'jobs', 'api'] as const).filter((r) => config.roles.includes(r))) {
    roles.push(await STARTERS[name](runtime));
  }
  // /metrics on a listener of its own when METRICS_PORT is set (stopped with the roles).
  if (config.metricsPort) roles.push(await startMetricsServer(runtime, config.metricsPort));
  // A process without the api serves its health endpoints on HEALTH_PORT, when set.
  const health =
    !config.roles.includes('api') && config.healthPort ? await startHealthServer(runtime, config.roles, config.healthPort) : undefined;
  installShutdown(runtime, roles, health);
  process.off('SIGTERM', hold);
  process.off('SIGINT', hold);
  if (heldSignal) process.emit(heldSignal, heldSignal);
  runtime.logger.info({ roles: config.roles }, 'started');
  if (config.demoSandbox && config.roles.includes('api')) void ensureDemoSandbox(runtime);
}

main().catch((error: unknown) => {
  process.stderr.write(`failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
