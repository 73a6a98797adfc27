import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Theme packages (docs/themes.md):
 * - theme_packages: one row per uploaded package of a store (DRAFT until published, then PUBLISHED
 *   for good), with its name and version from theme.json, its size, the checksum of its files and
 *   the validator's warnings;
 * - theme_package_files: the files of a package, as uploaded (bytea: packages are at most 20 MiB);
 * - store_active_themes: the one active package of a store (the store id is the key, so switching is
 *   one upsert in the publishing transaction); a store without a row renders the default theme;
 * - theme_section_settings: a store's saved settings of one section of one template, per theme (`theme`
 *   is a package id, or `default` for the built-in theme), so a rollback finds its settings again.
 */
export class Themes1795000003800 implements MigrationInterface {
  name = 'Themes1795000003800';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE theme_packages (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name text NOT NULL,
        version text NOT NULL,
        status text NOT NULL DEFAULT 'DRAFT' CHECK (status IN ('DRAFT', 'PUBLISHED')),
        file_count integer NOT NULL CHECK (file_count > 0),
        bytes bigint NOT NULL CHECK (bytes >= 0),
        checksum text NOT NULL CHECK (checksum ~ '^[0-9a-f]{64}$'),
        findings jsonb NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(findings) = 'array'),
        created_by uuid NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        published_at timestamptz NULL,
        CHECK ((status = 'PUBLISHED') = (published_at IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX theme_packages_store ON theme_packages (tenant_id, store_id, created_at DESC, id DESC)`);
    await q.query(`
      CREATE TABLE theme_package_files (
        package_id uuid NOT NULL REFERENCES theme_packages(id) ON DELETE CASCADE,
        path text NOT NULL,
        bytes integer NOT NULL,
        sha256 text NOT NULL,
        content bytea NOT NULL,
        PRIMARY KEY (package_id, path)
      )`);
    // The storefront finds an asset by its content hash among a store's published packages.
    await q.query(`CREATE INDEX theme_package_files_sha ON theme_package_files (sha256)`);
    await q.query(`
      CREATE TABLE store_active_themes (
        store_id uuid PRIMARY KEY REFERENCES stores(id) ON DELETE CASCADE,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        package_id uuid NOT NULL REFERENCES theme_packages(id) ON DELETE CASCADE,
        activated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE theme_section_settings (
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        theme text NOT NULL,
        template text NOT NULL,
        section_id text NOT NULL,
        settings jsonb NOT NULL CHECK (jsonb_typeof(settings) = 'object'),
        updated_by uuid NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (store_id, theme, template, section_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE theme_section_settings`);
    await q.query(`DROP TABLE store_active_themes`);
    await q.query(`DROP TABLE theme_package_files`);
    await q.query(`DROP TABLE theme_packages`);
  }
}
