import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Partner apps (docs/app-store.md, "Apps"), an extension of the app store:
 * - app_listings gains `owner_tenant_id` (the partner tenant that develops the app; null for the
 *   platform's own seeded catalog), `webhook_topics` (what the app subscribes to when installed for
 *   development) and `current_version` (the latest released version, shown in its reads). A partner's
 *   listing starts unpublished (`published = false`) and is published by its first release;
 * - app_versions: every released version of a partner listing (semantic versions, each newer than the
 *   one before by precedence, checked in the service under a lock of the listing);
 * - partner_sandboxes: which partner claimed which sandbox for development installs (keyed by the
 *   sandbox's tenant id, which survives a sandbox reset, so no foreign key to the sandbox rows).
 */
export class PartnerApps1795000003900 implements MigrationInterface {
  name = 'PartnerApps1795000003900';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE app_listings
        ADD COLUMN owner_tenant_id uuid NULL REFERENCES tenants(id) ON DELETE CASCADE,
        ADD COLUMN webhook_topics text[] NOT NULL DEFAULT '{}',
        ADD COLUMN current_version text NULL CHECK (current_version IS NULL OR char_length(current_version) <= 128)`);
    await q.query('CREATE INDEX app_listings_owner ON app_listings (owner_tenant_id, id) WHERE owner_tenant_id IS NOT NULL');
    await q.query(`
      CREATE TABLE app_versions (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        listing_id uuid NOT NULL REFERENCES app_listings(id) ON DELETE CASCADE,
        version text NOT NULL CHECK (char_length(version) BETWEEN 5 AND 128),
        notes text NULL CHECK (notes IS NULL OR char_length(notes) <= 2000),
        released_by uuid NULL,
        released_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (listing_id, version)
      )`);
    await q.query('CREATE INDEX app_versions_listing ON app_versions (tenant_id, listing_id, released_at DESC, id DESC)');
    await q.query(`
      CREATE TABLE partner_sandboxes (
        sandbox_tenant_id uuid PRIMARY KEY,
        partner_tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        claimed_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE partner_sandboxes');
    await q.query('DROP TABLE app_versions');
    await q.query('DELETE FROM app_listings WHERE owner_tenant_id IS NOT NULL');
    await q.query('ALTER TABLE app_listings DROP COLUMN current_version, DROP COLUMN webhook_topics, DROP COLUMN owner_tenant_id');
  }
}
