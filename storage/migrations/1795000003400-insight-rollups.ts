import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Insight rollups (docs/insight.md, "How the reports stay fast"): summaries of the placed orders of
 * each store, kept exact by triggers in the same transaction as every write to orders, order lines
 * and customers, so the business intelligence reports read at most one row per quarter hour, per
 * product and day, per customer or per cohort and month instead of every order.
 *
 * - insight_order_buckets: orders, revenue and subtotal per store and UTC quarter hour. Every time
 *   zone's midnight falls on a quarter hour, so a store's days are whole sums of buckets.
 * - insight_product_days: lines per store, UTC day and product (deleted products share the nil
 *   uuid): orders with the product, quantity, revenue.
 * - insight_customers: per store and customer: placed orders, lifetime revenue, first and last
 *   order, and the cohort (the store-local month of the first order).
 * - insight_customer_months: the store-local months a customer placed orders in.
 * - insight_cohort_months: customers per cohort and month they ordered in.
 *
 * No hot rows: what every order of a store would add to the same row (the current quarter hour,
 * today's product day, this month's cohort) is appended by the triggers to a `*_deltas` table
 * (inserts never wait on each other), folded into its summary by `insight_fold` (the jobs worker
 * runs it every few seconds), and read through the `*_current` views, which add the deltas not yet
 * folded, so a report is exact the moment a write commits. What is per customer (first and last
 * order, months, cohort) is recomputed for the customers a statement touched, under a lock of their
 * `customers` rows, so writers of one customer take turns and each sees the others' orders.
 *
 * A trigger does nothing for a store or customer that no longer exists (a cascade from its
 * deletion): their rows go by their own cascade or trigger. `insight_rebuild(store)` recomputes a
 * store's summaries from scratch, under an exclusive lock of the store that every trigger takes
 * shared, and with folding paused: used here to fill them for existing orders, after a store's time
 * zone changes, after a load that bypassed triggers, and by the tests that compare both.
 */

/** The product key of order lines whose product was deleted. */
const NO_PRODUCT = `'00000000-0000-0000-0000-000000000000'::uuid`;
const BUCKET = (at: string): string => `date_bin('15 minutes', ${at}, TIMESTAMPTZ '2000-01-01 00:00:00+00')`;
const UTC_DAY = (at: string): string => `(${at} AT TIME ZONE 'UTC')::date`;
const PLACED = (alias: string): string => `${alias}.status <> 'CANCELLED'`;
const ZONE = `COALESCE(NULLIF(s.timezone, ''), 'UTC')`;
const LOCAL_MONTH = (at: string): string => `date_trunc('month', ${at} AT TIME ZONE ${ZONE})::date`;
/** The first key of the advisory locks of the summaries: (LOCK_SPACE, hash of a store) per store, (LOCK_SPACE, 0) for folding. */
const LOCK_SPACE = 1795;

/** Rows of orders changed by one statement, as `sign` (+1 after, -1 before) and the order's columns. */
const ORDER_CHANGES: Record<'INSERT' | 'UPDATE' | 'DELETE', string> = {
  INSERT: `SELECT 1 AS sign, n.id, n.store_id, n.customer_id, n.status, n.created_at, n.total, n.subtotal FROM insight_new n`,
  DELETE: `SELECT -1 AS sign, o.id, o.store_id, o.customer_id, o.status, o.created_at, o.total, o.subtotal FROM insight_old o`,
  // Only rows whose counted columns changed (an update of updated_at alone changes nothing here).
  UPDATE: `
    SELECT x.* FROM insight_old o JOIN insight_new n USING (id)
     CROSS JOIN LATERAL (VALUES
       (-1, o.id, o.store_id, o.customer_id, o.status, o.created_at, o.total, o.subtotal),
       (1, n.id, n.store_id, n.customer_id, n.status, n.created_at, n.total, n.subtotal)
     ) AS x(sign, id, store_id, customer_id, status, created_at, total, subtotal)
     WHERE (o.store_id, o.customer_id, o.status, o.created_at, o.total, o.subtotal)
           IS DISTINCT FROM (n.store_id, n.customer_id, n.status, n.created_at, n.total, n.subtotal)`,
};

/** Lines changed by one statement on order_items, as `sign` and the line's columns. */
const LINE_CHANGES: Record<'INSERT' | 'UPDATE' | 'DELETE', string> = {
  INSERT: `SELECT 1 AS sign, n.order_id, COALESCE(n.product_id, ${NO_PRODUCT}) AS product_key, n.quantity, n.line_total, n.title FROM insight_new n`,
  DELETE: `SELECT -1 AS sign, o.order_id, COALESCE(o.product_id, ${NO_PRODUCT}) AS product_key, o.quantity, o.line_total, o.title FROM insight_old o`,
  UPDATE: `
    SELECT -1 AS sign, o.order_id, COALESCE(o.product_id, ${NO_PRODUCT}) AS product_key, o.quantity, o.line_total, o.title FROM insight_old o
    UNION ALL
    SELECT 1, n.order_id, COALESCE(n.product_id, ${NO_PRODUCT}), n.quantity, n.line_total, n.title FROM insight_new n`,
};

/** Appends deltas of product days; the SELECT must answer (store_id, day, product_key, orders, quantity, revenue, title). */
const addProductDays = (select: string): string => `
  INSERT INTO insight_product_day_deltas (store_id, day, product_key, orders, quantity, revenue, title)
  ${select}`;

/** Takes the advisory lock of each store shared (a rebuild takes it exclusive): `stores` is an SQL uuid[] expression. */
const shareStores = (stores: string): string =>
  `PERFORM pg_advisory_xact_lock_shared(${LOCK_SPACE}, k) FROM (SELECT DISTINCT hashtext(x::text) AS k FROM unnest(${stores}) x ORDER BY 1) l;`;

function ordersTrigger(op: 'INSERT' | 'UPDATE' | 'DELETE'): string {
  const changes = `changes AS (${ORDER_CHANGES[op]})`;
  // Lines move with their order only when it is cancelled or placed again, or moves day or store;
  // an inserted order has no lines yet, and a deleted one is handled before its lines cascade away.
  const lines =
    op !== 'UPDATE'
      ? ''
      : `
    WITH ${changes},
    moved AS (SELECT c.sign, c.id, c.store_id, ${UTC_DAY('c.created_at')} AS day
                FROM changes c JOIN stores s ON s.id = c.store_id WHERE ${PLACED('c')})
    ${addProductDays(`
    SELECT m.store_id, m.day, COALESCE(l.product_id, ${NO_PRODUCT}), sum(m.sign)::int, sum(m.sign * l.quantity)::bigint,
           sum(m.sign * l.revenue), max(l.title) FILTER (WHERE m.sign > 0)
      FROM moved m
      CROSS JOIN LATERAL (SELECT product_id, sum(quantity) AS quantity, sum(line_total) AS revenue, max(title) AS title
                            FROM order_items WHERE order_id = m.id GROUP BY product_id) l
     GROUP BY 1, 2, 3
    HAVING sum(m.sign) <> 0 OR sum(m.sign * l.quantity) <> 0 OR sum(m.sign * l.revenue) <> 0`)};`;
  return `
    CREATE FUNCTION insight_orders_${op.toLowerCase()}() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      stores_ uuid[];
      customers_ uuid[];
    BEGIN
      WITH ${changes}
      SELECT array_agg(DISTINCT store_id) INTO stores_ FROM changes;
      IF stores_ IS NULL THEN
        RETURN NULL;
      END IF;
      ${shareStores('stores_')}
      WITH ${changes}
      INSERT INTO insight_order_bucket_deltas (store_id, bucket_start, orders, revenue, subtotal)
      SELECT c.store_id, ${BUCKET('c.created_at')}, sum(c.sign)::int, sum(c.sign * c.total), sum(c.sign * c.subtotal)
        FROM changes c JOIN stores s ON s.id = c.store_id
       WHERE ${PLACED('c')}
       GROUP BY 1, 2
      HAVING sum(c.sign) <> 0 OR sum(c.sign * c.total) <> 0 OR sum(c.sign * c.subtotal) <> 0;
      ${lines}
      WITH ${changes}
      SELECT array_agg(a.store_id ORDER BY a.customer_id), array_agg(a.customer_id ORDER BY a.customer_id)
        INTO stores_, customers_
        FROM (SELECT DISTINCT store_id, customer_id FROM changes) a;
      PERFORM insight_refresh_customers(stores_, customers_);
      RETURN NULL;
    END $fn$`;
}

function linesTrigger(op: 'INSERT' | 'UPDATE' | 'DELETE'): string {
  const changes = `changes AS (${LINE_CHANGES[op]})`;
  return `
    CREATE FUNCTION insight_order_items_${op.toLowerCase()}() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      stores_ uuid[];
    BEGIN
      WITH ${changes}
      SELECT array_agg(DISTINCT o.store_id) INTO stores_ FROM (SELECT DISTINCT order_id FROM changes) c JOIN orders o ON o.id = c.order_id;
      IF stores_ IS NULL THEN
        RETURN NULL;
      END IF;
      ${shareStores('stores_')}
      WITH ${changes},
      pairs AS (
        SELECT order_id, product_key, sum(sign) AS line_delta, sum(sign * quantity) AS quantity, sum(sign * line_total) AS revenue,
               max(title) FILTER (WHERE sign > 0) AS title
          FROM changes GROUP BY 1, 2),
      -- The lines of the product each order has now, to count the order as one of the product's while it has one.
      touched AS (SELECT DISTINCT order_id FROM pairs),
      now_ AS (
        SELECT x.order_id, COALESCE(x.product_id, ${NO_PRODUCT}) AS product_key, count(*) AS lines_after
          FROM order_items x JOIN touched t ON t.order_id = x.order_id GROUP BY 1, 2),
      counted AS (
        SELECT o.store_id, ${UTC_DAY('o.created_at')} AS day, p.*, COALESCE(n.lines_after, 0) AS lines_after
          FROM pairs p LEFT JOIN now_ n USING (order_id, product_key)
          JOIN orders o ON o.id = p.order_id AND ${PLACED('o')} JOIN stores s ON s.id = o.store_id)
      ${addProductDays(`
      SELECT store_id, day, product_key, sum((lines_after > 0)::int - (lines_after - line_delta > 0)::int)::int,
             sum(quantity)::bigint, sum(revenue), max(title)
        FROM counted GROUP BY 1, 2, 3
      HAVING sum((lines_after > 0)::int - (lines_after - line_delta > 0)::int) <> 0 OR sum(quantity) <> 0 OR sum(revenue) <> 0`)};
      RETURN NULL;
    END $fn$`;
}

/** A summary table, its deltas and the view of both: the key columns and the summed ones. */
const SUMMARIES = [
  {
    table: 'insight_order_buckets',
    key: ['store_id', 'bucket_start'],
    sums: ['orders', 'revenue', 'subtotal'],
  },
  {
    table: 'insight_product_days',
    key: ['store_id', 'day', 'product_key'],
    sums: ['orders', 'quantity', 'revenue'],
    title: true,
  },
  {
    table: 'insight_cohort_months',
    key: ['store_id', 'cohort', 'month'],
    sums: ['customers'],
  },
] as const;

/** What the summary holds plus the deltas not folded yet, summed per key. */
function currentView(summary: (typeof SUMMARIES)[number]): string {
  const columns = [...summary.key, ...summary.sums, ...('title' in summary ? ['title'] : [])].join(', ');
  const sums = summary.sums.map(
    (c) => `sum(${c})${c === 'orders' || c === 'customers' ? '::int' : c === 'quantity' ? '::bigint' : ''} AS ${c}`,
  );
  const title = 'title' in summary ? ', max(title) AS title' : '';
  return `
    CREATE VIEW ${summary.table}_current AS
    SELECT ${summary.key.join(', ')}, ${sums.join(', ')}${title}
      FROM (SELECT ${columns} FROM ${summary.table} UNION ALL SELECT ${columns} FROM ${summary.table.replace(/s$/, '')}_deltas) x
     GROUP BY ${summary.key.join(', ')}`;
}

/** Moves up to `batch` committed deltas into the summary, in one statement (readers see them in one place or the other). */
function foldStatement(summary: (typeof SUMMARIES)[number]): string {
  const deltas = `${summary.table.replace(/s$/, '')}_deltas`;
  const set = summary.sums.map((c) => `${c} = t.${c} + EXCLUDED.${c}`);
  if ('title' in summary) set.push('title = GREATEST(t.title, EXCLUDED.title)');
  const sums = summary.sums.map((c) => `sum(${c})`);
  return `
      WITH moved AS (
        DELETE FROM ${deltas} WHERE id IN (SELECT id FROM ${deltas} ORDER BY id LIMIT batch FOR UPDATE SKIP LOCKED)
        RETURNING *)
      INSERT INTO ${summary.table} AS t (${summary.key.join(', ')}, ${summary.sums.join(', ')}${'title' in summary ? ', title' : ''})
      SELECT ${summary.key.join(', ')}, ${sums.join(', ')}${'title' in summary ? ', max(title)' : ''}
        FROM moved m WHERE EXISTS (SELECT 1 FROM stores s WHERE s.id = m.store_id)
       GROUP BY ${summary.key.join(', ')} ORDER BY ${summary.key.join(', ')}
      ON CONFLICT (${summary.key.join(', ')}) DO UPDATE SET ${set.join(', ')};
      GET DIAGNOSTICS n = ROW_COUNT;
      folded := folded + n;`;
}

export class InsightRollups1795000003400 implements MigrationInterface {
  name = 'InsightRollups1795000003400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE insight_order_buckets (
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        bucket_start timestamptz NOT NULL,
        orders integer NOT NULL,
        revenue numeric(20, 4) NOT NULL,
        subtotal numeric(20, 4) NOT NULL,
        PRIMARY KEY (store_id, bucket_start)
      )`);
    await q.query(`
      CREATE TABLE insight_product_days (
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        day date NOT NULL,
        product_key uuid NOT NULL,
        orders integer NOT NULL,
        quantity bigint NOT NULL,
        revenue numeric(20, 4) NOT NULL,
        title text NULL,
        PRIMARY KEY (store_id, day, product_key)
      )`);
    // No foreign key to customers: a customer's deletion first takes their cohort months back
    // (insight_customer_deleting), which a cascade would run after.
    await q.query(`
      CREATE TABLE insight_customers (
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        customer_id uuid NOT NULL,
        orders integer NOT NULL DEFAULT 0,
        revenue numeric(20, 4) NOT NULL DEFAULT 0,
        first_order_at timestamptz NULL,
        last_order_at timestamptz NULL,
        cohort date NULL,
        PRIMARY KEY (store_id, customer_id)
      )`);
    // Customers who ordered since a date, with when they first did (new and returning customers).
    await q.query(`CREATE INDEX insight_customers_last ON insight_customers (store_id, last_order_at) INCLUDE (first_order_at)`);
    await q.query(`CREATE INDEX insight_customers_revenue ON insight_customers (store_id, revenue DESC, customer_id)`);
    await q.query(`
      CREATE TABLE insight_customer_months (
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        customer_id uuid NOT NULL,
        month date NOT NULL,
        orders integer NOT NULL,
        PRIMARY KEY (store_id, customer_id, month)
      )`);
    await q.query(`
      CREATE TABLE insight_cohort_months (
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        cohort date NOT NULL,
        month date NOT NULL,
        customers integer NOT NULL,
        PRIMARY KEY (store_id, cohort, month)
      )`);
    // Payments of a store that hold money, for the funnel's paid orders and profit and loss refunds.
    await q.query(`CREATE INDEX payments_insight_captured ON payments (store_id, order_id) WHERE captured > 0`);
    await q.query(`CREATE INDEX payments_insight_refunded ON payments (store_id, order_id) INCLUDE (refunded) WHERE refunded > 0`);

    // Deltas the triggers append (no row is updated by two writers), folded into the summaries by insight_fold.
    await q.query(`
      CREATE TABLE insight_order_bucket_deltas (
        id bigserial PRIMARY KEY,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        bucket_start timestamptz NOT NULL,
        orders integer NOT NULL,
        revenue numeric(20, 4) NOT NULL,
        subtotal numeric(20, 4) NOT NULL
      )`);
    await q.query(`CREATE INDEX insight_order_bucket_deltas_key ON insight_order_bucket_deltas (store_id, bucket_start)`);
    await q.query(`
      CREATE TABLE insight_product_day_deltas (
        id bigserial PRIMARY KEY,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        day date NOT NULL,
        product_key uuid NOT NULL,
        orders integer NOT NULL,
        quantity bigint NOT NULL,
        revenue numeric(20, 4) NOT NULL,
        title text NULL
      )`);
    await q.query(`CREATE INDEX insight_product_day_deltas_key ON insight_product_day_deltas (store_id, day)`);
    await q.query(`
      CREATE TABLE insight_cohort_month_deltas (
        id bigserial PRIMARY KEY,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        cohort date NOT NULL,
        month date NOT NULL,
        customers integer NOT NULL
      )`);
    await q.query(`CREATE INDEX insight_cohort_month_deltas_key ON insight_cohort_month_deltas (store_id, cohort)`);
    for (const summary of SUMMARIES) await q.query(currentView(summary));

    // The placed orders of the given (store, customer) pairs that have a summary row, with their store-local month.
    await q.query(`
      CREATE FUNCTION insight_customer_orders(stores_ uuid[], customers_ uuid[])
        RETURNS TABLE (store_id uuid, customer_id uuid, created_at timestamptz, total numeric, month date)
        LANGUAGE sql STABLE AS $fn$
        SELECT o.store_id, o.customer_id, o.created_at, o.total, ${LOCAL_MONTH('o.created_at')}
          FROM insight_customers ic JOIN unnest(stores_, customers_) AS a(store_id, customer_id) USING (store_id, customer_id)
          JOIN stores s ON s.id = ic.store_id
          JOIN orders o ON o.store_id = ic.store_id AND o.customer_id = ic.customer_id AND ${PLACED('o')}
      $fn$`);
    // Recomputes the summaries of the given (store, customer) pairs from their placed orders. The
    // customers' rows are locked first (in id order), so concurrent writers of one customer take
    // turns, each seeing the others' committed orders; a customer deleted meanwhile drops out.
    await q.query(`
      CREATE FUNCTION insight_refresh_customers(pairs_stores uuid[], pairs_customers uuid[]) RETURNS void LANGUAGE plpgsql AS $fn$
      DECLARE
        stores_ uuid[];
        customers_ uuid[];
      BEGIN
        SELECT array_agg(l.store_id ORDER BY l.customer_id), array_agg(l.customer_id ORDER BY l.customer_id) INTO stores_, customers_
          FROM (SELECT a.store_id, c.id AS customer_id
                  FROM customers c JOIN unnest(pairs_stores, pairs_customers) AS a(store_id, customer_id) ON c.id = a.customer_id
                 WHERE EXISTS (SELECT 1 FROM stores s WHERE s.id = a.store_id)
                 ORDER BY c.id FOR NO KEY UPDATE OF c) l;
        IF stores_ IS NULL THEN
          RETURN;
        END IF;
        INSERT INTO insight_customers (store_id, customer_id)
        SELECT a.store_id, a.customer_id FROM unnest(stores_, customers_) AS a(store_id, customer_id)
        ON CONFLICT DO NOTHING;

        -- Cohort months: take back what the customers counted for, then count what they count for now.
        WITH before AS (
          SELECT cm.store_id, ic.cohort, cm.month, -1 AS delta
            FROM insight_customers ic JOIN unnest(stores_, customers_) AS a(store_id, customer_id) USING (store_id, customer_id)
            JOIN insight_customer_months cm ON cm.store_id = ic.store_id AND cm.customer_id = ic.customer_id),
        firsts AS (
          SELECT r.store_id, r.customer_id, min(r.month) AS cohort FROM insight_customer_orders(stores_, customers_) r GROUP BY 1, 2),
        after AS (
          SELECT DISTINCT r.store_id, f.cohort, r.month, r.customer_id FROM insight_customer_orders(stores_, customers_) r JOIN firsts f USING (store_id, customer_id)),
        deltas AS (
          SELECT store_id, cohort, month, sum(delta)::int AS delta FROM (
            SELECT store_id, cohort, month, delta FROM before
            UNION ALL SELECT store_id, cohort, month, 1 FROM after) x
           GROUP BY 1, 2, 3 HAVING sum(delta) <> 0)
        INSERT INTO insight_cohort_month_deltas (store_id, cohort, month, customers)
        SELECT store_id, cohort, month, delta FROM deltas;

        DELETE FROM insight_customer_months cm USING unnest(stores_, customers_) AS a(store_id, customer_id)
         WHERE cm.store_id = a.store_id AND cm.customer_id = a.customer_id;
        INSERT INTO insight_customer_months (store_id, customer_id, month, orders)
        SELECT store_id, customer_id, month, count(*) FROM insight_customer_orders(stores_, customers_) GROUP BY 1, 2, 3;

        UPDATE insight_customers ic
           SET orders = COALESCE(r.orders, 0), revenue = COALESCE(r.revenue, 0), first_order_at = r.first_at,
               last_order_at = r.last_at, cohort = r.cohort
          FROM unnest(stores_, customers_) AS a(store_id, customer_id)
          LEFT JOIN (SELECT store_id, customer_id, count(*)::int AS orders, sum(total) AS revenue, min(created_at) AS first_at,
                            max(created_at) AS last_at, min(month) AS cohort
                       FROM insight_customer_orders(stores_, customers_) GROUP BY 1, 2) r USING (store_id, customer_id)
         WHERE ic.store_id = a.store_id AND ic.customer_id = a.customer_id;
        DELETE FROM insight_customers ic USING unnest(stores_, customers_) AS a(store_id, customer_id)
         WHERE ic.store_id = a.store_id AND ic.customer_id = a.customer_id AND ic.orders = 0;
      END $fn$`);

    // Planned once per connection: its statements are the same for one customer or many, and a
    // custom plan per call (the default for the first calls with array parameters) cost more than
    // running them (about 2.5 ms a call, measured).
    await q.query(`ALTER FUNCTION insight_refresh_customers(uuid[], uuid[]) SET plan_cache_mode = force_generic_plan`);

    for (const op of ['INSERT', 'UPDATE', 'DELETE'] as const) {
      await q.query(ordersTrigger(op));
      const transition =
        op === 'INSERT'
          ? 'NEW TABLE AS insight_new'
          : op === 'DELETE'
            ? 'OLD TABLE AS insight_old'
            : 'OLD TABLE AS insight_old NEW TABLE AS insight_new';
      await q.query(`
        CREATE TRIGGER insight_orders_${op.toLowerCase()} AFTER ${op} ON orders REFERENCING ${transition}
          FOR EACH STATEMENT EXECUTE FUNCTION insight_orders_${op.toLowerCase()}()`);
      await q.query(linesTrigger(op));
      await q.query(`
        CREATE TRIGGER insight_order_items_${op.toLowerCase()} AFTER ${op} ON order_items REFERENCING ${transition}
          FOR EACH STATEMENT EXECUTE FUNCTION insight_order_items_${op.toLowerCase()}()`);
    }

    // A deleted order's lines are deleted by a cascade after the order, when it can no longer be
    // found: take them back from the product days before the order goes.
    await q.query(`
      CREATE FUNCTION insight_order_deleting() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        IF OLD.status <> 'CANCELLED' AND EXISTS (SELECT 1 FROM stores WHERE id = OLD.store_id) THEN
          PERFORM pg_advisory_xact_lock_shared(${LOCK_SPACE}, hashtext(OLD.store_id::text));
          ${addProductDays(`
          SELECT OLD.store_id, ${UTC_DAY('OLD.created_at')}, COALESCE(product_id, ${NO_PRODUCT}), -1, -sum(quantity)::bigint, -sum(line_total), NULL::text
            FROM order_items WHERE order_id = OLD.id GROUP BY 3`)};
        END IF;
        RETURN OLD;
      END $fn$`);
    await q.query(`CREATE TRIGGER insight_order_deleting BEFORE DELETE ON orders FOR EACH ROW EXECUTE FUNCTION insight_order_deleting()`);

    // A deleted customer's orders go by a cascade after the customer, when the customer can no
    // longer be found: take back their cohort months and summary first.
    await q.query(`
      CREATE FUNCTION insight_customer_deleting() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        PERFORM pg_advisory_xact_lock_shared(${LOCK_SPACE}, hashtext(OLD.store_id::text));
        INSERT INTO insight_cohort_month_deltas (store_id, cohort, month, customers)
        SELECT cm.store_id, ic.cohort, cm.month, -1
          FROM insight_customers ic JOIN insight_customer_months cm USING (store_id, customer_id)
         WHERE ic.customer_id = OLD.id AND ic.store_id = OLD.store_id
           AND EXISTS (SELECT 1 FROM stores WHERE id = OLD.store_id);
        DELETE FROM insight_customer_months WHERE store_id = OLD.store_id AND customer_id = OLD.id;
        DELETE FROM insight_customers WHERE store_id = OLD.store_id AND customer_id = OLD.id;
        RETURN OLD;
      END $fn$`);
    await q.query(
      `CREATE TRIGGER insight_customer_deleting BEFORE DELETE ON customers FOR EACH ROW EXECUTE FUNCTION insight_customer_deleting()`,
    );

    // Pauses folding and the store's writers (they take the same locks shared) for a rebuild.
    await q.query(`
      CREATE FUNCTION insight_lock_for_rebuild(store_ uuid) RETURNS void LANGUAGE plpgsql AS $fn$
      BEGIN
        PERFORM pg_advisory_xact_lock(${LOCK_SPACE}, 0);
        PERFORM pg_advisory_xact_lock(${LOCK_SPACE}, hashtext(store_::text));
      END $fn$`);
    // Everything of a store from scratch.
    await q.query(`
      CREATE FUNCTION insight_rebuild(store_ uuid) RETURNS void LANGUAGE plpgsql AS $fn$
      BEGIN
        PERFORM insight_lock_for_rebuild(store_);
        DELETE FROM insight_order_bucket_deltas WHERE store_id = store_;
        DELETE FROM insight_order_buckets WHERE store_id = store_;
        INSERT INTO insight_order_buckets (store_id, bucket_start, orders, revenue, subtotal)
        SELECT store_id, ${BUCKET('created_at')}, count(*), sum(total), sum(subtotal)
          FROM orders WHERE store_id = store_ AND status <> 'CANCELLED' GROUP BY 1, 2;
        DELETE FROM insight_product_day_deltas WHERE store_id = store_;
        DELETE FROM insight_product_days WHERE store_id = store_;
        INSERT INTO insight_product_days (store_id, day, product_key, orders, quantity, revenue, title)
        SELECT o.store_id, ${UTC_DAY('o.created_at')}, COALESCE(i.product_id, ${NO_PRODUCT}), count(DISTINCT o.id), sum(i.quantity),
               sum(i.line_total), max(i.title)
          FROM orders o JOIN order_items i ON i.order_id = o.id
         WHERE o.store_id = store_ AND ${PLACED('o')} GROUP BY 1, 2, 3;
        PERFORM insight_rebuild_customers(store_);
      END $fn$`);
    // The customer summaries, months and cohorts of a store from scratch (they depend on its time zone).
    await q.query(`
      CREATE FUNCTION insight_rebuild_customers(store_ uuid) RETURNS void LANGUAGE plpgsql AS $fn$
      BEGIN
        PERFORM insight_lock_for_rebuild(store_);
        DELETE FROM insight_cohort_month_deltas WHERE store_id = store_;
        DELETE FROM insight_cohort_months WHERE store_id = store_;
        DELETE FROM insight_customer_months WHERE store_id = store_;
        DELETE FROM insight_customers WHERE store_id = store_;
        INSERT INTO insight_customer_months (store_id, customer_id, month, orders)
        SELECT o.store_id, o.customer_id, ${LOCAL_MONTH('o.created_at')}, count(*)
          FROM orders o JOIN stores s ON s.id = o.store_id
         WHERE o.store_id = store_ AND ${PLACED('o')} GROUP BY 1, 2, 3;
        INSERT INTO insight_customers (store_id, customer_id, orders, revenue, first_order_at, last_order_at, cohort)
        SELECT o.store_id, o.customer_id, count(*), sum(o.total), min(o.created_at), max(o.created_at), ${LOCAL_MONTH('min(o.created_at)')}
          FROM orders o JOIN stores s ON s.id = o.store_id
         WHERE o.store_id = store_ AND ${PLACED('o')} GROUP BY o.store_id, o.customer_id, s.timezone;
        -- From the orders again rather than the two tables just filled: their statistics still describe
        -- what they held before, and a join planned on those would take minutes on a large store.
        WITH m AS (
          SELECT o.customer_id, ${LOCAL_MONTH('o.created_at')} AS month
            FROM orders o JOIN stores s ON s.id = o.store_id
           WHERE o.store_id = store_ AND ${PLACED('o')} GROUP BY 1, 2),
        f AS (SELECT customer_id, min(month) AS cohort FROM m GROUP BY 1)
        INSERT INTO insight_cohort_months (store_id, cohort, month, customers)
        SELECT store_, f.cohort, m.month, count(*) FROM m JOIN f USING (customer_id) GROUP BY 2, 3;
      END $fn$`);
    // Folds up to `batch` deltas of each summary into it; answers how many summary rows changed.
    await q.query(`
      CREATE FUNCTION insight_fold(batch integer) RETURNS integer LANGUAGE plpgsql AS $fn$
      DECLARE
        folded integer := 0;
        n integer;
      BEGIN
        PERFORM pg_advisory_xact_lock_shared(${LOCK_SPACE}, 0);
        ${SUMMARIES.map(foldStatement).join('\n')}
        RETURN folded;
      END $fn$`);
    // TRUNCATE fires no row or statement trigger of its own kind: empty the summaries with the orders.
    await q.query(`
      CREATE FUNCTION insight_truncated() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        IF TG_TABLE_NAME = 'orders' THEN
          TRUNCATE insight_order_buckets, insight_order_bucket_deltas, insight_customers, insight_customer_months,
                   insight_cohort_months, insight_cohort_month_deltas;
        END IF;
        TRUNCATE insight_product_days, insight_product_day_deltas;
        RETURN NULL;
      END $fn$`);
    await q.query(
      `CREATE TRIGGER insight_orders_truncated AFTER TRUNCATE ON orders FOR EACH STATEMENT EXECUTE FUNCTION insight_truncated()`,
    );
    await q.query(
      `CREATE TRIGGER insight_order_items_truncated AFTER TRUNCATE ON order_items FOR EACH STATEMENT EXECUTE FUNCTION insight_truncated()`,
    );
    await q.query(`
      CREATE FUNCTION insight_store_zone_changed() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        PERFORM insight_rebuild_customers(NEW.id);
        RETURN NULL;
      END $fn$`);
    await q.query(`
      CREATE TRIGGER insight_store_zone_changed AFTER UPDATE OF timezone ON stores
        FOR EACH ROW WHEN (OLD.timezone IS DISTINCT FROM NEW.timezone) EXECUTE FUNCTION insight_store_zone_changed()`);

    await q.query(`SELECT insight_rebuild(id) FROM stores`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER IF EXISTS insight_orders_truncated ON orders`);
    await q.query(`DROP TRIGGER IF EXISTS insight_order_items_truncated ON order_items`);
    await q.query(`DROP TRIGGER IF EXISTS insight_store_zone_changed ON stores`);
    await q.query(`DROP TRIGGER IF EXISTS insight_customer_deleting ON customers`);
    await q.query(`DROP TRIGGER IF EXISTS insight_order_deleting ON orders`);
    for (const op of ['insert', 'update', 'delete']) {
      await q.query(`DROP TRIGGER IF EXISTS insight_orders_${op} ON orders`);
      await q.query(`DROP TRIGGER IF EXISTS insight_order_items_${op} ON order_items`);
      await q.query(`DROP FUNCTION IF EXISTS insight_orders_${op}()`);
      await q.query(`DROP FUNCTION IF EXISTS insight_order_items_${op}()`);
    }
    for (const fn of [
      'insight_truncated()',
      'insight_fold(integer)',
      'insight_store_zone_changed()',
      'insight_rebuild(uuid)',
      'insight_rebuild_customers(uuid)',
      'insight_lock_for_rebuild(uuid)',
      'insight_customer_deleting()',
      'insight_order_deleting()',
      'insight_refresh_customers(uuid[], uuid[])',
      'insight_customer_orders(uuid[], uuid[])',
    ])
      await q.query(`DROP FUNCTION IF EXISTS ${fn}`);
    for (const summary of SUMMARIES) await q.query(`DROP VIEW IF EXISTS ${summary.table}_current`);
    await q.query(`DROP INDEX IF EXISTS payments_insight_refunded`);
    await q.query(`DROP INDEX IF EXISTS payments_insight_captured`);
    for (const t of [
      'insight_cohort_month_deltas',
      'insight_product_day_deltas',
      'insight_order_bucket_deltas',
      'insight_cohort_months',
      'insight_customer_months',
      'insight_customers',
      'insight_product_days',
      'insight_order_buckets',
    ])
      await q.query(`DROP TABLE IF EXISTS ${t}`);
  }
}
