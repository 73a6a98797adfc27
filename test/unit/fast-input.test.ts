/**
 * The fast checkers of path and query parameters (api/http/fast-input.ts) against joi, the source of
 * truth: over every route of the route tables and many well-formed and spoiled inputs, a checker
 * either leaves the input to joi (UNDECIDED) or answers exactly what joi answers (same value, same
 * key order), and never accepts what joi refuses. Errors always come from joi, so their bodies
 * cannot change.
 */
import { expect } from 'chai';
import type Joi from 'joi';
import { allRoutes } from '../../api/routes';
import { compileInput, normaliseQuery, validateParameters, validatePart } from '../../api/http/validation';
import { compileFastCheck, UNDECIDED, type FastCheck } from '../../api/http/fast-input';
import type { RouteDef } from '../../api/http/route';
import { pathParamNames } from '../../api/http/route';

/** A small deterministic generator, so a failure repeats. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const UUID = '01a21882-c8f3-7006-9ce6-ce9d52aa827e';
const STRINGS = [
  '',
  ' ',
  'a',
  'ab',
  'abc',
  'size:M',
  'colour:Dark Blue',
  'red shoes',
  ' red ',
  'x'.repeat(10),
  'x'.repeat(11),
  'x'.repeat(180),
  'x'.repeat(181),
  'x'.repeat(200),
  'x'.repeat(201),
  UUID,
  UUID.toUpperCase(),
  `${UUID} `,
  '00000000-0000-0000-0000-000000000000',
  'en',
  'en-US',
  'EN',
  'e',
  'true',
  'false',
  'TRUE',
  ' true',
  'yes',
  '0',
  '1',
  '-1',
  '-0',
  '+1',
  '01',
  '1.0',
  '1.',
  '.5',
  '0.5',
  '1.25',
  '1e3',
  '1E3',
  ' 2',
  '2 ',
  '5',
  '5.5',
  '24',
  '60',
  '61',
  '100',
  '101',
  '1000000000',
  '1000000001',
  '9007199254740991',
  '9007199254740993',
  'NaN',
  'Infinity',
  'relevance',
  'price_asc',
  'newest',
  'PHYSICAL',
  'physical',
  'a\u0000b',
  'a\ud800b',
];

const candidatesOf = new Map<Joi.Schema, unknown[]>();
function candidates(schema: Joi.Schema): unknown[] {
  let found = candidatesOf.get(schema);
  if (!found) candidatesOf.set(schema, (found = describedCandidates(schema)));
  return found;
}

function describedCandidates(schema: Joi.Schema): unknown[] {
  const description = schema.describe() as { allow?: unknown[]; items?: Array<{ allow?: unknown[] }> };
  const own = [...(description.allow ?? []), ...(description.items?.[0]?.allow ?? [])].filter((v) => typeof v === 'string');
  const scalars = [...STRINGS, ...own];
  return [...scalars, [], ['abc'], [UUID], [UUID, UUID.toUpperCase()], ['size:M', 'colour:Red'], ['x', 'abc'], Array(41).fill(UUID)];
}

function joiOutcome(location: 'params' | 'query', schema: Joi.Schema, value: unknown): { value?: unknown; error?: string } {
  try {
    return { value: validatePart(location, schema, value) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** NUL or a lone surrogate anywhere: validateParameters leaves such input to the full check before asking the checker. */
const unstorable = (value: unknown): boolean =>
  typeof value === 'string'
    ? value.includes('\u0000') || /[\ud800-\udfff]/.test(value)
    : value !== null && typeof value === 'object' && Object.values(value).some(unstorable);

function compare(route: RouteDef, location: 'params' | 'query', schema: Joi.Schema, fast: FastCheck, value: unknown): boolean {
  const what = `${route.operationId} ${location} ${JSON.stringify(value)}`;
  const expected = joiOutcome(location, schema, value);
  // What the router calls: the same value, or the same error, as joi alone.
  let actual: { value?: unknown; error?: string };
  try {
    actual = { value: validateParameters(location, schema, fast, value) };
  } catch (error) {
    actual = { error: (error as Error).message };
  }
  expect(actual, what).to.deep.equal(expected);
  if (actual.value) expect(Object.keys(actual.value), `${what}: key order`).to.deep.equal(Object.keys(expected.value as object));
  // The checker itself: never accepts what joi refuses, never answers another value.
  const checked = unstorable(value) ? UNDECIDED : fast(value);
  if (checked === UNDECIDED) return false;
  expect(expected.error, `${what}: the fast checker accepted what joi refuses`).to.equal(undefined);
  expect(checked, what).to.deep.equal(expected.value);
  expect(Object.keys(checked), `${what}: key order`).to.deep.equal(Object.keys(expected.value as object));
  return true;
}

describe('fast parameter checkers (api/http/fast-input.ts)', () => {
  it('cover the public search and suggest queries and most routes', () => {
    const search = allRoutes.find((r) => r.operationId === 'storefront.search')!;
    const suggest = allRoutes.find((r) => r.operationId === 'storefront.suggest')!;
    expect(compileInput(search).fastQuery).to.be.a('function');
    expect(compileInput(suggest).fastQuery).to.be.a('function');
    const compiled = allRoutes.map(compileInput);
    expect(compiled.filter((c) => c.fastQuery).length).to.be.greaterThan(allRoutes.length / 2);
    expect(compiled.filter((c) => c.fastParams).length).to.be.greaterThan(allRoutes.length / 2);
  });

  it('answer what joi answers, or leave the input to joi, for every route', () => {
    const random = lcg(20261126);
    const pick = <T>(values: T[]): T => values[Math.floor(random() * values.length)]!;
    let decided = 0;
    for (const route of allRoutes) {
      const compiled = compileInput(route);
      const parts: Array<['params' | 'query', Joi.Schema, FastCheck | undefined, string[]]> = [
        ['params', compiled.params, compiled.fastParams, pathParamNames(route.path)],
        ['query', compiled.query, compiled.fastQuery, Object.keys(route.query ?? {})],
      ];
      for (const [location, schema, fast, names] of parts) {
        if (!fast) continue;
        const schemas = location === 'query' ? (route.query ?? {}) : undefined;
        const rounds = route.operationId === 'storefront.search' ? 2000 : 20;
        for (let round = 0; round < rounds; round += 1) {
          const value: Record<string, unknown> = {};
          for (const name of names) {
            if (random() < 0.4) continue;
            const keySchema = schemas?.[name];
            value[name] = pick(keySchema ? candidates(keySchema) : STRINGS);
          }
          if (random() < 0.05) value.unknownParameter = 'x';
          if (compare(route, location, schema, fast, value)) decided += 1;
        }
      }
    }
    expect(decided).to.be.greaterThan(500);
  });

  it('decide well-formed public searches as joi does', () => {
    const search = allRoutes.find((r) => r.operationId === 'storefront.search')!;
    const compiled = compileInput(search);
    const queries = [
      { storeId: UUID },
      { storeId: UUID, q: 'red shoes', page: '2', perPage: '60', sort: 'price_asc' },
      { q: '', storeId: UUID, inStock: 'true', discounted: 'false', minRating: '4', priceMin: '10', priceMax: '99.5' },
      { storeId: UUID, categoryIds: `${UUID},${UUID.toUpperCase()}`, options: 'size:M,colour:Dark\\, Blue', attrs: ['material:wool'] },
      { storeId: UUID, locale: 'en-US', type: 'PHYSICAL', brandId: UUID, 'ids[]': UUID },
    ];
    for (const raw of queries) {
      const value = normaliseQuery(raw, compiled.commaSeparated);
      expect(compare(search, 'query', compiled.query, compiled.fastQuery!, value), JSON.stringify(raw)).to.equal(true);
    }
  });

  it('leave schemas with other rules to joi', async () => {
    const Joi = (await import('joi')).default;
    expect(compileFastCheck({ a: Joi.string().trim() })).to.equal(undefined);
    expect(compileFastCheck({ a: Joi.string().lowercase() })).to.equal(undefined);
    expect(compileFastCheck({ a: Joi.number().precision(2) })).to.equal(undefined);
    expect(compileFastCheck({ a: Joi.boolean().truthy('yes') })).to.equal(undefined);
    expect(compileFastCheck({ a: Joi.string().pattern(/x/, { invert: true }) })).to.equal(undefined);
    expect(compileFastCheck({ a: Joi.alternatives(Joi.string(), Joi.number()) })).to.equal(undefined);
    expect(compileFastCheck({ a: Joi.string().insensitive().valid('A') })).to.equal(undefined);
    expect(compileFastCheck({ a: Joi.array().items(Joi.string()).unique() })).to.equal(undefined);
    expect(compileFastCheck({ a: Joi.string(), b: Joi.number().integer().min(1).max(5).default(2) })).to.be.a('function');
  });
});
