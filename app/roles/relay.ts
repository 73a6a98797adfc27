/**
 * The relay role: hands committed outbox rows of every queue to their bee-queue queues
 * (relay/outbox-relay.ts). Safe to run in several processes at once (claims use SKIP LOCKED); it is
 * woken by the outbox trigger's notifications and polls as a fallback, makes what waited on a
 * dependency due the moment the dependency is back, and finds rows whose job was lost.
 */
import type { RunningRole } from '../lifecycle';
import type { Runtime } from '../runtime';
import { OutboxRelay } from '../../relay/outbox-relay';
import { catchUpWhenBack } from '../../relay/catch-up';

export async function startRelayRole(runtime: Runtime): Promise<RunningRole> {
  const relay = new OutboxRelay(runtime.dataSource, runtime.queues, runtime.config.outbox, runtime.logger);
  relay.start({ listenUrl: runtime.config.databaseUrl });
  catchUpWhenBack(runtime, relay);
  runtime.logger.info('outbox relay started');
  return { name: 'relay', stop: () => relay.stop() };
}
