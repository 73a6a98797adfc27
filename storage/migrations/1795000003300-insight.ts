import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Insight (docs/insight.md): saved report definitions of a store with their schedule, and the
 * indexes the business intelligence reports read orders through (placed orders only: a cancelled
 * order is never counted, so the partial indexes leave them out and stay smaller).
 */
export class Insight1795000003300 implements MigrationInterface {
  name = 'Insight1795000003300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE saved_reports (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 120),
        report text NOT NULL,
        parameters jsonb NOT NULL DEFAULT '{}'::jsonb,
        schedule text NOT NULL CHECK (schedule IN ('DAILY', 'WEEKLY', 'MONTHLY', 'NONE')),
        hour integer NULL CHECK (hour BETWEEN 0 AND 23),
        time_zone text NULL,
        next_due_at timestamptz NULL,
        last_due_at timestamptz NULL,
        created_by uuid NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((schedule = 'NONE') = (next_due_at IS NULL))
      )`);
    await q.query(`CREATE INDEX saved_reports_store ON saved_reports (store_id, created_at, id)`);
    await q.query(`CREATE INDEX saved_reports_due ON saved_reports (next_due_at) WHERE next_due_at IS NOT NULL`);
    // Placed orders of a store by time, with what the reports sum: index-only scans for the windowed reports.
    await q.query(`
      CREATE INDEX orders_bi_placed ON orders (store_id, created_at)
        INCLUDE (total, subtotal, customer_id) WHERE status <> 'CANCELLED'`);
    // Placed orders of a store by customer: first orders (cohorts, new customers) and lifetime value.
    await q.query(`
      CREATE INDEX orders_bi_customer ON orders (store_id, customer_id, created_at)
        INCLUDE (total) WHERE status <> 'CANCELLED'`);
    await q.query(`CREATE INDEX order_items_bi ON order_items (order_id) INCLUDE (product_id, quantity, line_total)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS order_items_bi`);
    await q.query(`DROP INDEX IF EXISTS orders_bi_customer`);
    await q.query(`DROP INDEX IF EXISTS orders_bi_placed`);
    await q.query(`DROP TABLE IF EXISTS saved_reports`);
  }
}
