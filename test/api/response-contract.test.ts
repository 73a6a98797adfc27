/**
 * The response contract in test mode (api/http/response-check.ts): a body that does not match its
 * route's declared response schema answers 500 naming the operation and each difference, so the test
 * that made the request fails; a matching body goes out unchanged.
 */
import { expect } from 'chai';
import Joi from 'joi';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { defineRoutes, dto } from '../../api/http/route';
import { dateTime, uuid } from '../../api/http/schema-types';
import { RawJson } from '../../lib/raw-json';

const ID = '3b241101-e2bb-4255-8caf-4136c566a962';
const Thing = dto(
  'ContractThing',
  Joi.object({
    id: uuid().required(),
    count: Joi.number().integer().required(),
    at: dateTime().required(),
    note: Joi.string().allow(null),
  }),
);

/** Each route answers the body of its name. */
const bodies: Record<string, unknown> = {
  good: { id: ID, count: 2, at: new Date('2025-01-02T03:04:05Z'), note: null },
  raw: new RawJson(JSON.stringify({ id: ID, count: 2, at: '2025-01-02T03:04:05.000Z' })),
  extra: { id: ID, count: 2, at: new Date(), secret: 'x' },
  missing: { id: ID, at: new Date() },
  stringly: { id: ID, count: '2', at: new Date() },
  rawBad: new RawJson(JSON.stringify({ id: 'nope', count: 2, at: '2025-01-02T03:04:05.000Z' })),
};

const routes = defineRoutes(
  { tag: 'contract', auth: 'public' },
  Object.keys(bodies).map((name) => ({
    operationId: `contract.${name}`,
    method: 'GET' as const,
    path: `/contract/${name}`,
    summary: name,
    response: Thing,
    status: 200,
    handler: async () => bodies[name],
  })),
);

describe('response contract (NODE_ENV=test)', () => {
  let server: TestServer;
  apiSuite((started) => (server = started), { routes });

  it('sends a body that matches its schema unchanged, from objects and from raw JSON', async () => {
    const good = await call(server, 'GET', '/api/v1/contract/good');
    expect(good.status, good.text).to.equal(200);
    expect(good.json).to.deep.equal({ id: ID, count: 2, at: '2025-01-02T03:04:05.000Z', note: null });
    const raw = await call(server, 'GET', '/api/v1/contract/raw');
    expect(raw.status, raw.text).to.equal(200);
  });

  it('answers 500 naming the operation and each difference: unknown field, missing field, wrong type, number sent as a string', async () => {
    const cases: Array<[string, RegExp]> = [
      ['extra', /secret: secret is not allowed/],
      ['missing', /count: count is required/],
      ['stringly', /count is sent as the string "2", the schema says number/],
      ['rawBad', /id: id must be a UUID/],
    ];
    for (const [name, difference] of cases) {
      const res = await call(server, 'GET', `/api/v1/contract/${name}`);
      expect(res.status, name).to.equal(500);
      expect(res.json.code).to.equal('internal_error');
      expect(res.json.detail).to.include(`The response of contract.${name} (200) does not match its response schema ContractThing`);
      expect(res.json.detail).to.match(difference);
    }
  });
});
