/**
 * The saved report scheduler of the jobs worker (docs/insight.md, "Saved reports"): every minute it
 * claims the scheduled reports whose next_due_at has passed (FOR UPDATE SKIP LOCKED, so several
 * workers share the work), emits one `saved_report.due` webhook event per report (through the outbox,
 * in the same transaction) with the period the run covers, records saved_report.due in the audit log
 * and moves next_due_at to the schedule's next time after now. A worker that was down emits one event
 * for the run it missed, not one per missed run. `now` is a parameter so tests drive the clock.
 */
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, systemContext, type ContextServices, type RequestContext } from '../../storage/request-context';
import { emitEvent } from '../webhooks/events';
import { NEXT_DUE, PERIOD_OF_RUN, SAVED_REPORT_COLUMNS, type SavedReportRow } from './saved-reports.sql';
import { startPeriodicTask, type PeriodicTask } from '../../lib/periodic-task';

const BATCH = 100;
export const SAVED_REPORT_SCHEDULER_INTERVAL_MS = 60_000;

/** Emits the due events of the reports due at `now`; answers how many. */
export async function runSavedReportPass(ctx: RequestContext, now: Date = new Date()): Promise<number> {
  let emitted = 0;
  for (;;) {
    const claimed = await inTransaction(ctx, async (tx) => {
      const due = (await tx.manager.query(
        `SELECT ${SAVED_REPORT_COLUMNS} FROM saved_reports WHERE next_due_at <= $1
          ORDER BY next_due_at, id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`,
        [now],
      )) as SavedReportRow[];
      for (const row of due) {
        const tenant = { ...tx, tenantId: row.tenant_id };
        const [period] = (await tx.manager.query(PERIOD_OF_RUN, [row.next_due_at, row.time_zone, row.schedule])) as [
          { from: string; to: string },
        ];
        const [next] = (await tx.manager.query(NEXT_DUE, [now, row.time_zone, row.schedule, row.hour])) as [{ next_due_at: Date }];
        const dueAt = row.next_due_at!.toISOString();
        await emitEvent(tenant, {
          topic: 'saved_report.due',
          data: {
            reportId: row.id,
            storeId: row.store_id,
            name: row.name,
            report: row.report,
            parameters: row.parameters,
            schedule: row.schedule,
            period: { from: period.from, to: period.to, timeZone: row.time_zone },
            dueAt,
          },
        });
        await tx.manager.query(`UPDATE saved_reports SET last_due_at = next_due_at, next_due_at = $2, updated_at = $3 WHERE id = $1`, [
          row.id,
          next.next_due_at,
          now,
        ]);
        await recordAudit(tenant, {
          action: 'saved_report.due',
          resourceType: 'saved_report',
          resourceId: row.id,
          before: { nextDueAt: dueAt },
          after: { nextDueAt: next.next_due_at.toISOString(), period },
        });
      }
      return due.length;
    });
    emitted += claimed;
    if (claimed < BATCH) return emitted;
  }
}

/** Runs a pass every `intervalMs` until stopped (the jobs role starts it). */
export function startSavedReportScheduler(
  dataSource: DataSource,
  logger: Logger,
  services: ContextServices,
  intervalMs = SAVED_REPORT_SCHEDULER_INTERVAL_MS,
): PeriodicTask {
  return startPeriodicTask({
    logger,
    failureKey: 'saved-reports:scheduler',
    failureMessage: 'saved report pass failed; retrying',
    intervalMs,
    firstDelayMs: 0,
    run: async () => {
      const emitted = await runSavedReportPass(systemContext(dataSource, uuidv7(), undefined, 'saved-reports', services));
      if (emitted) logger.info({ emitted }, 'saved reports: due events emitted');
    },
  });
}
