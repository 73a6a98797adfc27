/**
 * Notification preferences over HTTP: a customer's preferences (all categories, effective values,
 * TRANSACTIONAL locked), the tenant's policies (one, batch all-or-none) and digest settings, their
 * audit entries, and tenant isolation.
 */
import { expect } from 'chai';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { auditRows, expectProblem } from '../helpers/accounts';
import { apiKey, customer, merchant, type Merchant } from '../helpers/fixtures';
import { uuidv7 } from '../../storage/ids';

const API = '/api/v1';

describe('messaging: notification preferences', function () {
  this.timeout(60_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  let a: Merchant;
  let b: Merchant;

  const send = (method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<TestResponse> =>
    call(server, method, `${API}${path}`, { headers, body });

  before(async () => {
    a = suite.addMerchant(await merchant(server));
    b = suite.addMerchant(await merchant(server));
  });

  it("reads a customer's preferences for every category, enabled by default", async () => {
    const c = await customer(server, a);
    const res = await send('GET', `/notification-preferences/customers/${c}`, a.headers);
    expect(res.status, res.text).to.equal(200);
    expect(res.json).to.include({ customerId: c, storeId: a.storeId });
    expect(res.json.preferences.map((p: any) => [p.category, p.enabled, p.explicit, p.locked, p.effective])).to.deep.equal([
      ['TRANSACTIONAL', true, false, true, true],
      ['ORDER_UPDATES', true, false, false, true],
      ['MARKETING', true, false, false, true],
      ['NEWSLETTER', true, false, false, true],
    ]);
  });

  it('sets one category (kebab or upper case), refuses turning TRANSACTIONAL off, and audits', async () => {
    const c = await customer(server, a);
    const res = await send('PUT', `/notification-preferences/customers/${c}/marketing`, a.headers, { enabled: false });
    expect(res.status, res.text).to.equal(200);
    expect(res.json.preferences.find((p: any) => p.category === 'MARKETING')).to.include({
      enabled: false,
      explicit: true,
      effective: false,
    });
    const kebab = await send('PUT', `/notification-preferences/customers/${c}/order-updates`, a.headers, { enabled: false });
    expect(kebab.json.preferences.find((p: any) => p.category === 'ORDER_UPDATES')).to.include({ enabled: false });
    expectProblem(
      await send('PUT', `/notification-preferences/customers/${c}/TRANSACTIONAL`, a.headers, { enabled: false }),
      409,
      'transactional_required',
    );
    expect((await send('PUT', `/notification-preferences/customers/${c}/TRANSACTIONAL`, a.headers, { enabled: true })).status).to.equal(
      200,
    );
    expectProblem(
      await send('PUT', `/notification-preferences/customers/${c}/sms_promos`, a.headers, { enabled: true }),
      404,
      'notification_category_unknown',
    );
    expectProblem(
      await send('PUT', `/notification-preferences/customers/${c}/marketing`, a.headers, { enabled: 'no' }),
      400,
      'validation_failed',
    );
    expectProblem(
      await send('PUT', `/notification-preferences/customers/${c}/marketing`, a.headers, { enabled: true, x: 1 }),
      400,
      'validation_failed',
    );
    expectProblem(
      await send('PUT', `/notification-preferences/customers/${c}/9bad`, a.headers, { enabled: true }),
      400,
      'validation_failed',
    );
    const audit = (await auditRows(server, a.owner.tenantId)).filter(
      (r) => r.action === 'notification_preference.update' && r.resource_id === c,
    );
    expect(audit.map((r) => r.after)).to.deep.equal([
      { category: 'MARKETING', enabled: false },
      { category: 'ORDER_UPDATES', enabled: false },
      { category: 'TRANSACTIONAL', enabled: true },
    ]);
  });

  it("answers 404 for another tenant's customer, or another store's for a store API key", async () => {
    const theirs = await customer(server, b);
    expectProblem(await send('GET', `/notification-preferences/customers/${theirs}`, a.headers), 404, 'customer_not_found');
    expectProblem(
      await send('PUT', `/notification-preferences/customers/${theirs}/marketing`, a.headers, { enabled: false }),
      404,
      'customer_not_found',
    );
    expectProblem(await send('GET', `/notification-preferences/customers/${uuidv7()}`, a.headers), 404, 'customer_not_found');
    expect((await call(server, 'GET', `${API}/notification-preferences/customers/${theirs}`)).status).to.equal(401);
    const key = await apiKey(server, a, ['*']);
    const own = await customer(server, a);
    expect((await send('GET', `/notification-preferences/customers/${own}`, key)).status).to.equal(200);
  });

  it("sets the tenant's policies one at a time and in batches (all or none), and they show in customers' effective values", async () => {
    const m = suite.addMerchant(await merchant(server));
    const initial = await send('GET', '/tenant-notification-preferences/policies', m.headers);
    expect(initial.json.items.map((p: any) => [p.category, p.enabled, p.updatedAt])).to.deep.equal([
      ['TRANSACTIONAL', true, null],
      ['ORDER_UPDATES', true, null],
      ['MARKETING', true, null],
      ['NEWSLETTER', true, null],
    ]);
    const one = await send('PUT', '/tenant-notification-preferences/policies', m.headers, { category: 'NEWSLETTER', enabled: false });
    expect(one.status, one.text).to.equal(200);
    expect(one.json).to.include({ category: 'NEWSLETTER', enabled: false });
    expectProblem(
      await send('PUT', '/tenant-notification-preferences/policies', m.headers, { category: 'TRANSACTIONAL', enabled: false }),
      409,
      'transactional_required',
    );
    expectProblem(
      await send('PUT', '/tenant-notification-preferences/policies/batch', m.headers, {
        policies: [
          { category: 'MARKETING', enabled: false },
          { category: 'TRANSACTIONAL', enabled: false },
        ],
      }),
      409,
      'transactional_required',
    );
    const unchanged = await send('GET', '/tenant-notification-preferences/policies', m.headers);
    expect(unchanged.json.items.find((p: any) => p.category === 'MARKETING').enabled, 'all or none').to.equal(true);
    const batch = await send('PUT', '/tenant-notification-preferences/policies/batch', m.headers, {
      policies: [
        { category: 'MARKETING', enabled: false },
        { category: 'NEWSLETTER', enabled: true },
      ],
    });
    expect(batch.status, batch.text).to.equal(200);
    expect(batch.json.items.map((p: any) => [p.category, p.enabled])).to.deep.equal([
      ['TRANSACTIONAL', true],
      ['ORDER_UPDATES', true],
      ['MARKETING', false],
      ['NEWSLETTER', true],
    ]);
    for (const bad of [
      { policies: [] },
      {
        policies: [
          { category: 'MARKETING', enabled: true },
          { category: 'MARKETING', enabled: false },
        ],
      },
      { policies: [{ category: 'SPAM', enabled: true }] },
    ])
      expectProblem(await send('PUT', '/tenant-notification-preferences/policies/batch', m.headers, bad), 400, 'validation_failed');
    const c = await customer(server, m);
    const prefs = await send('GET', `/notification-preferences/customers/${c}`, m.headers);
    expect(prefs.json.preferences.find((p: any) => p.category === 'MARKETING')).to.include({
      enabled: true,
      tenantPolicyEnabled: false,
      effective: false,
    });
    // another tenant is untouched
    const other = await send('GET', '/tenant-notification-preferences/policies', b.headers);
    expect(other.json.items.every((p: any) => p.enabled)).to.equal(true);
    const audit = (await auditRows(server, m.owner.tenantId)).filter((r) => r.action === 'notification_policy.upsert');
    expect(audit).to.have.length(3);
  });

  it("reads and sets the tenant's digest: frequency, hour and an IANA time zone", async () => {
    const m = suite.addMerchant(await merchant(server));
    const initial = await send('GET', '/tenant-notification-preferences/digest', m.headers);
    expect(initial.json).to.deep.equal({ frequency: 'OFF', hour: 8, timeZone: 'UTC', lastPeriod: null, updatedAt: null });
    const set = await send('PUT', '/tenant-notification-preferences/digest', m.headers, {
      frequency: 'WEEKLY',
      hour: 23,
      timeZone: 'Europe/Istanbul',
    });
    expect(set.status, set.text).to.equal(200);
    expect(set.json).to.include({ frequency: 'WEEKLY', hour: 23, timeZone: 'Europe/Istanbul', lastPeriod: null });
    expect((await send('GET', '/tenant-notification-preferences/digest', m.headers)).json).to.deep.equal(set.json);
    expectProblem(
      await send('PUT', '/tenant-notification-preferences/digest', m.headers, { frequency: 'DAILY', hour: 8, timeZone: 'Mars/Olympus' }),
      400,
      'time_zone_unknown',
    );
    for (const bad of [
      { frequency: 'HOURLY', hour: 8, timeZone: 'UTC' },
      { frequency: 'DAILY', hour: 24, timeZone: 'UTC' },
      { frequency: 'DAILY', hour: -1, timeZone: 'UTC' },
      { frequency: 'DAILY', hour: 8 },
    ])
      expectProblem(await send('PUT', '/tenant-notification-preferences/digest', m.headers, bad), 400, 'validation_failed');
    expect(
      (await send('PUT', '/tenant-notification-preferences/digest', m.headers, { frequency: 'DAILY', hour: 0, timeZone: 'UTC' })).status,
    ).to.equal(200);
    expect((await send('GET', '/tenant-notification-preferences/digest', b.headers)).json.frequency).to.equal('OFF');
    const audit = (await auditRows(server, m.owner.tenantId)).filter((r) => r.action === 'notification_digest.upsert');
    expect(audit.map((r) => r.after.frequency)).to.deep.equal(['WEEKLY', 'DAILY']);
  });
});
