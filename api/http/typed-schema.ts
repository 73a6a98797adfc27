/**
 * Typed joi schemas: one declaration of a body that yields both the joi schema the router validates
 * with (and the OpenAPI document is generated from) and the TypeScript type of the validated value,
 * so a service's input type is derived from its DTO instead of written a second time.
 *
 *   export const CreateBrandDto = typedDto('CreateBrandDto', t.object({
 *     storeId: t.storeId(),
 *     name: t.string(brandName()).required(),
 *     description: t.string(brandDescription()).nullable(),
 *     isActive: t.boolean(bool().description('…')).default(true),
 *   }));
 *   export type CreateBrandInput = InputOf<typeof CreateBrandDto>;
 *   // { storeId: string; name: string; description?: string | null; isActive: boolean }
 *
 * The joi chain inside each builder holds the rules that do not change the type (bounds, patterns,
 * trimming, descriptions); the three things that do change it are methods of the typed wrapper:
 * `.required()`, `.default(value)` (the key is then present after validation) and `.nullable()`
 * (`.allow(null)`). A builder refuses, when the module loads, a joi schema that already says any of
 * the three on its own, so the type and the validation cannot disagree. No maintained library does
 * this for joi 17/18 (joi-extract-type and typesafe-joi stopped at @hapi/joi 15; joi-to-typescript
 * generates files instead), hence this small helper.
 */
import Joi from 'joi';
import { dto, type BodyContentType, type NamedSchema } from './route';
import { oneOf as joiOneOf, storeId as joiStoreId } from './schema-types';

/** Whether a key is in the validated object: always, only when sent, or always because joi fills a default. */
export type Presence = 'required' | 'optional' | 'defaulted';

// The static type lives only in the type system: `declare` fields emit nothing at run time.
declare const valueType: unique symbol;
declare const presenceType: unique symbol;

/** A joi schema together with the static type V of the value it validates to. */
export class Typed<V, P extends Presence = 'optional', S extends Joi.Schema = Joi.Schema> {
  declare readonly [valueType]: V;
  declare readonly [presenceType]: P;

  constructor(readonly schema: S) {}

  /** joi's `.required()`: the key must be sent. */
  required(): Typed<V, 'required', S> {
    return new Typed(this.schema.required() as S);
  }

  /** joi's `.default(value)`: the key may be left out and is then present with the value. */
  default(value: V): Typed<V, 'defaulted', S> {
    // joi types a default as any JSON-like value; V is the value's own type, narrower than that.
    return new Typed(this.schema.default(value as Joi.BasicType) as S);
  }

  /** joi's `.allow(null)`. */
  nullable(): Typed<V | null, P, S> {
    return new Typed(this.schema.allow(null) as S);
  }

  /** More joi rules that leave the type as it is (description, messages, bounds), on the schema as it is now. */
  rules(apply: (schema: S) => S): Typed<V, P, S> {
    return new Typed(apply(this.schema));
  }
}

/** A DTO of the route table (`dto` of route.ts, the same object at run time) that also carries its value's type. */
export interface TypedDto<V> extends NamedSchema {
  readonly [valueType]: V;
}

/** `dto(name, schema)` for a typed object schema: the same NamedSchema, typed. */
export function typedDto<V>(name: string, typed: Typed<V, Presence, Joi.ObjectSchema>, contentType?: BodyContentType): TypedDto<V> {
  // The value type exists only in the type system, so the cast adds no property.
  return dto(name, typed.schema, contentType) as TypedDto<V>;
}

/** The type of the validated value of a typed DTO or a typed schema. */
export type InputOf<T> = T extends TypedDto<infer V> ? V : T extends Typed<infer V, Presence, Joi.Schema> ? V : never;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any presence and schema kind; only V is read
type AnyTyped = Typed<any, Presence, Joi.Schema>;
type Shape = Record<string, AnyTyped>;

/** Flattens an intersection into one object type, so editors and type equality tests see plain fields. */
type Simplify<T> = { [K in keyof T]: T[K] } & {};

type ValueOf<F> = F extends Typed<infer V, Presence, Joi.Schema> ? V : never;
type OptionalKeys<K extends Shape> = { [k in keyof K]: K[k] extends Typed<unknown, 'optional', Joi.Schema> ? k : never }[keyof K];

/**
 * The object a shape validates to: required and defaulted keys are always there, optional keys only
 * when sent (`key?:`). Two mapped types because a mapped type gives all its keys the same optionality.
 */
export type ObjectOf<K extends Shape> = Simplify<
  { [k in Exclude<keyof K, OptionalKeys<K>>]: ValueOf<K[k]> } & { [k in OptionalKeys<K>]?: ValueOf<K[k]> }
>;

/**
 * Refuses a joi schema that is already required, has a default or allows null: those must be said
 * with the typed methods, or the static type would not know them.
 */
function plain<S extends Joi.Schema>(schema: S): S {
  const desc = schema.describe() as { flags?: { presence?: string; default?: unknown }; allow?: unknown[] };
  const said = [
    desc.flags?.presence === 'required' && '.required()',
    desc.flags?.default !== undefined && '.default()',
    desc.allow?.includes(null) && '.allow(null)',
  ].filter(Boolean);
  if (said.length)
    throw new Error(
      `typed schema: say ${said.join(', ')} with the typed method (t.….required(), .default(v), .nullable()), not inside the joi schema`,
    );
  return schema;
}

export const t = {
  string: (schema: Joi.StringSchema = Joi.string()) => new Typed<string, 'optional', Joi.StringSchema>(plain(schema)),
  number: (schema: Joi.NumberSchema = Joi.number()) => new Typed<number, 'optional', Joi.NumberSchema>(plain(schema)),
  boolean: (schema: Joi.BooleanSchema = Joi.boolean()) => new Typed<boolean, 'optional', Joi.BooleanSchema>(plain(schema)),
  /** Joi.date() converts to a Date. */
  date: (schema: Joi.DateSchema = Joi.date()) => new Typed<Date, 'optional', Joi.DateSchema>(plain(schema)),

  /** One of a readonly tuple of strings (`oneOf` of schema-types.ts): the union of its literals. */
  oneOf: <const T extends string>(values: readonly T[], apply: (schema: Joi.StringSchema) => Joi.StringSchema = (s) => s) =>
    new Typed<T, 'optional', Joi.StringSchema>(plain(apply(joiOneOf(values)))),

  /** An array of items of one typed schema; `schema` carries the array's own rules (min, max, unique, description). */
  array: <I>(item: Typed<I, Presence, Joi.Schema>, schema: Joi.ArraySchema = Joi.array()) =>
    new Typed<I[], 'optional', Joi.ArraySchema>(plain(schema.items(item.schema))),

  /** An object with exactly these keys (unknown keys are refused, as joi does by default). */
  object: <K extends Shape>(keys: K) => {
    const map: Record<string, Joi.Schema> = {};
    for (const [key, field] of Object.entries(keys)) map[key] = field.schema;
    return new Typed<ObjectOf<K>, 'optional', Joi.ObjectSchema>(Joi.object(map));
  },

  /**
   * An escape hatch for what the builders above do not model (alternatives, `.when`, pattern keys, a
   * `.custom` that converts): the type is stated, not derived, so keep it next to the joi it describes.
   * Presence and null are still said with the typed methods.
   */
  custom: <V>(schema: Joi.Schema) => new Typed<V, 'optional', Joi.Schema>(plain(schema)),

  /** The store id of a store-scoped body (`storeId()` of schema-types.ts, which is required). */
  storeId: () => new Typed<string, 'required', Joi.StringSchema>(joiStoreId()),
};
