import type { Logger } from 'pino';
import type { DependencyMonitor } from '../storage/dependency-monitor';
import type { OutboxRelay } from './outbox-relay';

/**
 * When PostgreSQL, Redis or Meilisearch is back after an outage, what waited on it is retried at
 * once (OutboxRelay.retryNow) instead of when its growing backoff, or the reclaim of rows left in
 * flight, comes due: catching up then takes as long as the work, whatever the outage's length.
 */
export function catchUpWhenBack(
  runtime: { monitor: Pick<DependencyMonitor, 'onChange'>; logger: Logger },
  relay: Pick<OutboxRelay, 'retryNow'>,
): void {
  runtime.monitor.onChange((name, now, before) => {
    if (!now.up || !before || before.up) return;
    const retry = async (attempt: number): Promise<void> => {
      try {
        const moved = await relay.retryNow(before.since);
        runtime.logger.info({ dependency: name, ...moved }, 'outbox rows that waited on it are due now');
      } catch (error) {
        // Just back: the pool may still hand out a connection that died with the outage.
        if (attempt < 5) setTimeout(() => void retry(attempt + 1), 500).unref();
        else runtime.logger.warn({ err: error, dependency: name }, 'could not make waiting outbox rows due; they follow their backoff');
      }
    };
    void retry(1);
  });
}
