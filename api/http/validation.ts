/**
 * Input validation driven by the route table: path parameters, query parameters and body are each
 * validated by one joi object compiled once per route. Unknown query parameters and unknown body
 * fields are rejected (docs/decisions.md, Problem format); every problem is reported, not only the first.
 */
import Joi from 'joi';
import { ValidationError, type FieldError } from '../../lib/errors';
import { pathParamNames, type RouteDef } from './route';
import { text, uuid } from './schema-types';

export interface CompiledInput {
  params: Joi.ObjectSchema;
  query: Joi.ObjectSchema;
  /** Names of query parameters that accept a comma-separated list. */
  commaSeparated: Set<string>;
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
  return { params: Joi.object(params), query: Joi.object(route.query ?? {}), commaSeparated };
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

export function validatePart<T>(location: 'params' | 'query' | 'body', schema: Joi.Schema, value: unknown): T {
  const result = schema.validate(value, VALIDATION_OPTIONS);
  if (result.error) {
    const errors = toFieldErrors(location, result.error);
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
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined) continue;
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
