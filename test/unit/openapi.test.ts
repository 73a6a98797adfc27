/**
 * The OpenAPI 3.1 document generated from the route tables, as a client generator or a reader of
 * /docs relies on it: every operation once, complete, with the bounds, defaults and enums the
 * validation enforces, resolvable references, and honest about what is not built yet.
 */
import { expect } from 'chai';
import Joi from 'joi';
import { buildOpenApiDocument } from '../../api/http/openapi';
import { toJsonSchema } from '../../api/http/joi-json-schema';
import { pathParamNames, type RouteDef } from '../../api/http/route';
import { PUBLIC_SEARCH_SORTS } from '../../search/public-search-request';
import { allRoutes, extensionOperationIds } from '../../api/routes';

type Json = Record<string, any>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const UUID_V4_UPPER = '3B241101-E2BB-4255-8CAF-4136C566A962';
const UUID_V9 = '3b241101-e2bb-9255-8caf-4136c566a962';

const doc = buildOpenApiDocument(allRoutes, { version: '1.0.0' }) as Json;

function operations(document: Json): Array<{ path: string; method: string; op: Json }> {
  const out: Array<{ path: string; method: string; op: Json }> = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const method of Object.keys(item)) {
      expect(METHODS, `${path} has a key that is not an HTTP method`).to.include(method);
      out.push({ path, method, op: item[method] });
    }
  }
  return out;
}

function operation(method: string, path: string): Json {
  const op = doc.paths[path]?.[method];
  expect(op, `${method.toUpperCase()} ${path}`).to.be.an('object');
  return op;
}

function parameter(op: Json, name: string, where = 'query'): Json {
  const found = (op.parameters as Json[]).filter((p) => p.name === name && p.in === where);
  expect(found, `${where} parameter ${name} of ${op.operationId}`).to.have.length(1);
  return found[0]!;
}

function resolve(document: Json, ref: string): unknown {
  expect(ref, 'a local reference').to.match(/^#\//);
  return ref
    .slice(2)
    .split('/')
    .reduce<unknown>(
      (node, key) => (node && typeof node === 'object' ? (node as Json)[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined),
      document,
    );
}

function collectRefs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => collectRefs(n, out));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') out.push(value);
      else collectRefs(value, out);
    }
  }
  return out;
}

describe('OpenAPI document', () => {
  const ops = operations(doc);

  it('is OpenAPI 3.1.0, served under /api/v1, and survives JSON serialisation unchanged', () => {
    expect(doc.openapi).to.equal('3.1.0');
    expect(doc.servers).to.have.length(1);
    expect(doc.servers[0].url).to.equal('/api/v1');
    expect(doc.info.version).to.equal('1.0.0');
    expect(JSON.parse(JSON.stringify(doc))).to.deep.equal(doc);
  });

  it('has exactly the 367 operations (plus the documented extensions), each once, with unique operationIds', () => {
    const total = 367 + extensionOperationIds.size;
    expect(ops).to.have.length(total);
    expect(allRoutes).to.have.length(total);
    const ids = ops.map((o) => o.op.operationId);
    expect(new Set(ids).size).to.equal(total);
    expect(new Set(ids)).to.deep.equal(new Set(allRoutes.map((r) => r.operationId)));
  });

  it('gives every operation an operationId, a tag, a summary, a 2xx response and the 400 problem response', () => {
    const tagNames = new Set((doc.tags as Json[]).map((t) => t.name));
    for (const { path, method, op } of ops) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(op.operationId, where)
        .to.be.a('string')
        .and.match(/^[a-zA-Z0-9]+\.[a-zA-Z0-9]+$/);
      expect(op.tags, where).to.be.an('array').with.length(1);
      expect(tagNames.has(op.tags[0]), `${where} tag ${op.tags[0]} is declared`).to.equal(true);
      expect(op.summary, where).to.be.a('string').and.not.empty;
      const codes = Object.keys(op.responses);
      expect(
        codes.filter((c) => /^2\d\d$/.test(c)),
        where,
      ).to.have.length(1);
      expect(op.responses['400'], where).to.deep.equal({ $ref: '#/components/responses/BadRequest' });
      expect(op.responses['500'], where).to.deep.equal({ $ref: '#/components/responses/InternalError' });
    }
  });

  it('describes the problem responses as application/problem+json of the Problem schema', () => {
    const badRequest = doc.components.responses.BadRequest;
    expect(badRequest.content).to.deep.equal({ 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } });
    expect(doc.components.schemas.Problem.required).to.have.members(['type', 'title', 'status', 'detail', 'code', 'errors']);
    expect(doc.components.responses.TooManyRequests.content['application/problem+json'].schema).to.deep.equal({
      $ref: '#/components/schemas/Problem',
    });
  });

  it('resolves every $ref in the document', () => {
    const refs = collectRefs(doc);
    expect(refs.length).to.be.greaterThan(367);
    for (const ref of new Set(refs)) expect(resolve(doc, ref), ref).to.be.an('object');
  });

  it('says public operations need no token (security: []) and every other needs the bearer token (merchant ones also take an API key)', () => {
    let publicCount = 0;
    for (const { path, method, op } of ops) {
      const where = `${method.toUpperCase()} ${path}`;
      if (op['x-access'] === 'public') {
        publicCount += 1;
        expect(op.security, where).to.deep.equal([]);
        expect(op.responses, where).not.to.have.property('401');
      } else {
        expect(op.security, where).to.deep.include({ bearerAuth: [] });
        expect(op.responses['401'], where).to.deep.equal({ $ref: '#/components/responses/Unauthorized' });
        if (op['x-access'] === 'merchant' || op['x-access'] === 'merchant_or_platform')
          expect(op.security, where).to.deep.equal([{ bearerAuth: [] }, { apiKey: [] }]);
        else expect(op.security, where).to.deep.equal([{ bearerAuth: [] }]);
      }
    }
    expect(publicCount).to.equal(allRoutes.filter((r) => r.auth === 'public').length);
    expect(publicCount).to.be.greaterThan(0);
    expect(operation('get', '/catalog/public/search').security).to.deep.equal([]);
    expect(operation('get', '/audit-log').security).to.deep.equal([{ bearerAuth: [] }, { apiKey: [] }]);
    expect(doc.components.securitySchemes.bearerAuth).to.include({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.apiKey).to.include({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
  });

  it('names the platform roles a platform operation is for, and only on platform operations', () => {
    expect(operation('get', '/jobs/queues')['x-platform-roles']).to.deep.equal(['platform_admin']);
    expect(operation('get', '/jobs/queues').description).to.include('Platform operator staff with the role platform_admin.');
    expect(operation('get', '/crm/leads')['x-platform-roles']).to.deep.equal(['sales_rep', 'platform_admin']);
    expect(operation('get', '/support/handoffs')['x-platform-roles']).to.deep.equal(['support_agent', 'platform_admin']);
    // The area's roles do not reach its rows for other callers: the public demo request, a merchant's ticket.
    expect(operation('post', '/crm/demo-request')).to.not.have.property('x-platform-roles');
    expect(operation('post', '/support/tickets')).to.not.have.property('x-platform-roles');
    for (const route of allRoutes)
      if (route.platformRoles) expect(['platform', 'merchant_or_platform'], route.operationId).to.include(route.auth);
    // A row both sides call names the roles of its platform side, and its access text says both.
    expect(operation('get', '/support/tickets')['x-platform-roles']).to.deep.equal(['support_agent', 'platform_admin']);
    expect(operation('get', '/support/tickets').description).to.include(
      'A member or API key of a tenant, acting for that tenant, or platform operator staff with the role support_agent or platform_admin, acting platform-wide.',
    );
  });

  describe('GET /catalog/public/search parameters', () => {
    const search = operation('get', '/catalog/public/search');

    it('perPage: integer greater than 0, at most 60, default 24', () => {
      const p = parameter(search, 'perPage');
      expect(p.required).to.equal(false);
      expect(p.schema).to.deep.equal({ type: 'integer', exclusiveMinimum: 0, maximum: 60, default: 24 });
    });

    it('page: integer greater than 0, at most 100, default 1', () => {
      expect(parameter(search, 'page').schema).to.deep.equal({ type: 'integer', exclusiveMinimum: 0, maximum: 100, default: 1 });
    });

    it('sort: the 9 sorts, default relevance', () => {
      const schema = parameter(search, 'sort').schema;
      expect(schema.type).to.equal('string');
      expect(schema.enum).to.have.length(9);
      expect(schema.enum).to.have.members([...PUBLIC_SEARCH_SORTS]);
      expect(schema.enum).to.include.members(['newest', 'price_asc', 'price_desc', 'relevance']);
      expect(schema.default).to.equal('relevance');
    });

    it('ids: an array of at most 60 UUIDs, repeated or comma-separated', () => {
      const p = parameter(search, 'ids');
      expect(p.schema.type).to.equal('array');
      expect(p.schema.maxItems).to.equal(60);
      expect(p.schema.items).to.include({ type: 'string', format: 'uuid' });
      expect(p.schema.items.pattern).to.be.a('string');
      expect(p).to.include({ style: 'form', explode: true, required: false });
      expect(p.description).to.match(/comma-separated/);
    });

    it('options: an array of at most 40 strings of 3 to 180 characters', () => {
      const p = parameter(search, 'options');
      expect(p.schema).to.deep.equal({ type: 'array', items: { type: 'string', minLength: 3, maxLength: 180 }, maxItems: 40 });
      expect(p).to.include({ style: 'form', explode: true });
    });

    it('locale: at most 10 characters with the locale pattern', () => {
      const schema = parameter(search, 'locale').schema;
      expect(schema.type).to.equal('string');
      expect(schema.maxLength).to.equal(10);
      expect(schema.pattern).to.be.a('string');
      const re = new RegExp(schema.pattern as string);
      for (const good of ['en', 'en-US', 'tr-TR', 'zh-Hant']) expect(re.test(good), good).to.equal(true);
      for (const bad of ['EN', 'e', 'en_US', 'english']) expect(re.test(bad), bad).to.equal(false);
    });

    it('storeId: required, a UUID', () => {
      const p = parameter(search, 'storeId');
      expect(p.required).to.equal(true);
      expect(p.schema).to.include({ type: 'string', format: 'uuid' });
    });

    it('lists exactly the query parameters the validation accepts', () => {
      const route = allRoutes.find((r) => r.operationId === search.operationId)!;
      expect((search.parameters as Json[]).filter((p) => p.in === 'query').map((p) => p.name)).to.deep.equal(
        Object.keys(route.query ?? {}),
      );
    });
  });

  it('says so on every list the specification shows unpaged but that answers in pages, and each gives nextCursor', () => {
    const lists = [
      '/pricing/rules',
      '/flash-sale-campaigns',
      '/shipping-rates',
      '/content/pages',
      '/content/posts',
      '/content/public/stores/{storeId}/pages',
      '/content/public/stores/{storeId}/posts',
    ];
    for (const path of lists) {
      const op = operation('get', path);
      expect(op.description, path).to.include('Paged, although the specification shows a plain list');
      expect(parameter(op, 'cursor'), path).to.be.an('object');
      expect(parameter(op, 'limit'), path).to.be.an('object');
    }
    const products = operation('get', '/catalog/products');
    expect(products.description).to.include('nextCursor');
    expect(parameter(products, 'cursor')).to.be.an('object');
  });

  it('documents a filter listed "(r)" as optional, with a note saying why', () => {
    const auditLog = operation('get', '/audit-log');
    for (const name of ['limit', 'cursor']) {
      const p = parameter(auditLog, name);
      expect(p.required, name).to.equal(false);
      expect(p.description, name).to.match(/"\(r\)"/);
      expect(p.description, name).to.match(/only storeId and path ids are required/);
    }
    expect(parameter(auditLog, 'limit').schema).to.deep.equal({ type: 'integer', exclusiveMinimum: 0, maximum: 100, default: 50 });
  });

  it('marks every query parameter required exactly when the validation requires it', () => {
    for (const route of allRoutes) {
      const op = operation(route.method.toLowerCase(), pathOf(route));
      for (const [name, schema] of Object.entries(route.query ?? {})) {
        const required = (schema.describe() as { flags?: { presence?: string } }).flags?.presence === 'required';
        expect(parameter(op, name).required, `${route.operationId} ${name}`).to.equal(required);
      }
    }
  });

  it('references each request body as components/schemas/<DtoName> of the right content type, and the component matches the DTO', () => {
    let bodies = 0;
    for (const route of allRoutes) {
      const op = operation(route.method.toLowerCase(), pathOf(route));
      if (!route.body) {
        expect(op, route.operationId).not.to.have.property('requestBody');
        continue;
      }
      bodies += 1;
      expect(op.requestBody.required, route.operationId).to.equal(true);
      expect(op.requestBody.content, route.operationId).to.deep.equal({
        [route.body.contentType]: { schema: { $ref: `#/components/schemas/${route.body.name}` } },
        // Routes that also take a file upload document the multipart/form-data alternative beside it.
        ...(route.upload ? { 'multipart/form-data': op.requestBody.content['multipart/form-data'] } : {}),
      });
      if (route.upload) {
        expect(op.requestBody.content['multipart/form-data'].schema.properties[route.upload.field], route.operationId).to.include({
          type: 'string',
          contentMediaType: 'application/octet-stream',
        });
      }
      const component = doc.components.schemas[route.body.name];
      expect(component, route.body.name).to.be.an('object');
      const expected = toJsonSchema(route.body.schema);
      if (route.body.pending) expected['x-pending'] = true;
      expect(component, `component ${route.body.name} is the schema of ${route.operationId}'s body`).to.deep.equal(expected);
    }
    expect(bodies).to.be.greaterThan(0);
  });

  it('keeps /community/discussions/{slug}/comments (GET) and /{id}/comments (POST) in one path item, each parameter once', () => {
    expect(doc.paths).not.to.have.property('/community/discussions/{id}/comments');
    const item = doc.paths['/community/discussions/{slug}/comments'];
    expect(Object.keys(item).sort()).to.deep.equal(['get', 'post']);
    expect(item.get.operationId).to.equal('community.listDiscussionComments');
    expect(item.post.operationId).to.equal('community.createComment');
    for (const method of ['get', 'post']) {
      const pathParams = (item[method].parameters as Json[]).filter((p) => p.in === 'path');
      expect(
        pathParams.map((p) => p.name),
        method,
      ).to.deep.equal(['slug']);
    }
    // The POST still validates a UUID and says the specification calls it {id}.
    const renamed = parameter(item.post, 'slug', 'path');
    expect(renamed.schema.format).to.equal('uuid');
    expect(renamed.description).to.equal('Listed by the specification as {id} for this operation.');
  });

  it("has no two path templates that differ only in parameter names, and each operation's path parameters match its template", () => {
    const shapes = Object.keys(doc.paths).map((p) => p.replace(/\{[^}]+\}/g, '{}'));
    expect(new Set(shapes).size).to.equal(shapes.length);
    for (const { path, method, op } of ops) {
      const params = op.parameters as Json[];
      const keys = params.map((p) => `${p.in}:${p.name}`);
      expect(new Set(keys).size, `${method} ${path} repeats a parameter`).to.equal(keys.length);
      expect(
        params.filter((p) => p.in === 'path').map((p) => p.name),
        `${method} ${path}`,
      ).to.deep.equal(pathParamNames(path));
      for (const p of params.filter((q) => q.in === 'path')) expect(p.required, `${method} ${path} ${p.name}`).to.equal(true);
    }
  });

  it('emits the case-insensitive UUID pattern so that it keeps its meaning without flags', () => {
    const patterns = new Set<string>();
    for (const { op } of ops) {
      for (const p of op.parameters as Json[]) {
        const schema = p.schema.type === 'array' ? p.schema.items : p.schema;
        if (schema.format === 'uuid') patterns.add(schema.pattern);
      }
    }
    expect(patterns.size, 'one UUID pattern throughout').to.equal(1);
    const re = new RegExp([...patterns][0]!);
    expect(re.flags).to.equal('');
    expect(re.test(UUID_V4_UPPER)).to.equal(true);
    expect(re.test(UUID_V4_UPPER.toLowerCase())).to.equal(true);
    expect(re.test('0190A5F0-8B7C-7DEF-B123-456789ABCDEF')).to.equal(true);
    expect(re.test('00000000-0000-0000-0000-000000000000')).to.equal(true);
    expect(re.test('FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF')).to.equal(true);
    expect(re.test(UUID_V9)).to.equal(false);
    expect(re.test(UUID_V9.toUpperCase())).to.equal(false);
    expect(re.test('3B241101-E2BB-4255-CCAF-4136C566A962'), 'variant c').to.equal(false);
    expect(re.test(`{${UUID_V4_UPPER}}`)).to.equal(false);
  });

  it('expands other case-insensitive patterns without changing what they match', () => {
    const schema = toJsonSchema(Joi.string().pattern(/^[a-z]{2}-[0-9A-F]+\.x\d$/i));
    const re = new RegExp(schema.pattern as string);
    for (const good of ['ab-0f.x1', 'AB-0F.X2', 'aB-Ff.X3']) expect(re.test(good), good).to.equal(true);
    for (const bad of ['a1-0f.x1', 'ab-0g.x1', 'ab-0f_x1', 'ab-0f.xd']) expect(re.test(bad), bad).to.equal(false);
  });

  it('marks unbuilt operations x-implemented: false with a 501 response, and built ones true without it', () => {
    for (const route of allRoutes) {
      const op = operation(route.method.toLowerCase(), pathOf(route));
      const built = route.handler !== undefined;
      expect(op['x-implemented'], route.operationId).to.equal(built);
      if (built) expect(op.responses, route.operationId).not.to.have.property('501');
      else {
        expect(op.responses['501'], route.operationId).to.deep.equal({ $ref: '#/components/responses/NotImplemented' });
        expect(op.description, route.operationId).to.match(/Not built yet/);
      }
    }
    const row: RouteDef = {
      operationId: 'demo.ping',
      method: 'GET',
      path: '/demo/{id}',
      tag: 'demo',
      summary: 'Ping',
      auth: 'user',
      status: 200,
      handler: async () => ({ ok: true }),
    };
    const small = buildOpenApiDocument([row, { ...row, operationId: 'demo.todo', method: 'DELETE', status: 204, handler: undefined }], {
      version: '0',
    }) as Json;
    const built = small.paths['/demo/{id}'].get;
    expect(built['x-implemented']).to.equal(true);
    expect(Object.keys(built.responses).sort()).to.deep.equal(['200', '400', '401', '403', '404', '429', '500']);
    const todo = small.paths['/demo/{id}'].delete;
    expect(todo['x-implemented']).to.equal(false);
    expect(Object.keys(todo.responses).sort()).to.deep.equal(['204', '400', '401', '403', '404', '409', '429', '500', '501']);
    expect(small.components.responses).to.have.property('NotImplemented');
    // With every operation built, the document has no 501 response for anything to refer to.
    const allBuilt = buildOpenApiDocument([row], { version: '0' }) as Json;
    expect(allBuilt.components.responses).not.to.have.property('NotImplemented');
  });
});

/** The path under which the document lists a route (the first listed of paths differing only in parameter names). */
function pathOf(route: RouteDef): string {
  if (doc.paths[route.path]?.[route.method.toLowerCase()]) return route.path;
  const shape = route.path.replace(/\{[^}]+\}/g, '{}');
  const match = Object.keys(doc.paths).find((p) => p.replace(/\{[^}]+\}/g, '{}') === shape);
  expect(match, `${route.method} ${route.path} is in the document`).to.be.a('string');
  return match!;
}
