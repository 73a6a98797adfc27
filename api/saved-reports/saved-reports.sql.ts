/** SQL of the saved reports and their schedule (docs/insight.md, "Saved reports"). */

export const SAVED_REPORT_COLUMNS = `id, tenant_id, store_id, name, report, parameters, schedule, hour, time_zone,
  next_due_at, last_due_at, created_at, updated_at`;

export interface SavedReportRow {
  id: string;
  tenant_id: string;
  store_id: string;
  name: string;
  report: string;
  parameters: Record<string, unknown>;
  schedule: string;
  hour: number | null;
  time_zone: string | null;
  next_due_at: Date | null;
  last_due_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * The first time after $1 that a schedule ($3: DAILY, WEEKLY on Mondays, MONTHLY on the 1st) comes
 * due at hour $4 of time zone $2 (wall-clock time: a day of a daylight saving change is still due at
 * that hour).
 */
export const NEXT_DUE = `
  WITH l AS (
    SELECT (CASE $3::text WHEN 'DAILY' THEN date_trunc('day', $1::timestamptz AT TIME ZONE $2)
                          WHEN 'WEEKLY' THEN date_trunc('week', $1::timestamptz AT TIME ZONE $2)
                          ELSE date_trunc('month', $1::timestamptz AT TIME ZONE $2) END) + make_interval(hours => $4::int) AS c,
           (CASE $3::text WHEN 'DAILY' THEN interval '1 day' WHEN 'WEEKLY' THEN interval '1 week' ELSE interval '1 month' END) AS step)
  SELECT CASE WHEN (c AT TIME ZONE $2) > $1::timestamptz THEN c AT TIME ZONE $2 ELSE (c + step) AT TIME ZONE $2 END AS next_due_at FROM l`;

/**
 * The period a run due at $1 (time zone $2, schedule $3) covers: the day before (DAILY), the 7 days
 * before (WEEKLY), the calendar month before (MONTHLY).
 */
export const PERIOD_OF_RUN = `
  SELECT (CASE $3::text WHEN 'DAILY' THEN d - 1 WHEN 'WEEKLY' THEN d - 7
                        ELSE (date_trunc('month', d) - interval '1 month')::date END)::text AS "from",
         (CASE $3::text WHEN 'MONTHLY' THEN date_trunc('month', d)::date - 1 ELSE d - 1 END)::text AS "to"
    FROM (SELECT ($1::timestamptz AT TIME ZONE $2)::date AS d) x`;
