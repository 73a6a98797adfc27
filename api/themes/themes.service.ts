/**
 * Theme packages of a store (docs/themes.md): upload (read under limits, validated exactly as
 * `svc-theme validate` validates, stored as a draft with its files in one transaction), list, read,
 * download, and publish, which makes the package the store's active one in one transaction (the
 * previously active package stays PUBLISHED, so publishing it again is the rollback).
 */
import { validateThemePackage } from '../../domain/theme-package/validate';
import { requireStore, requireTenantUser, TENANT_ADMINS } from '../../domain/store-access';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import type { StreamedBody } from '../http/body';
import { archiveFormatOf, readArchiveBody, readThemeArchive } from './theme-archive';
import { packageChecksum, packTarGz, sha256Hex, themeIdentity } from './theme-files';
import { themesError, ThemePackageInvalidError } from './themes.errors';
import { FROM_PACKAGES, PACKAGE_COLUMNS, type PackageFileContentRow, type PackageFileRow, type PackageRow } from './themes.sql';

export function packageView(row: PackageRow) {
  return {
    id: row.id,
    storeId: row.store_id,
    name: row.name,
    version: row.version,
    status: row.status,
    active: row.active,
    fileCount: row.file_count,
    bytes: Number(row.bytes),
    checksum: row.checksum,
    createdAt: row.created_at.toISOString(),
    publishedAt: row.published_at ? row.published_at.toISOString() : null,
    findings: row.findings,
  };
}

const packageNotFound = () => themesError('theme_package_not_found', 'The theme package does not exist.');

async function selectPackage(ctx: RequestContext, where: string, params: unknown[]): Promise<PackageRow | undefined> {
  const [row] = (await ctx.manager.query(`SELECT ${PACKAGE_COLUMNS} FROM ${FROM_PACKAGES} WHERE ${where}`, params)) as PackageRow[];
  return row;
}

/** The package `id` of the caller's tenant (and of an API key's own store), or 404. */
async function ownedPackage(ctx: RequestContext, id: string, lock = false): Promise<PackageRow> {
  if (!ctx.tenantId) throw packageNotFound();
  const row = await selectPackage(ctx, `p.id = $1 AND p.tenant_id = $2${lock ? ' FOR UPDATE OF p' : ''}`, [id.toLowerCase(), ctx.tenantId]);
  if (!row || (ctx.actor.type === 'api_key' && ctx.actor.storeId !== row.store_id)) throw packageNotFound();
  return row;
}

export async function uploadThemePackage(ctx: RequestContext, storeId: string, contentType: string, body: StreamedBody) {
  // The store is checked before the upload is read: a stranger's upload is never unpacked.
  await requireStore(ctx, storeId, { forWrite: true });
  const archive = await readArchiveBody(body);
  const files = await readThemeArchive(archive, archiveFormatOf(contentType));
  const findings = validateThemePackage(files);
  const errors = findings.filter((f) => f.severity === 'error');
  if (errors.length > 0) throw new ThemePackageInvalidError(errors);
  const warnings = findings.filter((f) => f.severity === 'warning');
  const entries = [...files].map(([path, content]) => ({ path, content, sha256: sha256Hex(content) }));
  const { name, version } = themeIdentity(files);
  const bytes = entries.reduce((sum, f) => sum + f.content.length, 0);
  return inTransaction(ctx, async (tx) => {
    const store = await requireStore(tx, storeId, { forWrite: true });
    const id = uuidv7();
    await tx.manager.query(
      `INSERT INTO theme_packages (id, tenant_id, store_id, name, version, file_count, bytes, checksum, findings, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        id,
        tx.tenantId,
        store.id,
        name,
        version,
        entries.length,
        bytes,
        packageChecksum(entries),
        JSON.stringify(warnings),
        tx.actor.type === 'user' ? tx.actor.id : null,
      ],
    );
    // One statement for all files: unnest keeps the parameters at five whatever the file count.
    await tx.manager.query(
      `INSERT INTO theme_package_files (package_id, path, bytes, sha256, content)
       SELECT $1, f.path, f.bytes, f.sha256, f.content FROM unnest($2::text[], $3::int[], $4::text[], $5::bytea[]) AS f(path, bytes, sha256, content)`,
      [id, entries.map((f) => f.path), entries.map((f) => f.content.length), entries.map((f) => f.sha256), entries.map((f) => f.content)],
    );
    const row = (await selectPackage(tx, 'p.id = $1', [id]))!;
    const view = packageView(row);
    await recordAudit(tx, {
      action: 'theme_package.upload',
      resourceType: 'theme_package',
      resourceId: id,
      after: { ...view, findings: view.findings.length },
    });
    return view;
  });
}

export async function listThemePackages(ctx: RequestContext, storeId: string) {
  const store = await requireStore(ctx, storeId);
  const rows = (await ctx.manager.query(
    `SELECT ${PACKAGE_COLUMNS} FROM ${FROM_PACKAGES} WHERE p.tenant_id = $1 AND p.store_id = $2 ORDER BY p.created_at DESC, p.id DESC`,
    [ctx.tenantId, store.id],
  )) as PackageRow[];
  return { items: rows.map(packageView) };
}

async function packageFiles(ctx: RequestContext, id: string): Promise<PackageFileRow[]> {
  return (await ctx.manager.query(`SELECT path, bytes, sha256 FROM theme_package_files WHERE package_id = $1 ORDER BY path COLLATE "C"`, [
    id,
  ])) as PackageFileRow[];
}

export async function getThemePackage(ctx: RequestContext, id: string) {
  const row = await ownedPackage(ctx, id);
  const files = await packageFiles(ctx, row.id);
  return { ...packageView(row), files: files.map((f) => ({ path: f.path, bytes: f.bytes, sha256: f.sha256 })) };
}

/** The tar.gz of exactly the stored files. */
export async function downloadThemePackage(ctx: RequestContext, id: string): Promise<{ name: string; archive: Buffer }> {
  const row = await ownedPackage(ctx, id);
  const files = (await ctx.manager.query(`SELECT path, bytes, sha256, content FROM theme_package_files WHERE package_id = $1`, [
    row.id,
  ])) as PackageFileContentRow[];
  return { name: `${row.name}-${row.version}`, archive: await packTarGz(files) };
}

/**
 * Owners and admins publish (staff 403 insufficient_role); an API key of the store may when its
 * scopes allow themes:write (checked by the authenticator), as deploying from CI needs.
 */
function requirePublisher(ctx: RequestContext): void {
  if (ctx.actor.type === 'api_key' && ctx.tenantId) return;
  requireTenantUser(ctx, TENANT_ADMINS);
}

export async function publishThemePackage(ctx: RequestContext, id: string) {
  requirePublisher(ctx);
  return inTransaction(ctx, async (tx) => {
    const found = await ownedPackage(tx, id);
    // The store first (locked: two publishes of one store take turns), then the package.
    await requireStore(tx, found.store_id, { forWrite: true, lock: true });
    const before = await ownedPackage(tx, id, true);
    if (before.active) return packageView(before);
    const [previous] = (await tx.manager.query(`SELECT package_id FROM store_active_themes WHERE store_id = $1`, [
      before.store_id,
    ])) as Array<{
      package_id: string;
    }>;
    await tx.manager.query(`UPDATE theme_packages SET status = 'PUBLISHED', published_at = COALESCE(published_at, now()) WHERE id = $1`, [
      before.id,
    ]);
    await tx.manager.query(
      `INSERT INTO store_active_themes (store_id, tenant_id, package_id) VALUES ($1, $2, $3)
       ON CONFLICT (store_id) DO UPDATE SET package_id = EXCLUDED.package_id, activated_at = now()`,
      [before.store_id, tx.tenantId, before.id],
    );
    const row = (await selectPackage(tx, 'p.id = $1', [before.id]))!;
    const view = packageView(row);
    await recordAudit(tx, {
      action: 'theme_package.publish',
      resourceType: 'theme_package',
      resourceId: row.id,
      before: { status: before.status, active: false, previousActivePackageId: previous?.package_id ?? null },
      after: { status: view.status, active: true, publishedAt: view.publishedAt },
    });
    return view;
  });
}
