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
 * Sums and counts are kept by adding deltas (commutative, so concurrent writers never lose one);
 * what a delta cannot keep (first and last order, months, cohort) is recomputed per customer under
 * a lock of that customer's summary row. A trigger does nothing for a store or customer that no
 * longer exists (a cascade from its deletion): their summary rows go by their own cascade or trigger.
 * `insight_rebuild(store)` recomputes a store's summaries from scratch: used here to fill them for
 * existing orders, after a store's time zone changes, and by the tests that compare both.
 */

/** The product key of order lines whose product was deleted. */
const NO_PRODUCT = `'00000000-0000-0000-0000-000000000000'::uuid`;
const BUCKET = (at: string): string => `date_bin('15 minutes', ${at}, TIMESTAMPTZ '2000-01-01 00:00:00+00')`;
const UTC_DAY = (at: string): string => `(${at} AT TIME ZONE 'UTC')::date`;
const PLACED = (alias: string): string => `${alias}.status <> 'CANCELLED'`;
const ZONE = `COALESCE(NULLIF(s.timezone, ''), 'UTC')`;
const LOCAL_MONTH = (at: string): string => `date_trunc('month', ${at} AT TIME ZONE ${ZONE})::date`;

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

/** Adds deltas to insight_product_days; the SELECT must answer (store_id, day, product_key, orders, quantity, revenue, title). */
const addProductDays = (select: string): string => `
  INSERT INTO insight_product_days AS d (store_id, day, product_key, orders, quantity, revenue, title)
  ${select}
  ON CONFLICT (store_id, day, product_key) DO UPDATE
     SET orders = d.orders + EXCLUDED.orders, quantity = d.quantity + EXCLUDED.quantity,
         revenue = d.revenue + EXCLUDED.revenue, title = GREATEST(d.title, EXCLUDED.title)`;

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
    HAVING sum(m.sign) <> 0 OR sum(m.sign * l.quantity) <> 0 OR sum(m.sign * l.revenue) <> 0
     ORDER BY 1, 2, 3`)};`;
  return `
    CREATE FUNCTION insight_orders_${op.toLowerCase()}() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      stores_ uuid[];
      customers_ uuid[];
    BEGIN
      WITH ${changes}
      INSERT INTO insight_order_buckets AS b (store_id, bucket_start, orders, revenue, subtotal)
      SELECT c.store_id, ${BUCKET('c.created_at')}, sum(c.sign)::int, sum(c.sign * c.total), sum(c.sign * c.subtotal)
        FROM changes c JOIN stores s ON s.id = c.store_id
       WHERE ${PLACED('c')}
       GROUP BY 1, 2
      HAVING sum(c.sign) <> 0 OR sum(c.sign * c.total) <> 0 OR sum(c.sign * c.subtotal) <> 0
       ORDER BY 1, 2
      ON CONFLICT (store_id, bucket_start) DO UPDATE
         SET orders = b.orders + EXCLUDED.orders, revenue = b.revenue + EXCLUDED.revenue, subtotal = b.subtotal + EXCLUDED.subtotal;
      ${lines}
      WITH ${changes}
      SELECT array_agg(a.store_id ORDER BY a.store_id, a.customer_id), array_agg(a.customer_id ORDER BY a.store_id, a.customer_id)
        INTO stores_, customers_
        FROM (SELECT DISTINCT store_id, customer_id FROM changes) a;
      IF stores_ IS NOT NULL THEN
        PERFORM insight_refresh_customers(stores_, customers_);
      END IF;
      RETURN NULL;
    END $fn$`;
}

function linesTrigger(op: 'INSERT' | 'UPDATE' | 'DELETE'): string {
  return `
    CREATE FUNCTION insight_order_items_${op.toLowerCase()}() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      WITH changes AS (${LINE_CHANGES[op]}),
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
        FROM counted GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`)};
      RETURN NULL;
    END $fn$`;
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
    // Recomputes the summaries of the given (store, customer) pairs from their placed orders, each
    // under a lock of its summary row, so concurrent writers of one customer take turns and each
    // sees the others' committed orders. The arrays are sorted, which keeps the locks in one order.
    await q.query(`
      CREATE FUNCTION insight_refresh_customers(stores_ uuid[], customers_ uuid[]) RETURNS void LANGUAGE plpgsql AS $fn$
      BEGIN
        INSERT INTO insight_customers (store_id, customer_id)
        SELECT a.store_id, a.customer_id FROM unnest(stores_, customers_) AS a(store_id, customer_id)
          JOIN stores s ON s.id = a.store_id JOIN customers c ON c.id = a.customer_id
        ON CONFLICT DO NOTHING;
        PERFORM 1 FROM insight_customers ic JOIN unnest(stores_, customers_) AS a(store_id, customer_id) USING (store_id, customer_id)
         ORDER BY ic.store_id, ic.customer_id FOR UPDATE OF ic;

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
        INSERT INTO insight_cohort_months AS k (store_id, cohort, month, customers)
        SELECT store_id, cohort, month, delta FROM deltas ORDER BY 1, 2, 3
        ON CONFLICT (store_id, cohort, month) DO UPDATE SET customers = k.customers + EXCLUDED.customers;

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
          ${addProductDays(`
          SELECT OLD.store_id, ${UTC_DAY('OLD.created_at')}, COALESCE(product_id, ${NO_PRODUCT}), -1, -sum(quantity)::bigint, -sum(line_total), NULL::text
            FROM order_items WHERE order_id = OLD.id GROUP BY 3 ORDER BY 3`)};
        END IF;
        RETURN OLD;
      END $fn$`);
    await q.query(`CREATE TRIGGER insight_order_deleting BEFORE DELETE ON orders FOR EACH ROW EXECUTE FUNCTION insight_order_deleting()`);

    // A deleted customer's orders go by a cascade after the customer, when the customer can no
    // longer be found: take back their cohort months and summary first.
    await q.query(`
      CREATE FUNCTION insight_customer_deleting() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        INSERT INTO insight_cohort_months AS k (store_id, cohort, month, customers)
        SELECT cm.store_id, ic.cohort, cm.month, -1
          FROM insight_customers ic JOIN insight_customer_months cm USING (store_id, customer_id)
         WHERE ic.customer_id = OLD.id AND ic.store_id = OLD.store_id
           AND EXISTS (SELECT 1 FROM stores WHERE id = OLD.store_id)
         ORDER BY 1, 2, 3
        ON CONFLICT (store_id, cohort, month) DO UPDATE SET customers = k.customers + EXCLUDED.customers;
        DELETE FROM insight_customer_months WHERE store_id = OLD.store_id AND customer_id = OLD.id;
        DELETE FROM insight_customers WHERE store_id = OLD.store_id AND customer_id = OLD.id;
        RETURN OLD;
      END $fn$`);
    await q.query(
      `CREATE TRIGGER insight_customer_deleting BEFORE DELETE ON customers FOR EACH ROW EXECUTE FUNCTION insight_customer_deleting()`,
    );

    // Everything of a store from scratch.
    await q.query(`
      CREATE FUNCTION insight_rebuild(store_ uuid) RETURNS void LANGUAGE plpgsql AS $fn$
      BEGIN
        DELETE FROM insight_order_buckets WHERE store_id = store_;
        INSERT INTO insight_order_buckets (store_id, bucket_start, orders, revenue, subtotal)
        SELECT store_id, ${BUCKET('created_at')}, count(*), sum(total), sum(subtotal)
          FROM orders WHERE store_id = store_ AND status <> 'CANCELLED' GROUP BY 1, 2;
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
        INSERT INTO insight_cohort_months (store_id, cohort, month, customers)
        SELECT cm.store_id, ic.cohort, cm.month, count(*)
          FROM insight_customer_months cm JOIN insight_customers ic USING (store_id, customer_id)
         WHERE cm.store_id = store_ GROUP BY 1, 2, 3;
      END $fn$`);
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
      'insight_store_zone_changed()',
      'insight_rebuild(uuid)',
      'insight_rebuild_customers(uuid)',
      'insight_customer_deleting()',
      'insight_order_deleting()',
      'insight_refresh_customers(uuid[], uuid[])',
      'insight_customer_orders(uuid[], uuid[])',
    ])
      await q.query(`DROP FUNCTION IF EXISTS ${fn}`);
    await q.query(`DROP INDEX IF EXISTS payments_insight_refunded`);
    await q.query(`DROP INDEX IF EXISTS payments_insight_captured`);
    for (const t of [
      'insight_cohort_months',
      'insight_customer_months',
      'insight_customers',
      'insight_product_days',
      'insight_order_buckets',
    ])
      await q.query(`DROP TABLE IF EXISTS ${t}`);
  }
}
