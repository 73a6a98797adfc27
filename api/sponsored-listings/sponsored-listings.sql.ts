/**
 * SQL shared by the merchant service, the click tracker and the public candidate read.
 *
 * Listings end lazily: a listing that is not ENDED and whose end date has passed, or whose spent has
 * reached its budget, is set ENDED (endedReason END_DATE or BUDGET, endedAt its end date or now) by
 * END_DUE_CTE, which every list and candidate read of a store runs first. When it ends anything it
 * writes one outbox row in the same statement (aggregate `store`, topic `sponsored_listings.updated`),
 * like every other change of a store's listings, so whatever caches the store's search results is
 * told. It is a CTE so callers can run it as part of one statement: `$1` is the store id.
 */
import { outboxCte } from '../../storage/outbox';

/** The store event every change of a store's sponsored listings writes to the outbox. */
export const SPONSORED_TOPIC = 'sponsored_listings.updated';

const DUE = `status <> 'ENDED' AND ((ends_at IS NOT NULL AND ends_at <= now()) OR (budget IS NOT NULL AND spent >= budget))`;
const BUDGET_SPENT = 'budget IS NOT NULL AND spent >= budget';

export const END_DUE_CTE = `
  ended AS (
    UPDATE sponsored_listings
       SET status = 'ENDED',
           ended_reason = CASE WHEN ${BUDGET_SPENT} THEN 'BUDGET' ELSE 'END_DATE' END,
           ended_at = CASE WHEN ${BUDGET_SPENT} THEN now() ELSE ends_at END,
           updated_at = now()
     WHERE store_id = $1 AND ${DUE}
    RETURNING id, tenant_id, store_id
  ),
  ${outboxCte(
    'ended_event',
    { queue: 'index', topic: SPONSORED_TOPIC, aggregateType: 'store' },
    {
      tenantId: 'tenant_id',
      aggregateId: 'store_id::text',
      payload: `jsonb_build_object('ended', jsonb_agg(id::text))`,
      from: 'FROM ended GROUP BY tenant_id, store_id',
    },
  )}`;

/** Ends the store's due listings; returns how many ended. `$1` = store id. */
export const END_DUE_SQL = `WITH ${END_DUE_CTE} SELECT count(*)::int AS ended FROM ended`;

/**
 * Counts one click: +1 click and + cost_per_click spent, in one guarded UPDATE. Only an ACTIVE listing
 * of the store ($2), inside its window, with budget left, whose product is published (and is $3 when
 * given) counts. Spent never passes the budget: the click that reaches it is charged what is left and
 * ends the listing (BUDGET), which writes the store event. `$1` = listing id.
 */
export const CLICK_SQL = `
  WITH clicked AS (
    UPDATE sponsored_listings s
       SET clicks = clicks + 1,
           spent = CASE WHEN budget IS NOT NULL AND spent + cost_per_click >= budget THEN budget ELSE spent + cost_per_click END,
           status = CASE WHEN budget IS NOT NULL AND spent + cost_per_click >= budget THEN 'ENDED' ELSE status END,
           ended_reason = CASE WHEN budget IS NOT NULL AND spent + cost_per_click >= budget THEN 'BUDGET' ELSE ended_reason END,
           ended_at = CASE WHEN budget IS NOT NULL AND spent + cost_per_click >= budget THEN now() ELSE ended_at END,
           updated_at = CASE WHEN budget IS NOT NULL AND spent + cost_per_click >= budget THEN now() ELSE updated_at END
     WHERE s.id = $1 AND s.store_id = $2 AND s.status = 'ACTIVE'
       AND s.starts_at <= now() AND (s.ends_at IS NULL OR s.ends_at > now()) AND (s.budget IS NULL OR s.spent < s.budget)
       AND ($3::uuid IS NULL OR s.product_id = $3::uuid)
       AND EXISTS (SELECT 1 FROM products p WHERE p.id = s.product_id AND p.status = 'PUBLISHED')
    RETURNING s.id, s.tenant_id, s.store_id, s.status
  ),
  ${outboxCte(
    'ended_event',
    { queue: 'index', topic: SPONSORED_TOPIC, aggregateType: 'store' },
    {
      tenantId: 'tenant_id',
      aggregateId: 'store_id::text',
      payload: `jsonb_build_object('ended', jsonb_build_array(id::text))`,
      from: `FROM clicked WHERE status = 'ENDED'`,
    },
  )}
  SELECT status FROM clicked`;

/**
 * The store's ($1) ACTIVE listings inside their window with budget left, whose product is published
 * and whose keywords match the normalised query ($2, padded with one space each side), best first.
 * Ends due listings in the same statement (the SELECT's own conditions already leave them out).
 */
export const CANDIDATES_SQL = `
  WITH ${END_DUE_CTE}
  SELECT s.id, s.product_id
    FROM sponsored_listings s
   WHERE s.store_id = $1 AND s.status = 'ACTIVE'
     AND s.starts_at <= now() AND (s.ends_at IS NULL OR s.ends_at > now()) AND (s.budget IS NULL OR s.spent < s.budget)
     AND (cardinality(s.keywords) = 0 OR EXISTS (SELECT 1 FROM unnest(s.keywords) k WHERE strpos($2, ' ' || k || ' ') > 0))
     AND EXISTS (SELECT 1 FROM products p WHERE p.id = s.product_id AND p.status = 'PUBLISHED')
   ORDER BY s.cost_per_click DESC, s.created_at ASC, s.id ASC
   LIMIT $3`;
