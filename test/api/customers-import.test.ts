/**
 * Customer CSV import: upsert by e-mail (case-insensitive, per store), row errors with row number
 * and column, kept and cleared columns, marketing consent, addresses, audit entries, limits, tenancy,
 * and the store inferred when storeId is left out.
 */
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { auditRows, expectProblem } from '../helpers/accounts';
import { apiKey, merchant, store, type Merchant } from '../helpers/fixtures';

describe('customer import', function () {
  this.timeout(60_000);
  let server: TestServer;
  apiSuite((started) => (server = started));

  const importCsv = (m: Merchant, csv: string, storeId = m.storeId, headers = m.headers) =>
    call(server, 'POST', `/api/v1/customers/import?storeId=${storeId}`, { headers, rawBody: csv, contentType: 'text/csv' });

  const customers = (storeId: string) =>
    server.runtime.dataSource.query(
      'SELECT name, email, phone, addresses, tags, accepts_marketing, marketing_consent_at, updated_at FROM customers WHERE store_id = $1 ORDER BY email',
      [storeId],
    );

  it('creates customers, reports bad rows by row and column, and upserts by e-mail case-insensitively', async () => {
    const m = await merchant(server);
    const csv = [
      'email,name,phone,tags,acceptsMarketing,marketingConsentAt,addressLine1,city,country',
      'ada@example.test,Ada Lovelace,+44 20 1234 5678,vip|early,yes,2026-01-02T03:04:05Z,1 Analytical St,London,gb',
      'bob@example.test,Bob,,,no,,,,',
      'not-an-email,Nope,,,,,,,',
      'carol@example.test,Carol,,,maybe,,,,',
      'ADA@example.test,Ada again,,,,,,,',
      'dan@example.test,Dan,12,,,,,Berlin,',
    ].join('\n');
    const res = await importCsv(m, csv);
    expect(res.status, res.text).to.equal(200);
    expect(res.json.rows).to.deep.equal({ read: 6, failed: 4 });
    expect(res.json.customers).to.deep.equal({ created: 2, updated: 0, unchanged: 0, failed: 4 });
    expect(res.json.errorsTruncated).to.equal(false);
    const byRow = res.json.errors.map((e: { row: number; column: string }) => `${e.row}:${e.column}`);
    expect(byRow).to.include.members(['3:email', '4:acceptsMarketing', '5:email', '6:phone', '6:addressLine1']);
    expect(res.json.errors.find((e: { row: number }) => e.row === 5).message).to.match(/already appears in row 1/);

    const rows = await customers(m.storeId);
    expect(rows.map((r: { email: string }) => r.email)).to.deep.equal(['ada@example.test', 'bob@example.test']);
    expect(rows[0]).to.deep.include({ name: 'Ada Lovelace', phone: '+44 20 1234 5678', tags: ['vip', 'early'], accepts_marketing: true });
    expect(rows[0].marketing_consent_at.toISOString()).to.equal('2026-01-02T03:04:05.000Z');
    expect(rows[0].addresses).to.deep.equal([{ line1: '1 Analytical St', city: 'London', country: 'GB' }]);
    expect(rows[1]).to.deep.include({ name: 'Bob', phone: null, tags: [], accepts_marketing: false, marketing_consent_at: null });
    const audit = (await auditRows(server, m.owner.tenantId)).filter((a) => a.resource_type === 'customer');
    expect(audit.map((a) => a.action)).to.deep.equal(['customer.create', 'customer.create']);

    // Second import: the e-mail in another case updates; absent columns keep their values; same rows change nothing.
    const again = await importCsv(
      m,
      ['email,name,addressLine1,city', 'ADA@EXAMPLE.TEST,Ada K. Lovelace,2 Engine Rd,Oxford', 'bob@example.test,Bob,,'].join('\n'),
    );
    expect(again.status, again.text).to.equal(200);
    expect(again.json.customers).to.deep.equal({ created: 0, updated: 1, unchanged: 1, failed: 0 });
    const [ada] = await customers(m.storeId);
    expect(ada).to.deep.include({
      name: 'Ada K. Lovelace',
      email: 'ADA@EXAMPLE.TEST',
      phone: '+44 20 1234 5678',
      tags: ['vip', 'early'],
      accepts_marketing: true,
    });
    expect(ada.addresses).to.deep.equal([
      { line1: '2 Engine Rd', city: 'Oxford' },
      { line1: '1 Analytical St', city: 'London', country: 'GB' },
    ]);
    const audit2 = (await auditRows(server, m.owner.tenantId)).filter((a) => a.resource_type === 'customer');
    expect(audit2).to.have.length(3);
    expect(audit2[2]).to.deep.include({ action: 'customer.update' });
    expect(audit2[2].before.name).to.equal('Ada Lovelace');
    expect(audit2[2].after.name).to.equal('Ada K. Lovelace');

    // Withdrawn consent clears its time; an empty cell clears tags.
    const withdraw = await importCsv(m, 'email,tags,acceptsMarketing\nada@example.test,,false\n');
    expect(withdraw.json.customers.updated).to.equal(1);
    const [after] = await customers(m.storeId);
    expect(after).to.deep.include({ tags: [], accepts_marketing: false, marketing_consent_at: null });
  });

  it('consents at import time when no time is given, and keeps the first consent time later', async () => {
    const m = await merchant(server);
    const before = Date.now();
    await importCsv(m, 'email,acceptsMarketing\nx@example.test,true\n');
    const [first] = await customers(m.storeId);
    expect(first.marketing_consent_at.getTime()).to.be.at.least(before - 1000);
    const again = await importCsv(m, 'email,acceptsMarketing\nx@example.test,1\n');
    expect(again.json.customers).to.deep.include({ unchanged: 1 });
    const [second] = await customers(m.storeId);
    expect(second.marketing_consent_at.getTime()).to.equal(first.marketing_consent_at.getTime());
    const refused = await importCsv(m, 'email,acceptsMarketing,marketingConsentAt\ny@example.test,false,2026-01-01T00:00:00Z\n');
    expect(refused.json.errors).to.deep.equal([
      { row: 1, column: 'marketingConsentAt', message: 'must be empty when acceptsMarketing is false' },
    ]);
  });

  it("refuses a bad header, a malformed CSV, a missing body, too many rows, and another tenant's store", async () => {
    const m = await merchant(server);
    const other = await merchant(server);
    const unknown = await importCsv(m, 'email,shoeSize\na@example.test,42\n');
    expectProblem(unknown, 400, 'validation_failed');
    expect(unknown.json.errors[0].message).to.match(/unknown column "shoeSize"/);
    expectProblem(await importCsv(m, 'name\nAda\n'), 400, 'validation_failed');
    expectProblem(await importCsv(m, 'email,name\n"a@example.test,Ada\n'), 400, 'invalid_csv');
    expectProblem(await importCsv(m, 'email,name\na@example.test,Ada,extra\n'), 400, 'invalid_csv');
    expectProblem(
      await call(server, 'POST', `/api/v1/customers/import?storeId=${m.storeId}`, {
        headers: m.headers,
        rawBody: '{}',
        contentType: 'application/json',
      }),
      415,
      'unsupported_media_type',
    );
    expectProblem(
      await call(server, 'POST', '/api/v1/customers/import?storeId=not-a-uuid', {
        headers: m.headers,
        rawBody: 'email\na@example.test\n',
        contentType: 'text/csv',
      }),
      400,
      'validation_failed',
    );
    expectProblem(await importCsv(m, 'email\na@example.test\n', other.storeId), 404, 'store_not_found');
    expect(await customers(other.storeId)).to.have.length(0);
    expectProblem(
      await call(server, 'POST', `/api/v1/customers/import?storeId=${m.storeId}`, {
        rawBody: 'email\na@example.test\n',
        contentType: 'text/csv',
      }),
      401,
      'unauthorized',
    );

    process.env.CUSTOMER_IMPORT_MAX_ROWS = '3';
    try {
      const tooMany = await importCsv(m, 'email\na@example.test\nb@example.test\nc@example.test\nd@example.test\n');
      expectProblem(tooMany, 413, 'payload_too_large');
      expect(await customers(m.storeId)).to.have.length(0);
    } finally {
      delete process.env.CUSTOMER_IMPORT_MAX_ROWS;
    }
  });

  it('lets an API key of the store import into its own store only', async () => {
    const m = await merchant(server);
    const key = await apiKey(server, m, ['import:write']);
    const ok = await importCsv(m, 'email\nk@example.test\n', m.storeId, key);
    expect(ok.status, ok.text).to.equal(200);
    expect(ok.json.customers.created).to.equal(1);
    const other = await store(server, m, { name: 'Second' });
    expectProblem(await importCsv(m, 'email\nk@example.test\n', other, key), 404, 'store_not_found');
    expect(await customers(other)).to.have.length(0);
  });

  it("infers the store when storeId is left out: an API key's own store, a member's default store", async () => {
    const m = await merchant(server);
    const second = await store(server, m, { name: 'Second' });
    const withoutStore = (csv: string, headers: Record<string, string>) =>
      call(server, 'POST', '/api/v1/customers/import', { headers, rawBody: csv, contentType: 'text/csv' });
    // A key of the second (not default) store imports there.
    const key = await apiKey(server, m, ['import:write'], second);
    const byKey = await withoutStore('email\nkey@example.test\n', key);
    expect(byKey.status, byKey.text).to.equal(200);
    expect((await customers(second)).map((c: { email: string }) => c.email)).to.deep.equal(['key@example.test']);
    // A member imports into the tenant's default store (the first one).
    const byMember = await withoutStore('email\nmember@example.test\n', m.headers);
    expect(byMember.status, byMember.text).to.equal(200);
    expect((await customers(m.storeId)).map((c: { email: string }) => c.email)).to.deep.equal(['member@example.test']);
    // ... or into the store made default since.
    expect(
      (await call(server, 'PATCH', `/api/v1/organization/stores/${second}`, { headers: m.headers, body: { isDefault: true } })).status,
    ).to.equal(200);
    expect((await withoutStore('email\nlater@example.test\n', m.headers)).status).to.equal(200);
    expect((await customers(second)).map((c: { email: string }) => c.email)).to.deep.equal(['key@example.test', 'later@example.test']);
    // A tenant without a default store (its only store archived) must name one.
    const lone = await merchant(server);
    expect((await call(server, 'DELETE', `/api/v1/organization/stores/${lone.storeId}`, { headers: lone.headers })).status).to.equal(204);
    const none = await withoutStore('email\nx@example.test\n', lone.headers);
    expectProblem(none, 400, 'validation_failed');
    expect(none.json.errors.map((e: { path: string }) => e.path)).to.deep.equal(['query.storeId']);
  });
});
