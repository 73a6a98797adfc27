/**
 * Released versions of a partner app (docs/app-store.md, "Apps"), an extension. A version is
 * a semantic version (domain/semver.ts) newer by precedence than the latest release of the app, else
 * 409 app_version_not_newer; the check and the insert run under a lock of the listing, so two
 * releases cannot both pass it. The first release publishes the listing; each names its current version.
 */
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { ValidationError } from '../../lib/errors';
import { compareSemVer, parseSemVer } from '../../domain/semver';
import { ownApp } from './partner-apps.service';
import { partnerAppsError } from './partner-apps.errors';
import { insertVersion, latestVersion, listVersions, type AppVersionRow } from './partner-apps.sql';

export interface AppVersionView {
  id: string;
  listingId: string;
  version: string;
  notes: string | null;
  releasedAt: string;
}

const versionView = (row: AppVersionRow): AppVersionView => ({
  id: row.id,
  listingId: row.listing_id,
  version: row.version,
  notes: row.notes,
  releasedAt: row.released_at.toISOString(),
});

export async function releaseVersion(
  ctx: RequestContext,
  idOrSlug: string,
  body: { version: string; notes?: string | null },
): Promise<AppVersionView> {
  const parsed = parseSemVer(body.version);
  if (!parsed)
    throw new ValidationError('The version is not a semantic version.', [
      { path: 'body.version', message: 'version must be a semantic version such as 1.2.3, 1.2.3-rc.1 or 1.2.3+build.5' },
    ]);
  return inTransaction(ctx, async (tx) => {
    const app = await ownApp(tx, idOrSlug, true);
    const latest = await latestVersion(tx.manager, tx.tenantId!, app.id);
    if (latest && compareSemVer(parsed, parseSemVer(latest.version)!) <= 0)
      throw partnerAppsError('app_version_not_newer', `${body.version} is not newer than the latest release, ${latest.version}.`, [
        { path: 'body.version', message: `must be newer than ${latest.version}` },
      ]);
    const row: AppVersionRow = {
      id: uuidv7(),
      listing_id: app.id,
      version: body.version,
      notes: body.notes || null,
      released_at: new Date(),
    };
    await insertVersion(tx.manager, {
      ...row,
      tenantId: tx.tenantId!,
      releasedBy: tx.actor.type === 'user' ? (tx.actor.id ?? null) : null,
    });
    await recordAudit(tx, {
      action: 'app_version.release',
      resourceType: 'app_listing',
      resourceId: app.id,
      before: { currentVersion: app.current_version, published: app.published },
      after: { currentVersion: row.version, published: true, versionId: row.id },
    });
    return versionView(row);
  });
}

export async function listAppVersions(ctx: RequestContext, idOrSlug: string): Promise<{ items: AppVersionView[] }> {
  const app = await ownApp(ctx, idOrSlug);
  return { items: (await listVersions(ctx.manager, ctx.tenantId!, app.id)).map(versionView) };
}
