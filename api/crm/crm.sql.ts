/**
 * The report queries of the CRM (crm-reports.service.ts). Counts come back as bigint text, sums of
 * amounts as numeric text; nothing is summed in JavaScript but counts.
 */

/** UTC midnight that ends today, as timestamptz. */
const END_OF_TODAY = `((date_trunc('day', now() AT TIME ZONE 'UTC') + interval '1 day') AT TIME ZONE 'UTC')`;

/** Open leads ($1: the open stages) by owner: overdue, due later today (UTC), upcoming, missing. */
export const FOLLOW_UP_STATS_SQL = `
  SELECT owner_user_id,
         count(*) FILTER (WHERE next_follow_up_at < now()) AS overdue,
         count(*) FILTER (WHERE next_follow_up_at >= now() AND next_follow_up_at < ${END_OF_TODAY}) AS due_today,
         count(*) FILTER (WHERE next_follow_up_at >= ${END_OF_TODAY}) AS upcoming,
         count(*) FILTER (WHERE next_follow_up_at IS NULL) AS missing
    FROM leads
   WHERE stage = ANY($1::text[])
   GROUP BY owner_user_id
   ORDER BY owner_user_id NULLS FIRST`;

/** Leads by stage and currency ($1: an owner or null for all): count and sum of expected values. */
export const PIPELINE_SQL = `
  SELECT stage, currency, count(*) AS count, coalesce(sum(expected_value), 0) AS amount
    FROM leads
   WHERE ($1::uuid IS NULL OR owner_user_id = $1::uuid)
   GROUP BY stage, currency
   ORDER BY stage, currency`;

/**
 * The funnel ($1 stages, $2 their ranks, $3 owner or null): per stage, the leads whose furthest
 * funnel stage ever entered is this one or later, the leads in it now, and the moves from it to LOST.
 */
export const FUNNEL_SQL = `
  WITH ranks AS (SELECT * FROM unnest($1::text[], $2::int[]) AS r(stage, rank)),
       scoped AS (SELECT id, stage FROM leads WHERE ($3::uuid IS NULL OR owner_user_id = $3::uuid)),
       furthest AS (
         SELECT c.lead_id, max(r.rank) AS max_rank
           FROM lead_stage_changes c
           JOIN scoped s ON s.id = c.lead_id
           JOIN ranks r ON r.stage = c.to_stage
          GROUP BY c.lead_id)
  SELECT r.stage,
         (SELECT count(*) FROM furthest f WHERE f.max_rank >= r.rank) AS reached,
         (SELECT count(*) FROM scoped s WHERE s.stage = r.stage) AS current,
         (SELECT count(*) FROM lead_stage_changes c JOIN scoped s ON s.id = c.lead_id
           WHERE c.from_stage = r.stage AND c.to_stage = 'LOST') AS lost_from
    FROM ranks r
   ORDER BY r.rank`;

/** Completed stays per stage ($1 owner or null): from entering a stage to the lead's next change, in seconds. */
export const TIME_IN_STAGE_SQL = `
  WITH scoped AS (SELECT id FROM leads WHERE ($1::uuid IS NULL OR owner_user_id = $1::uuid)),
       stays AS (
         SELECT c.to_stage AS stage,
                extract(epoch FROM lead(c.changed_at) OVER (PARTITION BY c.lead_id ORDER BY c.changed_at, c.id) - c.changed_at) AS seconds
           FROM lead_stage_changes c
           JOIN scoped s ON s.id = c.lead_id)
  SELECT stage,
         count(*) AS stays,
         round(avg(seconds), 3) AS average,
         round((percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds))::numeric, 3) AS median
    FROM stays
   WHERE seconds IS NOT NULL
   GROUP BY stage`;

/** The sales team ($1: the open stages): each sales_rep and platform_admin with open and overdue leads. */
export const TEAM_SQL = `
  SELECT u.id, u.name, u.email, u.platform_role,
         count(l.id) AS open_leads,
         count(l.id) FILTER (WHERE l.next_follow_up_at < now()) AS overdue
    FROM users u
    LEFT JOIN leads l ON l.owner_user_id = u.id AND l.stage = ANY($1::text[])
   WHERE u.platform_role IN ('sales_rep', 'platform_admin')
   GROUP BY u.id
   ORDER BY u.name, u.id`;

/** Expected value of the open leads ($1: open stages) of sales team members, by owner and currency. */
export const TEAM_VALUE_SQL = `
  SELECT l.owner_user_id, l.currency, count(*) AS count, coalesce(sum(l.expected_value), 0) AS amount
    FROM leads l
    JOIN users u ON u.id = l.owner_user_id AND u.platform_role IN ('sales_rep', 'platform_admin')
   WHERE l.stage = ANY($1::text[])
   GROUP BY l.owner_user_id, l.currency
   ORDER BY l.owner_user_id, l.currency`;

/**
 * What happened between $1 and $2, by the user who did it: leads created, moves to WON and to LOST
 * (from lead_stage_changes) and activities completed. A null user is the public form or the system.
 */
export const OPERATIONS_SQL = `
  WITH events AS (
    SELECT c.actor_user_id AS user_id,
           (c.from_stage IS NULL)::int AS created,
           (c.from_stage IS NOT NULL AND c.to_stage = 'WON')::int AS won,
           (c.from_stage IS NOT NULL AND c.to_stage = 'LOST')::int AS lost,
           0 AS completed
      FROM lead_stage_changes c
     WHERE c.changed_at >= $1 AND c.changed_at <= $2
    UNION ALL
    SELECT a.completed_by, 0, 0, 0, 1
      FROM lead_activities a
     WHERE a.completed_at >= $1 AND a.completed_at <= $2)
  SELECT e.user_id, u.name,
         sum(e.created) AS created, sum(e.won) AS won, sum(e.lost) AS lost, sum(e.completed) AS completed
    FROM events e
    LEFT JOIN users u ON u.id = e.user_id
   GROUP BY e.user_id, u.name
   ORDER BY u.name NULLS LAST, e.user_id`;
