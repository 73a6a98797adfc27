import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Product import and export jobs (docs/catalog.md, "Import and export"). A job row holds the state
 * and the progress; the uploaded CSV of an asynchronous import and the CSV an export writes are kept in `transfer_job_chunks` (in
 * order, about 1 MiB each), so they survive a crash or restart and belong to the job's tenant.
 * `next_row` is the first data row not yet committed: each batch commits its products, its row
 * errors and the new `next_row` in one transaction, so a resumed job continues there.
 */
export class TransferJobs1795000001100 implements MigrationInterface {
  name = 'TransferJobs1795000001100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE transfer_jobs (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('PRODUCT_IMPORT', 'PRODUCT_EXPORT')),
        state text NOT NULL CHECK (state IN ('QUEUED', 'RUNNING', 'COMPLETED', 'FAILED')),
        actor_type text NOT NULL,
        actor_id text NULL,
        file_bytes bigint NOT NULL DEFAULT 0,
        next_row integer NOT NULL DEFAULT 1,
        rows_read integer NOT NULL DEFAULT 0,
        rows_failed integer NOT NULL DEFAULT 0,
        products_created integer NOT NULL DEFAULT 0,
        products_updated integer NOT NULL DEFAULT 0,
        products_unchanged integer NOT NULL DEFAULT 0,
        products_failed integer NOT NULL DEFAULT 0,
        products_exported integer NOT NULL DEFAULT 0,
        errors_count integer NOT NULL DEFAULT 0,
        failure text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz NULL,
        finished_at timestamptz NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX transfer_jobs_store ON transfer_jobs (tenant_id, store_id, created_at DESC)');
    await q.query(`
      CREATE TABLE transfer_job_errors (
        id bigserial PRIMARY KEY,
        job_id uuid NOT NULL REFERENCES transfer_jobs(id) ON DELETE CASCADE,
        row_number integer NOT NULL,
        column_name text NULL,
        message text NOT NULL
      )`);
    await q.query('CREATE INDEX transfer_job_errors_job ON transfer_job_errors (job_id, row_number, id)');
    await q.query(`
      CREATE TABLE transfer_job_chunks (
        job_id uuid NOT NULL REFERENCES transfer_jobs(id) ON DELETE CASCADE,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        seq integer NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (job_id, seq)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE transfer_job_chunks');
    await q.query('DROP TABLE transfer_job_errors');
    await q.query('DROP TABLE transfer_jobs');
  }
}
