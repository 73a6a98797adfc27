/**
 * Automations (docs/marketing.md, "Automations"): a trigger and 1 to 10 steps. A run is one customer
 * going through the steps; the marketing scheduler (marketing-scheduler.ts) sends each step once it
 * is due, through the customer message pipeline. Runs start by hand (POST …/trigger, any active
 * automation) or, for ORDER_PLACED and CUSTOMER_CREATED, from the orders and customers of the store
 * that the scheduler finds. Cancelling a run stops its remaining steps.
 */
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { requireStore } from '../../domain/store-access';
import type { InputOf } from '../http/typed-schema';
import { marketingError } from './marketing.errors';
import type { CreateAutomationDto, TriggerAutomationDto, UpdateAutomationDto } from './marketing.schemas';
import { automationView, runView, type AutomationRow, type AutomationStep, type RunRow } from './marketing.views';
import type { ListQuery } from './campaigns.service';
import { loadStoreScoped, tenantOf as tenantOfCaller } from './store-scoped';

export type CreateAutomationInput = InputOf<typeof CreateAutomationDto>;
export type UpdateAutomationInput = InputOf<typeof UpdateAutomationDto>;
export type TriggerAutomationInput = InputOf<typeof TriggerAutomationDto>;
export interface RunListQuery {
  cursor?: string;
  limit: number;
}

const notFound = () => marketingError('automation_not_found', 'The automation does not exist.');
const runNotFound = () => marketingError('automation_run_not_found', 'The automation run does not exist.');

const tenantOf = (ctx: RequestContext, missing: () => Error = notFound): string => tenantOfCaller(ctx, missing);

const first = <T>(result: unknown): T => (result as [T[]])[0][0]!;

const loadAutomation = (ctx: RequestContext, id: string, forWrite = false): Promise<AutomationRow> =>
  loadStoreScoped<AutomationRow>(ctx, 'marketing_automations', id, notFound, forWrite);

export async function listAutomations(ctx: RequestContext, query: ListQuery) {
  const apiKeyStore = ctx.actor.type === 'api_key' ? (ctx.actor.storeId ?? null) : null;
  const rows: AutomationRow[] = await ctx.manager.query(
    `SELECT * FROM marketing_automations
      WHERE tenant_id = $1 AND ($2::uuid IS NULL OR id < $2) AND ($3::uuid IS NULL OR store_id = $3)
      ORDER BY id DESC LIMIT $4`,
    [tenantOf(ctx), query.cursor?.toLowerCase() ?? null, apiKeyStore, query.limit + 1],
  );
  const page = rows.slice(0, query.limit);
  return { items: page.map(automationView), nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
}

export async function getAutomation(ctx: RequestContext, id: string) {
  return automationView(await loadAutomation(ctx, id));
}

export async function createAutomation(ctx: RequestContext, input: CreateAutomationInput) {
  return inTransaction(ctx, async (tx) => {
    const store = await requireStore(tx, input.storeId, { forWrite: true });
    const id = uuidv7();
    const rows: AutomationRow[] = await tx.manager.query(
      `INSERT INTO marketing_automations (id, tenant_id, store_id, name, trigger, steps, active)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
      [id, tenantOf(tx), store.id, input.name, input.trigger, JSON.stringify(input.steps), input.active],
    );
    const view = automationView(rows[0]!);
    await recordAudit(tx, { action: 'automation.create', resourceType: 'automation', resourceId: id, after: view });
    return view;
  });
}

export async function updateAutomation(ctx: RequestContext, id: string, input: UpdateAutomationInput) {
  return inTransaction(ctx, async (tx) => {
    const before = await loadAutomation(tx, id, true);
    // Turning an event automation on starts its runs from the events from now on, not the ones missed while off.
    const row = first<AutomationRow>(
      await tx.manager.query(
        `UPDATE marketing_automations SET
           name = coalesce($2, name), steps = coalesce($3::jsonb, steps), active = coalesce($4, active),
           events_since = CASE WHEN NOT active AND $4 THEN now() ELSE events_since END, updated_at = now()
         WHERE id = $1 RETURNING *`,
        [id, input.name ?? null, input.steps === undefined ? null : JSON.stringify(input.steps), input.active ?? null],
      ),
    );
    const view = automationView(row);
    await recordAudit(tx, {
      action: 'automation.update',
      resourceType: 'automation',
      resourceId: id,
      before: automationView(before),
      after: view,
    });
    return view;
  });
}

export async function deleteAutomation(ctx: RequestContext, id: string): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const before = await loadAutomation(tx, id, true);
    await tx.manager.query('DELETE FROM marketing_automations WHERE id = $1', [id]);
    await recordAudit(tx, { action: 'automation.delete', resourceType: 'automation', resourceId: id, before: automationView(before) });
  });
}

/**
 * Starts a run (inside the caller's transaction); its first step is due `delayMinutes` after `now`.
 * Returns null when a run with this trigger key exists already (an event starts one run only).
 */
export async function insertRun(
  tx: RequestContext,
  automation: Pick<AutomationRow, 'id' | 'tenant_id' | 'store_id' | 'steps'>,
  customerId: string,
  triggerKey: string,
  now: Date,
  id = uuidv7(),
): Promise<RunRow | null> {
  const firstStep = automation.steps[0] as AutomationStep;
  const rows: RunRow[] = await tx.manager.query(
    `INSERT INTO marketing_automation_runs (id, tenant_id, automation_id, store_id, customer_id, trigger_key, status, next_step, next_step_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'RUNNING', 0, $7::timestamptz + make_interval(mins => $8::int))
     ON CONFLICT (automation_id, trigger_key) DO NOTHING RETURNING *`,
    [id, automation.tenant_id, automation.id, automation.store_id, customerId, triggerKey, now, firstStep.delayMinutes],
  );
  const run = rows[0];
  if (!run) return null;
  await recordAudit(tx, {
    action: 'automation_run.start',
    resourceType: 'automation_run',
    resourceId: run.id,
    tenantId: automation.tenant_id,
    after: { automationId: automation.id, customerId, triggerKey },
  });
  return run;
}

export async function triggerAutomation(ctx: RequestContext, id: string, input: TriggerAutomationInput, now: Date = new Date()) {
  return inTransaction(ctx, async (tx) => {
    const automation = await loadAutomation(tx, id, true);
    if (!automation.active) throw marketingError('automation_inactive', 'The automation is inactive: activate it first.');
    const customers: unknown[] = await tx.manager.query('SELECT 1 FROM customers WHERE id = $1 AND store_id = $2 AND tenant_id = $3', [
      input.customerId.toLowerCase(),
      automation.store_id,
      automation.tenant_id,
    ]);
    if (customers.length === 0)
      throw marketingError('automation_customer_not_found', "The customer does not exist in the automation's store.", [
        { path: 'body.customerId', message: 'no such customer in the store' },
      ]);
    const runId = uuidv7();
    const run = await insertRun(tx, automation, input.customerId.toLowerCase(), `manual:${runId}`, now, runId);
    return runView(run!);
  });
}

export async function listRuns(ctx: RequestContext, id: string, query: RunListQuery) {
  const automation = await loadAutomation(ctx, id);
  const rows: RunRow[] = await ctx.manager.query(
    `SELECT * FROM marketing_automation_runs WHERE automation_id = $1 AND ($2::uuid IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
    [automation.id, query.cursor?.toLowerCase() ?? null, query.limit + 1],
  );
  const page = rows.slice(0, query.limit);
  return { items: page.map(runView), nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
}

export async function cancelRun(ctx: RequestContext, runId: string) {
  return inTransaction(ctx, async (tx) => {
    const rows: RunRow[] = await tx.manager.query('SELECT * FROM marketing_automation_runs WHERE id = $1 AND tenant_id = $2 FOR UPDATE', [
      runId,
      tenantOf(tx, runNotFound),
    ]);
    const run = rows[0];
    if (!run || (tx.actor.type === 'api_key' && tx.actor.storeId !== run.store_id)) throw runNotFound();
    await requireStore(tx, run.store_id, { forWrite: true });
    if (run.status !== 'RUNNING') throw marketingError('automation_run_finished', `The run is ${run.status}.`);
    const row = first<RunRow>(
      await tx.manager.query(
        `UPDATE marketing_automation_runs SET status = 'CANCELLED', next_step_at = NULL, finished_at = now(), updated_at = now()
          WHERE id = $1 RETURNING *`,
        [runId],
      ),
    );
    await recordAudit(tx, {
      action: 'automation_run.cancel',
      resourceType: 'automation_run',
      resourceId: runId,
      before: { status: 'RUNNING' },
      after: { status: 'CANCELLED' },
    });
    return runView(row);
  });
}
