/**
 * Converts the joi schemas of the route tables to JSON Schema (the dialect of OpenAPI 3.1), from
 * joi's own `describe()` output. Covers the joi features the API uses; anything unknown becomes
 * an unconstrained schema rather than a wrong one.
 */
import type Joi from 'joi';

export type JsonSchema = Record<string, unknown>;

interface Description {
  type: string;
  flags?: {
    presence?: 'required' | 'optional' | 'forbidden';
    default?: unknown;
    description?: string;
    only?: boolean;
    unknown?: boolean;
    label?: string;
    single?: boolean;
  };
  rules?: Array<{ name: string; args?: Record<string, unknown> }>;
  allow?: unknown[];
  metas?: Array<Record<string, unknown>>;
  keys?: Record<string, Description>;
  items?: Description[];
  matches?: Array<{ schema?: Description }>;
  notes?: string[];
}

export function describeSchema(schema: Joi.Schema): Description {
  return schema.describe() as Description;
}

export function isRequired(schema: Joi.Schema): boolean {
  return describeSchema(schema).flags?.presence === 'required';
}

function metaValue(desc: Description, key: string): unknown {
  for (const meta of desc.metas ?? []) if (key in meta) return meta[key];
  return undefined;
}

/** joi serialises regexes as `/source/flags`; JSON Schema patterns carry no flags. */
function regexSource(regex: unknown): { source: string; flags: string } | undefined {
  if (typeof regex !== 'string') return undefined;
  const match = /^\/(.*)\/([a-z]*)$/s.exec(regex);
  return match ? { source: match[1]!, flags: match[2]! } : undefined;
}

/** Expands letters into [xX] classes so a case-insensitive regex keeps its meaning without flags. */
function caseInsensitive(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i += 1) {
    const ch = source[i]!;
    if (ch === '\\') {
      out += ch + (source[i + 1] ?? '');
      i += 1;
      continue;
    }
    if (ch === '[') inClass = true;
    if (ch === ']') inClass = false;
    if (/[a-z]/i.test(ch)) {
      const lower = ch.toLowerCase();
      const upper = ch.toUpperCase();
      if (inClass) {
        // a-f inside a class: add the other case's range too
        if (source[i + 1] === '-' && /[a-z]/i.test(source[i + 2] ?? '')) {
          const end = source[i + 2]!;
          out += `${lower}-${end.toLowerCase()}${upper}-${end.toUpperCase()}`;
          i += 2;
        } else {
          out += lower === upper ? ch : lower + upper;
        }
      } else {
        out += lower === upper ? ch : `[${lower}${upper}]`;
      }
      continue;
    }
    out += ch;
  }
  return out;
}

function stringSchema(desc: Description): JsonSchema {
  const out: JsonSchema = { type: 'string' };
  for (const rule of desc.rules ?? []) {
    const args = rule.args ?? {};
    switch (rule.name) {
      case 'min':
        out.minLength = args.limit;
        break;
      case 'max':
        out.maxLength = args.limit;
        break;
      case 'length':
        out.minLength = args.limit;
        out.maxLength = args.limit;
        break;
      case 'pattern': {
        const regex = regexSource(args.regex);
        if (regex) out.pattern = regex.flags.includes('i') ? caseInsensitive(regex.source) : regex.source;
        break;
      }
      case 'email':
        out.format = 'email';
        break;
      case 'uri':
        out.format = 'uri';
        break;
      case 'hostname':
        out.format = 'hostname';
        break;
      case 'isoDate':
        out.format = 'date-time';
        break;
      case 'guid':
        out.format = 'uuid';
        break;
      default:
        break;
    }
  }
  return out;
}

function numberSchema(desc: Description): JsonSchema {
  const integer = (desc.rules ?? []).some((r) => r.name === 'integer');
  const out: JsonSchema = { type: integer ? 'integer' : 'number' };
  for (const rule of desc.rules ?? []) {
    const limit = rule.args?.limit;
    // A limit given as a reference to another field (Joi.ref) has no fixed value to document.
    if (typeof limit !== 'number') continue;
    if (rule.name === 'min') out.minimum = limit;
    if (rule.name === 'max') out.maximum = limit;
    if (rule.name === 'greater') out.exclusiveMinimum = limit;
    if (rule.name === 'less') out.exclusiveMaximum = limit;
  }
  // `min(0).greater(0)` means "> 0": keep only the stricter bound, as JSON Schema linters expect.
  if (typeof out.exclusiveMinimum === 'number' && typeof out.minimum === 'number' && out.exclusiveMinimum >= out.minimum)
    delete out.minimum;
  if (typeof out.exclusiveMaximum === 'number' && typeof out.maximum === 'number' && out.exclusiveMaximum <= out.maximum)
    delete out.maximum;
  return out;
}

function arraySchema(desc: Description): JsonSchema {
  const items = desc.items ?? [];
  const out: JsonSchema = {
    type: 'array',
    items: items.length === 1 ? fromDescription(items[0]!) : items.length > 1 ? { anyOf: items.map(fromDescription) } : {},
  };
  for (const rule of desc.rules ?? []) {
    if (rule.name === 'min') out.minItems = rule.args?.limit;
    if (rule.name === 'max') out.maxItems = rule.args?.limit;
    if (rule.name === 'length') {
      out.minItems = rule.args?.limit;
      out.maxItems = rule.args?.limit;
    }
    if (rule.name === 'unique') out.uniqueItems = true;
  }
  return out;
}

function objectSchema(desc: Description): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, child] of Object.entries(desc.keys ?? {})) {
    properties[key] = fromDescription(child);
    if (child.flags?.presence === 'required') required.push(key);
  }
  const out: JsonSchema = { type: 'object' };
  if (desc.keys) {
    out.properties = properties;
    if (required.length) out.required = required;
  }
  out.additionalProperties = desc.flags?.unknown === true || !desc.keys;
  return out;
}

export function fromDescription(desc: Description): JsonSchema {
  let out: JsonSchema;
  switch (desc.type) {
    case 'string':
      out = stringSchema(desc);
      break;
    case 'number':
      out = numberSchema(desc);
      break;
    case 'boolean':
      out = { type: 'boolean' };
      break;
    case 'date':
      out = { type: 'string', format: 'date-time' };
      break;
    case 'array':
      out = arraySchema(desc);
      break;
    case 'object':
      out = objectSchema(desc);
      break;
    case 'alternatives':
      out = { anyOf: (desc.matches ?? []).filter((m) => m.schema).map((m) => fromDescription(m.schema!)) };
      break;
    default:
      out = {};
  }
  const format = metaValue(desc, 'format');
  if (typeof format === 'string') out.format = format;
  const allowed = desc.allow ?? [];
  if (desc.flags?.only && allowed.length) {
    out.enum = allowed;
    if (allowed.includes(null) && typeof out.type === 'string') out.type = [out.type, 'null'];
  } else if (allowed.includes(null) && typeof out.type === 'string') {
    out.type = [out.type, 'null'];
  } else if (allowed.includes('') && out.type === 'string' && typeof out.minLength === 'number' && out.minLength > 0) {
    out.anyOf = [{ const: '' }, { minLength: out.minLength }];
    delete out.minLength;
  }
  if (desc.flags?.description) out.description = desc.flags.description;
  if (desc.flags?.default !== undefined && typeof desc.flags.default !== 'function') out.default = desc.flags.default;
  return out;
}

export function toJsonSchema(schema: Joi.Schema): JsonSchema {
  return fromDescription(describeSchema(schema));
}
