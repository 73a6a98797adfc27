/**
 * Support tickets: who may call each row (anonymous, merchant, API key, sales_rep, support_agent,
 * platform_admin), tenant isolation and internal notes, the status transition table, SLA due times
 * and breaches with the desk's clock, notifications and e-mail to the merchant, assign-to-me and the
 * bulk update (one bad ticket never blocks the batch), stats, workload and the CSV export.
 */
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem } from '../helpers/accounts';
import { apiKey, type Merchant } from '../helpers/fixtures';
import { uuidv7 } from '../../storage/ids';
import { HOUR, supportHelpers, TICKETS, type Staff } from './support.helpers';

describe('support tickets', function () {
  this.timeout(120_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  const h = supportHelpers(() => server, suite);
  let agent: Staff;
  let admin: Staff;
  let sales: Staff;
  let a: Merchant;
  let b: Merchant;

  before(async () => {
    agent = await h.staff('support_agent');
    admin = await h.staff('platform_admin');
    sales = await h.staff('sales_rep');
    a = await h.newMerchant();
    b = await h.newMerchant();
  });
  afterEach(() => h.moveClock(0));

  const notifications = (tenantId: string): Promise<any[]> =>
    h.db('SELECT topic, title, body, dedupe_key FROM merchant_notifications WHERE tenant_id = $1 ORDER BY created_at, id', [tenantId]);
  const emails = (tenantId: string): Promise<any[]> =>
    h.db(
      "SELECT recipient, template, subject, body FROM outbound_messages WHERE tenant_id = $1 AND template LIKE 'support.%' ORDER BY id",
      [tenantId],
    );

  describe('access', () => {
    it('enforces the declared requirement on every row', async () => {
      const ticket = await h.submit(a);
      const id = ticket.id as string;
      const rows: Array<[method: string, path: string, body?: unknown]> = [
        ['POST', '/api/v1/support/platform-tickets', { tenantId: a.owner.tenantId, subject: 's', body: 'b' }],
        ['GET', `${TICKETS}/stats`],
        ['GET', `${TICKETS}/workload`],
        ['GET', `${TICKETS}/export`],
        ['PATCH', `${TICKETS}/${id}`, { priority: 'HIGH' }],
        ['POST', `${TICKETS}/assign-to-me`, { ids: [id] }],
        ['POST', `${TICKETS}/bulk-update`, { ids: [id], priority: 'LOW' }],
      ];
      for (const [method, path, body] of rows) {
        expectProblem(await call(server, method, path, { body }), 401, 'unauthorized');
        expectProblem(await call(server, method, path, { headers: a.headers, body }), 403, 'forbidden');
        expectProblem(await call(server, method, path, { headers: sales.headers, body }), 403, 'platform_role_required');
      }
      // Shared rows: anonymous 401; a tenantless sales rep 403; merchants and support staff pass.
      const shared: Array<[method: string, path: string, body?: unknown, status?: number]> = [
        ['GET', TICKETS, undefined, 200],
        ['GET', `${TICKETS}/${id}`, undefined, 200],
        ['POST', `${TICKETS}/${id}/reply`, { body: 'hello' }, 201],
      ];
      for (const [method, path, body, status] of shared) {
        expectProblem(await call(server, method, path, { body }), 401, 'unauthorized');
        expectProblem(await call(server, method, path, { headers: sales.headers, body }), 403, 'platform_role_required');
        for (const who of [a, agent, admin]) {
          const res = await call(server, method, path, { headers: who.headers, body });
          expect(res.status, `${method} ${path}: ${res.text}`).to.equal(status);
        }
      }
      // Submitting is for merchants: staff without a tenant are refused, anonymous is 401.
      expectProblem(await call(server, 'POST', TICKETS, { body: { subject: 's', body: 'b' } }), 401, 'unauthorized');
      expectProblem(await call(server, 'POST', TICKETS, { headers: agent.headers, body: { subject: 's', body: 'b' } }), 403, 'forbidden');
      // Platform rows answer the support staff.
      for (const who of [agent, admin]) {
        const res = await call(server, 'GET', `${TICKETS}/workload`, { headers: who.headers });
        expect(res.status, res.text).to.equal(200);
      }
    });

    it('lets an API key with support scopes submit and read its own store only', async () => {
      const key = await apiKey(server, a, ['support:read', 'support:write']);
      const ticket = await h.submit({ headers: key }, { subject: 'From the key' });
      expect(ticket.storeId).to.equal(a.storeId);
      expect((await h.get({ headers: key }, ticket.id)).status).to.equal(200);
      const memberTicket = await h.submit(a, { subject: 'No store' });
      expect(memberTicket.storeId).to.equal(null);
      expectProblem(await h.get({ headers: key }, memberTicket.id), 404, 'ticket_not_found');
      const readOnly = await apiKey(server, a, ['support:read']);
      expectProblem(
        await call(server, 'POST', TICKETS, { headers: readOnly, body: { subject: 's', body: 'b' } }),
        403,
        'insufficient_scope',
      );
      expectProblem(await call(server, 'GET', `${TICKETS}/workload`, { headers: key }), 403, 'api_key_not_allowed');
    });
  });

  describe('tenant isolation and internal notes', () => {
    it("answers 404 for another tenant's ticket and never shows it in lists", async () => {
      const word = `iso${uuidv7().slice(-8)}`;
      const ticket = await h.submit(a, { subject: `Isolated ${word}` });
      expectProblem(await h.get(b, ticket.id), 404, 'ticket_not_found');
      expectProblem(await h.reply(b, ticket.id, { body: 'not mine' }), 404, 'ticket_not_found');
      const listed = await h.list(b, `q=${word}`);
      expect(listed.json.items).to.deep.equal([]);
      expect((await h.list(a, `q=${word}`)).json.items.map((t: any) => t.id)).to.deep.equal([ticket.id]);
      expect((await h.list(agent, `q=${word}`)).json.items.map((t: any) => t.id)).to.deep.equal([ticket.id]);
      // A cursor naming another tenant's ticket is no cursor of this list.
      expectProblem(await h.list(b, `cursor=${ticket.id}`), 400, 'validation_failed');
    });

    it('keeps internal notes from the merchant: read, counts, search and notifications', async () => {
      const m = await h.newMerchant();
      const secret = `secret${uuidv7().slice(-8)}`;
      const ticket = await h.submit(m);
      const note = await h.reply(agent, ticket.id, { body: `Internal ${secret}`, internal: true });
      expect(note.status, note.text).to.equal(201);
      expect(note.json.message).to.include({ internal: true, authorKind: 'STAFF' });
      expect(note.json.ticket.firstRespondedAt).to.equal(null);
      const merchantView = (await h.get(m, ticket.id)).json;
      expect(merchantView.messages).to.have.length(1);
      expect(JSON.stringify(merchantView)).not.to.include(secret);
      expect(merchantView.messageCount).to.equal(1);
      const staffView = (await h.get(agent, ticket.id)).json;
      expect(staffView.messages).to.have.length(2);
      expect(staffView.messageCount).to.equal(2);
      expect((await h.list(m, 'limit=200')).json.items.find((t: any) => t.id === ticket.id).messageCount).to.equal(1);
      expect((await h.list(m, `q=${secret}`)).json.items).to.deep.equal([]);
      expect(await notifications(m.owner.tenantId)).to.deep.equal([]);
      expect(await emails(m.owner.tenantId)).to.deep.equal([]);
      expectProblem(await h.reply(m, ticket.id, { body: 'me too', internal: true }), 400, 'validation_failed');
    });
  });

  describe('replies and notifications', () => {
    it('tells the merchant about a public staff reply once, in-app and by e-mail, and sets the first response', async () => {
      const m = await h.newMerchant();
      const ticket = await h.submit(m, { contactEmail: 'ops@merchant.test' });
      expect(ticket.requesterEmail).to.equal('ops@merchant.test');
      const res = await h.reply(agent, ticket.id, { body: 'We are on it' });
      expect(res.status, res.text).to.equal(201);
      expect(res.json.ticket.firstRespondedAt).to.be.a('string');
      const first = res.json.ticket.firstRespondedAt;
      await h.reply(admin, ticket.id, { body: 'Still on it' });
      expect((await h.get(m, ticket.id)).json.firstRespondedAt).to.equal(first);
      const notes = await notifications(m.owner.tenantId);
      expect(notes.map((n) => n.topic)).to.deep.equal(['support.ticket_replied', 'support.ticket_replied']);
      expect(notes[0].body).to.equal('We are on it');
      const mails = await emails(m.owner.tenantId);
      expect(mails.map((e) => [e.recipient, e.template])).to.deep.equal([
        ['ops@merchant.test', 'support.ticket_replied'],
        ['ops@merchant.test', 'support.ticket_replied'],
      ]);
      // The merchant's own reply notifies nobody.
      await h.reply(m, ticket.id, { body: 'thanks' });
      expect(await notifications(m.owner.tenantId)).to.have.length(2);
    });

    it('moves WAITING_ON_CUSTOMER to IN_PROGRESS and RESOLVED to OPEN on a merchant reply', async () => {
      const ticket = await h.submit(a);
      expect((await h.patch(agent, ticket.id, { status: 'WAITING_ON_CUSTOMER' })).json.status).to.equal('WAITING_ON_CUSTOMER');
      expect((await h.reply(a, ticket.id, { body: 'here you go' })).json.ticket.status).to.equal('IN_PROGRESS');
      const resolved = (await h.patch(agent, ticket.id, { status: 'RESOLVED' })).json;
      expect(resolved.resolvedAt).to.be.a('string');
      const reopened = (await h.reply(a, ticket.id, { body: 'still broken' })).json.ticket;
      expect(reopened).to.include({ status: 'OPEN', resolvedAt: null });
    });

    it('opens a platform ticket toward a merchant and notifies its owner', async () => {
      const m = await h.newMerchant();
      const res = await call(server, 'POST', '/api/v1/support/platform-tickets', {
        headers: agent.headers,
        body: {
          tenantId: m.owner.tenantId,
          storeId: m.storeId,
          subject: 'Your payouts',
          body: 'Please verify your bank',
          priority: 'HIGH',
        },
      });
      expect(res.status, res.text).to.equal(201);
      expect(res.json).to.include({
        audience: 'PLATFORM',
        status: 'OPEN',
        priority: 'HIGH',
        requesterEmail: m.owner.email,
        storeId: m.storeId,
      });
      expect(res.json.firstRespondedAt).to.equal(res.json.createdAt);
      expect(res.json.messages.map((x: any) => x.authorKind)).to.deep.equal(['STAFF']);
      expect((await notifications(m.owner.tenantId)).map((n) => n.topic)).to.deep.equal(['support.ticket_opened']);
      expect((await emails(m.owner.tenantId)).map((e) => e.recipient)).to.deep.equal([m.owner.email]);
      expect((await h.get(m, res.json.id)).status).to.equal(200);
      // Another tenant's store, an unknown tenant, an assignee who is no support staff.
      const base = { subject: 's', body: 'b' };
      const open = (body: Record<string, unknown>) =>
        call(server, 'POST', '/api/v1/support/platform-tickets', { headers: agent.headers, body });
      expectProblem(await open({ ...base, tenantId: m.owner.tenantId, storeId: a.storeId }), 404, 'store_not_found');
      expectProblem(await open({ ...base, tenantId: uuidv7() }), 404, 'tenant_not_found');
      expectProblem(await open({ ...base, tenantId: m.owner.tenantId, assigneeId: sales.userId }), 400, 'ticket_assignee_invalid');
    });
  });

  describe('status transitions', () => {
    const allowed: Array<[string, string[]]> = [
      ['OPEN', ['IN_PROGRESS']],
      ['IN_PROGRESS', ['IN_PROGRESS', 'OPEN']],
      ['OPEN', ['WAITING_ON_CUSTOMER', 'IN_PROGRESS', 'WAITING_ON_CUSTOMER', 'RESOLVED', 'OPEN', 'RESOLVED', 'CLOSED']],
      ['OPEN', ['CLOSED']],
    ];
    for (const [from, path] of allowed)
      it(`allows ${from === path[0] ? '' : `${from} → `}${path.join(' → ')}`, async () => {
        const ticket = await h.submit(a);
        for (const status of path) {
          const res = await h.patch(agent, ticket.id, { status });
          expect(res.status, res.text).to.equal(200);
          expect(res.json.status).to.equal(status);
        }
      });

    it('refuses moves outside the table with 409 and changes nothing', async () => {
      const ticket = await h.submit(a);
      await h.patch(agent, ticket.id, { status: 'WAITING_ON_CUSTOMER' });
      const refused = await h.patch(agent, ticket.id, { status: 'OPEN', priority: 'URGENT' });
      expectProblem(refused, 409, 'ticket_status_transition_refused');
      const after = (await h.get(agent, ticket.id)).json;
      expect(after).to.include({ status: 'WAITING_ON_CUSTOMER', priority: 'NORMAL' });
      await h.patch(agent, ticket.id, { status: 'RESOLVED' });
      expectProblem(await h.patch(agent, ticket.id, { status: 'IN_PROGRESS' }), 409, 'ticket_status_transition_refused');
      await h.patch(agent, ticket.id, { status: 'CLOSED' });
      const closed = (await h.get(agent, ticket.id)).json;
      expect(closed.closedAt).to.be.a('string');
      for (const status of ['OPEN', 'RESOLVED', 'IN_PROGRESS'])
        expectProblem(await h.patch(agent, ticket.id, { status }), 409, 'ticket_closed');
      expectProblem(await h.patch(agent, ticket.id, { priority: 'LOW' }), 409, 'ticket_closed');
      expectProblem(await h.reply(a, ticket.id, { body: 'hello?' }), 409, 'ticket_closed');
      expectProblem(await h.reply(agent, ticket.id, { body: 'note', internal: true }), 409, 'ticket_closed');
      expect((await h.get(agent, ticket.id)).json.messages).to.have.length(1);
    });

    it('notifies the merchant when a ticket waits on them or is resolved, and audits every change', async () => {
      const m = await h.newMerchant();
      const ticket = await h.submit(m);
      await h.patch(agent, ticket.id, { status: 'IN_PROGRESS', assigneeId: agent.userId });
      await h.patch(agent, ticket.id, { status: 'WAITING_ON_CUSTOMER' });
      await h.reply(m, ticket.id, { body: 'info' });
      await h.patch(agent, ticket.id, { status: 'RESOLVED' });
      expect((await notifications(m.owner.tenantId)).map((n) => n.topic)).to.deep.equal([
        'support.ticket_status_changed',
        'support.ticket_status_changed',
      ]);
      expect(await emails(m.owner.tenantId)).to.have.length(2);
      const audit = await h.db('SELECT action, before, after FROM audit_log WHERE resource_id = $1 ORDER BY id', [ticket.id]);
      expect(audit.map((r) => r.action)).to.deep.equal([
        'support_ticket.create',
        'support_ticket.update',
        'support_ticket.update',
        'support_ticket.reply',
        'support_ticket.update',
      ]);
      expect(audit[1].after).to.deep.equal({ status: 'IN_PROGRESS', assigneeId: agent.userId });
      // A PATCH that changes nothing writes nothing.
      await h.patch(agent, ticket.id, { status: 'RESOLVED' });
      expect(await h.db('SELECT 1 FROM audit_log WHERE resource_id = $1', [ticket.id])).to.have.length(5);
    });

    it('checks the assignee is support staff', async () => {
      const ticket = await h.submit(a);
      expectProblem(await h.patch(agent, ticket.id, { assigneeId: sales.userId }), 400, 'ticket_assignee_invalid');
      expectProblem(await h.patch(agent, ticket.id, { assigneeId: a.owner.userId }), 400, 'ticket_assignee_invalid');
      expect((await h.patch(agent, ticket.id, { assigneeId: admin.userId })).json.assigneeId).to.equal(admin.userId);
      expect((await h.patch(agent, ticket.id, { assigneeId: null })).json.assigneeId).to.equal(null);
      expectProblem(await h.patch(agent, uuidv7(), { priority: 'LOW' }), 404, 'ticket_not_found');
      expectProblem(await h.patch(agent, ticket.id, {}), 400, 'validation_failed');
    });
  });

  describe('SLA with the desk clock', () => {
    it('computes due times per priority and turns AWAITING into BREACHED as time passes', async () => {
      const word = `sla${uuidv7().slice(-8)}`;
      const urgent = await h.submit(a, { subject: `Urgent ${word}`, priority: 'URGENT' });
      const low = await h.submit(a, { subject: `Low ${word}`, priority: 'LOW' });
      const created = Date.parse(urgent.createdAt);
      expect(Date.parse(urgent.firstResponseDueAt) - created).to.equal(1 * HOUR);
      expect(Date.parse(urgent.resolutionDueAt) - created).to.equal(8 * HOUR);
      expect(Date.parse(low.firstResponseDueAt) - Date.parse(low.createdAt)).to.equal(24 * HOUR);
      const ids = async (response: string) =>
        (await h.list(agent, `q=${word}&response=${response}&sort=priority-desc`)).json.items.map((t: any) => t.id);
      expect(await ids('AWAITING')).to.deep.equal([urgent.id, low.id]);
      expect(await ids('BREACHED')).to.deep.equal([]);
      // Within 2 hours: the urgent ticket's first response falls due; within 30: the low one too.
      const breachIds = async (hours: number) =>
        (await h.list(agent, `q=${word}&slaBreachHours=${hours}&sort=priority-desc`)).json.items.map((t: any) => t.id);
      expect(await breachIds(2)).to.deep.equal([urgent.id]);
      expect(await breachIds(30)).to.deep.equal([urgent.id, low.id]);

      h.moveClock(2 * HOUR);
      expect(await ids('AWAITING')).to.deep.equal([low.id]);
      expect(await ids('BREACHED')).to.deep.equal([urgent.id]);
      expect((await h.get(a, urgent.id)).json.slaBreached).to.equal(true);
      // A staff reply now is late: RESPONDED, and still BREACHED (the deadline was missed).
      const late = await h.reply(agent, urgent.id, { body: 'sorry' });
      expect(late.json.ticket.slaBreached).to.equal(true);
      expect(await ids('RESPONDED')).to.deep.equal([urgent.id]);
      expect(await ids('BREACHED')).to.deep.equal([urgent.id]);
      // An on-time reply to the low ticket: RESPONDED and not breached, until its resolution falls due.
      await h.reply(agent, low.id, { body: 'looking' });
      expect(await ids('AWAITING')).to.deep.equal([]);
      expect(await ids('RESPONDED')).to.deep.equal([urgent.id, low.id]);
      expect(await ids('BREACHED')).to.deep.equal([urgent.id]);
      h.moveClock(121 * HOUR);
      expect(await ids('BREACHED')).to.deep.equal([urgent.id, low.id]);
    });

    it('recomputes the due times when the priority changes', async () => {
      const ticket = await h.submit(a, { priority: 'LOW' });
      const changed = (await h.patch(agent, ticket.id, { priority: 'URGENT' })).json;
      expect(Date.parse(changed.firstResponseDueAt) - Date.parse(ticket.createdAt)).to.equal(HOUR);
      expect(Date.parse(changed.resolutionDueAt) - Date.parse(ticket.createdAt)).to.equal(8 * HOUR);
    });
  });

  describe('assign-to-me and bulk update', () => {
    it('assigns each ticket to the caller, reporting per ticket', async () => {
      const one = await h.submit(a);
      const two = await h.submit(b);
      const closed = await h.submit(a);
      await h.patch(agent, closed.id, { status: 'CLOSED' });
      const missing = uuidv7();
      const res = await call(server, 'POST', `${TICKETS}/assign-to-me`, {
        headers: agent.headers,
        body: { ids: [one.id, missing, closed.id, two.id] },
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.json.results.map((r: any) => [r.id, r.outcome, r.code])).to.deep.equal([
        [one.id, 'updated', null],
        [missing, 'not_found', 'ticket_not_found'],
        [closed.id, 'refused', 'ticket_closed'],
        [two.id, 'updated', null],
      ]);
      expect(res.json).to.include({ updated: 2, failed: 2 });
      expect(res.json.results[0].ticket.assigneeId).to.equal(agent.userId);
      const again = await call(server, 'POST', `${TICKETS}/assign-to-me`, { headers: agent.headers, body: { ids: [one.id] } });
      expect(again.json.results[0].outcome).to.equal('unchanged');
      expectProblem(
        await call(server, 'POST', `${TICKETS}/assign-to-me`, { headers: agent.headers, body: { ids: [] } }),
        400,
        'validation_failed',
      );
      expectProblem(
        await call(server, 'POST', `${TICKETS}/assign-to-me`, { headers: agent.headers, body: { ids: [one.id, one.id] } }),
        400,
        'validation_failed',
      );
    });

    it('applies a bulk update ticket by ticket; a refused one blocks nothing', async () => {
      const open = await h.submit(a);
      const waiting = await h.submit(a);
      await h.patch(agent, waiting.id, { status: 'WAITING_ON_CUSTOMER' });
      const resolved = await h.submit(b);
      await h.patch(agent, resolved.id, { status: 'RESOLVED' });
      const res = await call(server, 'POST', `${TICKETS}/bulk-update`, {
        headers: admin.headers,
        body: { ids: [open.id, resolved.id, waiting.id], status: 'IN_PROGRESS', priority: 'HIGH', assigneeId: agent.userId },
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.json.results.map((r: any) => [r.outcome, r.code])).to.deep.equal([
        ['updated', null],
        ['refused', 'ticket_status_transition_refused'],
        ['updated', null],
      ]);
      expect((await h.get(agent, open.id)).json).to.include({ status: 'IN_PROGRESS', priority: 'HIGH', assigneeId: agent.userId });
      expect((await h.get(agent, resolved.id)).json).to.include({ status: 'RESOLVED', priority: 'NORMAL', assigneeId: null });
      expectProblem(
        await call(server, 'POST', `${TICKETS}/bulk-update`, {
          headers: admin.headers,
          body: { ids: [open.id], assigneeId: sales.userId },
        }),
        400,
        'ticket_assignee_invalid',
      );
      expectProblem(
        await call(server, 'POST', `${TICKETS}/bulk-update`, { headers: admin.headers, body: { ids: [open.id] } }),
        400,
        'validation_failed',
      );
    });
  });

  describe('stats, workload and export', () => {
    it('counts workload per assignee', async () => {
      const mine = await h.staff('support_agent');
      const t1 = await h.submit(a, { priority: 'URGENT' });
      const t2 = await h.submit(a);
      const t3 = await h.submit(b);
      const t4 = await h.submit(b);
      await call(server, 'POST', `${TICKETS}/assign-to-me`, { headers: mine.headers, body: { ids: [t1.id, t2.id, t3.id, t4.id] } });
      await h.patch(agent, t2.id, { status: 'IN_PROGRESS' });
      await h.patch(agent, t3.id, { status: 'WAITING_ON_CUSTOMER' });
      await h.patch(agent, t4.id, { status: 'RESOLVED' });
      h.moveClock(2 * HOUR);
      const res = await call(server, 'GET', `${TICKETS}/workload`, { headers: agent.headers });
      expect(res.status, res.text).to.equal(200);
      const row = res.json.items.find((i: any) => i.assigneeId === mine.userId);
      expect(row).to.deep.include({ email: mine.email, open: 1, inProgress: 1, waitingOnCustomer: 1, total: 3, breached: 1 });
      expect(row.oldestOpenCreatedAt).to.equal(t1.createdAt);
      expect(res.json.items.some((i: any) => i.assigneeId === null)).to.equal(true);
    });

    it('reports created, resolved, open, response times and breaches', async () => {
      // The clock far ahead, at a day no other run of this test used: a window with only this run's tickets.
      const ahead = (10_000 + Math.floor(Math.random() * 400_000)) * 24 * HOUR;
      h.moveClock(ahead);
      const t1 = await h.submit(a, { priority: 'URGENT' });
      const t2 = await h.submit(a, { priority: 'LOW' });
      const t3 = await h.submit(b, { priority: 'HIGH' });
      h.moveClock(ahead + 30 * 60_000);
      await h.reply(agent, t1.id, { body: 'on it' });
      await h.patch(agent, t1.id, { status: 'RESOLVED' });
      h.moveClock(ahead + 90 * 60_000);
      await h.reply(agent, t2.id, { body: 'on it' });
      await h.patch(agent, t3.id, { status: 'IN_PROGRESS' });
      h.moveClock(ahead + 5 * HOUR);
      const res = await call(server, 'GET', `${TICKETS}/stats?periodDays=1`, { headers: admin.headers });
      expect(res.status, res.text).to.equal(200);
      const s = res.json;
      expect(s).to.include({ periodDays: 1, created: 3, resolved: 1 });
      expect(s.firstResponseMinutes.count).to.equal(2);
      expect(s.firstResponseMinutes.median).to.be.closeTo(60, 1);
      expect(s.firstResponseMinutes.average).to.be.closeTo(60, 1);
      expect(s.resolutionMinutes).to.deep.include({ count: 1 });
      expect(s.resolutionMinutes.median).to.be.closeTo(30, 1);
      // t3 (HIGH, 4 h) has no response after 5 h: breached; t2 was answered in time; t1 resolved in time.
      expect(s.breached.period).to.equal(1);
      expect(s.open.byStatus.IN_PROGRESS).to.be.at.least(1);
      expect(s.open.total).to.equal(Object.values(s.open.byStatus as Record<string, number>).reduce((x, y) => x + y, 0));
      expect(s.open.total).to.equal(Object.values(s.open.byPriority as Record<string, number>).reduce((x, y) => x + y, 0));
      expectProblem(await call(server, 'GET', `${TICKETS}/stats?periodDays=0`, { headers: admin.headers }), 400, 'validation_failed');
      expectProblem(await call(server, 'GET', `${TICKETS}/stats?periodDays=366`, { headers: admin.headers }), 400, 'validation_failed');
    });

    it('exports the filtered tickets as CSV with formula cells neutralised', async () => {
      const word = `csv${uuidv7().slice(-8)}`;
      const evil = await h.submit(a, { subject: `=cmd() ${word}`, priority: 'HIGH' });
      await h.submit(b, { subject: `plain ${word}`, priority: 'LOW' });
      const res = await call(server, 'GET', `${TICKETS}/export?q=${word}&priority=HIGH`, { headers: agent.headers });
      expect(res.status, res.text).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/csv/);
      expect(res.headers.get('content-disposition')).to.match(/^attachment; filename="support-tickets-\d{4}-\d{2}-\d{2}\.csv"$/);
      const lines = res.text.trimEnd().split('\r\n');
      expect(lines[0]).to.equal(
        'ticketNumber,id,tenantId,storeId,audience,status,priority,subject,requesterEmail,assigneeId,incidentId,messageCount,slaBreached,firstResponseDueAt,firstRespondedAt,resolutionDueAt,resolvedAt,closedAt,createdAt,updatedAt',
      );
      expect(lines).to.have.length(2);
      expect(lines[1]).to.include(evil.id);
      expect(lines[1]).to.include(`'=cmd() ${word}`);
      const all = await call(server, 'GET', `${TICKETS}/export?q=${word}`, { headers: agent.headers });
      expect(all.text.trimEnd().split('\r\n')).to.have.length(3);
      expectProblem(
        await call(server, 'GET', `${TICKETS}/export?sort=priority-desc`, { headers: agent.headers }),
        400,
        'validation_failed',
      );
    });
  });
});
