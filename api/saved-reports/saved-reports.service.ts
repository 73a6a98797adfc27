/**
 * Saved reports of a store (docs/insight.md, "Saved reports"): list, create and delete, each write
 * audited in its transaction. A store keeps at most 100. Another tenant's report, and for a store API
 * key a report of another store, answers 404 saved_report_not_found.
 */
import { requireStore } from '../../domain/store-access';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { savedReportsError } from './saved-reports.errors';
import { REPORT_PARAMETERS, SAVED_REPORTS_PER_STORE, type CreateSavedReportInput } from './saved-reports.schemas';
import { NEXT_DUE, SAVED_REPORT_COLUMNS, type SavedReportRow } from './saved-reports.sql';

export function savedReportView(row: SavedReportRow) {
  return {
    id: row.id,
    storeId: row.store_id,
    name: row.name,
    report: row.report,
    parameters: row.parameters,
    schedule: row.schedule,
    hour: row.hour,
    timeZone: row.time_zone,
    nextDueAt: row.next_due_at?.toISOString() ?? null,
    lastDueAt: row.last_due_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export async function listSavedReports(ctx: RequestContext, query: { storeId: string }) {
  const store = await requireStore(ctx, query.storeId);
  const rows = (await ctx.manager.query(
    `SELECT ${SAVED_REPORT_COLUMNS} FROM saved_reports WHERE tenant_id = $1 AND store_id = $2 ORDER BY created_at, id`,
    [ctx.tenantId, store.id],
  )) as SavedReportRow[];
  return { items: rows.map(savedReportView) };
}

function checkInput(input: CreateSavedReportInput): void {
  if (input.schedule === 'NONE') {
    for (const field of ['hour', 'timeZone'] as const)
      if (input[field] !== undefined)
        throw savedReportsError('saved_report_schedule_invalid', `A report with schedule NONE takes no ${field}.`, [
          { path: `body.${field}`, message: 'not allowed with schedule NONE' },
        ]);
  } else if (input.hour === undefined) {
    throw savedReportsError('saved_report_schedule_invalid', `A ${input.schedule} report needs an hour.`, [
      { path: 'body.hour', message: 'is required' },
    ]);
  }
  const { from, to } = input.parameters as { from?: string; to?: string };
  if (input.report === 'PROFIT_LOSS' && from && to && to < from)
    throw savedReportsError('saved_report_period_invalid', 'parameters.to must not be before parameters.from.', [
      { path: 'body.parameters.to', message: 'must not be before from' },
    ]);
}

export async function createSavedReport(ctx: RequestContext, input: CreateSavedReportInput, now = new Date()) {
  checkInput(input);
  // The body is validated already; this fills in the report's defaults when parameters were left out.
  const parameters = REPORT_PARAMETERS[input.report].validate(input.parameters).value as Record<string, unknown>;
  return inTransaction(ctx, async (tx) => {
    const store = await requireStore(tx, input.storeId, { forWrite: true, lock: true });
    const [{ count }] = (await tx.manager.query(`SELECT count(*)::int AS count FROM saved_reports WHERE store_id = $1`, [store.id])) as [
      { count: number },
    ];
    if (count >= SAVED_REPORTS_PER_STORE)
      throw savedReportsError('saved_report_limit_reached', `The store already keeps ${SAVED_REPORTS_PER_STORE} saved reports.`);
    const scheduled = input.schedule !== 'NONE';
    const timeZone = scheduled ? (input.timeZone ?? (store.timezone || 'UTC')) : null;
    let nextDueAt: Date | null = null;
    if (scheduled) {
      const [next] = (await tx.manager.query(NEXT_DUE, [now, timeZone, input.schedule, input.hour])) as [{ next_due_at: Date }];
      nextDueAt = next.next_due_at;
    }
    const [row] = (await tx.manager.query(
      `INSERT INTO saved_reports (id, tenant_id, store_id, name, report, parameters, schedule, hour, time_zone, next_due_at, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${SAVED_REPORT_COLUMNS}`,
      [
        uuidv7(),
        tx.tenantId,
        store.id,
        input.name,
        input.report,
        JSON.stringify(parameters),
        input.schedule,
        scheduled ? input.hour : null,
        timeZone,
        nextDueAt,
        tx.actor.type === 'user' ? tx.actor.id : null,
      ],
    )) as SavedReportRow[];
    const view = savedReportView(row!);
    await recordAudit(tx, { action: 'saved_report.create', resourceType: 'saved_report', resourceId: view.id, after: view });
    return view;
  });
}

export async function deleteSavedReport(ctx: RequestContext, id: string): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const [row] = (await tx.manager.query(`SELECT ${SAVED_REPORT_COLUMNS} FROM saved_reports WHERE id = $1 AND tenant_id = $2 FOR UPDATE`, [
      id.toLowerCase(),
      tx.tenantId,
    ])) as SavedReportRow[];
    if (!row || (tx.actor.type === 'api_key' && tx.actor.storeId !== row.store_id))
      throw savedReportsError('saved_report_not_found', 'The saved report does not exist.');
    await tx.manager.query(`DELETE FROM saved_reports WHERE id = $1`, [row.id]);
    await recordAudit(tx, {
      action: 'saved_report.delete',
      resourceType: 'saved_report',
      resourceId: row.id,
      before: savedReportView(row),
    });
  });
}
