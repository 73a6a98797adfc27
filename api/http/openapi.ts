/**
 * Generates the OpenAPI 3.1.0 document from the route tables: every operation with its path and
 * query parameters (bounds, defaults, enums), named request schemas, success responses, the
 * problem+json error responses it can give, and its security requirement.
 */
import { describeSchema, isRequired, toJsonSchema, type JsonSchema } from './joi-json-schema';
import { pathParamNames, type NamedSchema, type RouteDef } from './route';
import { defaultPathParamSchema } from './validation';
import { API_PREFIX } from './router';
import { errorCodeList, errorCodeTable } from '../error-codes';

type Json = Record<string, unknown>;

const PROBLEM_RESPONSES: Record<string, { status: number; description: string }> = {
  BadRequest: {
    status: 400,
    description: 'The input is invalid: malformed JSON, unknown fields or query parameters, values out of bounds.',
  },
  Unauthorized: { status: 401, description: 'The access token or API key is missing, invalid or expired.' },
  Forbidden: { status: 403, description: 'Authenticated, but not allowed to perform this operation.' },
  NotFound: { status: 404, description: 'The resource does not exist, or belongs to another tenant.' },
  Conflict: { status: 409, description: 'The request conflicts with the current state (duplicate value, wrong state).' },
  PayloadTooLarge: { status: 413, description: 'The request body exceeds the size limit.' },
  UnsupportedMediaType: { status: 415, description: 'The request body has a content type this operation does not accept.' },
  TooManyRequests: { status: 429, description: 'Rate limited; retry after the number of seconds in Retry-After.' },
  InternalError: { status: 500, description: 'An unexpected error; the body carries the request id.' },
  NotImplemented: { status: 501, description: 'The operation is specified but not built yet (code not_implemented).' },
};

const TAG_DESCRIPTIONS: Record<string, string> = {
  jobs: 'Administration of the background queues.',
  'api-keys': 'API keys per store.',
  'audit-log': 'Who changed what, when.',
  catalog: 'Products, categories, tags, relations, collections, filter configuration, and the public storefront reads.',
  'search-synonyms': 'Search synonyms and the zero-result queries they fix.',
  'visual-search': 'Search by image and visually similar products.',
};

const ACCESS_TEXT: Record<string, string> = {
  public: 'No token needed.',
  user: 'Any signed-in user (bearer access token).',
  merchant: 'A member or API key of the tenant that owns the store.',
  partner: 'A partner account.',
  platform: 'Platform operator staff.',
  merchant_or_platform: 'A member or API key of a tenant, acting for that tenant, or platform operator staff, acting platform-wide.',
};

/** The access sentence of an operation: its `auth`, with the platform roles a row names. */
function accessText(route: RouteDef): string {
  const roles = route.platformRoles?.join(' or ');
  if (route.auth === 'merchant_or_platform')
    return roles
      ? `A member or API key of a tenant, acting for that tenant, or platform operator staff with the role ${roles}, acting platform-wide.`
      : ACCESS_TEXT[route.auth]!;
  return roles ? `Platform operator staff with the role ${roles}.` : ACCESS_TEXT[route.auth]!;
}

function parameterSchema(schema: import('joi').Schema): { schema: JsonSchema; note: string } {
  const json = toJsonSchema(schema);
  const metas = describeSchema(schema).metas ?? [];
  const notes: string[] = [];
  if (metas.some((m) => m.listedRequired))
    notes.push(
      'Marked "(r)" in the specification; optional here because a list filter cannot sensibly be mandatory (only storeId and path ids are required).',
    );
  if (metas.some((m) => m.commaSeparated)) notes.push('Repeat the parameter or give a comma-separated list.');
  else if (json.type === 'array') notes.push('Repeat the parameter for each value.');
  return { schema: json, note: notes.join(' ') };
}

function withNote(schema: JsonSchema, note: string): string | undefined {
  const parts = [schema.description, note].filter((p): p is string => typeof p === 'string' && p !== '');
  return parts.length ? parts.join(' ') : undefined;
}

function bodyContent(named: NamedSchema): Json {
  return { [named.contentType]: { schema: { $ref: `#/components/schemas/${named.name}` } } };
}

/** The multipart/form-data alternative of a route that takes a file upload: the file part plus the body's other fields. */
function uploadContent(route: RouteDef): Json {
  const upload = route.upload!;
  const json = toJsonSchema(route.body!.schema);
  const properties: Json = { ...((json.properties as Json | undefined) ?? {}) };
  properties[upload.field] = { type: 'string', contentMediaType: 'application/octet-stream', description: upload.description };
  return { 'multipart/form-data': { schema: { type: 'object', properties, additionalProperties: false } } };
}

/**
 * OpenAPI forbids two path templates that differ only in parameter names. The specification lists a
 * few such pairs (`/community/discussions/{slug}/comments` GET and `.../{id}/comments` POST); they
 * share one path item named after the first listed, and the renamed parameter says so.
 */
function canonicalPaths(routes: RouteDef[]): Map<RouteDef, { path: string; renames: Map<string, string> }> {
  const byShape = new Map<string, string>();
  const out = new Map<RouteDef, { path: string; renames: Map<string, string> }>();
  for (const route of routes) {
    const shape = route.path.replace(/\{[^}]+\}/g, '{}');
    const first = byShape.get(shape) ?? route.path;
    byShape.set(shape, first);
    const renames = new Map<string, string>();
    const mine = pathParamNames(route.path);
    const theirs = pathParamNames(first);
    mine.forEach((name, i) => {
      if (theirs[i] !== name) renames.set(name, theirs[i]!);
    });
    out.set(route, { path: first, renames });
  }
  return out;
}

function operationFor(route: RouteDef, renames: Map<string, string>): Json {
  const parameters: Json[] = [];
  for (const name of pathParamNames(route.path)) {
    const { schema } = parameterSchema(route.params?.[name] ?? defaultPathParamSchema(name));
    const docName = renames.get(name) ?? name;
    const description = withNote(schema, docName !== name ? `Listed by the specification as {${name}} for this operation.` : '');
    delete schema.description;
    parameters.push({ name: docName, in: 'path', required: true, schema, ...(description ? { description } : {}) });
  }
  for (const [name, joi] of Object.entries(route.query ?? {})) {
    const { schema, note } = parameterSchema(joi);
    const description = withNote(schema, note);
    delete schema.description;
    const parameter: Json = { name, in: 'query', required: isRequired(joi), schema, ...(description ? { description } : {}) };
    if (schema.type === 'array') Object.assign(parameter, { style: 'form', explode: true });
    parameters.push(parameter);
  }

  if (route.idempotencyKey)
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
      description:
        'Optional. Retrying with the same key and the same body answers the stored result of the first request (kept 24 hours, per tenant) without doing the work again; the same key with another body answers 409 `idempotency_key_reused`. 1 to 255 printable ASCII characters, else 400 `idempotency_key_invalid`.',
    });

  const implemented = route.handler !== undefined;
  const responses: Json = {};
  if (route.status === 204) {
    responses['204'] = { description: 'Done; no content.' };
  } else if (route.status === 303) {
    responses['303'] = {
      description: 'See Other: the browser is sent on to the address in Location.',
      headers: { Location: { schema: { type: 'string' } } },
    };
  } else if (route.response) {
    responses[String(route.status)] = { description: 'Success.', content: bodyContent(route.response) };
  } else {
    responses[String(route.status)] = {
      description: implemented ? 'Success.' : 'Success. The response body is defined when the operation is built.',
    };
  }
  const errorRefs: string[] = ['BadRequest'];
  if (route.auth !== 'public') errorRefs.push('Unauthorized', 'Forbidden');
  if (pathParamNames(route.path).length > 0) errorRefs.push('NotFound');
  if (route.method !== 'GET') errorRefs.push('Conflict');
  if (route.body) errorRefs.push('PayloadTooLarge', 'UnsupportedMediaType');
  const extra: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 409: 'Conflict' };
  for (const status of route.problems ?? []) if (extra[status] && !errorRefs.includes(extra[status]!)) errorRefs.push(extra[status]!);
  errorRefs.push('TooManyRequests', 'InternalError');
  if (!implemented) errorRefs.push('NotImplemented');
  for (const ref of errorRefs) responses[String(PROBLEM_RESPONSES[ref]!.status)] = { $ref: `#/components/responses/${ref}` };

  const description = [
    route.description,
    `Access: ${accessText(route)}`,
    implemented ? undefined : 'Not built yet: validates its input, then answers 501 with code `not_implemented`.',
  ]
    .filter(Boolean)
    .join('\n\n');

  const operation: Json = {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    description,
    parameters,
    responses,
    security:
      route.auth === 'public'
        ? []
        : route.auth === 'merchant' || route.auth === 'merchant_or_platform'
          ? [{ bearerAuth: [] }, { apiKey: [] }]
          : [{ bearerAuth: [] }],
    'x-access': route.auth,
    ...(route.platformRoles ? { 'x-platform-roles': [...route.platformRoles] } : {}),
    'x-implemented': implemented,
  };
  if (route.body)
    operation.requestBody = { required: true, content: { ...bodyContent(route.body), ...(route.upload ? uploadContent(route) : {}) } };
  return operation;
}

function problemSchemas(): Json {
  return {
    Problem: {
      type: 'object',
      description: 'RFC 9457 problem details. `code` is stable and machine-readable; `errors` lists each invalid input.',
      required: ['type', 'title', 'status', 'detail', 'code', 'errors'],
      properties: {
        type: { type: 'string', format: 'uri-reference', examples: ['urn:problem-type:validation_failed'] },
        title: { type: 'string' },
        status: { type: 'integer', minimum: 400, maximum: 599 },
        detail: { type: 'string' },
        code: {
          type: 'string',
          description: 'One of the codes listed under "Error codes" (also as `x-error-codes`).',
          examples: ['validation_failed', 'not_found', 'not_implemented'],
        },
        instance: { type: 'string' },
        requestId: { type: 'string' },
        errors: { type: 'array', items: { $ref: '#/components/schemas/FieldError' } },
      },
    },
    FieldError: {
      type: 'object',
      required: ['path', 'message'],
      properties: { path: { type: 'string', examples: ['query.limit'] }, message: { type: 'string' } },
    },
  };
}

export interface OpenApiInfo {
  version: string;
}

export function buildOpenApiDocument(routes: RouteDef[], info: OpenApiInfo): Json {
  const paths: Record<string, Json> = {};
  const schemas: Record<string, JsonSchema> = {};
  const canonical = canonicalPaths(routes);
  for (const route of routes) {
    const { path, renames } = canonical.get(route)!;
    paths[path] ??= {};
    paths[path]![route.method.toLowerCase()] = operationFor(route, renames);
    for (const named of [route.body, route.response]) {
      if (!named) continue;
      const schema = toJsonSchema(named.schema);
      if (named.pending) schema['x-pending'] = true;
      schemas[named.name] = schema;
    }
  }
  const tags = [...new Set(routes.map((r) => r.tag))].map((name) => ({
    name,
    description: TAG_DESCRIPTIONS[name] ?? `Operations of the ${name} area.`,
  }));
  const errorCodes = errorCodeList();
  const responses: Json = {};
  // NotImplemented only while some operation is not built (components nothing refers to are noise).
  const unbuilt = routes.some((r) => !r.handler);
  for (const [name, { description }] of Object.entries(PROBLEM_RESPONSES)) {
    if (name === 'NotImplemented' && !unbuilt) continue;
    responses[name] = { description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Commerce platform API',
      version: info.version,
      summary: 'Multi-tenant commerce platform whose heart is storefront search.',
      description: [
        'Every operation of the specification. Errors are `application/problem+json` (RFC 9457). Identifiers are UUIDs; lists use cursor pagination (`items`, `nextCursor`); the public search uses page/perPage. An operation marked `x-implemented: false` (none at present) validates its input and answers 501.',
        '## Error codes',
        'Every problem carries a stable `code`. The codes, with the status they come with, the area that answers them and what they mean (generated from the error-code registries; also in `x-error-codes`):',
        errorCodeTable(errorCodes),
      ].join('\n\n'),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: API_PREFIX, description: 'This server' }],
    'x-error-codes': errorCodes,
    tags,
    paths,
    components: {
      schemas: { ...problemSchemas(), ...schemas },
      responses,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'Access token from /auth/login, or a sandbox token.',
        },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A store API key.' },
      },
    },
  };
}
