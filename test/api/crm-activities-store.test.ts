/**
 * The CRM beyond the lead itself: activities (create, list, complete one and many, assign to me),
 * the lead's store (link, unlink, read, invitation e-mail with a single-use token, activation from a
 * real store's onboarding), plan payment requests (recorded, never charged) and the public demo
 * request (validation, de-duplication, the per-address rate limit with Retry-After).
 */
import { expect } from 'chai';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { emailedToken, expectProblem, lastMessage, startIsolatedServer, uniqueEmail, platformStaff, type Staff } from '../helpers/accounts';
import { apiKey, merchant } from '../helpers/fixtures';
import { uuidv7 } from '../../storage/ids';
import { sha256 } from '../../api/auth/secrets';
import { DEMO_REQUEST_LIMIT } from '../../api/crm/demo-request.service';

const API = '/api/v1';

describe('CRM activities, store and payments', function () {
  this.timeout(60_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  let rep: Staff;
  let other: Staff;

  before(async () => {
    rep = await platformStaff(server, 'sales_rep');
    other = await platformStaff(server, 'platform_admin');
  });

  const db = (sql: string, params: unknown[] = []): Promise<any[]> => server.runtime.dataSource.query(sql, params);
  const get = (path: string, as: Staff = rep): Promise<TestResponse> => call(server, 'GET', `${API}${path}`, { headers: as.headers });
  const send = (method: string, path: string, body?: unknown, as: Staff = rep): Promise<TestResponse> =>
    call(server, method, `${API}${path}`, { headers: as.headers, body });
  async function lead(body: Record<string, unknown> = {}): Promise<Record<string, any>> {
    const res = await send('POST', '/crm/leads', { companyName: 'Globex', source: 'REFERRAL', ...body });
    expect(res.status, res.text).to.equal(201);
    return res.json;
  }

  describe('activities', () => {
    it('creates, lists (paged, newest first), completes one (201, idempotent) and many, and assigns to me', async () => {
      const l = await lead();
      const created = [];
      for (const type of ['CALL', 'EMAIL', 'MEETING', 'TASK']) {
        const res = await send('POST', '/crm/activities', { leadId: l.id, type, subject: `${type} one`, dueAt: '2099-01-01T00:00:00Z' });
        expect(res.status, res.text).to.equal(201);
        expect(res.json).to.deep.include({ leadId: l.id, type, assigneeUserId: rep.userId, createdBy: rep.userId, completedAt: null });
        created.push(res.json);
      }
      const page = await get(`/crm/activities?leadId=${l.id}&limit=3`);
      expect(page.json.items.map((a: { id: string }) => a.id)).to.deep.equal([created[3].id, created[2].id, created[1].id]);
      const rest = await get(`/crm/activities?leadId=${l.id}&limit=3&cursor=${page.json.nextCursor}`);
      expect(rest.json).to.deep.equal({ items: [created[0]], nextCursor: null });

      const done = await send('POST', `/crm/activities/${created[0].id}/complete`, undefined, other);
      expect(done.status, done.text).to.equal(201);
      expect(done.json).to.deep.include({ completedBy: other.userId });
      const again = await send('POST', `/crm/activities/${created[0].id}/complete`);
      expect(again.status).to.equal(201);
      expect(again.json.completedAt).to.equal(done.json.completedAt);
      expect(again.json.completedBy).to.equal(other.userId);

      const many = await send('POST', '/crm/activities/complete', { ids: [created[0].id, created[1].id, created[2].id] });
      expect(many.json).to.deep.equal({ count: 2, ids: [created[1].id, created[2].id] });
      const refused = await send('POST', '/crm/activities/complete', { ids: [created[3].id, uuidv7()] });
      expectProblem(refused, 404, 'activity_not_found');
      expect(refused.json.errors[0].path).to.equal('body.ids[1]');
      expect((await get(`/crm/activities?leadId=${l.id}`)).json.items[0].completedAt).to.equal(null);

      const assigned = await send('POST', '/crm/activities/assign-to-me', { ids: [created[3].id, created[2].id] }, other);
      expect(assigned.json.count).to.equal(2);
      const [row] = await db('SELECT assignee_user_id FROM lead_activities WHERE id = $1', [created[3].id]);
      expect(row.assignee_user_id).to.equal(other.userId);
      const audit = await db("SELECT action FROM audit_log WHERE resource_type = 'lead_activity' AND resource_id = $1 ORDER BY id", [
        created[2].id,
      ]);
      expect(audit.map((a) => a.action)).to.deep.equal(['lead_activity.create', 'lead_activity.complete', 'lead_activity.assign']);
      expectProblem(await send('POST', `/crm/activities/${uuidv7()}/complete`), 404, 'activity_not_found');
    });

    it('needs leadId on the list, checks bounds and input', async () => {
      expectProblem(await get('/crm/activities'), 400, 'validation_failed');
      expectProblem(await get('/crm/activities?leadId=nope'), 400, 'validation_failed');
      expectProblem(await get(`/crm/activities?leadId=${uuidv7()}`), 404, 'lead_not_found');
      const l = await lead();
      for (const q of ['limit=0', 'limit=101', 'cursor=x'])
        expectProblem(await get(`/crm/activities?leadId=${l.id}&${q}`), 400, 'validation_failed');
      for (const body of [
        { leadId: l.id, type: 'VISIT', subject: 'x' },
        { leadId: l.id, type: 'CALL', subject: '' },
        { leadId: l.id, type: 'CALL', subject: 'x'.repeat(201) },
        { leadId: l.id, type: 'CALL', subject: 'x', extra: true },
        { type: 'CALL', subject: 'x' },
      ])
        expectProblem(await send('POST', '/crm/activities', body), 400, 'validation_failed');
      expectProblem(await send('POST', '/crm/activities', { leadId: uuidv7(), type: 'CALL', subject: 'x' }), 404, 'lead_not_found');
      expectProblem(
        await send('POST', '/crm/activities', { leadId: l.id, type: 'CALL', subject: 'x', assigneeUserId: uuidv7() }),
        404,
        'sales_user_not_found',
      );
    });
  });

  describe("the lead's store", () => {
    it('links an existing store, reads it, refuses a second link either way, and unlinks', async () => {
      const m = suite.addMerchant(await merchant(server));
      const l = await lead();
      expectProblem(await get(`/crm/leads/${l.id}/store`), 404, 'lead_store_not_linked');
      expectProblem(await send('DELETE', `/crm/leads/${l.id}/store-link`), 404, 'lead_store_not_linked');
      expectProblem(await send('POST', `/crm/leads/${l.id}/store-link`, { storeId: uuidv7() }), 404, 'store_not_found');
      const linked = await send('POST', `/crm/leads/${l.id}/store-link`, { storeId: m.storeId });
      expect(linked.status, linked.text).to.equal(200);
      expect(linked.json).to.deep.include({ leadId: l.id, storeId: m.storeId, tenantId: m.owner.tenantId, status: 'active', name: 'Shop' });
      expect((await get(`/crm/leads/${l.id}/store`)).json).to.deep.equal(linked.json);
      expect((await get(`/crm/leads/${l.id}`)).json.storeId).to.equal(m.storeId);
      expect((await send('POST', `/crm/leads/${l.id}/store-link`, { storeId: m.storeId })).status).to.equal(200);
      const m2 = suite.addMerchant(await merchant(server));
      expectProblem(await send('POST', `/crm/leads/${l.id}/store-link`, { storeId: m2.storeId }), 409, 'lead_store_already_linked');
      const l2 = await lead();
      expectProblem(await send('POST', `/crm/leads/${l2.id}/store-link`, { storeId: m.storeId }), 409, 'store_linked_to_other_lead');
      expect((await send('DELETE', `/crm/leads/${l.id}/store-link`)).status).to.equal(204);
      expectProblem(await get(`/crm/leads/${l.id}/store`), 404, 'lead_store_not_linked');
      expect((await send('POST', `/crm/leads/${l2.id}/store-link`, { storeId: m.storeId })).status).to.equal(200);
      expectProblem(await send('POST', `/crm/leads/${l.id}/store-link`, {}), 400, 'validation_failed');
      const history = await get(`/crm/leads/${l.id}/history`);
      expect(history.json.items.map((i: { action: string }) => i.action)).to.deep.equal([
        'lead.create',
        'lead.store_link',
        'lead.store_unlink',
      ]);
    });

    it('e-mails a store invitation with a single-use expiring token; needs a contact e-mail and no store', async () => {
      const noEmail = await lead();
      expectProblem(await send('POST', `/crm/leads/${noEmail.id}/store-invitation`), 409, 'lead_contact_email_missing');
      const email = uniqueEmail('prospect');
      const l = await lead({ contactEmail: email, contactName: 'Pat' });
      const sent = await send('POST', `/crm/leads/${l.id}/store-invitation`);
      expect(sent.status, sent.text).to.equal(200);
      expect(sent.json.sentTo).to.equal(email);
      const expires = new Date(sent.json.expiresAt).getTime();
      expect(expires - Date.now()).to.be.within(7 * 86400_000 - 60_000, 7 * 86400_000 + 1000);
      const token = await emailedToken(server, email, 'crm_store_invitation');
      const message = await lastMessage(server, email, 'crm_store_invitation');
      expect(message!.body).to.include('Hello Pat');
      const [row] = await db(
        "SELECT data, used_at, expires_at FROM one_time_tokens WHERE purpose = 'lead_store_invitation' AND token_hash = $1",
        [sha256(token)],
      );
      expect(row.data).to.deep.equal({ leadId: l.id, email });
      expect(row.used_at).to.equal(null);
      // Sending again retires the first token.
      await send('POST', `/crm/leads/${l.id}/store-invitation`);
      const second = await emailedToken(server, email, 'crm_store_invitation');
      expect(second).to.not.equal(token);
      const [retired] = await db("SELECT used_at FROM one_time_tokens WHERE purpose = 'lead_store_invitation' AND token_hash = $1", [
        sha256(token),
      ]);
      expect(retired.used_at).to.not.equal(null);
      const m = suite.addMerchant(await merchant(server));
      await send('POST', `/crm/leads/${l.id}/store-link`, { storeId: m.storeId });
      expectProblem(await send('POST', `/crm/leads/${l.id}/store-invitation`), 409, 'lead_store_already_linked');
    });

    it("activation follows the linked store's real onboarding status", async () => {
      const m = suite.addMerchant(await merchant(server));
      const l = await lead();
      expectProblem(await get(`/crm/leads/${l.id}/activation`), 404, 'lead_store_not_linked');
      await send('POST', `/crm/leads/${l.id}/store-link`, { storeId: m.storeId });
      const own = await call(server, 'GET', `${API}/organization/onboarding-status`, { headers: m.headers });
      const first = await get(`/crm/leads/${l.id}/activation`);
      expect(first.status, first.text).to.equal(200);
      expect(first.json).to.deep.include({ leadId: l.id, storeId: m.storeId, storeStatus: 'active', activated: false });
      expect(first.json.steps).to.deep.equal(own.json.steps);
      expect(first.json.completed).to.equal(own.json.completed);
      expect(first.json.total).to.equal(5);
      expect(first.json.percentage).to.equal(Math.floor((own.json.completed * 100) / 5));
      const before = first.json.completed;
      expect(first.json.steps.find((s: { key: string }) => s.key === 'api_key_created').done).to.equal(false);
      await apiKey(server, m, ['*']);
      const after = await get(`/crm/leads/${l.id}/activation`);
      expect(after.json.completed).to.equal(before + 1);
      expect(after.json.steps.find((s: { key: string }) => s.key === 'api_key_created').done).to.equal(true);
      expect(after.json.percentage).to.equal(Math.floor(((before + 1) * 100) / 5));
    });
  });

  describe('plan payment requests', () => {
    it('records a bank transfer request (REQUESTED, with a reference) and sends nothing', async () => {
      const l = await lead({ currency: 'EUR' });
      const res = await send('POST', `/crm/leads/${l.id}/bank-transfer`, { plan: 'Growth', amount: 1499.9 });
      expect(res.status, res.text).to.equal(201);
      expect(res.json).to.deep.include({
        leadId: l.id,
        kind: 'BANK_TRANSFER',
        plan: 'Growth',
        amount: 1499.9,
        currency: 'EUR',
        status: 'REQUESTED',
        sentTo: null,
        payUrl: null,
      });
      expect(res.json.reference).to.match(/^CRM-[A-Z2-9]{10}$/);
      const [row] = await db('SELECT amount::text, currency, status FROM lead_plan_requests WHERE id = $1', [res.json.id]);
      expect(row).to.deep.equal({ amount: '1499.90', currency: 'EUR', status: 'REQUESTED' });
      for (const body of [
        { plan: 'Growth', amount: 0 },
        { plan: 'Growth', amount: 1.001 },
        { plan: '', amount: 1 },
        { plan: 'G', amount: 1, iban: 'x' },
      ])
        expectProblem(await send('POST', `/crm/leads/${l.id}/bank-transfer`, body), 400, 'validation_failed');
      expectProblem(await send('POST', `/crm/leads/${uuidv7()}/bank-transfer`, { plan: 'G', amount: 1 }), 404, 'lead_not_found');
    });

    it('e-mails a payment link to the contact (or the given address) that points at the not-yet-payable page', async () => {
      const noEmail = await lead();
      expectProblem(
        await send('POST', `/crm/leads/${noEmail.id}/payment-link`, { plan: 'Pro', amount: 10 }),
        409,
        'lead_contact_email_missing',
      );
      const email = uniqueEmail('buyer');
      const l = await lead({ contactEmail: email });
      const res = await send('POST', `/crm/leads/${l.id}/payment-link`, { plan: 'Pro', amount: 99.5, currency: 'USD' });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.deep.include({ kind: 'PAYMENT_LINK', amount: 99.5, currency: 'USD', status: 'REQUESTED', sentTo: email });
      expect(res.json.payUrl).to.equal(`${server.runtime.config.publicBaseUrl}/billing/pay/${res.json.reference}`);
      const message = await lastMessage(server, email, 'crm_payment_link');
      expect(message!.body).to.include(res.json.payUrl);
      expect(message!.body).to.include('99.5 USD');
      expect(message!.body).to.include('not open yet');
      const other = uniqueEmail('finance');
      const toOther = await send('POST', `/crm/leads/${noEmail.id}/payment-link`, { plan: 'Pro', amount: 10, email: other });
      expect(toOther.json.sentTo).to.equal(other);
      expect(await lastMessage(server, other, 'crm_payment_link')).to.not.equal(undefined);
    });
  });
});

describe('CRM demo request', function () {
  this.timeout(60_000);
  let server: TestServer;
  // A rate limiter of this file's own: the per-address counts start at zero.
  apiSuite((started) => (server = started), { start: () => startIsolatedServer() });
  const demo = (body: Record<string, unknown>) => call(server, 'POST', `${API}/crm/demo-request`, { body });
  const leadsOf = (email: string): Promise<any[]> =>
    server.runtime.dataSource.query(
      'SELECT id, stage, source, company_name, contact_name, notes, expected_plan, contact_phone FROM leads WHERE contact_email = $1',
      [email],
    );

  it('records a NEW DEMO_REQUEST lead, folds a repeat within 24 hours into it, refuses junk, then limits per address', async () => {
    const email = uniqueEmail('demo');
    const first = await demo({
      company: 'Initech',
      name: 'Bill',
      email: email.toUpperCase(),
      phone: '+1 555 0100',
      message: 'Show me search',
      planInterest: 'Pro',
    });
    expect(first.status, first.text).to.equal(202);
    expect(first.json).to.deep.equal({ accepted: true });
    let rows = await leadsOf(email);
    expect(rows).to.have.length(1);
    expect(rows[0]).to.deep.include({
      stage: 'NEW',
      source: 'DEMO_REQUEST',
      company_name: 'Initech',
      contact_name: 'Bill',
      notes: 'Show me search',
      expected_plan: 'Pro',
      contact_phone: '+1 555 0100',
    });
    const repeat = await demo({ company: 'Initech', name: 'Bill', email, message: 'And the CRM' });
    expect(repeat.status).to.equal(202);
    rows = await leadsOf(email);
    expect(rows).to.have.length(1);
    expect(rows[0].notes).to.equal('Show me search\n\nAnd the CRM');
    // Older than 24 hours: a new lead.
    await server.runtime.dataSource.query("UPDATE leads SET created_at = now() - interval '25 hours' WHERE id = $1", [rows[0].id]);
    await demo({ company: 'Initech', name: 'Bill', email });
    expect(await leadsOf(email)).to.have.length(2);

    for (const junk of [
      {},
      { company: 'A', name: 'B', email: 'not-an-email' },
      { company: 'A', name: 'B', email: 'a@b' },
      { company: '', name: 'B', email },
      { company: 'A', name: 'B', email, message: 'x'.repeat(2001) },
      { company: 'A', name: 'B', email, phone: 'call me' },
      { company: 'A', name: 'B', email, source: 'WEBSITE' },
      { company: 'A\u0000', name: 'B', email },
    ])
      expectProblem(await demo(junk), 400, 'validation_failed');
    expect(await leadsOf(email)).to.have.length(2);

    // Three counted so far; the limit allows DEMO_REQUEST_LIMIT.limit an hour.
    for (let i = 3; i < DEMO_REQUEST_LIMIT.limit; i += 1)
      expect((await demo({ company: 'C', name: 'N', email: uniqueEmail('demo') })).status).to.equal(202);
    const over = uniqueEmail('demo');
    const limited = await demo({ company: 'C', name: 'N', email: over });
    expectProblem(limited, 429, 'rate_limited');
    expect(Number(limited.headers.get('retry-after'))).to.be.within(1, DEMO_REQUEST_LIMIT.windowSeconds);
    expect(await leadsOf(over)).to.have.length(0);
  });
});
