import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A store invitation accepted: the tenant that registered with a lead's invitation token
 * (docs/crm.md, "Store invitation"). The tenant's first store is linked to the lead when it is
 * created.
 */
export class LeadInvitations1795000002600 implements MigrationInterface {
  name = 'LeadInvitations1795000002600';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE leads ADD COLUMN invited_tenant_id uuid NULL REFERENCES tenants(id) ON DELETE SET NULL');
    await q.query(
      'CREATE INDEX leads_invited_tenant ON leads (invited_tenant_id) WHERE invited_tenant_id IS NOT NULL AND store_id IS NULL',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE leads DROP COLUMN IF EXISTS invited_tenant_id');
  }
}
