/**
 * Input validation driven by the route table: path parameters, query parameters and body are each
 * validated by one joi object compiled once per route. Unknown query parameters and unknown body
 * fields are rejected (docs/decisions.md, Problem format); every problem is reported, not only the first.
 */
import Joi from 'joi';
import { ValidationError, type FieldError } from '../../lib/errors';
import { pathParamNames, type RouteDef } from './route';
import { text, uuid } from './schema-types';
import { compileFastCheck, UNDECIDED, type FastCheck } from './fast-input';

export interface CompiledInput {
  params: Joi.ObjectSchema;
  query: Joi.ObjectSchema;
  /** Names of query parameters that accept a comma-separated list. */
  commaSeparated: Set<string>;
  /** Fast checkers compiled from the same schemas (api/http/fast-input.ts); absent where joi alone decides. */
  fastParams?: FastCheck;
  fastQuery?: FastCheck;
}

const VALIDATION_OPTIONS: Joi.ValidationOptions = {
  abortEarly: false,
  convert: true,
  allowUnknown: false,
  errors: { wrap: { label: false } },
};

/** Path parameters are UUIDs when named `id` or `…Id` (docs/decisions.md, Identifiers), otherwise non-empty strings. */
export function defaultPathParamSchema(name: string): Joi.Schema {
  if (name === 'id' || /[a-z]Id$/.test(name)) return uuid().required();
  if (name === 'slug' || name.endsWith('Slug')) return text(1, 200).required();
  return text(1, 200).required();
}

export function compileInput(route: RouteDef): CompiledInput {
  const params: Record<string, Joi.Schema> = {};
  for (const name of pathParamNames(route.path)) {
    params[name] = route.params?.[name] ?? defaultPathParamSchema(name);
  }
  const commaSeparated = new Set<string>();
  for (const [name, schema] of Object.entries(route.query ?? {})) {
    const meta = (schema.describe() as { metas?: Array<Record<string, unknown>> }).metas ?? [];
    if (meta.some((m) => m.commaSeparated)) commaSeparated.add(name);
  }
  const paramsSchema = Joi.object(params);
  const querySchema = Joi.object(route.query ?? {});
  return {
    params: paramsSchema,
    query: querySchema,
    commaSeparated,
    fastParams: noCsvFields(paramsSchema) ? compileFastCheck(params) : undefined,
    fastQuery: noCsvFields(querySchema) ? compileFastCheck(route.query ?? {}) : undefined,
  };
}

function toFieldErrors(location: string, error: Joi.ValidationError): FieldError[] {
  return error.details.map((detail) => {
    const tail = detail.path.map((segment) => (typeof segment === 'number' ? `[${segment}]` : `.${segment}`)).join('');
    let message = detail.message;
    if (detail.type === 'object.unknown')
      message = `${detail.context?.label ?? detail.path.join('.')} is not a known ${location === 'query' ? 'query parameter' : 'field'}`;
    return { path: `${location}${tail}`, message };
  });
}

/** A UTF-16 surrogate without its pair: like U+0000, text that PostgreSQL cannot store (text or jsonb). */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const MAX_CHARACTER_ERRORS = 50;
const MAX_SCAN_DEPTH = 64;

/** Why `value` cannot be stored, or undefined when it can. */
export function unstorableCharacter(value: string): string | undefined {
  if (value.includes('\u0000')) return 'the NUL character (U+0000)';
  return UNPAIRED_SURROGATE.test(value) ? 'an unpaired UTF-16 surrogate' : undefined;
}

const segmentText = (segment: string | number): string => (typeof segment === 'number' ? `[${segment}]` : `.${segment}`);

/**
 * Every string of the input (values and object keys, at any depth) that holds a character no column
 * can store: NUL or an unpaired surrogate. Checked here, over the raw input, so that every string of
 * every schema (`Joi.any()` objects kept as jsonb included) refuses them with the field's path,
 * instead of reaching the database and failing there.
 */
function unstorableCharacterErrors(location: string, value: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const visit = (node: unknown, path: Array<string | number>, depth: number): void => {
    if (errors.length >= MAX_CHARACTER_ERRORS || depth > MAX_SCAN_DEPTH) return;
    const label = (): string => (path.length ? path.map(String).join('.') : location);
    if (typeof node === 'string') {
      const found = unstorableCharacter(node);
      if (found) errors.push({ path: `${location}${path.map(segmentText).join('')}`, message: `${label()} must not contain ${found}` });
      return;
    }
    if (node === null || typeof node !== 'object' || Buffer.isBuffer(node) || node instanceof Date) return;
    if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, [...path, index], depth + 1));
      return;
    }
    for (const [key, item] of Object.entries(node as Record<string, unknown>)) {
      const found = unstorableCharacter(key);
      if (found && errors.length < MAX_CHARACTER_ERRORS)
        errors.push({
          path: `${location}${[...path, key].map(segmentText).join('')}`,
          message: `the field name ${JSON.stringify(key)} must not contain ${found}`,
        });
      else visit(item, [...path, key], depth + 1);
    }
  };
  visit(value, [], 0);
  return errors;
}

interface SchemaDescription {
  metas?: Array<Record<string, unknown>>;
  keys?: Record<string, SchemaDescription>;
}
const hasCsvMeta = (desc: SchemaDescription | undefined): boolean => (desc?.metas ?? []).some((m) => m.csvCellsChecked === true);
const csvFieldsOf = new WeakMap<Joi.Schema, { whole: boolean; fields: Set<string> }>();

/** Whether the value as a whole, or which of its top-level fields, are CSV documents checked cell by cell. */
function csvFields(schema: Joi.Schema): { whole: boolean; fields: Set<string> } {
  let found = csvFieldsOf.get(schema);
  if (!found) {
    const desc = schema.describe() as SchemaDescription;
    const fields = new Set(Object.entries(desc.keys ?? {}).flatMap(([key, child]) => (hasCsvMeta(child) ? [key] : [])));
    found = { whole: hasCsvMeta(desc), fields };
    csvFieldsOf.set(schema, found);
  }
  return found;
}

function noCsvFields(schema: Joi.Schema): boolean {
  const csv = csvFields(schema);
  return !csv.whole && csv.fields.size === 0;
}

/**
 * Whether a flat object of parameters (string values, or arrays of strings) holds a name or a string
 * with a character no column can store; anything deeper counts as holding one (the full check decides).
 */
function mayHoldUnstorable(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  for (const [key, item] of Object.entries(value)) {
    if (unstorableCharacter(key)) return true;
    if (typeof item === 'string') {
      if (unstorableCharacter(item)) return true;
    } else if (Array.isArray(item)) {
      for (const element of item) if (typeof element !== 'string' || unstorableCharacter(element)) return true;
    } else return true;
  }
  return false;
}

/**
 * Path or query parameters validated by the route's fast checker when it can decide them (well-formed
 * input), else by `validatePart` with joi: the same value either way, and every error from joi.
 */
export function validateParameters<T>(location: 'params' | 'query', schema: Joi.Schema, fast: FastCheck | undefined, value: unknown): T {
  if (fast && !mayHoldUnstorable(value)) {
    const checked = fast(value);
    if (checked !== UNDECIDED) return checked as T;
  }
  return validatePart<T>(location, schema, value);
}

export function validatePart<T>(location: 'params' | 'query' | 'body', schema: Joi.Schema, value: unknown): T {
  const result = schema.validate(value, VALIDATION_OPTIONS);
  // A CSV document's reader reports a bad cell as a row error (api/http/csv-import.ts, api/imports/csv-stream.ts).
  const csv = csvFields(schema);
  let scanned = value;
  if (csv.whole) scanned = undefined;
  else if (csv.fields.size && value !== null && typeof value === 'object' && !Array.isArray(value))
    scanned = Object.fromEntries(Object.entries(value).filter(([key, item]) => !(csv.fields.has(key) && typeof item === 'string')));
  const characterErrors = unstorableCharacterErrors(location, scanned);
  if (result.error || characterErrors.length) {
    // One problem per field: a field with an unstorable character reports that, not also its format.
    const flagged = new Set(characterErrors.map((e) => e.path));
    const errors = [...characterErrors, ...(result.error ? toFieldErrors(location, result.error).filter((e) => !flagged.has(e.path)) : [])];
    throw new ValidationError(
      `The request ${location === 'params' ? 'path' : location} is invalid: ${errors.map((e) => e.message).join('; ')}.`,
      errors,
    );
  }
  return result.value as T;
}

/** `a,b` → [a, b]; a comma inside a value is written `\,` (and a backslash before a comma `\\`). */
export function splitCommas(value: string): string[] {
  if (!value.includes('\\')) return value.split(',');
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < value.length; i += 1) {
    const char = value[i]!;
    if (char === '\\' && (value[i + 1] === ',' || value[i + 1] === '\\')) {
      current += value[i + 1];
      i += 1;
    } else if (char === ',') {
      parts.push(current);
      current = '';
    } else current += char;
  }
  parts.push(current);
  return parts;
}

/** Normalises koa's parsed query (string | string[]) and splits comma-separated lists. */
export function normaliseQuery(raw: Record<string, string | string[] | undefined>, commaSeparated: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(raw)) {
    const value = raw[key];
    if (value === undefined) continue;
    // The common case, a parameter given once as a plain value: kept as it is.
    if (typeof value === 'string' && out[key] === undefined && !commaSeparated.has(key) && !key.endsWith('[]')) {
      out[key] = value;
      continue;
    }
    // `ids[]=a&ids[]=b` is a common client spelling of repeated parameters.
    const name = key.endsWith('[]') ? key.slice(0, -2) : key;
    let values = Array.isArray(value) ? value : [value];
    if (commaSeparated.has(name)) values = values.flatMap(splitCommas).filter((v) => v !== '');
    const previous = out[name];
    const merged = previous === undefined ? values : [...(Array.isArray(previous) ? previous : [previous]), ...values];
    out[name] = merged.length === 1 && !key.endsWith('[]') && !commaSeparated.has(name) ? merged[0] : merged;
  }
  return out;
}
