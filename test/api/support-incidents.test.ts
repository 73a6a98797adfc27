/**
 * Platform incidents: who may call each row, how an incident comes to exist (linking tickets to a
 * new one), what merchants see (only incidents linked to a ticket of theirs), and the idempotent
 * broadcast: each affected merchant gets one in-app notification and one e-mail per broadcast, a
 * retry with the same key notifies nobody twice, a later-affected merchant is reached on retry.
 */
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem } from '../helpers/accounts';
import { type Merchant } from '../helpers/fixtures';
import { uuidv7 } from '../../storage/ids';
import { INCIDENTS, supportHelpers, TICKETS, type Staff } from './support.helpers';

describe('support incidents', function () {
  this.timeout(120_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  const h = supportHelpers(() => server, suite);
  let agent: Staff;
  let admin: Staff;
  let sales: Staff;
  let a: Merchant;

  before(async () => {
    agent = await h.staff('support_agent');
    admin = await h.staff('platform_admin');
    sales = await h.staff('sales_rep');
    a = await h.newMerchant();
  });

  const link = (body: Record<string, unknown>, as: { headers: Record<string, string> } = agent) =>
    call(server, 'POST', `${TICKETS}/link-incident`, { headers: as.headers, body });
  const broadcast = (id: string, body: Record<string, unknown>, as: { headers: Record<string, string> } = agent) =>
    call(server, 'POST', `${INCIDENTS}/${id}/broadcast`, { headers: as.headers, body });
  const count = async (table: string, tenantId: string, extra = ''): Promise<number> =>
    Number((await h.db(`SELECT count(*) AS n FROM ${table} WHERE tenant_id = $1 ${extra}`, [tenantId]))[0].n);
  const incidentNotes = (m: Merchant) => count('merchant_notifications', m.owner.tenantId, "AND topic = 'support.incident_update'");
  const incidentMails = (m: Merchant) => count('outbound_messages', m.owner.tenantId, "AND template = 'support.incident_update'");

  async function newIncident(ticketIds: string[], title = 'Checkout outage'): Promise<Record<string, any>> {
    const res = await link({ ticketIds, incident: { title, severity: 'CRITICAL' } });
    expect(res.status, res.text).to.equal(200);
    return res.json;
  }

  it('creates an incident by linking tickets to a new one, and links more later', async () => {
    const t1 = await h.submit(a);
    const t2 = await h.submit(await h.newMerchant());
    const missing = uuidv7();
    const created = await newIncident([t1.id, missing]);
    expect(created).to.deep.include({ created: true, linked: [t1.id], alreadyLinked: [], notFound: [missing] });
    expect(created.incident).to.include({
      title: 'Checkout outage',
      severity: 'CRITICAL',
      status: 'INVESTIGATING',
      linkedTicketCount: 1,
      affectedMerchantCount: 1,
    });
    const more = await link({ ticketIds: [t1.id, t2.id], incidentId: created.incident.id });
    expect(more.json).to.deep.include({ created: false, linked: [t2.id], alreadyLinked: [t1.id], notFound: [] });
    expect(more.json.incident).to.include({ linkedTicketCount: 2, affectedMerchantCount: 2 });
    expect((await h.get(a, t1.id)).json.incidentId).to.equal(created.incident.id);
    expectProblem(await link({ ticketIds: [t1.id], incidentId: uuidv7() }), 404, 'incident_not_found');
    expectProblem(await link({ ticketIds: [t1.id] }), 400, 'validation_failed');
    expectProblem(await link({ ticketIds: [t1.id], incidentId: created.incident.id, incident: { title: 'x' } }), 400, 'validation_failed');
  });

  it('enforces roles on every row', async () => {
    const t = await h.submit(a);
    const { incident } = await newIncident([t.id]);
    for (const [method, path, body] of [
      ['POST', `${TICKETS}/link-incident`, { ticketIds: [t.id], incidentId: incident.id }],
      ['POST', `${INCIDENTS}/${incident.id}/broadcast`, { message: 'm' }],
    ] as const) {
      expectProblem(await call(server, method, path, { body }), 401, 'unauthorized');
      expectProblem(await call(server, method, path, { headers: a.headers, body }), 403, 'forbidden');
      expectProblem(await call(server, method, path, { headers: sales.headers, body }), 403, 'platform_role_required');
      expect((await call(server, method, path, { headers: admin.headers, body })).status).to.equal(200);
    }
    for (const path of [INCIDENTS, `${INCIDENTS}/${incident.id}`]) {
      expectProblem(await call(server, 'GET', path), 401, 'unauthorized');
      expectProblem(await call(server, 'GET', path, { headers: sales.headers }), 403, 'platform_role_required');
      for (const who of [a, agent, admin]) expect((await call(server, 'GET', path, { headers: who.headers })).status).to.equal(200);
    }
  });

  it('shows a merchant only the incidents that affect them', async () => {
    const m = await h.newMerchant();
    const other = await h.newMerchant();
    const mine = await newIncident([(await h.submit(m)).id, (await h.submit(other)).id], 'Mine');
    const theirs = await newIncident([(await h.submit(other)).id], 'Theirs');
    const listed = await call(server, 'GET', INCIDENTS, { headers: m.headers });
    expect(listed.json.items.map((i: any) => i.id)).to.deep.equal([mine.incident.id]);
    expect(listed.json.items[0]).to.include({ linkedTicketCount: 1, affectedMerchantCount: null });
    expectProblem(await call(server, 'GET', `${INCIDENTS}/${theirs.incident.id}`, { headers: m.headers }), 404, 'incident_not_found');
    const staffList = await call(server, 'GET', `${INCIDENTS}?limit=2`, { headers: agent.headers });
    expect(staffList.json.items.map((i: any) => i.id)).to.deep.equal([theirs.incident.id, mine.incident.id]);
    expect(staffList.json.nextCursor).to.equal(mine.incident.id);
    const next = await call(server, 'GET', `${INCIDENTS}?limit=2&cursor=${staffList.json.nextCursor}`, { headers: agent.headers });
    expect(next.json.items.map((i: any) => i.id)).not.to.include.members([theirs.incident.id, mine.incident.id]);
    expectProblem(await call(server, 'GET', `${INCIDENTS}?limit=201`, { headers: agent.headers }), 400, 'validation_failed');
  });

  it('broadcasts once per merchant; a retry with the key notifies nobody twice', async () => {
    const [a, b, c] = [await h.newMerchant(), await h.newMerchant(), await h.newMerchant()];
    const ta = await h.submit(a);
    const ta2 = await h.submit(a);
    const tb = await h.submit(b);
    const { incident } = await newIncident([ta.id, ta2.id, tb.id]);
    const body = { message: 'We identified the cause.', status: 'IDENTIFIED', idempotencyKey: `k-${uuidv7()}` };
    const first = await broadcast(incident.id, body);
    expect(first.status, first.text).to.equal(200);
    expect(first.json).to.include({ incidentId: incident.id, status: 'IDENTIFIED', replayed: false, notified: 2, alreadyNotified: 0 });
    for (const m of [a, b]) {
      expect(await incidentNotes(m)).to.equal(1);
      expect(await incidentMails(m)).to.equal(1);
    }
    const retry = await broadcast(incident.id, body);
    expect(retry.json).to.include({ updateId: first.json.updateId, replayed: true, notified: 0, alreadyNotified: 2 });
    for (const m of [a, b]) {
      expect(await incidentNotes(m)).to.equal(1);
      expect(await incidentMails(m)).to.equal(1);
    }
    // A merchant affected since is reached by the retry, the others are not reached again.
    await link({ ticketIds: [(await h.submit(c)).id], incidentId: incident.id });
    const later = await broadcast(incident.id, body);
    expect(later.json).to.include({ replayed: true, notified: 1, alreadyNotified: 2 });
    expect(await incidentNotes(c)).to.equal(1);
    expect(await incidentNotes(a)).to.equal(1);
    // Concurrent retries still notify once.
    const key2 = { message: 'Monitoring the fix.', status: 'MONITORING', idempotencyKey: `k-${uuidv7()}` };
    const racing = await Promise.all([broadcast(incident.id, key2), broadcast(incident.id, key2), broadcast(incident.id, key2)]);
    expect(racing.map((r) => r.status)).to.deep.equal([200, 200, 200]);
    expect(racing.map((r) => r.json.notified).reduce((x, y) => x + y, 0)).to.equal(3);
    expect(new Set(racing.map((r) => r.json.updateId)).size).to.equal(1);
    for (const m of [a, b, c]) expect(await incidentNotes(m)).to.equal(2);
    // The key with another message is refused; the incident and its updates are readable.
    expectProblem(await broadcast(incident.id, { ...body, message: 'other' }), 409, 'incident_broadcast_key_reused');
    const read = await call(server, 'GET', `${INCIDENTS}/${incident.id}`, { headers: a.headers });
    expect(read.json).to.include({ status: 'MONITORING', linkedTicketCount: 2 });
    expect(read.json.updates.map((u: any) => u.status)).to.deep.equal(['IDENTIFIED', 'MONITORING']);
    // Without a key each call is a new broadcast; resolving sets resolvedAt.
    const resolved = await broadcast(incident.id, { message: 'Resolved.', status: 'RESOLVED' });
    expect(resolved.json).to.include({ notified: 3, replayed: false });
    expect((await call(server, 'GET', `${INCIDENTS}/${incident.id}`, { headers: agent.headers })).json.resolvedAt).to.be.a('string');
    expectProblem(await broadcast(uuidv7(), { message: 'x' }), 404, 'incident_not_found');
    expectProblem(await broadcast(incident.id, { message: '' }), 400, 'validation_failed');
  });
});
