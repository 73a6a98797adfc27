/**
 * The marketing pass of the jobs worker (docs/marketing.md, "Sending"), every MARKETING_INTERVAL_MS,
 * on the clock it is given (tests move it):
 * 1. SCHEDULED campaigns whose scheduledAt has come start sending (their audience is taken);
 * 2. SENDING campaigns hand their `pending` recipients, in batches, to the customer message pipeline
 *    (`queueCustomerMessage`, dedupe key `campaign:<id>:<customerId>`), recording each outcome on the
 *    recipient row in the same transaction; with none left, the campaign is SENT. A pass that dies
 *    mid-batch rolls that batch back and the next pass sends it again; the dedupe key keeps anyone
 *    from being written to twice even if a recipient row were left `pending`;
 * 3. active ORDER_PLACED and CUSTOMER_CREATED automations start one run per new order or customer;
 * 4. due steps of RUNNING runs are sent (dedupe key `automation-run:<runId>:<step>`), the next step
 *    becomes due after its delay, and a run past its last step is COMPLETED.
 * Rows are claimed with FOR UPDATE SKIP LOCKED, so several workers share the work.
 */
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { recordAudit } from '../../storage/audit';
import { queueCustomerMessage, unsubscribeUrl } from '../../storage/customer-messages';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, systemContext, type ContextServices, type RequestContext } from '../../storage/request-context';
import { startSending } from './campaigns.service';
import { insertRun } from './automations.service';
import { mergeFields, type AutomationRow, type AutomationStep, type CampaignRow, type RunOutcome, type RunRow } from './marketing.views';
import { startPeriodicTask, type PeriodicTask } from '../../lib/periodic-task';

export const MARKETING_INTERVAL_MS = 5_000;
export const CAMPAIGN_BATCH = 500;
const RUN_BATCH = 200;
const EVENT_BATCH = 500;
/** How far back the event scan looks again, for orders and customers committed late. */
const EVENT_OVERLAP_MINUTES = 10;

export interface MarketingPass {
  campaignsStarted: number;
  messages: number;
  campaignsSent: number;
  runsStarted: number;
  stepsSent: number;
}

/** The body of a marketing e-mail: merged fields and the unsubscribe link. */
function marketingBody(
  ctx: RequestContext,
  body: string,
  who: { storeId: string; customerId: string; name: string | null; email: string },
): string {
  const link = unsubscribeUrl(ctx, { storeId: who.storeId, customerId: who.customerId, email: who.email });
  return `${mergeFields(body, who.name)}\n\n--\nUnsubscribe: ${link}`;
}

/** One batch of a SENDING campaign (its own transaction); the number of recipients handled, 0 when done. */
export async function sendCampaignBatch(ctx: RequestContext, campaignId: string, now: Date, batch = CAMPAIGN_BATCH): Promise<number> {
  return inTransaction(ctx, async (tx) => {
    const campaigns: CampaignRow[] = await tx.manager.query(
      "SELECT * FROM marketing_campaigns WHERE id = $1 AND status = 'SENDING' FOR UPDATE SKIP LOCKED",
      [campaignId],
    );
    const campaign = campaigns[0];
    if (!campaign) return 0;
    const scoped: RequestContext = { ...tx, tenantId: campaign.tenant_id };
    const recipients: Array<{ customer_id: string; name: string | null; email: string }> = await tx.manager.query(
      `SELECT r.customer_id, c.name, c.email FROM campaign_recipients r JOIN customers c ON c.id = r.customer_id
        WHERE r.campaign_id = $1 AND r.status = 'pending' ORDER BY r.customer_id LIMIT $2 FOR UPDATE OF r SKIP LOCKED`,
      [campaignId, batch],
    );
    for (const r of recipients) {
      const outcome = await queueCustomerMessage(scoped, {
        storeId: campaign.store_id,
        customerId: r.customer_id,
        category: campaign.category,
        channel: 'email',
        template: 'marketing_campaign',
        subject: mergeFields(campaign.subject, r.name),
        body: marketingBody(scoped, campaign.body, { storeId: campaign.store_id, customerId: r.customer_id, name: r.name, email: r.email }),
        dedupeKey: `campaign:${campaign.id}:${r.customer_id}`,
      });
      await tx.manager.query(
        'UPDATE campaign_recipients SET status = $3, message_id = $4, updated_at = now() WHERE campaign_id = $1 AND customer_id = $2',
        [campaign.id, r.customer_id, outcome.status, outcome.status === 'queued' ? outcome.messageId : null],
      );
    }
    if (recipients.length === 0) {
      const left: unknown[] = await tx.manager.query(
        "SELECT 1 FROM campaign_recipients WHERE campaign_id = $1 AND status = 'pending' LIMIT 1",
        [campaign.id],
      );
      if (left.length === 0) {
        await tx.manager.query("UPDATE marketing_campaigns SET status = 'SENT', finished_at = $2, updated_at = now() WHERE id = $1", [
          campaign.id,
          now,
        ]);
        await recordAudit(scoped, {
          action: 'campaign.sent',
          resourceType: 'campaign',
          resourceId: campaign.id,
          before: { status: 'SENDING' },
          after: { status: 'SENT' },
        });
      }
    }
    return recipients.length;
  });
}

async function startDueCampaigns(ctx: RequestContext, now: Date): Promise<number> {
  return inTransaction(ctx, async (tx) => {
    const due: CampaignRow[] = await tx.manager.query(
      `SELECT * FROM marketing_campaigns WHERE status = 'SCHEDULED' AND scheduled_at <= $1
        ORDER BY scheduled_at LIMIT 50 FOR UPDATE SKIP LOCKED`,
      [now],
    );
    for (const campaign of due) await startSending({ ...tx, tenantId: campaign.tenant_id }, campaign, now);
    return due.length;
  });
}

async function sendingCampaigns(ctx: RequestContext): Promise<string[]> {
  const rows: Array<{ id: string }> = await ctx.manager.query(
    "SELECT id FROM marketing_campaigns WHERE status = 'SENDING' ORDER BY started_at LIMIT 50",
  );
  return rows.map((r) => r.id);
}

/** Runs for new orders (ORDER_PLACED) and customers (CUSTOMER_CREATED) of the stores of active automations. */
async function startEventRuns(ctx: RequestContext, now: Date): Promise<number> {
  const automations: Array<AutomationRow & { events_since: Date }> = await ctx.manager.query(
    "SELECT * FROM marketing_automations WHERE active AND trigger IN ('ORDER_PLACED', 'CUSTOMER_CREATED') ORDER BY id",
  );
  let started = 0;
  for (const automation of automations) {
    const orders = automation.trigger === 'ORDER_PLACED';
    const events: Array<{ key: string; customer_id: string }> = await ctx.manager.query(
      orders
        ? `SELECT 'order:' || o.id AS key, o.customer_id FROM orders o
            WHERE o.store_id = $1 AND o.created_at >= $2 AND o.created_at <= $3
              AND NOT EXISTS (SELECT 1 FROM marketing_automation_runs r WHERE r.automation_id = $4 AND r.trigger_key = 'order:' || o.id)
            ORDER BY o.created_at LIMIT ${EVENT_BATCH}`
        : `SELECT 'customer:' || c.id AS key, c.id AS customer_id FROM customers c
            WHERE c.store_id = $1 AND c.created_at >= $2 AND c.created_at <= $3
              AND NOT EXISTS (SELECT 1 FROM marketing_automation_runs r WHERE r.automation_id = $4 AND r.trigger_key = 'customer:' || c.id)
            ORDER BY c.created_at LIMIT ${EVENT_BATCH}`,
      [automation.store_id, automation.events_since, now, automation.id],
    );
    await inTransaction(ctx, async (tx) => {
      for (const event of events) if (await insertRun(tx, automation, event.customer_id, event.key, now)) started++;
      if (events.length < EVENT_BATCH)
        await tx.manager.query(
          `UPDATE marketing_automations SET events_since = greatest(events_since, $2::timestamptz - make_interval(mins => ${EVENT_OVERLAP_MINUTES}))
            WHERE id = $1`,
          [automation.id, now],
        );
    });
  }
  return started;
}

/** Sends the due steps of running runs; the number of steps handled. */
export async function runDueSteps(ctx: RequestContext, now: Date): Promise<number> {
  let handled = 0;
  for (;;) {
    const n = await inTransaction(ctx, async (tx) => {
      const due: Array<RunRow & { steps: AutomationStep[]; name: string | null; email: string }> = await tx.manager.query(
        `SELECT r.*, a.steps, c.name, c.email FROM marketing_automation_runs r
           JOIN marketing_automations a ON a.id = r.automation_id JOIN customers c ON c.id = r.customer_id
          WHERE r.status = 'RUNNING' AND r.next_step_at <= $1
          ORDER BY r.next_step_at LIMIT ${RUN_BATCH} FOR UPDATE OF r SKIP LOCKED`,
        [now],
      );
      for (const run of due) {
        const scoped: RequestContext = { ...tx, tenantId: run.tenant_id };
        const step = run.steps[run.next_step];
        const outcomes: RunOutcome[] = [...run.outcomes];
        if (step) {
          const outcome = await queueCustomerMessage(scoped, {
            storeId: run.store_id,
            customerId: run.customer_id,
            category: step.category,
            channel: 'email',
            template: 'marketing_automation',
            subject: mergeFields(step.subject, run.name),
            body: marketingBody(scoped, step.body, {
              storeId: run.store_id,
              customerId: run.customer_id,
              name: run.name,
              email: run.email,
            }),
            dedupeKey: `automation-run:${run.id}:${run.next_step}`,
          });
          outcomes.push({ step: run.next_step, status: outcome.status, at: now.toISOString() });
        }
        const next = run.steps[run.next_step + 1];
        await tx.manager.query(
          `UPDATE marketing_automation_runs SET next_step = $2, outcomes = $3::jsonb,
             status = CASE WHEN $4::int IS NULL THEN 'COMPLETED' ELSE 'RUNNING' END,
             next_step_at = CASE WHEN $4::int IS NULL THEN NULL ELSE $5::timestamptz + make_interval(mins => $4::int) END,
             finished_at = CASE WHEN $4::int IS NULL THEN $5::timestamptz ELSE NULL END, updated_at = now()
           WHERE id = $1`,
          [run.id, run.next_step + 1, JSON.stringify(outcomes), next ? next.delayMinutes : null, now],
        );
        await recordAudit(scoped, {
          action: 'automation_run.step',
          resourceType: 'automation_run',
          resourceId: run.id,
          after: { step: run.next_step, outcome: outcomes[outcomes.length - 1]?.status ?? null, completed: !next },
        });
      }
      return due.length;
    });
    handled += n;
    if (n < RUN_BATCH) return handled;
  }
}

export async function runMarketingPass(ctx: RequestContext, now: Date = new Date()): Promise<MarketingPass> {
  const pass: MarketingPass = { campaignsStarted: 0, messages: 0, campaignsSent: 0, runsStarted: 0, stepsSent: 0 };
  pass.campaignsStarted = await startDueCampaigns(ctx, now);
  for (const id of await sendingCampaigns(ctx)) {
    for (;;) {
      const n = await sendCampaignBatch(ctx, id, now);
      pass.messages += n;
      if (n === 0) break;
    }
    const [row] = await ctx.manager.query('SELECT status FROM marketing_campaigns WHERE id = $1', [id]);
    if ((row as { status?: string } | undefined)?.status === 'SENT') pass.campaignsSent++;
  }
  pass.runsStarted = await startEventRuns(ctx, now);
  pass.stepsSent = await runDueSteps(ctx, now);
  return pass;
}

/** Runs a pass every MARKETING_INTERVAL_MS until stopped (the jobs role starts it). */
export function startMarketingScheduler(dataSource: DataSource, logger: Logger, services: ContextServices): PeriodicTask {
  return startPeriodicTask({
    logger,
    failureKey: 'marketing:scheduler',
    failureMessage: 'marketing pass failed; retrying',
    intervalMs: MARKETING_INTERVAL_MS,
    firstDelayMs: MARKETING_INTERVAL_MS,
    run: async () => {
      const pass = await runMarketingPass(systemContext(dataSource, uuidv7(), undefined, 'marketing-scheduler', services));
      if (pass.campaignsStarted || pass.messages || pass.runsStarted || pass.stepsSent) logger.info(pass, 'marketing: messages sent');
    },
  });
}
