/**
 * The storefront's reads of a store's theme (public, like the rest of the storefront API): which
 * package is active with the store's saved section settings, the source of a **published** package
 * (drafts are never public), and its assets by content hash.
 */
import { storeNotFound } from '../../domain/store-access';
import type { RequestContext } from '../../storage/request-context';
import { activeThemeReader, savedSettings } from './theme-settings.service';
import { themesError } from './themes.errors';
import type { PackageFileContentRow } from './themes.sql';

/** Files the storefront's engine reads as text (assets are served by hash instead). */
const SOURCE_FOLDERS = ['layout/', 'templates/', 'sections/', 'snippets/'];

async function openStore(ctx: RequestContext, storeId: string): Promise<string> {
  const [row] = (await ctx.manager.query(`SELECT id FROM stores WHERE id = $1 AND status <> 'archived'`, [storeId])) as Array<{
    id: string;
  }>;
  if (!row) throw storeNotFound();
  return row.id;
}

export async function activeStoreTheme(ctx: RequestContext, storeId: string) {
  const id = await openStore(ctx, storeId);
  const reader = await activeThemeReader(ctx, id);
  const [pkg] =
    reader.theme === 'default'
      ? []
      : ((await ctx.manager.query(`SELECT id, checksum, name, version FROM theme_packages WHERE id = $1`, [reader.theme])) as Array<{
          id: string;
          checksum: string;
          name: string;
          version: string;
        }>);
  const settings = await savedSettings(ctx, id, reader.theme);
  return {
    theme: reader.theme,
    package: pkg ?? null,
    sectionSettings: settings.map((s) => ({ template: s.template, sectionId: s.sectionId, settings: s.settings })),
  };
}

export async function publishedPackageSource(ctx: RequestContext, storeId: string, packageId: string) {
  const id = await openStore(ctx, storeId);
  const [pkg] = (await ctx.manager.query(
    `SELECT id, checksum FROM theme_packages WHERE id = $1 AND store_id = $2 AND status = 'PUBLISHED'`,
    [packageId.toLowerCase(), id],
  )) as Array<{ id: string; checksum: string }>;
  if (!pkg) throw themesError('theme_package_not_found', 'The store has no such published theme package.');
  const files = (await ctx.manager.query(
    `SELECT path, bytes, sha256, content FROM theme_package_files WHERE package_id = $1 ORDER BY path COLLATE "C"`,
    [pkg.id],
  )) as PackageFileContentRow[];
  return {
    id: pkg.id,
    checksum: pkg.checksum,
    files: files.map((f) => ({
      path: f.path,
      bytes: f.bytes,
      sha256: f.sha256,
      content: SOURCE_FOLDERS.some((folder) => f.path.startsWith(folder)) ? f.content.toString('utf8') : null,
    })),
  };
}

/** An asset of one of the store's published packages by its sha256: the bytes and the file's name. */
export async function publishedAsset(ctx: RequestContext, storeId: string, sha256: string): Promise<{ path: string; content: Buffer }> {
  const id = await openStore(ctx, storeId);
  const [row] = (await ctx.manager.query(
    `SELECT f.path, f.content FROM theme_package_files f JOIN theme_packages p ON p.id = f.package_id
      WHERE f.sha256 = $1 AND p.store_id = $2 AND p.status = 'PUBLISHED' AND f.path LIKE 'assets/%' LIMIT 1`,
    [sha256.toLowerCase(), id],
  )) as Array<{ path: string; content: Buffer }>;
  if (!row) throw themesError('theme_asset_not_found', 'No published theme package of the store has this asset.');
  return row;
}
