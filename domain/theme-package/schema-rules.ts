/**
 * A section's settings schema (`{% schema %}` JSON) and the values templates give those settings.
 *
 * A schema is `{ "name": "Hero", "settings": [ { "id", "type", "label", "default", … } ] }`. The
 * setting types are the ones the console's theme editor can edit: text, textarea, richtext (the
 * WYSIWYG editor), number, range, checkbox, select, color (the colour picker), url, image, and the
 * pickers product, page, collection, category; `repeater` holds a list of items whose `fields`
 * are settings of the other types.
 */
import type { Findings, TextPosition } from './findings';
import { jsonError, positionAt } from './text-position';

export const SETTING_TYPES = [
  'text',
  'textarea',
  'richtext',
  'number',
  'range',
  'checkbox',
  'select',
  'color',
  'url',
  'image',
  'product',
  'page',
  'collection',
  'category',
  'repeater',
] as const;
export type SettingType = (typeof SETTING_TYPES)[number];

export interface SettingRule {
  id: string;
  type: SettingType;
  min?: number;
  max?: number;
  options?: string[];
  fields?: Map<string, SettingRule>;
  maxItems?: number;
}

export interface ParsedSchema {
  name: string;
  settings: Map<string, SettingRule>;
}

const SETTING_ID = /^[a-z][a-z0-9_]{0,63}$/;
const COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const PICKED = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_SETTINGS = 100;
const MAX_TEXT = 10_000;
const MAX_REPEATER_ITEMS = 50;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A safe link: a path of the shop, an anchor, http(s) or mailto; never `javascript:` or `data:`. */
export function isSafeUrl(value: string): boolean {
  return /^(\/(?!\/)|#|https?:\/\/|mailto:)/i.test(value.trim()) || value === '';
}

/** Why `value` is not a value of the setting (undefined: it is one). */
export function settingValueProblem(rule: SettingRule, value: unknown): string | undefined {
  if (value === null) return rule.type === 'checkbox' || rule.type === 'number' || rule.type === 'range' ? 'may not be null' : undefined;
  switch (rule.type) {
    case 'text':
    case 'textarea':
    case 'richtext':
      return typeof value === 'string' && value.length <= MAX_TEXT ? undefined : `must be a text of at most ${MAX_TEXT} characters`;
    case 'number':
    case 'range': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      if (rule.min !== undefined && value < rule.min) return `must be at least ${rule.min}`;
      if (rule.max !== undefined && value > rule.max) return `must be at most ${rule.max}`;
      return undefined;
    }
    case 'checkbox':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'select':
      if (typeof value !== 'string') return 'must be one of its options';
      return rule.options && !rule.options.includes(value) ? `must be one of ${rule.options.join(', ')}` : undefined;
    case 'color':
      return typeof value === 'string' && COLOR.test(value) ? undefined : 'must be a colour such as #1a2b3c';
    case 'url':
      return typeof value === 'string' && value.length <= 2048 && isSafeUrl(value)
        ? undefined
        : 'must be a link starting with /, #, http://, https:// or mailto:';
    case 'image':
      return typeof value === 'string' && value.length <= 2048 && isSafeUrl(value) ? undefined : 'must be an image path or URL';
    case 'product':
    case 'page':
    case 'collection':
    case 'category':
      return typeof value === 'string' && value.length <= 200 && PICKED.test(value) ? undefined : `must be the slug of a ${rule.type}`;
    case 'repeater': {
      if (!Array.isArray(value)) return 'must be a list of items';
      if (value.length > (rule.maxItems ?? MAX_REPEATER_ITEMS)) return `holds at most ${rule.maxItems ?? MAX_REPEATER_ITEMS} items`;
      for (const [index, item] of value.entries()) {
        if (!isObject(item)) return `item ${index} must be an object`;
        for (const [key, v] of Object.entries(item)) {
          const field = rule.fields?.get(key);
          if (!field) return `item ${index} has an unknown field ${key}`;
          const problem = settingValueProblem(field, v);
          if (problem) return `item ${index}, field ${key} ${problem}`;
        }
      }
      return undefined;
    }
  }
}

/** Reads one setting of a schema (or a field of a repeater); null when it cannot be used. */
function readSetting(raw: unknown, where: string, file: string, at: TextPosition, out: Findings, nested: boolean): SettingRule | null {
  if (!isObject(raw)) {
    out.error('schema.setting', file, `${where} is an object with id, type and label.`, at);
    return null;
  }
  const { id, type, label } = raw;
  if (typeof id !== 'string' || !SETTING_ID.test(id)) {
    out.error('schema.setting-id', file, `${where}: id is lowercase letters, digits and _, starting with a letter (at most 64).`, at);
    return null;
  }
  const named = `${where} (${id})`;
  if (typeof type !== 'string' || !(SETTING_TYPES as readonly string[]).includes(type) || (nested && type === 'repeater')) {
    const allowed = nested ? SETTING_TYPES.filter((t) => t !== 'repeater') : SETTING_TYPES;
    out.error('schema.setting-type', file, `${named}: type must be one of ${allowed.join(', ')}.`, at);
    return null;
  }
  if (typeof label !== 'string' || label.trim() === '')
    out.warning('schema.setting-label', file, `${named}: a label names the setting in the editor.`, at);
  const rule: SettingRule = { id, type: type as SettingType };
  if (type === 'number' || type === 'range') {
    for (const key of ['min', 'max', 'step'] as const) {
      if (raw[key] !== undefined && (typeof raw[key] !== 'number' || !Number.isFinite(raw[key]))) {
        out.error('schema.setting', file, `${named}: ${key} must be a number.`, at);
        return null;
      }
    }
    rule.min = raw.min as number | undefined;
    rule.max = raw.max as number | undefined;
    if (rule.min !== undefined && rule.max !== undefined && rule.min >= rule.max) {
      out.error('schema.setting', file, `${named}: min must be below max.`, at);
      return null;
    }
    if (raw.step !== undefined && (raw.step as number) <= 0) out.error('schema.setting', file, `${named}: step must be above 0.`, at);
  }
  if (type === 'select') {
    if (raw.options === undefined) {
      out.warning('schema.select-options', file, `${named}: a select lists its options, so the editor can offer them.`, at);
    } else if (
      !Array.isArray(raw.options) ||
      raw.options.length === 0 ||
      !raw.options.every((o) => typeof o === 'string' || (isObject(o) && typeof o.value === 'string'))
    ) {
      out.error('schema.select-options', file, `${named}: options is a non-empty list of values or {value, label}.`, at);
      return null;
    } else {
      rule.options = raw.options.map((o) => (typeof o === 'string' ? o : String((o as { value: string }).value)));
    }
  }
  if (type === 'repeater') {
    if (!Array.isArray(raw.fields) || raw.fields.length === 0) {
      out.error('schema.repeater', file, `${named}: a repeater lists its item's fields (settings) in \`fields\`.`, at);
      return null;
    }
    rule.fields = new Map();
    for (const [index, field] of raw.fields.entries()) {
      const parsed = readSetting(field, `${named}.fields[${index}]`, file, at, out, true);
      if (!parsed) continue;
      if (rule.fields.has(parsed.id)) out.error('schema.duplicate-id', file, `${named}: the field id ${parsed.id} is used twice.`, at);
      rule.fields.set(parsed.id, parsed);
    }
    if (raw.max !== undefined) {
      if (typeof raw.max !== 'number' || !Number.isInteger(raw.max) || raw.max < 1 || raw.max > MAX_REPEATER_ITEMS)
        out.error('schema.repeater', file, `${named}: max is a whole number from 1 to ${MAX_REPEATER_ITEMS}.`, at);
      else rule.maxItems = raw.max;
    }
  }
  if (raw.default !== undefined) {
    const problem = settingValueProblem(rule, raw.default);
    if (problem) out.error('schema.setting-default', file, `${named}: the default ${problem}.`, at);
  }
  return rule;
}

/** Checks a section's schema JSON (found at `offset` of the section's `text`); answers it parsed, or null. */
export function checkSectionSchema(file: string, json: string, offset: number, text: string, out: Findings): ParsedSchema | null {
  const at = positionAt(text, offset);
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    const problem = jsonError(json, error);
    const inner = problem.at;
    // Position within the section file: the schema's first line continues the {% schema %} line.
    const where = inner ? { line: at.line + inner.line - 1, column: inner.line === 1 ? at.column + inner.column - 1 : inner.column } : at;
    out.error('schema.json', file, `The schema is not valid JSON: ${problem.message}`, where);
    return null;
  }
  if (!isObject(value)) {
    out.error('schema.structure', file, 'The schema is an object: {"name": "…", "settings": […]}.', at);
    return null;
  }
  if (typeof value.name !== 'string' || value.name.trim() === '' || value.name.length > 100)
    out.error('schema.structure', file, 'The schema has a `name` of 1 to 100 characters (shown in the editor).', at);
  const settings = value.settings ?? [];
  if (!Array.isArray(settings)) {
    out.error('schema.structure', file, '`settings` is a list of settings.', at);
    return null;
  }
  if (settings.length > MAX_SETTINGS) out.error('schema.structure', file, `A section has at most ${MAX_SETTINGS} settings.`, at);
  const parsed: ParsedSchema = { name: String(value.name ?? ''), settings: new Map() };
  settings.forEach((raw, index) => {
    const rule = readSetting(raw, `settings[${index}]`, file, at, out, false);
    if (!rule) return;
    if (parsed.settings.has(rule.id)) out.error('schema.duplicate-id', file, `settings[${index}]: the id ${rule.id} is used twice.`, at);
    parsed.settings.set(rule.id, rule);
  });
  return parsed;
}

/** The settings a template gives a section: declared by its schema, values of their type. */
export function checkTemplateSettings(
  file: string,
  where: string,
  settings: Record<string, unknown>,
  schema: ParsedSchema,
  out: Findings,
): void {
  for (const [key, value] of Object.entries(settings)) {
    const rule = schema.settings.get(key);
    if (!rule) {
      out.error('template.unknown-setting', file, `${where}: the section has no setting ${key}.`);
      continue;
    }
    const problem = settingValueProblem(rule, value);
    if (problem) out.error('template.setting-value', file, `${where}.settings.${key} ${problem}.`);
  }
}
