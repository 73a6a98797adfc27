/** DTOs and response schemas of theme packages and section settings (docs/themes.md). */
import Joi from 'joi';
import { dto, type BodyContentType, type NamedSchema } from '../http/route';
import { uuid } from '../http/schema-types';
import { t, typedDto } from '../http/typed-schema';
import { SECTION_ID, TEMPLATE_NAME } from './section-ids';

/** The raw archive of an upload (streamed: the handler reads and checks it). */
export const ThemePackageArchiveBody: NamedSchema = {
  name: 'ThemePackageArchive',
  schema: Joi.string().description(
    'The theme folder’s contents as a tar.gz (Content-Type application/gzip) or a zip (application/zip), paths relative to the theme root such as layout/theme.liquid. At most 10 MiB, 500 files, 2 MiB per file and 20 MiB unpacked; regular files and folders only.',
  ),
  contentType: 'application/gzip',
  pending: false,
};

/** The tar.gz a download answers (the router sends the Buffer with the type the handler sets). */
export const ThemePackageArchiveResponse: NamedSchema = {
  name: 'ThemePackageArchiveFile',
  schema: Joi.string().description('A tar.gz of exactly the stored files, sorted by path.'),
  contentType: 'application/gzip' as BodyContentType,
  pending: false,
};

/** A public asset of a published package: bytes of its own content type. */
export const ThemeAssetResponse: NamedSchema = {
  name: 'ThemeAsset',
  schema: Joi.string().description('The asset’s bytes, with the content type of its file extension.'),
  contentType: 'application/octet-stream' as BodyContentType,
  pending: false,
};

const Finding = Joi.object({
  severity: Joi.string().valid('error', 'warning').required(),
  rule: Joi.string().required().description('`family.name`, e.g. security.unescaped-setting.'),
  file: Joi.string().allow(null).required(),
  line: Joi.number().integer(),
  column: Joi.number().integer(),
  message: Joi.string().required(),
}).label('ThemeFinding');

const ThemePackage = Joi.object({
  id: Joi.string().required(),
  storeId: Joi.string().required(),
  name: Joi.string().required().description('From theme.json, else "Untitled theme".'),
  version: Joi.string().required().description('From theme.json, else 0.0.0.'),
  status: Joi.string().valid('DRAFT', 'PUBLISHED').required(),
  active: Joi.boolean().required().description('The store’s storefront renders this package (at most one per store).'),
  fileCount: Joi.number().integer().required(),
  bytes: Joi.number().integer().required().description('All files unpacked.'),
  checksum: Joi.string().required().description('sha256 hex over the files sorted by path: `<path>\\0<sha256>\\n` each.'),
  createdAt: Joi.string().isoDate().required(),
  publishedAt: Joi.string().isoDate().allow(null).required(),
  findings: Joi.array().items(Finding).required().description('The validator’s warnings.'),
}).label('ThemePackage');

export const ThemePackageResponse = dto('ThemePackageResponse', ThemePackage);

export const ThemePackageDetailResponse = dto(
  'ThemePackageDetailResponse',
  ThemePackage.keys({
    files: Joi.array()
      .items(
        Joi.object({ path: Joi.string().required(), bytes: Joi.number().integer().required(), sha256: Joi.string().required() }).label(
          'ThemePackageFile',
        ),
      )
      .required()
      .description('By path.'),
  }),
);

export const ThemePackageListResponse = dto(
  'ThemePackageListResponse',
  Joi.object({ items: Joi.array().items(ThemePackage).required().description('Newest first.') }),
);

const settingsObject = () =>
  Joi.object()
    .pattern(Joi.string().pattern(/^[a-z][a-z0-9_]{0,63}$/), Joi.any())
    .max(100)
    .description(
      'Setting id → value, checked against the section’s schema; rich text is sanitised. Replaces the saved settings of the section.',
    );

export const SaveSectionSettingsDto = typedDto(
  'SaveSectionSettingsDto',
  t.object({
    storeId: t.storeId(),
    template: t.string(Joi.string().pattern(TEMPLATE_NAME).description('A template of the active theme, e.g. index.')).required(),
    sectionId: t
      .string(
        Joi.string()
          .pattern(SECTION_ID)
          .description('The section’s type, or `<type>-<n>` for the n-th section of that type in the template.'),
      )
      .required(),
    settings: t.custom<Record<string, unknown>>(settingsObject()).required(),
  }),
);

const SavedSettings = Joi.object({
  template: Joi.string().required(),
  sectionId: Joi.string().required(),
  settings: Joi.object().unknown(true).required(),
  updatedAt: Joi.string().isoDate().required(),
}).label('ThemeSectionSettings');

const themeKey = () => Joi.string().required().description('`default` (the built-in theme) or the active package’s id.');

export const SectionSettingsResponse = dto('SectionSettingsResponse', SavedSettings.keys({ theme: themeKey() }));
export const SectionSettingsListResponse = dto(
  'SectionSettingsListResponse',
  Joi.object({ theme: themeKey(), items: Joi.array().items(SavedSettings).required() }),
);

export const StoreThemeResponse = dto(
  'StoreThemeResponse',
  Joi.object({
    theme: themeKey(),
    package: Joi.object({
      id: Joi.string().required(),
      checksum: Joi.string().required(),
      name: Joi.string().required(),
      version: Joi.string().required(),
    })
      .allow(null)
      .required(),
    sectionSettings: Joi.array()
      .items(
        Joi.object({
          template: Joi.string().required(),
          sectionId: Joi.string().required(),
          settings: Joi.object().unknown(true).required(),
        }),
      )
      .required(),
  }),
);

export const ThemeSourceResponse = dto(
  'ThemeSourceResponse',
  Joi.object({
    id: Joi.string().required(),
    checksum: Joi.string().required(),
    files: Joi.array()
      .items(
        Joi.object({
          path: Joi.string().required(),
          bytes: Joi.number().integer().required(),
          sha256: Joi.string().required(),
          content: Joi.string()
            .allow(null, '')
            .required()
            .description('The text of layout, template, section and snippet files; null for assets.'),
        }),
      )
      .required(),
  }),
);

export const sha256Param = (): Joi.StringSchema =>
  Joi.string()
    .pattern(/^[0-9a-f]{64}$/)
    .required()
    .description('The asset’s sha256 (hex).');
export const packageId = (): Joi.StringSchema => uuid().required();
