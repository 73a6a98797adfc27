/**
 * Characters no column can store (U+0000, an unpaired UTF-16 surrogate) in request input: every
 * string of the path, the query and a JSON body is refused at validation with 400 validation_failed
 * naming the field (api/http/validation.ts), before anything is read or written; a CSV cell that holds
 * one is a row error of the import (customers: the row is skipped, the rest imported; categories: the
 * whole import is refused, as for any bad row).
 */
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem } from '../helpers/accounts';
import { merchant, type Merchant } from '../helpers/fixtures';

describe('unstorable characters in request input', function () {
  this.timeout(60_000);
  let server: TestServer;
  let m: Merchant;

  const suite = apiSuite((started) => (server = started));

  before(async () => {
    m = suite.addMerchant(await merchant(server));
  });

  const count = async (table: string): Promise<number> =>
    Number(
      (
        (await server.runtime.dataSource.query(`SELECT count(*)::int AS n FROM ${table} WHERE store_id = $1`, [m.storeId])) as Array<{
          n: number;
        }>
      )[0]!.n,
    );

  interface Case {
    name: string;
    method: string;
    path: () => string;
    body?: () => unknown;
    merchant?: boolean;
    /** The `errors[].path` values expected. */
    paths: string[];
    /** A table of the store that must stay empty. */
    table?: string;
  }

  const cases: Case[] = [
    {
      name: 'a path parameter (public product by slug)',
      method: 'GET',
      path: () => `/api/v1/catalog/public/stores/${m.storeId}/products/a%00b`,
      paths: ['params.slug'],
    },
    {
      name: 'a path parameter (public content page by slug)',
      method: 'GET',
      path: () => `/api/v1/content/public/stores/${m.storeId}/pages/%00`,
      paths: ['params.slug'],
    },
    {
      name: 'a query parameter (public search q)',
      method: 'GET',
      path: () => `/api/v1/catalog/public/search?storeId=${m.storeId}&q=glorp%00quux`,
      paths: ['query.q'],
      table: 'zero_result_queries',
    },
    {
      name: 'a query parameter (audit-log filter)',
      method: 'GET',
      path: () => `/api/v1/audit-log?action=product%00.created`,
      merchant: true,
      paths: ['query.action'],
    },
    {
      name: 'a query parameter (product page search)',
      method: 'GET',
      path: () => `/api/v1/catalog/products/page?storeId=${m.storeId}&search=%00`,
      merchant: true,
      paths: ['query.search'],
    },
    {
      name: 'a JSON body field (brand name)',
      method: 'POST',
      path: () => '/api/v1/catalog/brands',
      body: () => ({ storeId: m.storeId, name: 'Ac\u0000me' }),
      merchant: true,
      paths: ['body.name'],
      table: 'brands',
    },
    {
      name: 'a JSON body field holding an unpaired surrogate (category name)',
      method: 'POST',
      path: () => '/api/v1/catalog/categories',
      body: () => ({ storeId: m.storeId, name: 'Shoes \ud800' }),
      merchant: true,
      paths: ['body.name'],
      table: 'categories',
    },
    {
      name: 'nested JSON body fields, every one reported (product)',
      method: 'POST',
      path: () => '/api/v1/catalog/products',
      body: () => ({
        storeId: m.storeId,
        title: 'Blue\u0000Shirt',
        type: 'PHYSICAL',
        price: 10,
        variants: [{ options: { size: 'M\u0000' }, stock: 1 }],
      }),
      merchant: true,
      paths: ['body.title', 'body.variants[0].options.size'],
      table: 'products',
    },
    {
      name: 'a CSV cell of a category import',
      method: 'POST',
      path: () => '/api/v1/catalog/categories/import',
      body: () => ({ storeId: m.storeId, csv: 'slug,name\nshoes,Shoes\nhats,Ha\u0000ts\n' }),
      merchant: true,
      paths: ['rows[2].name'],
      table: 'categories',
    },
  ];

  for (const c of cases) {
    it(`refuses ${c.name} with 400 validation_failed naming the field, and writes nothing`, async () => {
      const res = await call(server, c.method, c.path(), {
        headers: c.merchant ? m.headers : {},
        ...(c.body ? { body: c.body() } : {}),
      });
      expectProblem(res, 400, 'validation_failed');
      const paths = (res.json.errors as Array<{ path: string; message: string }>).map((e) => e.path);
      expect(paths).to.have.members(c.paths);
      for (const error of res.json.errors as Array<{ message: string }>) expect(error.message).to.match(/must not contain/);
      if (c.table) expect(await count(c.table)).to.equal(0);
    });
  }

  it('skips a customer CSV row with such a cell as a row error, and imports the others', async () => {
    const res = await call(server, 'POST', `/api/v1/customers/import?storeId=${m.storeId}`, {
      headers: m.headers,
      rawBody: 'email,name\nann@example.test,Ann\nbob@example.test,B\u0000ob\n',
      contentType: 'text/csv',
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.json.rows).to.deep.equal({ read: 2, failed: 1 });
    expect(res.json.errors).to.have.length(1);
    expect(res.json.errors[0]).to.include({ row: 2, column: 'name' });
    const emails = (
      (await server.runtime.dataSource.query('SELECT email FROM customers WHERE store_id = $1 ORDER BY email', [m.storeId])) as Array<{
        email: string;
      }>
    ).map((r) => r.email);
    expect(emails).to.deep.equal(['ann@example.test']);
  });
});
