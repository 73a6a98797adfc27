/**
 * The route tables against the specification: exactly the 367 operations listed in documents 2 and 3
 * (fixture taken from the specification), nothing missing, nothing invented, and every row complete.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { PROJECT_ROOT } from '../../lib/config';
import { pathParamNames } from '../../api/http/route';
import { compileInput } from '../../api/http/validation';
import { allRoutes, extensionOperationIds } from '../../api/routes';

const fixture = fs
  .readFileSync(path.join(PROJECT_ROOT, 'test', 'fixtures', 'spec-operations.txt'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '');

/** docs/decisions.md, Base path: the first group is listed with its /api/v1 prefix, the rest without; all are served under it. */
const specKey = (line: string): string => line.replace(' /api/v1/', ' /');
const routeKey = (r: { method: string; path: string }): string => `${r.method} ${r.path}`;

describe('route tables', () => {
  it('hold exactly the 367 operations of the specification', () => {
    expect(fixture).to.have.length(367);
    const expected = new Set(fixture.map(specKey));
    const actual = allRoutes.filter((r) => !extensionOperationIds.has(r.operationId)).map(routeKey);
    expect(new Set(actual).size, 'no operation appears twice').to.equal(actual.length);
    const missing = [...expected].filter((k) => !actual.includes(k));
    const invented = actual.filter((k) => !expected.has(k));
    expect(missing, 'operations of the specification missing from the tables').to.deep.equal([]);
    expect(invented, 'operations in the tables that the specification does not list').to.deep.equal([]);
  });

  it('mark each extension (an operation beyond the listing) as such in its description', () => {
    for (const id of extensionOperationIds) {
      const route = allRoutes.find((r) => r.operationId === id);
      expect(route, id).to.not.equal(undefined);
      expect(route!.description, id).to.match(/Extension/);
    }
  });

  it('give every operation a unique operationId, a tag, a summary, an auth requirement and a success status', () => {
    const ids = allRoutes.map((r) => r.operationId);
    expect(new Set(ids).size).to.equal(ids.length);
    for (const route of allRoutes) {
      expect(route.operationId, routeKey(route)).to.match(/^[a-zA-Z0-9]+\.[a-zA-Z0-9]+$/);
      expect(route.tag, routeKey(route)).to.be.a('string').and.not.empty;
      expect(route.summary, routeKey(route)).to.be.a('string').and.not.empty;
      expect(['public', 'user', 'merchant', 'partner', 'platform', 'merchant_or_platform'], routeKey(route)).to.include(route.auth);
      expect([200, 201, 202, 204], routeKey(route)).to.include(route.status);
    }
  });

  it('declare a schema for every body, path parameter and query parameter', () => {
    for (const route of allRoutes) {
      const compiled = compileInput(route);
      const described = compiled.params.describe() as { keys?: Record<string, unknown> };
      expect(Object.keys(described.keys ?? {}), routeKey(route)).to.deep.equal(pathParamNames(route.path));
      for (const [name, schema] of Object.entries(route.query ?? {})) {
        expect(schema, `${routeKey(route)} query ${name}`).to.have.property('describe');
      }
      if (route.body) {
        expect(route.body.name, routeKey(route)).to.match(/^[A-Z][A-Za-z0-9]+$/);
        expect(route.body.schema, routeKey(route)).to.have.property('validate');
      }
      if (route.handler) {
        expect(route.status === 204 || route.response !== undefined, `${routeKey(route)} is built, so it needs a response schema`).to.equal(
          true,
        );
      }
    }
  });

  // spec-bodies.txt: the operations whose Body column is filled in the specification.
  it('give a body schema to every operation whose listing names a body, and none to the others', () => {
    const spec = fs.readFileSync(path.join(PROJECT_ROOT, 'test', 'fixtures', 'spec-bodies.txt'), 'utf8');
    const withBody = new Set(spec.split('\n').filter(Boolean).map(specKey));
    // Extensions are not in the listing: their bodies are their own.
    for (const route of allRoutes.filter((r) => !extensionOperationIds.has(r.operationId))) {
      const key = routeKey(route);
      expect(route.body !== undefined, `${key} body`).to.equal(withBody.has(key));
    }
  });

  it('require storeId wherever the specification lists it; only the imports and the export infer it', () => {
    const inferred: string[] = [];
    for (const route of allRoutes) {
      const storeId = route.query?.storeId;
      if (!storeId) continue;
      const described = storeId.describe() as {
        flags?: { presence?: string; description?: string };
        metas?: Array<Record<string, unknown>>;
      };
      if (described.metas?.some((meta) => meta.inferredStore === true)) {
        // Not listed by the specification for these operations: optional, inferred from the credential or the default store.
        inferred.push(routeKey(route));
        expect(described.flags?.presence, `${routeKey(route)} storeId`).to.not.equal('required');
        expect(described.flags?.description, `${routeKey(route)} storeId`).to.match(/default store/);
        continue;
      }
      expect(described.flags?.presence, `${routeKey(route)} storeId`).to.equal('required');
    }
    expect(inferred.sort()).to.deep.equal([
      'POST /bulk-import/products',
      'POST /bulk-import/products/async',
      'POST /bulk-import/products/export',
      'POST /customers/import',
    ]);
  });
});
