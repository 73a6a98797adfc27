/**
 * Cache invalidation between processes: the indexer publishes the id of every store whose index it
 * changed (after Meilisearch confirmed the change), on a Redis channel; every api process listens
 * and drops what it cached for that store. While the listener is not connected, the api process
 * neither serves nor fills its cache (it cannot know what changed meanwhile), and when it connects
 * again it starts from an empty cache.
 */
import type Redis from 'ioredis';
import type { Logger } from 'pino';
import { calmLog } from '../lib/calm-log';

declare module '../storage/request-context' {
  interface ContextServices {
    /**
     * Announces store changes to every api process (this one too), for a write whose search effect
     * is not announced by the indexer (absent in contexts built for storage-level tests).
     */
    announceStoreChanges?: (storeIds: Iterable<string>) => Promise<void>;
  }
}

export const invalidationChannel = (queuePrefix: string): string => `${queuePrefix}:search:invalidate`;

/** Publishes store changes; never throws (cached answers then expire by their TTL). */
export function storeChangePublisher(redis: Redis, channel: string, logger: Logger): (storeIds: Iterable<string>) => Promise<void> {
  return async (storeIds) => {
    for (const storeId of new Set(storeIds)) {
      try {
        await redis.publish(channel, storeId.toLowerCase());
      } catch (error) {
        calmLog(logger).warn(
          'search:announce',
          error,
          { storeId },
          'search: could not announce a store change (cached answers expire by TTL)',
        );
      }
    }
  };
}

export interface InvalidationTarget {
  invalidate(storeId: string): void;
  cacheLive: boolean;
}

/**
 * Subscribes `target` to the store changes over `subscriber`, a connection that does nothing else
 * (the composition root's); returns a function that stops listening and closes it.
 */
export function listenForStoreChanges(subscriber: Redis, channel: string, target: InvalidationTarget, logger: Logger): () => Promise<void> {
  subscriber.on('error', (error) => logger.debug({ err: error }, 'search: invalidation listener connection error'));
  subscriber.on('ready', () => {
    subscriber
      .subscribe(channel)
      .then(() => {
        target.invalidate('*');
        target.cacheLive = true;
      })
      .catch((error: unknown) => calmLog(logger).warn('search:subscribe', error, {}, 'search: could not subscribe to store changes'));
  });
  subscriber.on('close', () => {
    target.cacheLive = false;
  });
  subscriber.on('message', (_channel: string, storeId: string) => target.invalidate(storeId));
  return async () => {
    target.cacheLive = false;
    subscriber.disconnect();
  };
}
