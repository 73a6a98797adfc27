/**
 * The settings of an integration, checked against the field descriptors of its catalog row
 * (integration_catalog.settings_schema, seeded by the migration). The descriptors are the one
 * definition: the merchant catalog shows them and connections are validated against them, so a
 * catalog row cannot describe one thing and accept another.
 *
 * A field is a string (optional pattern and length bounds), a boolean or one of an enum's values.
 * Secret fields are strings the API keeps encrypted and never answers (see integration-secrets.ts).
 * Unknown keys are refused; a required field must be given, except a secret already stored when the
 * integration is connected again (it is kept).
 */
import type { FieldError } from '../../lib/errors';
import { storeIntegrationsError } from './store-integrations.errors';

export interface SettingField {
  key: string;
  type: 'string' | 'boolean' | 'enum';
  description: string;
  required?: boolean;
  secret?: boolean;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  values?: string[];
  default?: string | boolean;
}

export type SettingValue = string | boolean;

export interface CheckedSettings {
  /** The plain (non-secret) settings with defaults filled in. */
  settings: Record<string, SettingValue>;
  /** The secret fields given in this request. */
  secrets: Record<string, string>;
}

function fieldProblem(field: SettingField, value: unknown): string | undefined {
  if (field.type === 'boolean') return typeof value === 'boolean' ? undefined : 'must be a boolean';
  if (typeof value !== 'string') return 'must be a string';
  if (field.type === 'enum') return field.values?.includes(value) ? undefined : `must be one of ${(field.values ?? []).join(', ')}`;
  if (field.minLength !== undefined && value.length < field.minLength) return `must be at least ${field.minLength} characters long`;
  if (field.maxLength !== undefined && value.length > field.maxLength) return `must be at most ${field.maxLength} characters long`;
  if (field.pattern !== undefined && !new RegExp(field.pattern).test(value)) return 'is not in the expected format';
  return undefined;
}

/**
 * The settings of a connect request checked against `fields`; `storedSecrets` names the secret
 * fields the connection already holds (reconnecting may leave them out). Throws 400
 * store_integration_settings_invalid naming every field at fault.
 */
export function checkSettings(
  fields: readonly SettingField[],
  given: Record<string, unknown>,
  storedSecrets: ReadonlySet<string> = new Set(),
): CheckedSettings {
  const errors: FieldError[] = [];
  const byKey = new Map(fields.map((f) => [f.key, f]));
  for (const key of Object.keys(given))
    if (!byKey.has(key)) errors.push({ path: `body.settings.${key}`, message: 'is not a setting of this integration' });
  const settings: Record<string, SettingValue> = {};
  const secrets: Record<string, string> = {};
  for (const field of fields) {
    const value = given[field.key];
    if (value === undefined) {
      if (field.secret && storedSecrets.has(field.key)) continue;
      if (field.required) errors.push({ path: `body.settings.${field.key}`, message: 'is required' });
      else if (field.default !== undefined && !field.secret) settings[field.key] = field.default;
      continue;
    }
    const problem = fieldProblem(field, value);
    if (problem) {
      errors.push({ path: `body.settings.${field.key}`, message: problem });
      continue;
    }
    if (field.secret) secrets[field.key] = value as string;
    else settings[field.key] = value as SettingValue;
  }
  if (errors.length > 0)
    throw storeIntegrationsError(
      'store_integration_settings_invalid',
      'The settings do not match the integration’s settings schema (GET /store-integrations/catalog).',
      errors,
    );
  return { settings, secrets };
}
