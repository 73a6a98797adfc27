/**
 * Process roles and graceful shutdown. On SIGTERM or SIGINT each role stops taking new work, finishes
 * what is in flight (within SHUTDOWN_TIMEOUT_MS), then the pools close and the process exits.
 */
import type { Runtime } from './runtime';

export interface RunningRole {
  name: string;
  stop(): Promise<void>;
}

export function installShutdown(runtime: Runtime, roles: RunningRole[]): void {
  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    runtime.logger.info({ signal }, 'shutting down');
    const deadline = setTimeout(() => {
      runtime.logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, runtime.config.shutdownTimeoutMs + 2_000);
    deadline.unref();
    // Reverse order: the api stops taking requests before the workers stop taking jobs.
    for (const role of [...roles].reverse()) {
      await role.stop().catch((error: unknown) => runtime.logger.error({ err: error, role: role.name }, 'role did not stop cleanly'));
    }
    await runtime.close().catch((error: unknown) => runtime.logger.error({ err: error }, 'closing pools failed'));
    runtime.logger.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}
