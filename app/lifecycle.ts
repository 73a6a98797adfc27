/**
 * Process roles and graceful shutdown. On SIGTERM or SIGINT the process is marked as shutting down
 * (every /readyz answers 503 at once), then all roles stop together: each takes no new work at once
 * and finishes or hands back what is in flight (within SHUTDOWN_TIMEOUT_MS). The health server stops
 * last, the pools close and the process exits.
 */
import type { Runtime } from './runtime';
import { markShuttingDown } from '../lib/process-state';

export interface RunningRole {
  name: string;
  stop(): Promise<void>;
}

export function installShutdown(runtime: Runtime, roles: RunningRole[], health?: RunningRole): void {
  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    markShuttingDown();
    runtime.logger.info({ signal }, 'shutting down');
    const deadline = setTimeout(() => {
      runtime.logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, runtime.config.shutdownTimeoutMs + 2_000);
    deadline.unref();
    // Together, not one after the other: the api drains its requests while the workers hand back
    // their jobs. Nothing depends on the order: what the api still writes waits in the outbox.
    const stop = (role: RunningRole): Promise<void> =>
      role.stop().catch((error: unknown) => runtime.logger.error({ err: error, role: role.name }, 'role did not stop cleanly'));
    await Promise.all(roles.map(stop));
    if (health) await stop(health);
    await runtime.close().catch((error: unknown) => runtime.logger.error({ err: error }, 'closing pools failed'));
    runtime.logger.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}
