/**
 * Fuzzing every built operation from the OpenAPI document the service publishes: for each one a
 * plausible request is sampled from its schemas (openapi-sampler), then sent again with one part
 * spoiled at a time: NUL bytes, lone surrogates (as JSON escapes and as invalid UTF-8 in the URL),
 * 1 MB values, wrong types, deep nesting, unknown fields. Whatever the operation makes of it, the
 * answer must not be a 5xx, and the service must still be ready at the end.
 *
 * Callers: public operations go without a token, platform ones with a platform admin, the others
 * with a merchant owner (its store filled in wherever a storeId is asked for, so validation is
 * reached past the store check). Operations that end the caller's session run last.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { sample } from 'openapi-sampler';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { merchant, type Merchant } from '../helpers/fixtures';
import { bearer, signIn, signUp } from '../helpers/accounts';

type Json = any;

interface Operation {
  method: string;
  path: string;
  op: Json;
}

interface Case {
  label: string;
  path: string;
  query: Array<[string, string]>;
  /** A JSON value (sent as JSON) or raw text with its content type. */
  body?: { json: unknown } | { raw: string; contentType: string };
}

const MB = 'x'.repeat(1024 * 1024);
const NUL = 'a\u0000b';
const LONE_SURROGATE = 'a\ud800b';
/** Spoiled values for a JSON field: wrong types, NUL, a lone surrogate, huge numbers, 1 MB. */
const FIELD_SPOILERS: Array<[string, unknown]> = [
  ['NUL', NUL],
  ['lone surrogate', LONE_SURROGATE],
  ['object', { $gt: '' }],
  ['array', [[[]]]],
  ['number', -1e308],
  ['boolean', true],
  ['null', null],
  ['empty string', ''],
];
/** Raw query values: NUL, invalid UTF-8 (a lone surrogate's bytes), an operator object, a long value. */
const QUERY_SPOILERS: Array<[string, string]> = [
  ['NUL', 'a%00b'],
  ['invalid UTF-8', '%ED%A0%80'],
  ['bracket object', '%7B%22%24gt%22%3A%22%22%7D'],
  ['8 KB', 'x'.repeat(8 * 1024)],
  ['huge number', '1e309'],
];
const PATH_SPOILERS: Array<[string, string]> = [
  ['NUL', 'a%00b'],
  ['invalid UTF-8', '%ED%A0%80'],
  ['long', 'x'.repeat(4000)],
  ['dots', '..%2F..%2Fetc'],
];

/** Operations that end or change the caller's own sign-in; fuzzed last so the others keep a working token. */
const SESSION_ENDING = /^\/auth\/|^\/organization\/members|^\/api-keys/;

describe('fuzz: every built operation answers bad input without a 5xx', function () {
  this.timeout(900_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  let doc: Json;
  let owner: Merchant;
  let platformHeaders: Record<string, string>;

  before(async () => {
    owner = suite.addMerchant(await merchant(server), { indexed: true });
    const admin = await signUp(server);
    await server.runtime.dataSource.query("UPDATE users SET platform_role = 'platform_admin' WHERE id = $1", [admin.userId]);
    platformHeaders = bearer((await signIn(server, admin.email, admin.password)).accessToken);
    const res = await call(server, 'GET', '/api/v1/openapi.json');
    expect(res.status).to.equal(200);
    doc = res.json;
  });

  function builtOperations(): Operation[] {
    const out: Operation[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>))
      for (const [method, op] of Object.entries(item as Record<string, Json>))
        if (op['x-implemented'] !== false) out.push({ method: method.toUpperCase(), path, op });
    // Session-ending operations last.
    return out.sort((a, b) => Number(SESSION_ENDING.test(a.path)) - Number(SESSION_ENDING.test(b.path)));
  }

  const deref = (schema: Json): Json => {
    let s = schema;
    for (let i = 0; s?.$ref && i < 10; i += 1)
      s = s.$ref
        .split('/')
        .slice(1)
        .reduce((node: Json, key: string) => node[key], doc);
    return s;
  };

  function sampled(schema: Json): unknown {
    try {
      return sample(schema, { skipReadOnly: true, skipNonRequired: false, quiet: true } as never, doc);
    } catch {
      return {};
    }
  }

  /** A value for a path or query parameter that passes its schema where it can (the owner's store for storeId). */
  function parameterValue(name: string, schema: Json): string {
    if (name === 'storeId') return owner.storeId;
    const s = deref(schema) ?? {};
    if (s.format === 'uuid' || /Id$|^id$/.test(name)) return randomUUID();
    const value = sampled(s);
    if (Array.isArray(value)) return String(value[0] ?? 'x');
    if (value === undefined || value === null || typeof value === 'object') return 'x';
    return String(value);
  }

  function baseCase(o: Operation): Case {
    const params: Json[] = o.op.parameters ?? [];
    let path = o.path;
    for (const p of params.filter((p) => p.in === 'path'))
      path = path.replace(`{${p.name}}`, encodeURIComponent(parameterValue(p.name, p.schema)));
    const query: Array<[string, string]> = params
      .filter((p) => p.in === 'query' && (p.required || p.name === 'storeId'))
      .map((p) => [p.name, encodeURIComponent(parameterValue(p.name, p.schema))]);
    const content = o.op.requestBody?.content ?? {};
    let body: Case['body'];
    if (content['application/json']) body = { json: sampled(content['application/json'].schema) };
    else if (content['text/csv']) body = { raw: 'a,b\n1,2\n', contentType: 'text/csv' };
    else if (content['multipart/form-data']) body = { raw: '', contentType: 'multipart/form-data; boundary=x' };
    return { label: 'sampled', path, query, body };
  }

  /** The fields of a sampled JSON body to spoil: top level and one level down. */
  function fieldPaths(value: unknown): string[][] {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
    const out: string[][] = [];
    for (const [key, inner] of Object.entries(value)) {
      out.push([key]);
      if (inner && typeof inner === 'object' && !Array.isArray(inner)) for (const k of Object.keys(inner)) out.push([key, k]);
      if (Array.isArray(inner) && inner[0] && typeof inner[0] === 'object') for (const k of Object.keys(inner[0])) out.push([key, '0', k]);
    }
    return out;
  }

  function withField(value: unknown, path: string[], replacement: unknown): unknown {
    const copy = structuredClone(value) as Json;
    let node = copy;
    for (const key of path.slice(0, -1)) node = node[key];
    node[path[path.length - 1]!] = replacement;
    return copy;
  }

  function cases(o: Operation): Case[] {
    const base = baseCase(o);
    const out: Case[] = [base];
    const params: Json[] = o.op.parameters ?? [];
    for (const p of params.filter((p) => p.in === 'path'))
      for (const [label, raw] of PATH_SPOILERS) {
        const others = params.filter((q) => q.in === 'path' && q.name !== p.name);
        let path = o.path.replace(`{${p.name}}`, raw);
        for (const q of others) path = path.replace(`{${q.name}}`, encodeURIComponent(parameterValue(q.name, q.schema)));
        out.push({ ...base, label: `path ${p.name}: ${label}`, path });
      }
    for (const p of params.filter((p) => p.in === 'query')) {
      const rest = base.query.filter(([name]) => name !== p.name);
      for (const [label, raw] of QUERY_SPOILERS) out.push({ ...base, label: `query ${p.name}: ${label}`, query: [...rest, [p.name, raw]] });
      out.push({ ...base, label: `query ${p.name}: repeated`, query: [...rest, [p.name, 'a'], [p.name, 'b']] });
    }
    if (params.some((p) => p.in === 'query'))
      out.push({ ...base, label: 'query: unknown parameter', query: [...base.query, ['zzz', '1']] });
    if (base.body && 'json' in base.body) {
      const json = base.body.json;
      for (const [label, value] of [
        ['body: array', []],
        ['body: string', 'x'],
        ['body: number', 1],
        ['body: null', null],
        ['body: unknown field', { ...(typeof json === 'object' && json ? json : {}), zzz: 1 }],
      ] as Array<[string, unknown]>)
        out.push({ ...base, label, body: { json: value } });
      out.push({ ...base, label: 'body: 1 MB value', body: { json: { ...(typeof json === 'object' && json ? json : {}), zzz: MB } } });
      out.push({
        ...base,
        label: 'body: nested 100 000 deep',
        body: { raw: '['.repeat(100_000) + ']'.repeat(100_000), contentType: 'application/json' },
      });
      out.push({ ...base, label: 'body: invalid UTF-8', body: { raw: '{"a":"\xed\xa0\x80"}', contentType: 'application/json' } });
      for (const field of fieldPaths(json)) {
        for (const [label, value] of FIELD_SPOILERS)
          out.push({ ...base, label: `body ${field.join('.')}: ${label}`, body: { json: withField(json, field, value) } });
      }
      const first = fieldPaths(json).find((f) => typeof f.reduce((node: Json, k) => node?.[k], json) === 'string');
      if (first) out.push({ ...base, label: `body ${first.join('.')}: 1 MB`, body: { json: withField(json, first, MB) } });
    }
    if (base.body && 'raw' in base.body && base.body.contentType === 'text/csv') {
      out.push({ ...base, label: 'csv: NUL cell', body: { raw: 'a,b\n1,\u00002\n', contentType: 'text/csv' } });
      out.push({ ...base, label: 'csv: unbalanced quote', body: { raw: 'a,b\n"1,2\n', contentType: 'text/csv' } });
      out.push({ ...base, label: 'csv: 1 MB cell', body: { raw: `a,b\n1,${MB}\n`, contentType: 'text/csv' } });
    }
    return out;
  }

  function headersFor(o: Operation): Record<string, string> {
    const access = o.op['x-access'];
    if (access === 'public') return {};
    if (access === 'platform') return platformHeaders;
    return owner.headers;
  }

  async function send(o: Operation, c: Case): Promise<TestResponse> {
    const query = c.query.map(([k, v]) => `${encodeURIComponent(k)}=${v}`).join('&');
    const url = `/api/v1${c.path}${query ? `?${query}` : ''}`;
    const headers = headersFor(o);
    if (!c.body || o.method === 'GET' || o.method === 'DELETE') return call(server, o.method, url, { headers });
    if ('json' in c.body) return call(server, o.method, url, { headers, body: c.body.json });
    return call(server, o.method, url, { headers, rawBody: Buffer.from(c.body.raw, 'latin1'), contentType: c.body.contentType });
  }

  /** Signs the owner in again when a fuzzed operation ended its session (logout, password change). */
  async function keepSignedIn(): Promise<void> {
    const res = await call(server, 'GET', '/api/v1/auth/account', { headers: owner.headers });
    if (res.status !== 401) return;
    const again = await signIn(server, owner.owner.email, owner.owner.password).catch(() => undefined);
    if (again) owner = { ...owner, headers: bearer(again.accessToken) };
  }

  it('sends every built operation its sampled request and each spoiled variant: no 5xx, and /readyz stays 200', async () => {
    const failures: string[] = [];
    let sent = 0;
    const statuses = new Map<number, number>();
    const operations = builtOperations();
    expect(operations.length).to.be.greaterThan(150);
    for (const o of operations) {
      for (const c of cases(o)) {
        const res = await send(o, c).catch(
          (error: Error) => ({ status: 0, text: String(error), json: undefined }) as unknown as TestResponse,
        );
        sent += 1;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 0 || res.status >= 500)
          failures.push(`${o.method} ${o.path} [${c.label}] → ${res.status} ${String(res.text).slice(0, 200)}`);
      }
      await keepSignedIn();
    }
    // FUZZ_REPORT=1 prints what the run reached (status counts), for a reader checking its coverage.
    if (process.env.FUZZ_REPORT)
      process.stdout.write(`${JSON.stringify({ operations: operations.length, sent, statuses: Object.fromEntries(statuses) })}\n`);
    // The requests reached the operations: most were refused by validation, and the sampled ones often succeeded.
    expect(statuses.get(400) ?? 0, 'requests refused as invalid').to.be.greaterThan(sent / 2);
    expect(
      [...statuses].filter(([s]) => s >= 200 && s < 300).reduce((n, [, c]) => n + c, 0),
      'requests that succeeded',
    ).to.be.greaterThan(50);
    const ready = await fetch(`${server.baseUrl}/readyz`);
    expect(ready.status, 'ready after the fuzzing').to.equal(200);
    expect(failures, `${failures.length} of ${sent} requests answered 5xx:\n${failures.slice(0, 60).join('\n')}`).to.deep.equal([]);
  });
});
