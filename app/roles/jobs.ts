/**
 * The jobs role: consumes the `jobs` queue (bulk edits, e-mail delivery), `import` and `export` (product imports and
 * exports) and `webhooks` (event fan-out to deliveries); it also runs the webhook dispatcher, which
 * sends due deliveries, and the pricing window scheduler.
 *
 * Work reaches the `jobs` queue as outbox rows (queue `jobs`), one aggregate per job: the relay turns
 * them into bee-queue jobs and `createJobsHandler` picks the handler by the row's aggregate type. A
 * handler must be idempotent and resumable: a job whose worker died is delivered again (outbox
 * reclaim). To add a kind of job, add its event to JobsEvent (storage/outbox-events.ts): the build
 * then fails until `jobHandlers` has its entry and the switch below its case.
 */
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import type { RunningRole } from '../lifecycle';
import { consumerDeps, type Runtime } from '../runtime';
import { startConsumers, type ConsumerTable, type DeliveryHandler } from '../../storage/consumers';
import type { OutboxDelivery } from '../../storage/outbox';
import type { AggregateTypeOf } from '../../storage/outbox-events';
import type { ContextServices } from '../../storage/request-context';
import { runBulkEditJob } from '../../api/product-bulk-edits/product-bulk-edits.job';
import { transferJobsHandler } from '../../api/imports/transfer-jobs.service';
import { startPricingScheduler } from '../../api/pricing/reprice';
import { startAbandonedChallengeSweeper } from '../../api/storefront-checkout/abandoned-challenges';
import { startDunningScheduler } from '../../api/billing/dunning-scheduler';
import { startDigestScheduler } from '../../api/notification-preferences/digest-scheduler';
import { startMarketingScheduler } from '../../api/marketing/marketing-scheduler';
import { startSavedReportScheduler } from '../../api/saved-reports/saved-reports.scheduler';
import { startInsightFolder } from '../../api/bi/insight-fold.scheduler';
import { startClientErrorPruner } from '../../api/client-errors/client-errors.pruner';
import { webhookEventsHandler, WebhookDispatcher } from '../../api/webhooks/dispatcher';
import { deliverProviderCallback } from '../../api/payments/providers/callback-delivery';

/** What a job handler may use. */
export interface JobDeps {
  dataSource: DataSource;
  logger: Logger;
  services?: ContextServices;
}

/** The handler of one aggregate type of the `jobs` queue. */
export type JobHandler<A extends AggregateTypeOf<'jobs'> = AggregateTypeOf<'jobs'>> = (
  delivery: Extract<OutboxDelivery<'jobs'>, { aggregateType: A }>,
  deps: JobDeps,
) => Promise<void>;

/** Handlers of the `jobs` queue by outbox aggregate type: one entry per aggregate type of JobsEvent. */
export const jobHandlers: { [A in AggregateTypeOf<'jobs'>]: JobHandler<A> } = {
  product_bulk_edit: runBulkEditJob,
  // An e-mail queued by the outbound port (storage/outbound-messages.ts), handed to SMTP after its commit.
  outbound_message: async (delivery, deps) => {
    if (!deps.services) throw new Error('the outbound_message job needs the process services');
    await deps.services.outbound.deliver(deps.dataSource, delivery.aggregateId);
  },
  // A payment-simulator callback (api/payments/providers/callback-delivery.ts): POSTed signed; a failure is retried with backoff.
  provider_callback: async (delivery, deps) => {
    await deliverProviderCallback(deps.dataSource, deps.services, delivery.aggregateId);
  },
};

/** The `jobs` queue consumer: dispatches each delivery to the handler of its aggregate type. */
export function createJobsHandler(deps: JobDeps): DeliveryHandler<'jobs'> {
  return async (delivery) => {
    switch (delivery.aggregateType) {
      case 'product_bulk_edit':
        await jobHandlers.product_bulk_edit(delivery, deps);
        return;
      case 'outbound_message':
        await jobHandlers.outbound_message(delivery, deps);
        return;
      case 'provider_callback':
        await jobHandlers.provider_callback(delivery, deps);
        return;
      default: {
        // Every aggregate type of the queue is handled above. A row of an older version with another
        // one has nothing to process it: fail loudly; the outbox keeps the rows and retries with backoff.
        const _exhaustive: never = delivery;
        throw new Error(`no jobs handler for aggregate type ${String((_exhaustive as OutboxDelivery<'jobs'>).aggregateType)}`);
      }
    }
  };
}

/** Consumers of this role, one per queue it works on. */
export function jobsConsumers(runtime: Runtime): ConsumerTable {
  return {
    jobs: {
      handle: createJobsHandler({ dataSource: runtime.dataSource, logger: runtime.logger, services: runtime.services }),
      concurrency: 2,
    },
    // Product imports and exports (api/imports/transfer-jobs.service.ts): one at a time per worker.
    import: { handle: transferJobsHandler(runtime.dataSource, runtime.services), concurrency: 1 },
    export: { handle: transferJobsHandler(runtime.dataSource, runtime.services), concurrency: 1 },
    // Webhook events (api/webhooks/events.ts): fanned out to one delivery per subscribed endpoint; the dispatcher sends them.
    webhooks: { handle: webhookEventsHandler(runtime.dataSource), concurrency: 4 },
  };
}

export async function startJobsRole(runtime: Runtime): Promise<RunningRole> {
  const consumers = startConsumers(consumerDeps(runtime), jobsConsumers(runtime));
  // Sends due webhook deliveries from PostgreSQL (retries, reclaim after a crash): api/webhooks/dispatcher.ts.
  const dispatcher = new WebhookDispatcher(
    runtime.dataSource,
    { ...runtime.config.webhooks, appSecret: runtime.config.appSecret },
    runtime.logger,
  );
  dispatcher.start();
  // Pricing windows (rules, flash sales) that open or close re-index their products on time: api/pricing/reprice.ts.
  const pricingScheduler = startPricingScheduler(runtime.dataSource, runtime.logger, runtime.config.pricingSchedulerIntervalMs);
  // Storefront checkouts left on the 3-D Secure page: declined and their stock released once the challenge expired.
  const checkoutSweeper = startAbandonedChallengeSweeper(runtime.dataSource, runtime.logger);
  // Dunning steps on their schedule and cancelled subscriptions ending: api/billing/dunning-scheduler.ts.
  const dunningScheduler = startDunningScheduler(runtime.dataSource, runtime.logger, runtime.services);
  // Held customer e-mail sent as one digest per customer on the tenant's schedule: api/notification-preferences/digest-scheduler.ts.
  const digestScheduler = startDigestScheduler(runtime.dataSource, runtime.logger, runtime.services);
  // Scheduled saved reports emit saved_report.due when they come due: api/saved-reports/saved-reports.scheduler.ts.
  const savedReportScheduler = startSavedReportScheduler(runtime.dataSource, runtime.logger, runtime.services);
  // The deltas of the insight summaries folded in every few seconds: api/bi/insight-fold.scheduler.ts.
  const insightFolder = startInsightFolder(runtime.dataSource, runtime.logger);
  // Campaign batches, scheduled campaigns and automation steps on their schedule: api/marketing/marketing-scheduler.ts.
  const marketingScheduler = startMarketingScheduler(runtime.dataSource, runtime.logger, runtime.services);
  // Client errors past CLIENT_ERROR_RETENTION_DAYS removed every hour: api/client-errors/client-errors.pruner.ts.
  const clientErrorPruner = startClientErrorPruner(runtime.dataSource, runtime.logger, runtime.services);
  runtime.logger.info({ consumers: consumers.queues }, 'jobs worker started');
  return {
    name: 'jobs',
    stop: async () => {
      await pricingScheduler.stop();
      await checkoutSweeper.stop();
      await dunningScheduler.stop();
      await digestScheduler.stop();
      await marketingScheduler.stop();
      await savedReportScheduler.stop();
      await insightFolder.stop();
      await clientErrorPruner.stop();
      await dispatcher.stop();
      await consumers.stop(runtime.config.shutdownTimeoutMs);
    },
  };
}
