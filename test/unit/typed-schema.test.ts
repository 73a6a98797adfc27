/**
 * The typed schema helper (api/http/typed-schema.ts): the static type it derives (checked by the
 * compiler: a wrong type fails the build, not the run) and the joi schema it builds, which must
 * validate, convert and default exactly like the same schema written in plain joi.
 */
import { expect } from 'chai';
import Joi from 'joi';
import { t, typedDto, type InputOf } from '../../api/http/typed-schema';
import { toJsonSchema } from '../../api/http/joi-json-schema';
import { bool, httpUrl, oneOf, storeId, uuid } from '../../api/http/schema-types';

/** Compile-time assertions: `Expect<Equal<A, B>>` fails to compile unless A and B are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;

const KINDS = ['related', 'upsell'] as const;

const Typed = typedDto(
  'ExampleDto',
  t.object({
    storeId: t.storeId(),
    name: t.string(Joi.string().trim().min(1).max(20)).required(),
    note: t.string(Joi.string().max(50).description('null clears it.')).nullable(),
    isActive: t.boolean(bool()).default(true),
    kind: t.oneOf(KINDS).required(),
    ids: t.array(t.string(uuid()), Joi.array().min(1).max(3).unique()),
    startsAt: t.date(Joi.date().iso()).nullable().required(),
    nested: t.object({ position: t.number(Joi.number().integer().min(0)).required(), url: t.string(httpUrl()) }).rules((o) => o.min(1)),
    weights: t.custom<Record<string, number>>(Joi.object().pattern(Joi.string(), Joi.number())),
  }),
);

/** The same schema in plain joi, as the area modules wrote it before. */
const Plain = Joi.object({
  storeId: storeId(),
  name: Joi.string().trim().min(1).max(20).required(),
  note: Joi.string().max(50).allow(null).description('null clears it.'),
  isActive: bool().default(true),
  kind: oneOf(KINDS).required(),
  ids: Joi.array().items(uuid()).min(1).max(3).unique(),
  startsAt: Joi.date().iso().allow(null).required(),
  nested: Joi.object({ position: Joi.number().integer().min(0).required(), url: httpUrl() }).min(1),
  weights: Joi.object().pattern(Joi.string(), Joi.number()),
}).label('ExampleDto');

type Example = InputOf<typeof Typed>;

// Required, defaulted, optional, nullable, enum, array, nested object, stated (custom) types:
export type ExampleIsDerived = Expect<
  Equal<
    Example,
    {
      storeId: string;
      name: string;
      isActive: boolean;
      kind: 'related' | 'upsell';
      startsAt: Date | null;
      note?: string | null;
      ids?: string[];
      nested?: { position: number; url?: string };
      weights?: Record<string, number>;
    }
  >
>;
// A key with a default is present after validation; without one it is optional:
export type DefaultIsPresent = Expect<Equal<Example['isActive'], boolean>>;
export type OptionalIsOptional = Expect<Equal<Pick<Example, 'ids'>, { ids?: string[] }>>;
// @ts-expect-error a nullable key is not a plain string
export type NullIsKept = Expect<Equal<Example['startsAt'], Date>>;

const STORE = '0190a0b4-0000-7000-8000-000000000001';

describe('typed schemas', () => {
  it('builds the same joi schema as plain joi: same description, so the same OpenAPI schema', () => {
    expect(Typed.schema.describe()).to.deep.equal(Plain.describe());
    expect(JSON.stringify(toJsonSchema(Typed.schema))).to.equal(JSON.stringify(toJsonSchema(Plain)));
    expect(Typed.name).to.equal('ExampleDto');
    expect(Typed.pending).to.equal(false);
    expect(Typed.contentType).to.equal('application/json');
  });

  it('validates, converts and defaults like plain joi', () => {
    const bodies: unknown[] = [
      { storeId: STORE, name: '  Shoes ', kind: 'related', startsAt: '2025-01-02' },
      { storeId: STORE, name: 'a', kind: 'upsell', startsAt: null, isActive: false, note: null, ids: [STORE] },
      { storeId: STORE, name: 'a', kind: 'other', startsAt: null },
      { storeId: STORE, kind: 'related', startsAt: null },
      { storeId: STORE, name: 'a', kind: 'related', startsAt: null, ids: [STORE, STORE] },
      { storeId: STORE, name: 'a', kind: 'related', startsAt: null, nested: {} },
      { storeId: STORE, name: 'a', kind: 'related', startsAt: null, extra: 1 },
      { storeId: 'nope', name: 'a', kind: 'related', startsAt: null, weights: { a: '2' } },
    ];
    for (const body of bodies) {
      const typed = Typed.schema.validate(body, { abortEarly: false });
      const plain = Plain.validate(body, { abortEarly: false });
      expect(typed.value).to.deep.equal(plain.value);
      expect(typed.error?.details).to.deep.equal(plain.error?.details);
    }
    const { value } = Typed.schema.validate(bodies[0]) as { value: Example };
    expect(value.isActive).to.equal(true);
    expect(value.name).to.equal('Shoes');
    expect(value.startsAt).to.be.instanceOf(Date);
  });

  it('refuses a joi schema that says required, a default or null itself, where the type cannot see it', () => {
    expect(() => t.string(Joi.string().required())).to.throw(/\.required\(\)/);
    expect(() => t.boolean(Joi.boolean().default(true))).to.throw(/\.default\(\)/);
    expect(() => t.string(Joi.string().allow(null))).to.throw(/\.allow\(null\)/);
    expect(() => t.array(t.string(), Joi.array().required())).to.throw(/\.required\(\)/);
  });
});
