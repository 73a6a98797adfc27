/**
 * The suppression list over HTTP: recording (store entries by members, platform-wide entries by
 * platform staff only), the list filters and bounds, the store overview, the check (which reveals no
 * other tenant's entries), the unsubscribe link of marketing mail, tenant isolation and audit.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { auditRows, bearer, expectProblem, platformStaff, uniqueEmail } from '../helpers/accounts';
import { customer, merchant, type Merchant } from '../helpers/fixtures';
import { systemContext } from '../../storage/request-context';
import { unsubscribeUrl } from '../../storage/customer-messages';

const API = '/api/v1';
const BASE = `${API}/email-suppression-entries`;
const hashOf = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('hex');

describe('messaging: e-mail suppression', function () {
  this.timeout(60_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  let a: Merchant;
  let b: Merchant;
  let staffHeaders: Record<string, string>;
  let salesHeaders: Record<string, string>;

  const db = (sql: string, params: unknown[] = []): Promise<any[]> => server.runtime.dataSource.query(sql, params);
  const get = (path: string, headers: Record<string, string>): Promise<TestResponse> => call(server, 'GET', `${API}${path}`, { headers });
  const post = (path: string, body: unknown, headers: Record<string, string>): Promise<TestResponse> =>
    call(server, 'POST', `${API}${path}`, { headers, body });

  async function tenantlessStaff(role: 'platform_admin' | 'support_agent' | 'sales_rep') {
    const user = await platformStaff(server, role);
    suite.addTenant(user.tenantId);
    await db('UPDATE users SET tenant_id = NULL, tenant_role = NULL WHERE id = $1', [user.userId]);
    return user.headers;
  }

  before(async () => {
    a = suite.addMerchant(await merchant(server));
    b = suite.addMerchant(await merchant(server));
    staffHeaders = await tenantlessStaff('support_agent');
    salesHeaders = await tenantlessStaff('sales_rep');
  });

  it('records a store entry keeping only the hash and the domain, audited', async () => {
    const email = `  ${uniqueEmail('Bounce').toUpperCase()} `;
    const res = await post('/email-suppression-entries', { email, reason: 'HARD_BOUNCE', storeId: a.storeId }, a.headers);
    expect(res.status, res.text).to.equal(201);
    expect(res.json).to.include({ storeId: a.storeId, appliesPlatform: false, emailHash: hashOf(email), reason: 'HARD_BOUNCE' });
    expect(res.json.emailDomain).to.equal(email.trim().toLowerCase().split('@')[1]);
    const [row] = await db('SELECT * FROM email_suppression_entries WHERE id = $1', [res.json.id]);
    expect(JSON.stringify(row).toLowerCase()).not.to.include(email.trim().toLowerCase());
    const audit = (await auditRows(server, a.owner.tenantId)).filter((r) => r.action === 'email_suppression.record');
    expect(audit.map((r) => r.resource_id)).to.include(res.json.id);
    expectProblem(
      await post('/email-suppression-entries', { email, reason: 'MANUAL', storeId: a.storeId }, a.headers),
      409,
      'suppression_entry_exists',
    );
  });

  it('refuses platform-wide entries to merchants and store entries of other tenants; staff record platform-wide ones', async () => {
    const email = uniqueEmail('plat');
    expectProblem(
      await post('/email-suppression-entries', { email, reason: 'COMPLAINT' }, a.headers),
      403,
      'platform_suppression_forbidden',
    );
    expectProblem(
      await post('/email-suppression-entries', { email, reason: 'COMPLAINT', storeId: b.storeId }, a.headers),
      404,
      'store_not_found',
    );
    expectProblem(await post('/email-suppression-entries', { email, reason: 'COMPLAINT' }, salesHeaders), 403, 'platform_role_required');
    expectProblem(
      await post('/email-suppression-entries', { email, reason: 'COMPLAINT', storeId: a.storeId }, staffHeaders),
      403,
      'platform_suppression_forbidden',
    );
    const res = await post('/email-suppression-entries', { email, reason: 'COMPLAINT' }, staffHeaders);
    expect(res.status, res.text).to.equal(201);
    expect(res.json).to.include({ storeId: null, appliesPlatform: true });
    expect((await call(server, 'POST', BASE, { body: { email, reason: 'MANUAL' } })).status).to.equal(401);
    expectProblem(
      await post('/email-suppression-entries', { email, reason: 'OTHER', storeId: a.storeId }, a.headers),
      400,
      'validation_failed',
    );
    expectProblem(
      await post('/email-suppression-entries', { email: 'nope', reason: 'MANUAL', storeId: a.storeId }, a.headers),
      400,
      'validation_failed',
    );
  });

  it('lists a store’s entries with filters and bounds, never another tenant’s', async () => {
    const m = suite.addMerchant(await merchant(server));
    const emails = [uniqueEmail('l1'), uniqueEmail('l2').replace('@', '@other.'), uniqueEmail('l3')];
    for (const email of emails)
      expect((await post('/email-suppression-entries', { email, reason: 'MANUAL', storeId: m.storeId }, m.headers)).status).to.equal(201);
    const all = await get(`/email-suppression-entries?storeId=${m.storeId}`, m.headers);
    expect(all.status, all.text).to.equal(200);
    expect(all.json.items.map((i: any) => i.emailHash)).to.deep.equal(emails.map(hashOf).reverse());
    const limited = await get(`/email-suppression-entries?storeId=${m.storeId}&limit=1`, m.headers);
    expect(limited.json.items).to.have.length(1);
    const byHash = await get(`/email-suppression-entries?storeId=${m.storeId}&emailHash=${hashOf(emails[0]!)}`, m.headers);
    expect(byHash.json.items.map((i: any) => i.emailHash)).to.deep.equal([hashOf(emails[0]!)]);
    const domain = emails[1]!.split('@')[1]!;
    const byDomain = await get(`/email-suppression-entries?storeId=${m.storeId}&emailDomain=${domain}`, m.headers);
    expect(byDomain.json.items).to.have.length(1);
    for (const bad of ['limit=0', 'limit=101', 'emailHash=abc', 'appliesPlatform=maybe', 'emailDomain=not_a_domain!', 'other=1'])
      expectProblem(await get(`/email-suppression-entries?storeId=${m.storeId}&${bad}`, m.headers), 400, 'validation_failed');
    expectProblem(await get('/email-suppression-entries', m.headers), 400, 'validation_failed');
    expectProblem(await get(`/email-suppression-entries?storeId=${m.storeId}&appliesPlatform=true`, m.headers), 400, 'validation_failed');
    expect((await get(`/email-suppression-entries?storeId=${m.storeId}&limit=100`, m.headers)).status).to.equal(200);
    expectProblem(await get(`/email-suppression-entries?storeId=${m.storeId}`, a.headers), 404, 'store_not_found');
  });

  it('finds a platform-wide entry by hash with appliesPlatform=true', async () => {
    const email = uniqueEmail('pw');
    expect((await post('/email-suppression-entries', { email, reason: 'HARD_BOUNCE' }, staffHeaders)).status).to.equal(201);
    const res = await get(`/email-suppression-entries?storeId=${a.storeId}&appliesPlatform=true&emailHash=${hashOf(email)}`, a.headers);
    expect(res.json.items.map((i: any) => [i.appliesPlatform, i.emailHash])).to.deep.equal([[true, hashOf(email)]]);
  });

  it('overviews a store by reason over 30 days', async () => {
    const m = suite.addMerchant(await merchant(server));
    for (const reason of ['HARD_BOUNCE', 'HARD_BOUNCE', 'COMPLAINT'])
      await post('/email-suppression-entries', { email: uniqueEmail('o'), reason, storeId: m.storeId }, m.headers);
    const [old] = await db(
      `INSERT INTO email_suppression_entries (id, tenant_id, store_id, email_hash, email_domain, reason, created_by_type, created_at)
       VALUES (gen_random_uuid(), $1, $2, $3, 'example.com', 'MANUAL', 'system', now() - interval '40 days') RETURNING id`,
      [m.owner.tenantId, m.storeId, hashOf(uniqueEmail('old'))],
    );
    expect(old).to.be.an('object');
    const res = await get(`/email-suppression-entries/store-overview?storeId=${m.storeId}`, m.headers);
    expect(res.status, res.text).to.equal(200);
    expect(res.json).to.deep.equal({
      storeId: m.storeId,
      periodDays: 30,
      total: 3,
      byReason: { HARD_BOUNCE: 2, COMPLAINT: 1, UNSUBSCRIBE: 0, MANUAL: 0 },
      allTime: 4,
    });
    expectProblem(await get(`/email-suppression-entries/store-overview?storeId=${m.storeId}`, a.headers), 404, 'store_not_found');
  });

  it('checks an address for the caller’s stores and platform-wide, revealing no other tenant’s entries', async () => {
    const email = uniqueEmail('chk');
    await post('/email-suppression-entries', { email, reason: 'MANUAL', storeId: b.storeId }, b.headers);
    const forA = await get(`/email-suppression-entries/check?email=${encodeURIComponent(email)}`, a.headers);
    expect(forA.json).to.deep.equal({ emailHash: hashOf(email), suppressed: false, appliesPlatform: false, storeIds: [] });
    const forB = await get(`/email-suppression-entries/check?email=${encodeURIComponent(email.toUpperCase())}`, b.headers);
    expect(forB.json).to.include({ suppressed: true, appliesPlatform: false });
    expect(forB.json.storeIds).to.deep.equal([b.storeId]);
    await post('/email-suppression-entries', { email, reason: 'COMPLAINT' }, staffHeaders);
    const again = await get(`/email-suppression-entries/check?email=${encodeURIComponent(email)}`, a.headers);
    expect(again.json).to.include({ suppressed: true, appliesPlatform: true });
    expect(again.json.storeIds).to.deep.equal([]);
    expectProblem(await get('/email-suppression-entries/check?email=x', a.headers), 400, 'validation_failed');
    expectProblem(
      await get(`/email-suppression-entries/check?email=${encodeURIComponent(email)}&storeId=${a.storeId}`, a.headers),
      400,
      'validation_failed',
    );
  });

  it('unsubscribes through the signed link of a marketing e-mail (a form, then its post), once', async () => {
    const m = suite.addMerchant(await merchant(server));
    const email = uniqueEmail('unsub');
    const customerId = await customer(server, m, { email });
    const ctx = systemContext(server.runtime.dataSource, 'test', m.owner.tenantId, 'test', server.runtime.services);
    const url = new URL(unsubscribeUrl(ctx, { storeId: m.storeId, customerId, email }));
    const token = url.searchParams.get('token')!;
    expect(url.pathname).to.equal(`${BASE}/public/unsubscribe`);
    expect(url.toString()).not.to.include(email);
    const page = await call(server, 'GET', `${url.pathname}${url.search}`);
    expect(page.status, page.text).to.equal(200);
    expect(page.text).to.include('<form method="post"');
    expect(await db('SELECT 1 FROM email_suppression_entries WHERE store_id = $1', [m.storeId])).to.have.length(0);
    const form = `token=${encodeURIComponent(token)}`;
    for (let i = 0; i < 2; i++) {
      const done = await call(server, 'POST', url.pathname, { rawBody: form, contentType: 'application/x-www-form-urlencoded' });
      expect(done.status, done.text).to.equal(200);
    }
    const rows = await db('SELECT reason, email_hash, email_domain FROM email_suppression_entries WHERE store_id = $1', [m.storeId]);
    expect(rows).to.deep.equal([{ reason: 'UNSUBSCRIBE', email_hash: hashOf(email), email_domain: email.split('@')[1] }]);
    const forged = `${token.split('.')[0]}.${'A'.repeat(43)}`;
    expectProblem(await call(server, 'GET', `${url.pathname}?token=${forged}`), 400, 'unsubscribe_token_invalid');
    const posted = await call(server, 'POST', url.pathname, {
      rawBody: `token=${forged}`,
      contentType: 'application/x-www-form-urlencoded',
    });
    expectProblem(posted, 400, 'unsubscribe_token_invalid');
    expect(bearer('x')).to.be.an('object');
  });
});
