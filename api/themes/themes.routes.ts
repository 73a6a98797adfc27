/**
 * Theme packages and section settings of a store, and the storefront's public reads of its theme
 * (docs/themes.md). Every operation here is an extension (the specification names the `svc-theme`
 * commands, not their HTTP operations).
 */
import path from 'node:path';
import { defineRoutes, type RouteRequest } from '../http/route';
import type { StreamedBody } from '../http/body';
import { storeId, uuid } from '../http/schema-types';
import { themeEditorRoute } from './theme-editor.routes';
import { activeStoreTheme, publishedAsset, publishedPackageSource } from './theme-public.service';
import { listSectionSettings, saveSectionSettings, type SaveSectionSettingsInput } from './theme-settings.service';
import { downloadThemePackage, getThemePackage, listThemePackages, publishThemePackage, uploadThemePackage } from './themes.service';
import { ASSET_TYPES } from '../../lib/asset-types';
import {
  packageId,
  SaveSectionSettingsDto,
  SectionSettingsListResponse,
  SectionSettingsResponse,
  sha256Param,
  StoreThemeResponse,
  ThemeAssetResponse,
  ThemePackageArchiveBody,
  ThemePackageArchiveResponse,
  ThemePackageDetailResponse,
  ThemePackageListResponse,
  ThemePackageResponse,
  ThemeSourceResponse,
} from './themes.schemas';

type Params = Record<string, string>;

const MEMBERS =
  'Members of the tenant, or an API key of the store with themes:read (GET) or themes:write (others); another tenant’s store or package answers 404.';

export const themeExtensionOperationIds = [
  'themes.uploadPackage',
  'themes.listPackages',
  'themes.getPackage',
  'themes.downloadPackage',
  'themes.publishPackage',
  'themes.listSectionSettings',
  'themes.saveSectionSettings',
  'themes.storeTheme',
  'themes.packageSource',
  'themes.asset',
  'themes.editor',
] as const;

export const themeRoutes = defineRoutes({ tag: 'themes', auth: 'merchant' }, [
  themeEditorRoute, // the console's theme editor (api/themes/theme-editor.routes.ts)
  {
    operationId: 'themes.uploadPackage',
    method: 'POST',
    path: '/themes/packages',
    summary: 'Upload a theme package as a draft (extension)',
    description: `Extension (\`svc-theme push\`). The body is the raw archive: \`application/gzip\` (tar.gz) or \`application/zip\`. It is read under limits (10 MiB archive, 500 files, 2 MiB per file, 20 MiB unpacked: 400 theme_archive_too_many_files, 413 theme_archive_too_large), refused when an entry is a symlink, hard link or device (400 theme_archive_entry_forbidden), an absolute path, a \`..\` segment or a NUL (400 theme_archive_path_invalid), a duplicate (400 theme_archive_duplicate_path) or the archive is unreadable (400 theme_archive_malformed), then checked by the theme validator (the checks of \`svc-theme validate\`): errors answer 422 theme_package_invalid with them as \`findings\`. Nothing is stored on any refusal. Stored as a DRAFT; the validator's warnings are its \`findings\`. ${MEMBERS} Audited.`,
    query: { storeId: storeId() },
    body: ThemePackageArchiveBody,
    streamBody: true,
    response: ThemePackageResponse,
    status: 201,
    handler: (req: RouteRequest<Params, Params, StreamedBody>) =>
      uploadThemePackage(req.context, req.query.storeId!, req.koa.get('Content-Type'), req.body),
  },
  {
    operationId: 'themes.listPackages',
    method: 'GET',
    path: '/themes/packages',
    summary: 'Theme packages of a store, newest first (extension)',
    description: `Extension. ${MEMBERS}`,
    query: { storeId: storeId() },
    response: ThemePackageListResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params>) => listThemePackages(req.context, req.query.storeId!),
  },
  {
    operationId: 'themes.getPackage',
    method: 'GET',
    path: '/themes/packages/{id}',
    summary: 'One theme package with its files (extension)',
    description: `Extension. ${MEMBERS}`,
    response: ThemePackageDetailResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => getThemePackage(req.context, req.params.id!),
  },
  {
    operationId: 'themes.downloadPackage',
    method: 'GET',
    path: '/themes/packages/{id}/archive',
    summary: 'Download a theme package as tar.gz (extension)',
    description: `Extension (\`svc-theme pull\`): a tar.gz of exactly the stored files. ${MEMBERS}`,
    response: ThemePackageArchiveResponse,
    status: 200,
    handler: async (req: RouteRequest<Params>) => {
      const { name, archive } = await downloadThemePackage(req.context, req.params.id!);
      req.koa.type = 'application/gzip';
      req.koa.set('Content-Disposition', `attachment; filename="${name.replace(/[^A-Za-z0-9._-]+/g, '-')}.tar.gz"`);
      return archive;
    },
  },
  {
    operationId: 'themes.publishPackage',
    method: 'POST',
    path: '/themes/packages/{id}/publish',
    summary: 'Publish and activate a theme package (extension)',
    description:
      'Extension (`svc-theme deploy`). Publishing is activating: in one transaction the package becomes PUBLISHED and the store’s active package; the one active before stays PUBLISHED (inactive), so publishing it again is the rollback. Publishing the active package answers it unchanged. Owners and admins of the tenant (staff 403 insufficient_role), or an API key of the store with themes:write. Audited.',
    response: ThemePackageResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => publishThemePackage(req.context, req.params.id!),
  },
  {
    operationId: 'themes.listSectionSettings',
    method: 'GET',
    path: '/themes/section-settings',
    summary: 'Saved section settings of the store’s active theme (extension)',
    description: `Extension. ${MEMBERS}`,
    query: { storeId: storeId() },
    response: SectionSettingsListResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params>) => listSectionSettings(req.context, req.query.storeId!),
  },
  {
    operationId: 'themes.saveSectionSettings',
    method: 'PUT',
    path: '/themes/section-settings',
    summary: 'Save the settings of one section of the active theme (extension)',
    description: `Extension (the console's theme editor). Replaces the saved settings of one section of one template of the store's active theme (its active package, else the built-in theme): 404 theme_template_not_found / theme_section_not_found, 400 theme_settings_invalid for a setting the section's schema does not declare or a value that does not fit its type. Rich text is sanitised as content pages are. ${MEMBERS} Audited.`,
    body: SaveSectionSettingsDto,
    response: SectionSettingsResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, SaveSectionSettingsInput>) => saveSectionSettings(req.context, req.body),
  },
  {
    operationId: 'themes.storeTheme',
    method: 'GET',
    path: '/themes/public/stores/{storeId}/active',
    auth: 'public',
    summary: 'The theme a storefront renders, with its saved section settings (extension)',
    description:
      'Extension, public (the storefront): the active package (null: the built-in theme) and the store’s saved section settings for it.',
    params: { storeId: uuid().required() },
    response: StoreThemeResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => activeStoreTheme(req.context, req.params.storeId!),
  },
  {
    operationId: 'themes.packageSource',
    method: 'GET',
    path: '/themes/public/stores/{storeId}/packages/{id}/source',
    auth: 'public',
    summary: 'The Liquid and JSON files of a published package (extension)',
    description:
      'Extension, public (the storefront): the files of a PUBLISHED package of the store, with the text of its layout, templates, sections and snippets; a draft answers 404 theme_package_not_found.',
    params: { storeId: uuid().required(), id: packageId() },
    response: ThemeSourceResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => publishedPackageSource(req.context, req.params.storeId!, req.params.id!),
  },
  {
    operationId: 'themes.asset',
    method: 'GET',
    path: '/themes/public/stores/{storeId}/assets/{sha256}',
    auth: 'public',
    summary: 'An asset of a published package by content hash (extension)',
    description:
      'Extension, public (the storefront serves it at a content-hashed URL): the bytes of an asset of a PUBLISHED package of the store, with the content type of its extension; immutable, so cacheable for a year.',
    params: { storeId: uuid().required(), sha256: sha256Param() },
    response: ThemeAssetResponse,
    status: 200,
    handler: async (req: RouteRequest<Params>) => {
      const asset = await publishedAsset(req.context, req.params.storeId!, req.params.sha256!);
      req.koa.type = ASSET_TYPES[path.extname(asset.path).toLowerCase()] ?? 'application/octet-stream';
      req.koa.set('Cache-Control', 'public, max-age=31536000, immutable');
      req.koa.set('X-Content-Type-Options', 'nosniff');
      return asset.content;
    },
  },
]);
