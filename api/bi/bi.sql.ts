/**
 * The SQL of the business intelligence reports (docs/insight.md). Every figure counts placed orders
 * only (`status <> 'CANCELLED'`), sums amounts in numeric (exact) and answers them as decimal
 * strings with 4 decimals, which the service turns into money with domain/money.ts. Days and months
 * are those of the store's time zone ($tz).
 *
 * Windows are read from the insight summaries (storage/migrations/1795000003400-insight-rollups.ts)
 * and their deltas not folded in yet (summed by the report itself, which groups anyway: the
 * `_current` views would group twice) where they cover them whole, and from the orders themselves at the edges: quarter hours for the
 * order sums, UTC days for the product sums. A window is given as its instants and the edges of what
 * the summaries cover (the service computes them): `since`, `until`, `lo` (the first covered
 * instant) and `hi` (the end of what is covered).
 */

/** Placed orders of a store. */
const PLACED = `store_id = $1 AND status <> 'CANCELLED'`;
const amount = (sql: string): string => `COALESCE(${sql}, 0)::numeric(20, 4)::text`;
/** The product key of lines whose product was deleted (their product id is null). */
const NO_PRODUCT = `'00000000-0000-0000-0000-000000000000'::uuid`;

/**
 * Placed orders of store $1 in the window [$2, $3] ($3 excluded when `endExclusive`) as rows
 * (at, orders, revenue, subtotal) to be summed: whole quarter hours [$4, $5) from the summary and
 * its deltas, single orders at the edges.
 */
const orderWindow = (endExclusive: boolean): string => {
  const end = endExclusive ? '<' : '<=';
  return `
    SELECT bucket_start AS at, orders, revenue, subtotal FROM insight_order_buckets
     WHERE store_id = $1 AND bucket_start >= $4 AND bucket_start < $5
    UNION ALL
    SELECT bucket_start, orders, revenue, subtotal FROM insight_order_bucket_deltas
     WHERE store_id = $1 AND bucket_start >= $4 AND bucket_start < $5
    UNION ALL
    SELECT created_at, 1, total, subtotal FROM orders WHERE ${PLACED} AND created_at >= $2 AND created_at < $4 AND created_at ${end} $3
    UNION ALL
    SELECT created_at, 1, total, subtotal FROM orders WHERE ${PLACED} AND created_at >= GREATEST($4::timestamptz, $5::timestamptz) AND created_at >= $2 AND created_at ${end} $3`;
};

/** The window of the last `days` days of the store ending today: $1 now, $2 time zone, $3 days. */
export const WINDOW = `
  SELECT ((($1::timestamptz AT TIME ZONE $2)::date - ($3::int - 1))::timestamp AT TIME ZONE $2) AS since,
         (($1::timestamptz AT TIME ZONE $2)::date - ($3::int - 1))::text AS first_day,
         ($1::timestamptz AT TIME ZONE $2)::date::text AS last_day`;

/** Instants of local midnight of two dates: $1 from, $2 day after to, $3 time zone. */
export const PERIOD = `SELECT ($1::date::timestamp AT TIME ZONE $3) AS since, ($2::date::timestamp AT TIME ZONE $3) AS until`;

/** Whether store $1 has placed orders after $2 (only a clock behind the orders': the summaries count them, the reports must not). */
export const ORDERS_AFTER = `SELECT EXISTS (SELECT 1 FROM orders WHERE ${PLACED} AND created_at > $2) AS later`;

/** $1 store, $2 since, $3 until (exclusive), $4 lo, $5 hi. */
export const PROFIT_LOSS_ORDERS = `
  SELECT COALESCE(sum(orders), 0)::int AS orders, ${amount('sum(subtotal)')} AS gross_sales, ${amount('sum(revenue - subtotal)')} AS shipping
    FROM (${orderWindow(true)}) w`;

/** Refunded amounts of the payments of the placed orders of the period: $1 store, $2 since, $3 until (exclusive). */
export const PROFIT_LOSS_REFUNDS = `
  SELECT ${amount('sum(p.refunded)')} AS refunds
    FROM payments p JOIN orders o ON o.id = p.order_id
   WHERE p.store_id = $1 AND p.refunded > 0
     AND o.store_id = $1 AND o.status <> 'CANCELLED' AND o.created_at >= $2 AND o.created_at < $3`;

/** Orders and revenue: $1 store, $2 since, $3 until (inclusive: now), $4 lo, $5 hi. */
export const KPIS_ORDERS = `
  SELECT COALESCE(sum(orders), 0)::int AS orders, ${amount('sum(revenue)')} AS revenue FROM (${orderWindow(false)}) w`;

/**
 * Customers who ordered since $2 and those of them who ordered first since then, from the customer
 * summaries: $1 store, $2 since. Exact when the store has no orders after the window's end (now).
 */
export const KPIS_CUSTOMERS = `
  SELECT count(*)::int AS customers, count(*) FILTER (WHERE first_order_at >= $2)::int AS new_customers
    FROM insight_customers WHERE store_id = $1 AND last_order_at >= $2`;

/** The same from the orders, for a window that ends before some orders: $1 store, $2 since, $3 until (inclusive). */
export const KPIS_CUSTOMERS_FROM_ORDERS = `
  WITH c AS (SELECT DISTINCT customer_id FROM orders WHERE ${PLACED} AND created_at >= $2 AND created_at <= $3)
  SELECT (SELECT count(*) FROM c)::int AS customers,
         (SELECT count(*) FROM c WHERE NOT EXISTS (
            SELECT 1 FROM orders e WHERE e.store_id = $1 AND e.status <> 'CANCELLED' AND e.customer_id = c.customer_id AND e.created_at < $2
         ))::int AS new_customers`;

/**
 * $1 store, $2 since, $3 until (inclusive), $4 limit, $5 first whole UTC day, $6 end of the whole
 * UTC days (exclusive); the lines of the edges are read with their orders.
 */
export const TOP_PRODUCTS = `
  WITH lines AS (
    SELECT product_key, orders, quantity, revenue, title FROM insight_product_days
     WHERE store_id = $1 AND day >= ($5::timestamptz AT TIME ZONE 'UTC')::date AND day < ($6::timestamptz AT TIME ZONE 'UTC')::date
    UNION ALL
    SELECT product_key, orders, quantity, revenue, title FROM insight_product_day_deltas
     WHERE store_id = $1 AND day >= ($5::timestamptz AT TIME ZONE 'UTC')::date AND day < ($6::timestamptz AT TIME ZONE 'UTC')::date
    UNION ALL
    SELECT COALESCE(i.product_id, ${NO_PRODUCT}), count(DISTINCT o.id), sum(i.quantity), sum(i.line_total), max(i.title)
      FROM orders o JOIN order_items i ON i.order_id = o.id
     WHERE o.store_id = $1 AND o.status <> 'CANCELLED' AND o.created_at <= $3
       AND ((o.created_at >= $2 AND o.created_at < $5) OR o.created_at >= GREATEST($5::timestamptz, $6::timestamptz, $2::timestamptz))
     GROUP BY 1),
  t AS (
    SELECT product_key, sum(quantity)::bigint AS quantity, sum(revenue) AS revenue, sum(orders)::int AS orders, max(title) AS item_title
      FROM lines GROUP BY product_key
    HAVING sum(orders) > 0
     ORDER BY sum(revenue) DESC, sum(quantity) DESC, NULLIF(product_key, ${NO_PRODUCT})
     LIMIT $4)
  SELECT NULLIF(t.product_key, ${NO_PRODUCT}) AS product_id, COALESCE(p.title, t.item_title) AS title, t.quantity::text AS quantity,
         t.orders, ${amount('t.revenue')} AS revenue
    FROM t LEFT JOIN products p ON p.id = t.product_key
   ORDER BY t.revenue DESC, t.quantity DESC, NULLIF(t.product_key, ${NO_PRODUCT})`;

/** $1 store, $2 since, $3 until (inclusive), $4 lo, $5 hi, $6 time zone, $7 first day, $8 last day. */
export const REVENUE_TIMESERIES = `
  WITH d AS (SELECT g::date AS day FROM generate_series($7::date, $8::date, interval '1 day') g),
       a AS (SELECT (at AT TIME ZONE $6)::date AS day, sum(orders)::int AS orders, sum(revenue) AS revenue
               FROM (${orderWindow(false)}) w GROUP BY 1)
  SELECT d.day::text AS day, COALESCE(a.orders, 0) AS orders, ${amount('a.revenue')} AS revenue
    FROM d LEFT JOIN a USING (day) ORDER BY d.day`;

/** Customers per cohort (the month of their first placed order, from $2) and month they ordered in: $1 store, $2 first cohort. */
export const COHORTS = `
  SELECT cohort::text AS cohort, month::text AS month, customers FROM insight_cohort_months_current
   WHERE store_id = $1 AND cohort >= $2::date AND customers > 0`;

/**
 * The same from the orders, for a window that ends before some orders: customers by the month of
 * their first placed order (cohorts from the month starting at $3) and the months they placed an
 * order in: $1 store, $2 time zone, $3 first cohort's start, $4 until (now).
 */
export const COHORTS_FROM_ORDERS = `
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

/** $1 store, $2 since, $3 until (inclusive), $4 lo, $5 hi. */
export const FUNNEL = `
  SELECT (SELECT count(*) FROM storefront_checkouts s WHERE s.store_id = $1 AND s.created_at >= $2 AND s.created_at <= $3)::int AS checkouts_started,
         (SELECT count(*) FROM storefront_checkouts s WHERE s.store_id = $1 AND s.created_at >= $2 AND s.created_at <= $3 AND s.status = 'PAID')::int AS checkouts_paid,
         (SELECT COALESCE(sum(orders), 0) FROM (${orderWindow(false)}) w)::int AS orders_placed,
         (SELECT count(*) FROM orders o WHERE o.store_id = $1 AND o.status <> 'CANCELLED' AND o.created_at >= $2 AND o.created_at <= $3
             AND o.id IN (SELECT p.order_id FROM payments p WHERE p.store_id = $1 AND p.captured > 0))::int AS orders_paid,
         (SELECT COALESCE(sum(view_count), 0) FROM products WHERE store_id = $1)::text AS product_views_lifetime`;

/** $1 store, $2 limit. */
export const CUSTOMER_LTV = `
  SELECT t.customer_id, c.name, c.email, t.orders, ${amount('t.revenue')} AS revenue, t.first_order_at AS first_at, t.last_order_at AS last_at
    FROM (SELECT * FROM insight_customers WHERE store_id = $1 ORDER BY revenue DESC, customer_id LIMIT $2) t
    LEFT JOIN customers c ON c.id = t.customer_id
   ORDER BY t.revenue DESC, t.customer_id`;
