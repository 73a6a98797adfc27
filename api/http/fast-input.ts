/**
 * Fast checkers of path and query parameters, compiled once per route from the same joi schemas of
 * the route table that validate them (api/http/validation.ts). The joi schema stays the one source of
 * truth: a checker only decides what it can decide exactly like joi, and for everything else answers
 * UNDECIDED, after which the request is validated by joi as before. So every error (its field path,
 * its message, the problem body) still comes from joi; a checker only saves joi's per-request cost
 * (options merged, state objects, one error-collecting pass per key) on well-formed requests.
 *
 * What a checker accepts, per parameter (anything else in a schema, such as trimming, case
 * conversion, references, alternatives, `when` or custom rules, leaves the whole route to joi):
 * - a string: the allowed values (`allow`, `valid`), `min`/`max` length, `pattern` (not inverted);
 *   the empty string only where allowed;
 * - a number: written exactly as JavaScript writes it back (`12`, `0.5`, no sign `+`, no exponent,
 *   no leading or trailing zeros), a safe value, with `integer`, `min`, `max`, `greater`, `less`;
 * - a boolean: `true` or `false` as written;
 * - an array (`single`: one value is an array of one) of one such item schema, with `min`/`max`/`length`;
 * - the object: only known keys, every required key present, defaults added after the given keys
 *   in the schema's order (joi's order).
 */
import type Joi from 'joi';

/** What a checker answers when joi has to decide (an error, or a form it does not handle). */
export const UNDECIDED: unique symbol = Symbol('undecided');

/** The validated value of one parameter, or UNDECIDED. */
type ValueCheck = (value: unknown) => unknown;

/** The validated parameters (a new object, as joi's), or UNDECIDED. */
export type FastCheck = (value: unknown) => Record<string, unknown> | typeof UNDECIDED;

interface Description {
  type: string;
  flags?: Record<string, unknown>;
  rules?: Array<{ name: string; args?: Record<string, unknown> }>;
  allow?: unknown[];
  items?: Description[];
  preferences?: Record<string, unknown>;
  [other: string]: unknown;
}

/** Parts of a description that change nothing in what a valid value becomes. */
const DESCRIPTION_KEYS = new Set(['type', 'flags', 'rules', 'allow', 'items', 'metas', 'preferences']);
const COMMON_FLAGS = new Set(['presence', 'default', 'description', 'label']);

/** A number as JavaScript writes it back: optional minus, no leading zeros, no trailing fraction zeros, no exponent. */
const CANONICAL_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d*[1-9])?$/;

const numericLimit = (rule: { args?: Record<string, unknown> }): number | undefined => {
  const limit = rule.args?.limit;
  return typeof limit === 'number' && Number.isFinite(limit) ? limit : undefined;
};

function plainShape(description: Description, flags: Set<string>): boolean {
  for (const key of Object.keys(description)) if (!DESCRIPTION_KEYS.has(key)) return false;
  for (const key of Object.keys(description.flags ?? {})) if (!COMMON_FLAGS.has(key) && !flags.has(key)) return false;
  // Only messages may be preferred: they change errors, which joi reports anyway.
  for (const key of Object.keys(description.preferences ?? {})) if (key !== 'messages') return false;
  const presence = description.flags?.presence;
  if (presence !== undefined && presence !== 'required' && presence !== 'optional') return false;
  const fallback = description.flags?.default;
  return fallback === undefined || ['string', 'number', 'boolean'].includes(typeof fallback);
}

/** The RegExp of the schema's n-th pattern rule (the description holds only its text). */
function patternOf(schema: Joi.Schema, index: number): RegExp | undefined {
  const rules = (schema as unknown as { _rules?: Array<{ name: string; args?: { regex?: unknown; options?: Record<string, unknown> } }> })
    ._rules;
  const rule = rules?.filter((r) => r.name === 'pattern')[index];
  const regex = rule?.args?.regex;
  if (!(regex instanceof RegExp) || regex.global || regex.sticky) return undefined;
  const options = rule?.args?.options ?? {};
  if (Object.keys(options).some((key) => key !== 'name')) return undefined;
  return regex;
}

function stringCheck(schema: Joi.Schema, description: Description): ValueCheck | undefined {
  if (!plainShape(description, new Set(['only']))) return undefined;
  const allowed = description.allow ?? [];
  if (allowed.some((v) => typeof v !== 'string')) return undefined;
  const allowSet = new Set(allowed as string[]);
  if (description.flags?.only === true) {
    if (description.rules?.length) return undefined;
    return (value) => (typeof value === 'string' && allowSet.has(value) ? value : UNDECIDED);
  }
  let min = 0;
  let max = Infinity;
  const patterns: RegExp[] = [];
  for (const rule of description.rules ?? []) {
    if (rule.name === 'min' || rule.name === 'max' || rule.name === 'length') {
      const limit = numericLimit(rule);
      if (limit === undefined || Object.keys(rule.args ?? {}).some((key) => key !== 'limit')) return undefined;
      if (rule.name !== 'max') min = Math.max(min, limit);
      if (rule.name !== 'min') max = Math.min(max, limit);
    } else if (rule.name === 'pattern') {
      const regex = patternOf(schema, patterns.length);
      if (!regex) return undefined;
      patterns.push(regex);
    } else return undefined;
  }
  return (value) => {
    if (typeof value !== 'string') return UNDECIDED;
    if (allowSet.has(value)) return value;
    if (value === '' || value.length < min || value.length > max) return UNDECIDED;
    for (const regex of patterns) if (!regex.test(value)) return UNDECIDED;
    return value;
  };
}

function numberCheck(description: Description): ValueCheck | undefined {
  if (!plainShape(description, new Set()) || description.allow?.length) return undefined;
  let integer = false;
  let min = -Infinity;
  let max = Infinity;
  let above = -Infinity;
  let below = Infinity;
  for (const rule of description.rules ?? []) {
    if (rule.name === 'integer') {
      integer = true;
      continue;
    }
    const limit = numericLimit(rule);
    if (limit === undefined) return undefined;
    if (rule.name === 'min') min = Math.max(min, limit);
    else if (rule.name === 'max') max = Math.min(max, limit);
    else if (rule.name === 'greater') above = Math.max(above, limit);
    else if (rule.name === 'less') below = Math.min(below, limit);
    else return undefined;
  }
  return (value) => {
    if (typeof value !== 'string' || !CANONICAL_NUMBER.test(value)) return UNDECIDED;
    const number = Number(value);
    if (String(number) !== value || !(Math.abs(number) <= Number.MAX_SAFE_INTEGER)) return UNDECIDED;
    if (integer && !Number.isSafeInteger(number)) return UNDECIDED;
    if (number < min || number > max || number <= above || number >= below) return UNDECIDED;
    return number;
  };
}

function booleanCheck(description: Description): ValueCheck | undefined {
  if (!plainShape(description, new Set()) || description.allow?.length || description.rules?.length) return undefined;
  return (value) => (value === 'true' ? true : value === 'false' ? false : UNDECIDED);
}

function scalarCheck(schema: Joi.Schema, description: Description): ValueCheck | undefined {
  if (description.type === 'string') return stringCheck(schema, description);
  if (description.type === 'number') return numberCheck(description);
  if (description.type === 'boolean') return booleanCheck(description);
  return undefined;
}

function arrayCheck(schema: Joi.Schema, description: Description): ValueCheck | undefined {
  if (!plainShape(description, new Set(['single'])) || description.allow?.length || description.flags?.default !== undefined)
    return undefined;
  const itemSchemas = (schema as unknown as { $_terms?: { items?: Joi.Schema[] } }).$_terms?.items ?? [];
  if (itemSchemas.length !== 1 || description.items?.length !== 1) return undefined;
  const item = scalarCheck(itemSchemas[0]!, description.items[0]!);
  if (!item || description.items[0]!.flags?.presence === 'required' || description.items[0]!.flags?.default !== undefined) return undefined;
  let min = 0;
  let max = Infinity;
  for (const rule of description.rules ?? []) {
    const limit = numericLimit(rule);
    if (limit === undefined) return undefined;
    if (rule.name === 'min') min = Math.max(min, limit);
    else if (rule.name === 'max') max = Math.min(max, limit);
    else if (rule.name === 'length') {
      min = Math.max(min, limit);
      max = Math.min(max, limit);
    } else return undefined;
  }
  const single = description.flags?.single === true;
  return (value) => {
    const values = Array.isArray(value) ? value : single ? [value] : undefined;
    if (!values || values.length < min || values.length > max) return UNDECIDED;
    const out: unknown[] = new Array(values.length);
    for (let i = 0; i < values.length; i += 1) {
      const checked = item(values[i]);
      if (checked === UNDECIDED) return UNDECIDED;
      out[i] = checked;
    }
    return out;
  };
}

/** One parameter's checker, or undefined when its schema holds something only joi decides. */
function parameterCheck(schema: Joi.Schema): ValueCheck | undefined {
  const description = schema.describe() as Description;
  return description.type === 'array' ? arrayCheck(schema, description) : scalarCheck(schema, description);
}

/**
 * The checker of an object of parameters (name → schema), validated as `Joi.object(keys)` with
 * unknown keys refused; undefined when a parameter's schema is beyond it.
 */
export function compileFastCheck(keys: Record<string, Joi.Schema>): FastCheck | undefined {
  const checks = new Map<string, ValueCheck>();
  const required: string[] = [];
  const defaults: Array<[string, unknown]> = [];
  for (const [name, schema] of Object.entries(keys)) {
    const check = parameterCheck(schema);
    if (!check) return undefined;
    checks.set(name, check);
    const flags = (schema.describe() as Description).flags ?? {};
    if (flags.presence === 'required') required.push(name);
    if (flags.default !== undefined) defaults.push([name, flags.default]);
  }
  return (value) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return UNDECIDED;
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return UNDECIDED;
    const out: Record<string, unknown> = {};
    const given = value as Record<string, unknown>;
    for (const name of Object.keys(given)) {
      const check = checks.get(name);
      if (!check) return UNDECIDED;
      const checked = check(given[name]);
      if (checked === UNDECIDED) return UNDECIDED;
      out[name] = checked;
    }
    for (const name of required) if (!Object.hasOwn(out, name)) return UNDECIDED;
    for (const [name, fallback] of defaults) if (!Object.hasOwn(out, name)) out[name] = fallback;
    return out;
  };
}
