/**
 * A store's saved section settings (docs/themes.md, "Section settings"): per theme (the active
 * package, or `default` for the built-in theme), template and section id. Each value is checked
 * against the section's `{% schema %}` in that theme; rich text is sanitised with the content pages'
 * sanitiser before it is stored. Saved values override the template's and the schema's defaults on
 * the storefront.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Findings } from '../../domain/theme-package/findings';
import { checkSectionSchema, settingValueProblem, type ParsedSchema, type SettingRule } from '../../domain/theme-package/schema-rules';
import { requireStore } from '../../domain/store-access';
import { PROJECT_ROOT } from '../../lib/config';
import { recordAudit } from '../../storage/audit';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { sanitiseContentHtml } from '../content/content-html';
import { sectionIds } from './section-ids';
import { themesError } from './themes.errors';
import type { SectionSettingsRow } from './themes.sql';
import type { InputOf } from '../http/typed-schema';
import type { SaveSectionSettingsDto } from './themes.schemas';

/** The built-in theme's folder: read as files (the storefront renders the same folder). */
const DEFAULT_THEME_DIR = path.join(PROJECT_ROOT, 'web', 'theme');
const SCHEMA_RE = /{%-?\s*schema\s*-?%}([\s\S]*?){%-?\s*endschema\s*-?%}/;

export interface ThemeReader {
  /** `default` or the active package's id. */
  theme: string;
  read(file: string): Promise<string | undefined>;
}

/** The files of the store's active theme: its active package, else the built-in theme. */
export async function activeThemeReader(ctx: RequestContext, storeId: string): Promise<ThemeReader> {
  const [active] = (await ctx.manager.query(`SELECT package_id FROM store_active_themes WHERE store_id = $1`, [storeId])) as Array<{
    package_id: string;
  }>;
  if (!active) {
    return {
      theme: 'default',
      read: async (file) => {
        try {
          return await fs.promises.readFile(path.join(DEFAULT_THEME_DIR, file), 'utf8');
        } catch {
          return undefined;
        }
      },
    };
  }
  return {
    theme: active.package_id,
    read: async (file) => {
      const [row] = (await ctx.manager.query(`SELECT content FROM theme_package_files WHERE package_id = $1 AND path = $2`, [
        active.package_id,
        file,
      ])) as Array<{ content: Buffer }>;
      return row?.content.toString('utf8');
    },
  };
}

/** The section types of a template, or undefined when the theme has no such template. */
async function templateSections(reader: ThemeReader, template: string): Promise<string[] | undefined> {
  const text = await reader.read(`templates/${template}.json`);
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as { sections?: Array<{ type?: unknown }> };
    return (parsed.sections ?? []).map((s) => String(s.type));
  } catch {
    return undefined;
  }
}

/** The section's schema as the validator reads it (settings it cannot read are not editable). */
async function sectionSchema(reader: ThemeReader, type: string): Promise<ParsedSchema | undefined> {
  const text = await reader.read(`sections/${type}.liquid`);
  const match = text === undefined ? null : SCHEMA_RE.exec(text);
  if (!text || !match) return undefined;
  return checkSectionSchema(`sections/${type}.liquid`, match[1]!, match.index, text, new Findings()) ?? undefined;
}

const settingsInvalid = (key: string, message: string) =>
  themesError('theme_settings_invalid', `The setting ${key} ${message}.`, [{ path: `body.settings.${key}`, message }]);

/** The value as stored: checked against its rule, rich text sanitised (in repeater items too). */
function storedValue(rule: SettingRule, key: string, value: unknown): unknown {
  const problem = settingValueProblem(rule, value);
  if (problem) throw settingsInvalid(key, problem);
  if (rule.type === 'richtext' && typeof value === 'string') return sanitiseContentHtml(value);
  if (rule.type === 'repeater' && Array.isArray(value)) {
    return value.map((item: Record<string, unknown>) => {
      const out: Record<string, unknown> = {};
      for (const [field, v] of Object.entries(item)) {
        const fieldRule = rule.fields!.get(field)!;
        out[field] = fieldRule.type === 'richtext' && typeof v === 'string' ? sanitiseContentHtml(v) : v;
      }
      return out;
    });
  }
  return value;
}

export type SaveSectionSettingsInput = InputOf<typeof SaveSectionSettingsDto>;

export async function saveSectionSettings(ctx: RequestContext, input: SaveSectionSettingsInput) {
  return inTransaction(ctx, async (tx) => {
    const store = await requireStore(tx, input.storeId, { forWrite: true, lock: true });
    const reader = await activeThemeReader(tx, store.id);
    const types = await templateSections(reader, input.template);
    if (!types) throw themesError('theme_template_not_found', `The store's theme has no template ${input.template}.`);
    const index = sectionIds(types).indexOf(input.sectionId);
    if (index < 0) throw themesError('theme_section_not_found', `The template ${input.template} has no section ${input.sectionId}.`);
    const schema = await sectionSchema(reader, types[index]!);
    const settings: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input.settings)) {
      const rule = schema?.settings.get(key);
      if (!rule) throw settingsInvalid(key, `is not a setting of the section ${types[index]}`);
      settings[key] = storedValue(rule, key, value);
    }
    const [before] = (await tx.manager.query(
      `SELECT settings FROM theme_section_settings WHERE store_id = $1 AND theme = $2 AND template = $3 AND section_id = $4`,
      [store.id, reader.theme, input.template, input.sectionId],
    )) as Array<{ settings: Record<string, unknown> }>;
    const [row] = (await tx.manager.query(
      `INSERT INTO theme_section_settings (tenant_id, store_id, theme, template, section_id, settings, updated_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (store_id, theme, template, section_id) DO UPDATE SET settings = EXCLUDED.settings, updated_by = EXCLUDED.updated_by, updated_at = now()
       RETURNING template, section_id, settings, updated_at`,
      [
        tx.tenantId,
        store.id,
        reader.theme,
        input.template,
        input.sectionId,
        JSON.stringify(settings),
        tx.actor.type === 'user' ? tx.actor.id : null,
      ],
    )) as SectionSettingsRow[];
    await recordAudit(tx, {
      action: 'theme_section_settings.save',
      resourceType: 'theme_section_settings',
      resourceId: store.id,
      before: before ? { theme: reader.theme, template: input.template, sectionId: input.sectionId, settings: before.settings } : null,
      after: { theme: reader.theme, template: input.template, sectionId: input.sectionId, settings },
    });
    return { theme: reader.theme, ...settingsView(row!) };
  });
}

function settingsView(row: SectionSettingsRow) {
  return { template: row.template, sectionId: row.section_id, settings: row.settings, updatedAt: row.updated_at.toISOString() };
}

/** The saved settings of the store's active theme. */
export async function listSectionSettings(ctx: RequestContext, storeId: string) {
  const store = await requireStore(ctx, storeId);
  const reader = await activeThemeReader(ctx, store.id);
  return { theme: reader.theme, items: await savedSettings(ctx, store.id, reader.theme) };
}

export async function savedSettings(ctx: RequestContext, storeId: string, theme: string) {
  const rows = (await ctx.manager.query(
    `SELECT template, section_id, settings, updated_at FROM theme_section_settings WHERE store_id = $1 AND theme = $2 ORDER BY template, section_id`,
    [storeId, theme],
  )) as SectionSettingsRow[];
  return rows.map(settingsView);
}
