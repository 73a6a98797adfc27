/**
 * Tampered keyset cursors: every list that reads a base64url JSON cursor (`api/http/cursor.ts`)
 * answers a cursor it did not write — dates outside what PostgreSQL reads, NULs, wrong types, ids
 * that are not UUIDs, garbage that is not base64url, huge ones — with one 400 naming
 * `query.cursor`, never a 500; and still reads back every cursor it wrote, for every sort.
 */
import { expect } from 'chai';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { merchant, product, type Merchant } from '../helpers/fixtures';

const ID = '0192f4c0-0000-7000-8000-000000000001';
const AT = '2026-01-02T03:04:05.678Z';

const b64 = (value: unknown): string =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value), 'utf8').toString('base64url');

/** Bad dates, in every place a date may sit. */
const BAD_DATES = [
  '+275760-09-13T00:00:00.000Z',
  '-271821-04-20T00:00:00.000Z',
  '+010000-01-01T00:00:00.000Z',
  '0000-01-01T00:00:00.000Z',
  `${AT}\u0000`,
  '2026-02-30T00:00:00.000Z',
  '2026-13-01T00:00:00.000Z',
  '2026-01-01',
  'Tue, 01 Jan 2026 00:00:00 GMT',
  'yesterday',
  'Infinity',
  'NaN',
  '',
];
const BAD_IDS = ['not-a-uuid', `${ID}\u0000`, '', `${ID} `, '0192f4c0-0000-7000-8000-00000000000g'];

/** Cursors that are no cursor of any list: not base64url, not JSON, wrong shapes, huge. */
const GARBAGE = [
  'garbage!',
  '%%%',
  'bm9wZQ',
  `${b64([AT, ID])}\u0000`,
  `${b64([AT, ID])}==`,
  ` ${b64([AT, ID])}`,
  Buffer.from(JSON.stringify([AT, ID])).toString('base64'),
  b64('null'),
  b64('{}'),
  b64('"x"'),
  b64([]),
  b64([AT]),
  b64([AT, ID, ID, ID, ID]),
  b64([1, 2]),
  b64([null, ID]),
  b64([[AT], ID]),
  b64({ 0: AT, 1: ID }),
  b64('[1e999, "x"]'),
  Buffer.from([0xff, 0xfe, 0x00]).toString('base64url'),
  b64(['x'.repeat(400), ID]),
  'A'.repeat(5000),
];

function expectCursorProblem(res: TestResponse, codes: string[], label: string): void {
  expect(res.status, `${label}: ${res.text}`).to.equal(400);
  expect(res.headers.get('content-type'), label).to.match(/^application\/problem\+json/);
  expect(codes, `${label}: ${res.text}`).to.include(res.json.code);
  expect(
    (res.json.errors as Array<{ path: string }>).map((e) => e.path),
    `${label}: ${res.text}`,
  ).to.include('query.cursor');
}

describe('tampered list cursors', () => {
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  let m: Merchant;

  before(async () => {
    m = suite.addMerchant(await merchant(server));
  });

  const get = (
    path: string,
    query: Record<string, string>,
    headers: Record<string, string> | undefined = m.headers,
  ): Promise<TestResponse> => call(server, 'GET', `${path}?${new URLSearchParams(query).toString()}`, headers ? { headers } : {});

  async function expectAllRefused(
    label: string,
    cursors: string[],
    request: (cursor: string) => Promise<TestResponse>,
    codes = ['validation_failed'],
  ): Promise<void> {
    for (const cursor of cursors)
      expectCursorProblem(await request(cursor), [...codes, 'validation_failed'], `${label} ${JSON.stringify(cursor)}`);
  }

  it('GET /orders: bad dates, bad ids and garbage are one 400 validation_failed on query.cursor', async () => {
    const request = (cursor: string): Promise<TestResponse> => get('/api/v1/orders', { storeId: m.storeId, cursor });
    await expectAllRefused('orders', [...BAD_DATES.map((at) => b64([at, ID])), ...BAD_IDS.map((id) => b64([AT, id])), ...GARBAGE], request);
    expect((await request(b64([AT, ID]))).status).to.equal(200);
  });

  it('GET /catalog/product-tags: bad ids, NULs in the name and garbage are one 400 validation_failed on query.cursor', async () => {
    const request = (cursor: string): Promise<TestResponse> => get('/api/v1/catalog/product-tags', { storeId: m.storeId, cursor });
    await expectAllRefused(
      'product-tags',
      [...BAD_IDS.map((id) => b64(['summer', id])), b64(['sum\u0000mer', ID]), b64([`summer\u0000`, ID]), ...GARBAGE],
      request,
    );
    expect((await request(b64(['summer', ID]))).status).to.equal(200);
  });

  it('GET /catalog/products/page: a sort value that is not of its sort type is one 400 on query.cursor, for every sort', async () => {
    const request = (sortBy: string, sortDir: string, cursor: string): Promise<TestResponse> =>
      get('/api/v1/catalog/products/page', { storeId: m.storeId, sortBy, sortDir, cursor });
    const badTimestamps = [
      ...BAD_DATES,
      '+275760-09-13 00:00:00+00',
      '275760-09-13 00:00:00+00',
      '2026-02-30 00:00:00+00',
      '2026-01-01 24:00:00+00',
      '2026-01-01 00:00:00+99',
      '2026-01-01 00:00:00.1234567+00',
      '2026-01-01 00:00:00+00 BC',
      '2026-01-01 00:00:00+00\u0000',
    ];
    const bad: Record<string, string[]> = {
      createdAt: badTimestamps,
      updatedAt: badTimestamps,
      price: ['abc', '1e999', 'Infinity', 'NaN', '1e5', '', '1.2.3', '12\u0000', '9'.repeat(40)],
      stock: ['abc', '1.5', '9223372036854775808', '-9223372036854775809', '', '1e3', '7\u0000'],
      name: ['shoe\u0000'],
    };
    for (const [sortBy, values] of Object.entries(bad)) {
      const cursors = [...values.map((value) => b64([sortBy, 'asc', value, ID])), ...BAD_IDS.map((id) => b64([sortBy, 'asc', 'x', id]))];
      await expectAllRefused(`products ${sortBy}`, cursors, (cursor) => request(sortBy, 'asc', cursor), ['invalid_cursor']);
    }
    await expectAllRefused('products', GARBAGE, (cursor) => request('createdAt', 'desc', cursor), ['invalid_cursor']);
    await expectAllRefused(
      'products',
      [b64(['createdAt', 'desc', '2026-01-01 00:00:00+00', ID])],
      (cursor) => request('price', 'desc', cursor),
      ['invalid_cursor'],
    );
  });

  it('GET /catalog/products/page: reads back the cursors it wrote, for every sort and direction', async () => {
    const owner = suite.addMerchant(await merchant(server));
    for (let i = 0; i < 3; i += 1) await product(server, owner, { title: `Product ${i}`, price: `${10 + i}.25` });
    for (const sortBy of ['createdAt', 'updatedAt', 'name', 'price', 'stock']) {
      for (const sortDir of ['asc', 'desc']) {
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const query: Record<string, string> = { storeId: owner.storeId, sortBy, sortDir, limit: '1', ...(cursor ? { cursor } : {}) };
          const res = await get('/api/v1/catalog/products/page', query, owner.headers);
          expect(res.status, `${sortBy} ${sortDir}: ${res.text}`).to.equal(200);
          seen.push(...(res.json.items as Array<{ id: string }>).map((p) => p.id));
          cursor = res.json.nextCursor as string | null;
        } while (cursor && seen.length < 10);
        expect(seen, `${sortBy} ${sortDir}`).to.have.length(3);
        expect(new Set(seen).size).to.equal(3);
      }
    }
  });

  it('the lists whose cursor is the last id: anything but a UUID is one 400 on query.cursor', async () => {
    const lists: Array<[path: string, query: Record<string, string>, headers?: Record<string, string>]> = [
      ['/api/v1/webhooks/endpoints', {}],
      ['/api/v1/webhooks/dead-letters', {}],
      ['/api/v1/shipping-rates', { storeId: m.storeId }],
      ['/api/v1/search-synonyms', { storeId: m.storeId }],
      ['/api/v1/merchant/sponsored-listings', { storeId: m.storeId }],
      ['/api/v1/pricing/rules', { storeId: m.storeId }],
      ['/api/v1/product-bulk-edits', { storeId: m.storeId }],
      ['/api/v1/flash-sale-campaigns', { storeId: m.storeId }],
      ['/api/v1/audit-log', {}],
      ['/api/v1/content/pages', { storeId: m.storeId }],
      ['/api/v1/content/posts', { storeId: m.storeId }],
      [`/api/v1/catalog/public/stores/${m.storeId}/sitemap-feed`, {}, {}],
    ];
    const cursors = [...BAD_IDS.filter(Boolean), b64([AT, ID]), b64([ID]), ...GARBAGE];
    for (const [path, query, headers] of lists) {
      const request = (cursor: string): Promise<TestResponse> => get(path, { ...query, cursor }, headers ?? m.headers);
      await expectAllRefused(path, cursors, request, ['invalid_cursor']);
      const valid = await request(ID);
      expect(valid.status, `${path}: ${valid.text}`).to.equal(200);
    }
  });

  it('GET /content/public/stores/:storeId/posts and pages: bad dates, bad ids and garbage are one 400 on query.cursor', async () => {
    for (const kind of ['posts', 'pages']) {
      const request = (cursor: string): Promise<TestResponse> =>
        get(`/api/v1/content/public/stores/${m.storeId}/${kind}`, { cursor }, undefined);
      await expectAllRefused(kind, [...BAD_DATES.map((at) => b64([at, ID])), ...BAD_IDS.map((id) => b64([AT, id])), ...GARBAGE], request, [
        'invalid_cursor',
      ]);
      expect((await request(b64([AT, ID]))).status).to.equal(200);
    }
  });
});
