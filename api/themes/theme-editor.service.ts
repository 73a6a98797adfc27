/**
 * The console's theme editor reads here (an extension; docs/themes.md, "The theme editor"): the
 * store's active theme (its active package, else the built-in theme), every template with its
 * sections, each section's settings as its `{% schema %}` declares them (labels, options, bounds,
 * repeater fields) and the values the storefront uses now. Saving goes through
 * `PUT /themes/section-settings`, which checks each value against the same schema.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Findings } from '../../domain/theme-package/findings';
import { checkSectionSchema, type ParsedSchema, type SettingRule } from '../../domain/theme-package/schema-rules';
import { requireStore } from '../../domain/store-access';
import { PROJECT_ROOT } from '../../lib/config';
import type { Store } from '../../storage/entities';
import type { RequestContext } from '../../storage/request-context';
import { TEMPLATE_NAME, sectionIds } from './section-ids';
import { activeThemeReader, savedSettings, type ThemeReader } from './theme-settings.service';

const DEFAULT_TEMPLATES_DIR = path.join(PROJECT_ROOT, 'web', 'theme', 'templates');
const SCHEMA_RE = /{%-?\s*schema\s*-?%}([\s\S]*?){%-?\s*endschema\s*-?%}/;

export interface EditorSetting {
  id: string;
  type: string;
  label: string;
  info?: string;
  default?: unknown;
  options?: Array<{ value: string; label: string }>;
  min?: number;
  max?: number;
  step?: number;
  maxItems?: number;
  fields?: EditorSetting[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const finite = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * One setting as the editor shows it: the validator's rule (only settings it accepts are editable)
 * with the schema's own words (label, help text, option labels) and its default.
 */
function editorSetting(raw: Record<string, unknown>, rule: SettingRule): EditorSetting {
  const setting: EditorSetting = {
    id: rule.id,
    type: rule.type,
    label: typeof raw.label === 'string' && raw.label.trim() ? raw.label : rule.id,
  };
  if (typeof raw.info === 'string' && raw.info.trim()) setting.info = raw.info;
  if (raw.default !== undefined) setting.default = raw.default;
  if (rule.type === 'select' && Array.isArray(raw.options)) {
    setting.options = raw.options.map((o) =>
      typeof o === 'string'
        ? { value: o, label: o }
        : {
            value: String((o as { value: string }).value),
            label: String((o as { label?: unknown }).label ?? (o as { value: string }).value),
          },
    );
  }
  if (rule.type === 'number' || rule.type === 'range') {
    if (rule.min !== undefined) setting.min = rule.min;
    if (rule.max !== undefined) setting.max = rule.max;
    const step = finite(raw.step);
    if (step !== undefined) setting.step = step;
  }
  if (rule.type === 'repeater' && rule.fields) {
    setting.maxItems = rule.maxItems ?? 50;
    const rawFields = Array.isArray(raw.fields) ? raw.fields.filter(isObject) : [];
    setting.fields = [...rule.fields.values()].map((field) => editorSetting(rawFields.find((f) => f.id === field.id) ?? {}, field));
  }
  return setting;
}

interface ReadSchema {
  name: string;
  settings: EditorSetting[];
}

/** The section's schema for the editor; undefined when the theme has no such section or its schema cannot be read. */
async function readSchema(reader: ThemeReader, type: string): Promise<ReadSchema | undefined> {
  const text = await reader.read(`sections/${type}.liquid`);
  const match = text === undefined ? null : SCHEMA_RE.exec(text);
  if (!text || !match) return undefined;
  const parsed: ParsedSchema | null = checkSectionSchema(`sections/${type}.liquid`, match[1]!, match.index, text, new Findings());
  if (!parsed) return undefined;
  const raw = JSON.parse(match[1]!) as { settings?: unknown };
  const rawSettings = Array.isArray(raw.settings) ? raw.settings.filter(isObject) : [];
  const settings: EditorSetting[] = [];
  for (const [id, rule] of parsed.settings) settings.push(editorSetting(rawSettings.find((s) => s.id === id) ?? {}, rule));
  return { name: parsed.name.trim() || type, settings };
}

/** The names of the theme's templates (files templates/<name>.json whose name the settings operation accepts), sorted. */
async function templateNames(ctx: RequestContext, store: Store, reader: ThemeReader): Promise<string[]> {
  let files: string[];
  if (reader.theme === 'default') {
    files = (await fs.promises.readdir(DEFAULT_TEMPLATES_DIR)).map((f) => `templates/${f}`);
  } else {
    const rows = (await ctx.manager.query(
      `SELECT f.path FROM theme_package_files f JOIN theme_packages p ON p.id = f.package_id
        WHERE f.package_id = $1 AND p.tenant_id = $2 AND p.store_id = $3 AND f.path LIKE 'templates/%.json'`,
      [reader.theme, store.tenantId, store.id],
    )) as Array<{ path: string }>;
    files = rows.map((r) => r.path);
  }
  return files
    .map((f) => /^templates\/([^/]+)\.json$/.exec(f)?.[1])
    .filter((name): name is string => name !== undefined && TEMPLATE_NAME.test(name))
    .sort();
}

/** The sections of a template with the settings it gives them; an unreadable template has none. */
async function templateSections(reader: ThemeReader, name: string): Promise<Array<{ type: string; settings: Record<string, unknown> }>> {
  try {
    const parsed = JSON.parse((await reader.read(`templates/${name}.json`)) ?? '{}') as { sections?: unknown };
    if (!Array.isArray(parsed.sections)) return [];
    return parsed.sections.map((s) => ({
      type: String((s as { type?: unknown })?.type),
      settings: isObject((s as { settings?: unknown })?.settings) ? ((s as { settings: Record<string, unknown> }).settings ?? {}) : {},
    }));
  } catch {
    return [];
  }
}

export async function themeEditorView(ctx: RequestContext, storeId: string) {
  const store = await requireStore(ctx, storeId);
  const reader = await activeThemeReader(ctx, store.id);
  const [pkg] =
    reader.theme === 'default'
      ? []
      : ((await ctx.manager.query(`SELECT id, name, version FROM theme_packages WHERE id = $1 AND tenant_id = $2 AND store_id = $3`, [
          reader.theme,
          store.tenantId,
          store.id,
        ])) as Array<{ id: string; name: string; version: string }>);
  const saved = await savedSettings(ctx, store.id, reader.theme);
  const schemas = new Map<string, ReadSchema | undefined>();
  const templates = [];
  for (const name of await templateNames(ctx, store, reader)) {
    const refs = await templateSections(reader, name);
    const ids = sectionIds(refs.map((r) => r.type));
    const sections = [];
    for (const [index, ref] of refs.entries()) {
      if (!schemas.has(ref.type)) schemas.set(ref.type, await readSchema(reader, ref.type));
      const schema = schemas.get(ref.type);
      const stored = saved.find((s) => s.template === name && s.sectionId === ids[index]);
      const defaults = Object.fromEntries((schema?.settings ?? []).filter((s) => s.default !== undefined).map((s) => [s.id, s.default]));
      sections.push({
        id: ids[index]!,
        type: ref.type,
        name: schema?.name ?? ref.type,
        editable: schema !== undefined,
        settings: schema?.settings ?? [],
        values: { ...defaults, ...ref.settings, ...stored?.settings },
        saved: stored !== undefined,
      });
    }
    templates.push({ name, sections });
  }
  return { theme: reader.theme, package: pkg ?? null, templates };
}
