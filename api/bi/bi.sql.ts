/**
 * The SQL of the business intelligence reports (docs/insight.md). Every query reads placed orders
 * only (`status <> 'CANCELLED'`, the predicate of the partial indexes orders_bi_placed and
 * orders_bi_customer), sums amounts in numeric (exact) and answers them as decimal strings with 4
 * decimals, which the service turns into money with domain/money.ts. Days and months are those of
 * the store's time zone ($tz).
 */

/** Placed orders of a store. */
const PLACED = `store_id = $1 AND status <> 'CANCELLED'`;
const amount = (sql: string): string => `COALESCE(${sql}, 0)::numeric(20, 4)::text`;

/** The window of the last `days` days of the store ending today: $1 now, $2 time zone, $3 days. */
export const WINDOW = `
  SELECT ((($1::timestamptz AT TIME ZONE $2)::date - ($3::int - 1))::timestamp AT TIME ZONE $2) AS since,
         (($1::timestamptz AT TIME ZONE $2)::date - ($3::int - 1))::text AS first_day,
         ($1::timestamptz AT TIME ZONE $2)::date::text AS last_day`;

/** Instants of local midnight of two dates: $1 from, $2 day after to, $3 time zone. */
export const PERIOD = `SELECT ($1::date::timestamp AT TIME ZONE $3) AS since, ($2::date::timestamp AT TIME ZONE $3) AS until`;

/** $1 store, $2 since, $3 until (exclusive). */
export const PROFIT_LOSS_ORDERS = `
  SELECT count(*)::int AS orders, ${amount('sum(subtotal)')} AS gross_sales, ${amount('sum(total - subtotal)')} AS shipping
    FROM orders WHERE ${PLACED} AND created_at >= $2 AND created_at < $3`;

/** Refunded amounts of the payments of the placed orders of the period: $1 store, $2 since, $3 until (exclusive). */
export const PROFIT_LOSS_REFUNDS = `
  SELECT ${amount('sum(p.refunded)')} AS refunds
    FROM orders o JOIN payments p ON p.order_id = o.id
   WHERE o.store_id = $1 AND o.status <> 'CANCELLED' AND o.created_at >= $2 AND o.created_at < $3`;

/** $1 store, $2 since, $3 until (inclusive: now). */
export const KPIS = `
  WITH o AS (SELECT customer_id, total FROM orders WHERE ${PLACED} AND created_at >= $2 AND created_at <= $3),
       c AS (SELECT DISTINCT customer_id FROM o)
  SELECT (SELECT count(*) FROM o)::int AS orders,
         (SELECT ${amount('sum(total)')} FROM o) AS revenue,
         (SELECT count(*) FROM c)::int AS customers,
         (SELECT count(*) FROM c WHERE NOT EXISTS (
            SELECT 1 FROM orders e WHERE e.store_id = $1 AND e.status <> 'CANCELLED' AND e.customer_id = c.customer_id AND e.created_at < $2
         ))::int AS new_customers`;

/** $1 store, $2 since, $3 until (inclusive), $4 limit. */
export const TOP_PRODUCTS = `
  WITH t AS (
    SELECT i.product_id, sum(i.quantity)::bigint AS quantity, sum(i.line_total) AS revenue, count(DISTINCT o.id)::int AS orders,
           max(i.title) AS item_title
      FROM orders o JOIN order_items i ON i.order_id = o.id
     WHERE o.store_id = $1 AND o.status <> 'CANCELLED' AND o.created_at >= $2 AND o.created_at <= $3
     GROUP BY i.product_id
     ORDER BY sum(i.line_total) DESC, sum(i.quantity) DESC, i.product_id
     LIMIT $4)
  SELECT t.product_id, COALESCE(p.title, t.item_title) AS title, t.quantity::text AS quantity, t.orders,
         ${amount('t.revenue')} AS revenue
    FROM t LEFT JOIN products p ON p.id = t.product_id
   ORDER BY t.revenue DESC, t.quantity DESC, t.product_id`;

/** $1 store, $2 time zone, $3 since, $4 until (inclusive), $5 first day, $6 last day. */
export const REVENUE_TIMESERIES = `
  WITH d AS (SELECT g::date AS day FROM generate_series($5::date, $6::date, interval '1 day') g),
       a AS (SELECT (created_at AT TIME ZONE $2)::date AS day, count(*)::int AS orders, sum(total) AS revenue
               FROM orders WHERE ${PLACED} AND created_at >= $3 AND created_at <= $4 GROUP BY 1)
  SELECT d.day::text AS day, COALESCE(a.orders, 0) AS orders, ${amount('a.revenue')} AS revenue
    FROM d LEFT JOIN a USING (day) ORDER BY d.day`;

/**
 * Customers by the month of their first placed order (cohorts from the month starting at $3) and the
 * months they placed an order in: $1 store, $2 time zone, $3 first cohort's start, $4 until (now).
 */
export const COHORTS = `
  WITH c AS (
    SELECT customer_id, date_trunc('month', min(created_at) AT TIME ZONE $2)::date AS cohort
      FROM orders WHERE ${PLACED} AND created_at >= $3 AND created_at <= $4
     GROUP BY customer_id
    HAVING NOT EXISTS (SELECT 1 FROM orders e WHERE e.store_id = $1 AND e.status <> 'CANCELLED' AND e.customer_id = orders.customer_id AND e.created_at < $3)),
       a AS (
    SELECT DISTINCT o.customer_id, date_trunc('month', o.created_at AT TIME ZONE $2)::date AS month
      FROM orders o JOIN c USING (customer_id)
     WHERE o.store_id = $1 AND o.status <> 'CANCELLED' AND o.created_at >= $3 AND o.created_at <= $4)
  SELECT c.cohort::text AS cohort, a.month::text AS month, count(*)::int AS customers
    FROM c JOIN a USING (customer_id) GROUP BY 1, 2`;

/** $1 store, $2 since, $3 until (inclusive). */
export const FUNNEL = `
  SELECT (SELECT count(*) FROM storefront_checkouts s WHERE s.store_id = $1 AND s.created_at >= $2 AND s.created_at <= $3)::int AS checkouts_started,
         (SELECT count(*) FROM storefront_checkouts s WHERE s.store_id = $1 AND s.created_at >= $2 AND s.created_at <= $3 AND s.status = 'PAID')::int AS checkouts_paid,
         (SELECT count(*) FROM orders o WHERE o.store_id = $1 AND o.status <> 'CANCELLED' AND o.created_at >= $2 AND o.created_at <= $3)::int AS orders_placed,
         (SELECT count(*) FROM orders o WHERE o.store_id = $1 AND o.status <> 'CANCELLED' AND o.created_at >= $2 AND o.created_at <= $3
             AND EXISTS (SELECT 1 FROM payments p WHERE p.order_id = o.id AND p.captured > 0))::int AS orders_paid,
         (SELECT COALESCE(sum(view_count), 0) FROM products WHERE store_id = $1)::text AS product_views_lifetime`;

/** $1 store, $2 limit. */
export const CUSTOMER_LTV = `
  WITH t AS (
    SELECT customer_id, count(*)::int AS orders, sum(total) AS revenue, min(created_at) AS first_at, max(created_at) AS last_at
      FROM orders WHERE ${PLACED}
     GROUP BY customer_id ORDER BY sum(total) DESC, customer_id LIMIT $2)
  SELECT t.customer_id, c.name, c.email, t.orders, ${amount('t.revenue')} AS revenue, t.first_at, t.last_at
    FROM t LEFT JOIN customers c ON c.id = t.customer_id
   ORDER BY t.revenue DESC, t.customer_id`;
