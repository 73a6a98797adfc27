/**
 * SQL of partner apps: the partner columns of app_listings are not part of the catalog's entity (the
 * merchant reads never need them), so partner reads and writes are written here, every statement
 * bound to the owning partner tenant.
 */
import type { EntityManager } from 'typeorm';

export interface PartnerAppRow {
  id: string;
  slug: string;
  name: string;
  summary: string;
  description: string;
  category: string;
  developer: string;
  scopes: string[];
  webhook_topics: string[];
  published: boolean;
  current_version: string | null;
  created_at: Date;
}

export interface AppVersionRow {
  id: string;
  listing_id: string;
  version: string;
  notes: string | null;
  released_at: Date;
}

const APP_COLUMNS = `id, slug, name, summary, description, category, developer, scopes, webhook_topics, published, current_version, created_at`;

export async function insertPartnerApp(
  manager: EntityManager,
  row: Omit<PartnerAppRow, 'published' | 'current_version' | 'created_at'> & { ownerTenantId: string; createdAt: Date },
): Promise<PartnerAppRow | null> {
  const rows: PartnerAppRow[] = await manager.query(
    `INSERT INTO app_listings (id, slug, name, summary, description, category, pricing_type, price, currency, developer, icon_path,
                               scopes, published, owner_tenant_id, webhook_topics, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'FREE', 0, 'EUR', $7, $8, $9, false, $10, $11, $12)
     ON CONFLICT (slug) DO NOTHING
     RETURNING ${APP_COLUMNS}`,
    [
      row.id,
      row.slug,
      row.name,
      row.summary,
      row.description,
      row.category,
      row.developer,
      `/app-icons/${row.slug}.svg`,
      row.scopes,
      row.ownerTenantId,
      row.webhook_topics,
      row.createdAt,
    ],
  );
  return rows[0] ?? null;
}

export async function countPartnerApps(manager: EntityManager, tenantId: string): Promise<number> {
  const [row]: Array<{ n: number }> = await manager.query('SELECT count(*)::int AS n FROM app_listings WHERE owner_tenant_id = $1', [
    tenantId,
  ]);
  return row!.n;
}

/** One of the partner's apps by id or slug (`byId` says which), optionally locked for a release. */
export async function findPartnerApp(
  manager: EntityManager,
  tenantId: string,
  idOrSlug: string,
  byId: boolean,
  lock = false,
): Promise<PartnerAppRow | null> {
  const rows: PartnerAppRow[] = await manager.query(
    `SELECT ${APP_COLUMNS} FROM app_listings WHERE owner_tenant_id = $1 AND ${byId ? 'id = $2::uuid' : 'slug = $2'}${lock ? ' FOR UPDATE' : ''}`,
    [tenantId, idOrSlug],
  );
  return rows[0] ?? null;
}

export async function listPartnerApps(
  manager: EntityManager,
  tenantId: string,
  after: string | undefined,
  take: number,
): Promise<PartnerAppRow[]> {
  return manager.query(
    `SELECT ${APP_COLUMNS} FROM app_listings
      WHERE owner_tenant_id = $1 AND ($2::uuid IS NULL OR id > $2::uuid)
      ORDER BY id LIMIT $3`,
    [tenantId, after ?? null, take],
  );
}

export async function latestVersion(manager: EntityManager, tenantId: string, listingId: string): Promise<AppVersionRow | null> {
  const rows: AppVersionRow[] = await manager.query(
    `SELECT id, listing_id, version, notes, released_at FROM app_versions
      WHERE tenant_id = $1 AND listing_id = $2 ORDER BY released_at DESC, id DESC LIMIT 1`,
    [tenantId, listingId],
  );
  return rows[0] ?? null;
}

export async function insertVersion(
  manager: EntityManager,
  row: AppVersionRow & { tenantId: string; releasedBy: string | null },
): Promise<void> {
  await manager.query(
    `INSERT INTO app_versions (id, tenant_id, listing_id, version, notes, released_by, released_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [row.id, row.tenantId, row.listing_id, row.version, row.notes, row.releasedBy, row.released_at],
  );
  // The release makes the listing available in the catalog and names its current version.
  await manager.query('UPDATE app_listings SET current_version = $3, published = true WHERE id = $1 AND owner_tenant_id = $2', [
    row.listing_id,
    row.tenantId,
    row.version,
  ]);
}

export async function listVersions(manager: EntityManager, tenantId: string, listingId: string): Promise<AppVersionRow[]> {
  return manager.query(
    `SELECT id, listing_id, version, notes, released_at FROM app_versions
      WHERE tenant_id = $1 AND listing_id = $2 ORDER BY released_at DESC, id DESC LIMIT 1000`,
    [tenantId, listingId],
  );
}

/** The sandbox a token belongs to: the key found by its prefix, proven by the hash of the whole token. */
export async function sandboxKeyCandidates(
  manager: EntityManager,
  prefix: string,
): Promise<Array<{ secret_hash: string; tenant_id: string; store_id: string }>> {
  return manager.query(
    `SELECT k.secret_hash, s.tenant_id, s.store_id FROM api_keys k JOIN sandboxes s ON s.api_key_id = k.id
      WHERE k.prefix = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())`,
    [prefix],
  );
}

/** Claims the sandbox for the partner when nobody has; returns the partner that holds it. */
export async function claimSandbox(manager: EntityManager, sandboxTenantId: string, partnerTenantId: string): Promise<string> {
  await manager.query(
    'INSERT INTO partner_sandboxes (sandbox_tenant_id, partner_tenant_id) VALUES ($1, $2) ON CONFLICT (sandbox_tenant_id) DO NOTHING',
    [sandboxTenantId, partnerTenantId],
  );
  const [row]: Array<{ partner_tenant_id: string }> = await manager.query(
    'SELECT partner_tenant_id FROM partner_sandboxes WHERE sandbox_tenant_id = $1',
    [sandboxTenantId],
  );
  return row!.partner_tenant_id;
}
