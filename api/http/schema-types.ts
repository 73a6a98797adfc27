/**
 * Building blocks for the joi schemas of route tables and DTOs. One definition of "a UUID",
 * "a limit", "a YYYY-MM-DD date" for the whole API, so bounds read the same everywhere and
 * the OpenAPI generator can describe them.
 */
import Joi from 'joi';
import { UUID_PATTERN } from '../../storage/ids';

/** The one definition of a UUID (storage/ids.ts), under the name the API's modules import it by. */
export { UUID_PATTERN };

/**
 * Meta of a string schema holding a CSV document whose reader checks each cell (reporting
 * `rows[N].column`), so the validation's check of every string (api/http/validation.ts) leaves it to them.
 */
export const CSV_CELLS_CHECKED = { csvCellsChecked: true } as const;

export const uuid = (): Joi.StringSchema =>
  Joi.string()
    .pattern(UUID_PATTERN, 'uuid')
    .meta({ format: 'uuid' })
    .messages({ 'string.pattern.name': '{{#label}} must be a UUID (versions 1 to 8, or the nil or max UUID)' });

/** A store id: the one filter that is really required (docs/decisions.md, Optional filters). */
export const storeId = (): Joi.StringSchema => uuid().required().description('The store the operation is scoped to.');

/**
 * The store of an operation that infers it when left out (resolveStoreId, domain/store-access.ts):
 * imports, the export, placing an order.
 */
export const inferredStoreId = (): Joi.StringSchema =>
  uuid()
    .meta({ inferredStore: true })
    .description(
      "The store the operation is scoped to. Optional: a store API key, the sandbox token or a simulated token acts on its own store (a storeId naming another store answers 404 store_not_found); a signed-in member acts on the store named, else on the tenant's default store (the store with isDefault: the first store created, or the one made default since), and gets 400 when the tenant has no default store.",
    );

export const int = (min: number, max?: number): Joi.NumberSchema => {
  const base = Joi.number().integer().min(min);
  return max === undefined ? base : base.max(max);
};

/** "integer greater than 0, at most N" */
export const positiveInt = (max: number): Joi.NumberSchema => Joi.number().integer().greater(0).max(max);

export const number = (min: number, max: number): Joi.NumberSchema => Joi.number().min(min).max(max);

export const text = (min: number, max: number): Joi.StringSchema => Joi.string().min(min).max(max);

export const bool = (): Joi.BooleanSchema => Joi.boolean();

export const oneOf = <T extends string>(values: readonly T[]): Joi.StringSchema => Joi.string().valid(...values);

/** A calendar date written YYYY-MM-DD that exists (2030-02-30 does not). */
export const date = (): Joi.StringSchema =>
  Joi.string()
    .pattern(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, 'date')
    .custom((value: string, helpers) =>
      new Date(`${value}T00:00:00Z`).toISOString().startsWith(value) ? value : helpers.error('string.pattern.name', { name: 'date' }),
    )
    .meta({ format: 'date' })
    .messages({ 'string.pattern.name': '{{#label}} must be a date written YYYY-MM-DD' });

/** A BCP 47 language tag such as `en`, `tr-TR` or `pt-BR`. */
export const languageTag = (): Joi.StringSchema =>
  Joi.string()
    .pattern(/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/, 'locale')
    .max(35)
    .messages({ 'string.pattern.name': '{{#label}} must be a language tag such as en or tr-TR' })
    .description('BCP 47 language tag, e.g. `en`, `tr-TR`.');

/** An ISO 8601 timestamp (a date alone is accepted and means midnight UTC). */
export const dateTime = (): Joi.DateSchema => Joi.date().iso().meta({ format: 'date-time' });

/** An opaque cursor returned as `nextCursor` by a previous page. */
export const cursor = (): Joi.StringSchema =>
  Joi.string().min(1).max(512).description("Opaque cursor from the previous page's nextCursor.");

/**
 * A query array. Clients repeat the parameter (`ids=a&ids=b`); a single value is accepted as an
 * array of one. For UUID arrays a comma-separated list is accepted too (commas cannot occur in a UUID).
 */
export const queryArray = (item: Joi.Schema, maxItems: number, opts: { commaSeparated?: boolean } = {}): Joi.ArraySchema => {
  const schema = Joi.array().items(item).max(maxItems).single();
  return opts.commaSeparated ? schema.meta({ commaSeparated: true }) : schema;
};

export const uuidArray = (maxItems: number): Joi.ArraySchema => queryArray(uuid(), maxItems, { commaSeparated: true });

export const money = (): Joi.NumberSchema => Joi.number().min(0).max(1_000_000_000).precision(4);

export const currency = (): Joi.StringSchema =>
  Joi.string()
    .pattern(/^[A-Z]{3}$/, 'ISO 4217 code')
    .messages({ 'string.pattern.name': '{{#label}} must be an ISO 4217 currency code such as EUR' });

export const httpUrl = (): Joi.StringSchema =>
  Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .max(2048);
