/**
 * The CRM's leads over HTTP: who may call every CRM row, the list filters and bounds, stage moves
 * (each family, a refused one, reopening a lost lead), the history from the audit log, assign and
 * transfer, and the reports (follow-up statistics, pipeline, overview, team, operations) on leads
 * of an owner made for the test, so other tests' leads do not disturb the numbers.
 */
import { expect } from 'chai';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { bearer, expectProblem, platformStaff, type Staff } from '../helpers/accounts';
import { merchant } from '../helpers/fixtures';
import { uuidv7 } from '../../storage/ids';
import { crmRoutes } from '../../api/crm/crm.routes';
import { LEAD_TRANSITIONS } from '../../api/crm/lead-stages';
import { LEAD_STAGES } from '../../api/crm/crm.schemas';

const API = '/api/v1';

describe('CRM leads', function () {
  this.timeout(60_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  let rep: Staff;
  let admin: Staff;

  before(async () => {
    rep = await platformStaff(server, 'sales_rep');
    admin = await platformStaff(server, 'platform_admin');
  });

  const db = (sql: string, params: unknown[] = []): Promise<any[]> => server.runtime.dataSource.query(sql, params);
  const get = (path: string, as: Staff = rep): Promise<TestResponse> => call(server, 'GET', `${API}${path}`, { headers: as.headers });
  const send = (method: string, path: string, body?: unknown, as: Staff = rep): Promise<TestResponse> =>
    call(server, method, `${API}${path}`, { headers: as.headers, body });

  async function lead(body: Record<string, unknown> = {}, as: Staff = rep): Promise<Record<string, any>> {
    const res = await send('POST', '/crm/leads', { companyName: 'Acme Ltd', source: 'OUTBOUND', ...body }, as);
    expect(res.status, res.text).to.equal(201);
    return res.json;
  }

  const move = (id: string, stage: string, extra: Record<string, unknown> = {}) => send('PATCH', `/crm/leads/${id}`, { stage, ...extra });

  describe('access', () => {
    const rows = crmRoutes.filter((r) => r.auth === 'platform');
    const pathOf = (path: string) => `${API}${path.replace('{id}', uuidv7())}`;

    it('every CRM row is for sales_rep and platform_admin; the demo request is public', () => {
      expect(crmRoutes).to.have.length(26);
      for (const row of rows) expect(row.platformRoles, row.operationId).to.deep.equal(['sales_rep', 'platform_admin']);
      const demo = crmRoutes.find((r) => r.path === '/crm/demo-request')!;
      expect(demo.auth).to.equal('public');
      expect(rows).to.have.length(25);
      for (const row of crmRoutes) expect(row.handler, row.operationId).to.be.a('function');
    });

    it('answers 401 anonymous, 403 to a merchant, 403 platform_role_required to a support agent, and lets sales staff through', async () => {
      const owner = (await merchant(server)).owner;
      suite.addTenant(owner.tenantId);
      const m = { headers: bearer(owner.accessToken) };
      const agent = await platformStaff(server, 'support_agent');
      for (const row of rows) {
        const path = pathOf(row.path);
        const label = `${row.method} ${row.path}`;
        expectProblem(await call(server, row.method, path), 401, 'unauthorized');
        const asMerchant = await call(server, row.method, path, { headers: m.headers });
        expect(asMerchant.status, label).to.equal(403);
        expect(asMerchant.json.code, label).to.equal('forbidden');
        const asAgent = await call(server, row.method, path, { headers: agent.headers });
        expect(asAgent.status, label).to.equal(403);
        expect(asAgent.json.code, label).to.equal('platform_role_required');
        for (const who of [rep, admin]) {
          const res = await call(server, row.method, path, { headers: who.headers, body: row.body ? {} : undefined });
          expect([401, 403, 501], `${label}: ${res.text}`).to.not.include(res.status);
        }
      }
    });
  });

  describe('create, read, update, delete', () => {
    it('creates a NEW lead owned by the caller, reads, updates and deletes it', async () => {
      const created = await lead({
        contactName: 'Ada',
        contactEmail: 'Ada@Example.test',
        contactPhone: '+90 555 000 11 22',
        expectedPlan: 'Growth',
        expectedValue: 1234.5,
        currency: 'EUR',
        nextFollowUpAt: '2099-01-01T10:00:00Z',
        notes: 'met at a fair',
      });
      expect(created).to.deep.include({
        stage: 'NEW',
        ownerUserId: rep.userId,
        companyName: 'Acme Ltd',
        contactEmail: 'ada@example.test',
        source: 'OUTBOUND',
        expectedValue: 1234.5,
        currency: 'EUR',
        nextFollowUpAt: '2099-01-01T10:00:00.000Z',
        storeId: null,
        lostReason: null,
      });
      const read = await get(`/crm/leads/${created.id}`, admin);
      expect(read.status).to.equal(200);
      expect(read.json).to.deep.equal(created);

      const patched = await send('PATCH', `/crm/leads/${created.id}`, {
        companyName: 'Acme Inc',
        expectedValue: null,
        nextFollowUpAt: null,
      });
      expect(patched.status, patched.text).to.equal(200);
      expect(patched.json).to.deep.include({ companyName: 'Acme Inc', expectedValue: null, nextFollowUpAt: null, stage: 'NEW' });

      expect((await send('DELETE', `/crm/leads/${created.id}`)).status).to.equal(204);
      expectProblem(await get(`/crm/leads/${created.id}`), 404, 'lead_not_found');
      expectProblem(await send('DELETE', `/crm/leads/${created.id}`), 404, 'lead_not_found');
    });

    it('refuses bad bodies: unknown fields, bounds, bad e-mail, DEMO_REQUEST by hand, too many decimals, empty patch', async () => {
      const bad = async (body: Record<string, unknown>, path: string) => {
        const res = await send('POST', '/crm/leads', { companyName: 'X', source: 'OTHER', ...body });
        expectProblem(res, 400, 'validation_failed');
        expect(res.json.errors.map((e: { path: string }) => e.path)).to.include(path);
      };
      await bad({ extra: 1 }, 'body.extra');
      await bad({ companyName: 'x'.repeat(201) }, 'body.companyName');
      await bad({ companyName: '' }, 'body.companyName');
      await bad({ contactEmail: 'not-an-email' }, 'body.contactEmail');
      await bad({ source: 'DEMO_REQUEST' }, 'body.source');
      await bad({ expectedValue: 1.234 }, 'body.expectedValue');
      await bad({ currency: 'eur' }, 'body.currency');
      await bad({ notes: 'x'.repeat(10001) }, 'body.notes');
      await bad({ ownerUserId: 'nope' }, 'body.ownerUserId');
      const l = await lead();
      expectProblem(await send('PATCH', `/crm/leads/${l.id}`, {}), 400, 'validation_failed');
      expectProblem(await send('PATCH', `/crm/leads/${l.id}`, { stage: 'NOPE' }), 400, 'validation_failed');
      expectProblem(await get('/crm/leads/not-a-uuid'), 400, 'validation_failed');
    });

    it('checks owners: unknown user 404, a user outside the sales team 400', async () => {
      expectProblem(
        await send('POST', '/crm/leads', { companyName: 'X', source: 'OTHER', ownerUserId: uuidv7() }),
        404,
        'sales_user_not_found',
      );
      const agent = await platformStaff(server, 'support_agent');
      expectProblem(
        await send('POST', '/crm/leads', { companyName: 'X', source: 'OTHER', ownerUserId: agent.userId }),
        400,
        'not_sales_team',
      );
      const unowned = await lead({ ownerUserId: null });
      expect(unowned.ownerUserId).to.equal(null);
      const byAdmin = await lead({ ownerUserId: admin.userId });
      expect(byAdmin.ownerUserId).to.equal(admin.userId);
    });
  });

  describe('stages', () => {
    it('walks the main path NEW → … → ACTIVATED → EXPANSION_CANDIDATE → CHURN_RISK → ACTIVATED', async () => {
      const l = await lead();
      for (const stage of [
        'QUALIFIED',
        'CONTACTED',
        'DEMO_SCHEDULED',
        'PROPOSAL_SENT',
        'TRIAL_STARTED',
        'WON',
        'ONBOARDING_IN_PROGRESS',
        'ACTIVATED',
        'EXPANSION_CANDIDATE',
        'CHURN_RISK',
        'ACTIVATED',
      ]) {
        const res = await move(l.id, stage);
        expect(res.status, `${stage}: ${res.text}`).to.equal(200);
        expect(res.json.stage).to.equal(stage);
      }
      const changes = await db(
        'SELECT from_stage, to_stage, actor_user_id FROM lead_stage_changes WHERE lead_id = $1 ORDER BY changed_at, id',
        [l.id],
      );
      expect(changes).to.have.length(12);
      expect(changes[0]).to.deep.equal({ from_stage: null, to_stage: 'NEW', actor_user_id: rep.userId });
      expect(changes[11]).to.deep.include({ from_stage: 'CHURN_RISK', to_stage: 'ACTIVATED' });
    });

    it('allows every move of the table and refuses every other one with 409, changing nothing', async () => {
      // One lead per source stage, brought there along allowed moves; then each target is tried on a fresh lead.
      const pathTo: Record<string, string[]> = {
        NEW: [],
        QUALIFIED: ['QUALIFIED'],
        CONTACTED: ['CONTACTED'],
        DEMO_SCHEDULED: ['QUALIFIED', 'DEMO_SCHEDULED'],
        PROPOSAL_SENT: ['CONTACTED', 'PROPOSAL_SENT'],
        TRIAL_STARTED: ['CONTACTED', 'TRIAL_STARTED'],
        WON: ['CONTACTED', 'PROPOSAL_SENT', 'WON'],
        ONBOARDING_IN_PROGRESS: ['CONTACTED', 'PROPOSAL_SENT', 'WON', 'ONBOARDING_IN_PROGRESS'],
        ACTIVATED: ['CONTACTED', 'PROPOSAL_SENT', 'WON', 'ONBOARDING_IN_PROGRESS', 'ACTIVATED'],
        EXPANSION_CANDIDATE: ['CONTACTED', 'PROPOSAL_SENT', 'WON', 'ONBOARDING_IN_PROGRESS', 'ACTIVATED', 'EXPANSION_CANDIDATE'],
        CHURN_RISK: ['CONTACTED', 'PROPOSAL_SENT', 'WON', 'ONBOARDING_IN_PROGRESS', 'ACTIVATED', 'CHURN_RISK'],
        LOST: ['LOST'],
      };
      const reach = async (stage: string): Promise<string> => {
        const l = await lead();
        for (const s of pathTo[stage]!) expect((await move(l.id, s, s === 'LOST' ? { lostReason: 'budget' } : {})).status, s).to.equal(200);
        return l.id;
      };
      for (const from of LEAD_STAGES) {
        const id = await reach(from);
        for (const to of LEAD_STAGES) {
          if (to === from || LEAD_TRANSITIONS[from].includes(to)) continue;
          const res = await move(id, to, to === 'LOST' ? { lostReason: 'x' } : {});
          expectProblem(res, 409, 'lead_stage_transition_refused');
          expect(res.json.detail).to.include(`from ${from} to ${to}`);
        }
        const [row] = await db(
          'SELECT stage, (SELECT count(*)::int FROM lead_stage_changes WHERE lead_id = $1) AS changes FROM leads WHERE id = $1',
          [id],
        );
        expect(row).to.deep.equal({ stage: from, changes: pathTo[from]!.length + 1 });
        for (const to of LEAD_TRANSITIONS[from]) {
          const fresh = await reach(from);
          const res = await move(fresh, to, to === 'LOST' ? { lostReason: 'price' } : {});
          expect(res.status, `${from} → ${to}: ${res.text}`).to.equal(200);
          expect(res.json.stage).to.equal(to);
        }
      }
    });

    it('needs a lost reason for LOST, and reopens a lost lead (LOST → CONTACTED clears the reason)', async () => {
      const l = await lead();
      expectProblem(await move(l.id, 'LOST'), 400, 'lost_reason_required');
      expect((await get(`/crm/leads/${l.id}`)).json.stage).to.equal('NEW');
      expectProblem(await send('PATCH', `/crm/leads/${l.id}`, { lostReason: 'why' }), 400, 'lost_reason_not_lost');
      const lost = await move(l.id, 'LOST', { lostReason: 'chose a competitor' });
      expect(lost.json).to.deep.include({ stage: 'LOST', lostReason: 'chose a competitor' });
      const edited = await send('PATCH', `/crm/leads/${l.id}`, { lostReason: 'too expensive' });
      expect(edited.json).to.deep.include({ stage: 'LOST', lostReason: 'too expensive' });
      const reopened = await move(l.id, 'CONTACTED');
      expect(reopened.status, reopened.text).to.equal(200);
      expect(reopened.json).to.deep.include({ stage: 'CONTACTED', lostReason: null });
      // The same stage is not a move: nothing changes.
      const same = await move(l.id, 'CONTACTED');
      expect(same.json.stageChangedAt).to.equal(reopened.json.stageChangedAt);
    });

    it('history reads back every change from the audit log, oldest first, with actor and before/after', async () => {
      const l = await lead({ notes: 'first' });
      await send('PATCH', `/crm/leads/${l.id}`, { notes: 'second', nextFollowUpAt: '2099-02-02T00:00:00Z' });
      await move(l.id, 'QUALIFIED');
      await send('POST', '/crm/leads/assign-to-me', { ids: [l.id] }, admin);
      const res = await get(`/crm/leads/${l.id}/history`, admin);
      expect(res.status, res.text).to.equal(200);
      expect(res.json.items.map((i: { action: string }) => i.action)).to.deep.equal([
        'lead.create',
        'lead.update',
        'lead.stage_change',
        'lead.assign',
      ]);
      const [, update, stage, assign] = res.json.items;
      expect(update.actor).to.deep.equal({ type: 'user', id: rep.userId });
      expect(update.changes).to.deep.equal([
        { field: 'notes', before: 'first', after: 'second' },
        { field: 'nextFollowUpAt', before: null, after: '2099-02-02T00:00:00.000Z' },
      ]);
      expect(stage.before).to.deep.equal({ stage: 'NEW', lostReason: null });
      expect(stage.after).to.deep.equal({ stage: 'QUALIFIED', lostReason: null });
      expect(assign.actor.id).to.equal(admin.userId);
      expect(assign.after).to.deep.equal({ ownerUserId: admin.userId });
      const page = await get(`/crm/leads/${l.id}/history?limit=3`);
      expect(page.json.items).to.have.length(3);
      const rest = await get(`/crm/leads/${l.id}/history?limit=3&cursor=${page.json.nextCursor}`);
      expect(rest.json.items.map((i: { action: string }) => i.action)).to.deep.equal(['lead.assign']);
      expect(rest.json.nextCursor).to.equal(null);
      expectProblem(await get(`/crm/leads/${l.id}/history?limit=201`), 400, 'validation_failed');
      const [audit] = await db("SELECT tenant_id FROM audit_log WHERE resource_type = 'lead' AND resource_id = $1 LIMIT 1", [l.id]);
      expect(audit.tenant_id).to.equal(null);
    });
  });

  describe('list', () => {
    it('filters by stage, owner and follow-up, pages with cursor and limit, and checks bounds', async () => {
      const owner = await platformStaff(server, 'sales_rep');
      const past = new Date(Date.now() - 3600_000).toISOString();
      const future = new Date(Date.now() + 86400_000 * 3).toISOString();
      const overdue = await lead({ ownerUserId: owner.userId, nextFollowUpAt: past });
      const missing = await lead({ ownerUserId: owner.userId });
      const scheduled = await lead({ ownerUserId: owner.userId, nextFollowUpAt: future });
      const lostOverdue = await lead({ ownerUserId: owner.userId, nextFollowUpAt: past });
      await move(lostOverdue.id, 'LOST', { lostReason: 'gone' });
      const q = (query: string) => get(`/crm/leads?ownerUserId=${owner.userId}${query}`);
      const ids = (res: TestResponse) => res.json.items.map((i: { id: string }) => i.id);
      expect(ids(await q(''))).to.deep.equal([lostOverdue.id, scheduled.id, missing.id, overdue.id]);
      expect(ids(await q('&followUp=OVERDUE'))).to.deep.equal([overdue.id]);
      expect(ids(await q('&followUp=MISSING'))).to.deep.equal([missing.id]);
      expect(ids(await q('&stage=LOST'))).to.deep.equal([lostOverdue.id]);
      expect(ids(await q('&stage=NEW&followUp=MISSING'))).to.deep.equal([missing.id]);
      const first = await q('&limit=3');
      expect(ids(first)).to.have.length(3);
      const second = await q(`&limit=3&cursor=${first.json.nextCursor}`);
      expect(ids(second)).to.deep.equal([overdue.id]);
      expect(second.json.nextCursor).to.equal(null);
      for (const bad of ['limit=0', 'limit=101', 'stage=OPEN', 'followUp=LATE', 'ownerUserId=123', 'cursor=abc', 'unknown=1']) {
        const res = await get(`/crm/leads?${bad}`);
        expectProblem(res, 400, 'validation_failed');
      }
      expect((await get('/crm/leads?limit=100')).status).to.equal(200);
    });
  });

  describe('ownership', () => {
    it('assigns leads to me (all or none) and transfers leads by list or from a rep', async () => {
      const from = await platformStaff(server, 'sales_rep');
      const to = await platformStaff(server, 'sales_rep');
      const a = await lead({ ownerUserId: from.userId });
      const b = await lead({ ownerUserId: from.userId });
      const c = await lead({ ownerUserId: null });
      const unknown = uuidv7();
      const none = await send('POST', '/crm/leads/assign-to-me', { ids: [c.id, unknown] }, to);
      expectProblem(none, 404, 'lead_not_found');
      expect(none.json.errors[0].path).to.equal('body.ids[1]');
      expect((await get(`/crm/leads/${c.id}`)).json.ownerUserId).to.equal(null);
      const mine = await send('POST', '/crm/leads/assign-to-me', { ids: [c.id] }, to);
      expect(mine.json).to.deep.equal({ count: 1, ids: [c.id] });
      expect((await send('POST', '/crm/leads/assign-to-me', { ids: [c.id] }, to)).json).to.deep.equal({ count: 0, ids: [] });
      expectProblem(await send('POST', '/crm/leads/assign-to-me', { ids: [] }), 400, 'validation_failed');
      expectProblem(await send('POST', '/crm/leads/assign-to-me', { ids: [c.id, c.id] }), 400, 'validation_failed');

      const byList = await send('POST', '/crm/leads/transfer', { toUserId: to.userId, leadIds: [a.id] });
      expect(byList.json).to.deep.equal({ count: 1, ids: [a.id] });
      const byRep = await send('POST', '/crm/leads/transfer', { toUserId: to.userId, fromUserId: from.userId });
      expect(byRep.json).to.deep.equal({ count: 1, ids: [b.id] });
      const owned = await get(`/crm/leads?ownerUserId=${to.userId}`);
      expect(owned.json.items.map((i: { id: string }) => i.id).sort()).to.deep.equal([a.id, b.id, c.id].sort());

      expectProblem(await send('POST', '/crm/leads/transfer', { toUserId: to.userId }), 400, 'validation_failed');
      expectProblem(
        await send('POST', '/crm/leads/transfer', { toUserId: to.userId, fromUserId: from.userId, leadIds: [a.id] }),
        400,
        'validation_failed',
      );
      expectProblem(await send('POST', '/crm/leads/transfer', { toUserId: uuidv7(), leadIds: [a.id] }), 404, 'sales_user_not_found');
      const agent = await platformStaff(server, 'support_agent');
      expectProblem(await send('POST', '/crm/leads/transfer', { toUserId: agent.userId, leadIds: [a.id] }), 400, 'not_sales_team');
    });
  });

  describe('reports', () => {
    it('follow-up stats per owner: overdue, due today, upcoming, missing, open leads only', async () => {
      const owner = await platformStaff(server, 'sales_rep');
      const now = Date.now();
      const endOfToday = new Date();
      endOfToday.setUTCHours(24, 0, 0, 0);
      const inToday = new Date(Math.min(now + 60_000, endOfToday.getTime() - 1000));
      await lead({ ownerUserId: owner.userId, nextFollowUpAt: new Date(now - 60_000).toISOString() });
      await lead({ ownerUserId: owner.userId, nextFollowUpAt: new Date(now - 86400_000).toISOString() });
      if (inToday.getTime() > now) await lead({ ownerUserId: owner.userId, nextFollowUpAt: inToday.toISOString() });
      await lead({ ownerUserId: owner.userId, nextFollowUpAt: new Date(endOfToday.getTime() + 3600_000).toISOString() });
      await lead({ ownerUserId: owner.userId });
      const closed = await lead({ ownerUserId: owner.userId });
      await move(closed.id, 'LOST', { lostReason: 'no' });
      const res = await get('/crm/leads/follow-up-stats');
      expect(res.status, res.text).to.equal(200);
      const mine = res.json.byOwner.find((r: { ownerUserId: string }) => r.ownerUserId === owner.userId);
      expect(mine).to.deep.equal({
        ownerUserId: owner.userId,
        overdue: 2,
        dueToday: inToday.getTime() > now ? 1 : 0,
        upcoming: 1,
        missing: 1,
      });
      for (const key of ['overdue', 'dueToday', 'upcoming', 'missing'])
        expect(res.json.overall[key]).to.equal(res.json.byOwner.reduce((n: number, r: Record<string, number>) => n + r[key]!, 0));
    });

    it('pipeline: count and expected value per stage and currency', async () => {
      const owner = await platformStaff(server, 'sales_rep');
      await lead({ ownerUserId: owner.userId, expectedValue: 100.1, currency: 'EUR' });
      await lead({ ownerUserId: owner.userId, expectedValue: 0.2, currency: 'EUR' });
      await lead({ ownerUserId: owner.userId, currency: 'EUR' });
      await lead({ ownerUserId: owner.userId, expectedValue: 5000 });
      const won = await lead({ ownerUserId: owner.userId, expectedValue: 99.99, currency: 'USD' });
      for (const s of ['CONTACTED', 'PROPOSAL_SENT', 'WON']) await move(won.id, s);
      const res = await get(`/crm/pipeline?ownerUserId=${owner.userId}`);
      expect(res.status, res.text).to.equal(200);
      expect(res.json.stages.map((s: { stage: string }) => s.stage)).to.deep.equal([...LEAD_STAGES]);
      const stage = (name: string) => res.json.stages.find((s: { stage: string }) => s.stage === name);
      expect(stage('NEW')).to.deep.equal({
        stage: 'NEW',
        count: 4,
        expectedValue: [
          { currency: 'EUR', count: 3, amount: 100.3 },
          { currency: 'TRY', count: 1, amount: 5000 },
        ],
      });
      expect(stage('WON')).to.deep.equal({ stage: 'WON', count: 1, expectedValue: [{ currency: 'USD', count: 1, amount: 99.99 }] });
      expect(stage('LOST')).to.deep.equal({ stage: 'LOST', count: 0, expectedValue: [] });
      expect((await get('/crm/pipeline')).status).to.equal(200);
      expectProblem(await get('/crm/pipeline?ownerUserId=x'), 400, 'validation_failed');
    });

    it('pipeline overview: funnel conversion and time in stage from the recorded changes', async () => {
      const owner = await platformStaff(server, 'sales_rep');
      const leads = [];
      for (let i = 0; i < 4; i += 1) leads.push(await lead({ ownerUserId: owner.userId }));
      // 4 NEW; 3 reach CONTACTED (one through QUALIFIED); 2 reach PROPOSAL_SENT; 1 WON; 1 lost from CONTACTED.
      await move(leads[0].id, 'QUALIFIED');
      await move(leads[0].id, 'CONTACTED');
      await move(leads[1].id, 'CONTACTED');
      await move(leads[2].id, 'CONTACTED');
      await move(leads[0].id, 'PROPOSAL_SENT');
      await move(leads[1].id, 'PROPOSAL_SENT');
      await move(leads[0].id, 'WON');
      await move(leads[2].id, 'LOST', { lostReason: 'no budget' });
      // Known times: every lead entered NEW at T; the moves out of NEW happened 100, 200 and 600 seconds later.
      const t = '2030-01-01T00:00:00Z';
      await db(`UPDATE lead_stage_changes SET changed_at = $1 WHERE lead_id = ANY($2::uuid[]) AND from_stage IS NULL`, [
        t,
        leads.map((l) => l.id),
      ]);
      const outOfNew = [100, 200, 600];
      for (let i = 0; i < 3; i += 1)
        await db(
          `UPDATE lead_stage_changes SET changed_at = $1::timestamptz + make_interval(secs => $2) WHERE lead_id = $3 AND from_stage = 'NEW'`,
          [t, outOfNew[i], leads[i].id],
        );
      // Later changes after those.
      await db(
        `UPDATE lead_stage_changes c SET changed_at = $1::timestamptz + interval '1 hour' + make_interval(secs => r.n::int)
           FROM (SELECT id, row_number() OVER (PARTITION BY lead_id ORDER BY changed_at, id) AS n FROM lead_stage_changes
                  WHERE lead_id = ANY($2::uuid[]) AND from_stage IS NOT NULL AND from_stage <> 'NEW') r
          WHERE c.id = r.id`,
        [t, leads.map((l) => l.id)],
      );
      const res = await get(`/crm/pipeline-overview?ownerUserId=${owner.userId}`);
      expect(res.status, res.text).to.equal(200);
      const f = (stage: string) => res.json.funnel.find((s: { stage: string }) => s.stage === stage);
      expect(f('NEW')).to.deep.equal({ stage: 'NEW', reached: 4, current: 1, conversionToNext: 0.75, lostFrom: 0 });
      expect(f('QUALIFIED')).to.deep.equal({ stage: 'QUALIFIED', reached: 3, current: 0, conversionToNext: 1, lostFrom: 0 });
      expect(f('CONTACTED')).to.deep.equal({ stage: 'CONTACTED', reached: 3, current: 0, conversionToNext: 0.6667, lostFrom: 1 });
      expect(f('PROPOSAL_SENT')).to.deep.include({ reached: 2, current: 1 });
      expect(f('WON')).to.deep.include({ reached: 1, current: 1, conversionToNext: 0 });
      expect(f('ACTIVATED')).to.deep.include({ reached: 0, conversionToNext: null });
      const newStays = res.json.timeInStage.find((s: { stage: string }) => s.stage === 'NEW');
      expect(newStays).to.deep.equal({ stage: 'NEW', stays: 3, averageSeconds: 300, medianSeconds: 200 });
      expect(res.json.timeInStage.find((s: { stage: string }) => s.stage === 'ACTIVATED')).to.deep.equal({
        stage: 'ACTIVATED',
        stays: 0,
        averageSeconds: null,
        medianSeconds: null,
      });
    });

    it('team: each sales_rep and platform_admin with open leads, overdue follow-ups and pipeline value', async () => {
      const owner = await platformStaff(server, 'sales_rep');
      await lead({ ownerUserId: owner.userId, expectedValue: 10.5, nextFollowUpAt: new Date(Date.now() - 60_000).toISOString() });
      await lead({ ownerUserId: owner.userId, expectedValue: 4.5 });
      const closed = await lead({ ownerUserId: owner.userId, expectedValue: 1000 });
      await move(closed.id, 'LOST', { lostReason: 'x' });
      const agent = await platformStaff(server, 'support_agent');
      const res = await get('/crm/team', admin);
      expect(res.status, res.text).to.equal(200);
      const me = res.json.items.find((i: { userId: string }) => i.userId === owner.userId);
      expect(me).to.deep.include({
        platformRole: 'sales_rep',
        openLeads: 2,
        overdueFollowUps: 1,
        pipelineValue: [{ currency: 'TRY', count: 2, amount: 15 }],
      });
      expect(res.json.items.find((i: { userId: string }) => i.userId === admin.userId)).to.deep.include({ platformRole: 'platform_admin' });
      expect(res.json.items.find((i: { userId: string }) => i.userId === agent.userId)).to.equal(undefined);
    });

    it('operations report: leads created, won, lost and activities completed per rep over periodDays', async () => {
      const doer = await platformStaff(server, 'sales_rep');
      const as = (method: string, path: string, body?: unknown) => send(method, path, body, doer);
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) ids.push((await lead({}, doer)).id);
      for (const s of ['CONTACTED', 'PROPOSAL_SENT', 'WON']) await as('PATCH', `/crm/leads/${ids[0]}`, { stage: s });
      await as('PATCH', `/crm/leads/${ids[1]}`, { stage: 'LOST', lostReason: 'x' });
      const activity = await as('POST', '/crm/activities', { leadId: ids[2], type: 'CALL', subject: 'Intro call' });
      await as('POST', `/crm/activities/${activity.json.id}/complete`);
      const res = await get('/crm/reports/operations?periodDays=7');
      expect(res.status, res.text).to.equal(200);
      expect(res.json.periodDays).to.equal(7);
      expect(new Date(res.json.to).getTime() - new Date(res.json.from).getTime()).to.equal(7 * 86400_000);
      const row = res.json.byRep.find((r: { userId: string }) => r.userId === doer.userId);
      expect(row).to.deep.include({ leadsCreated: 3, won: 1, lost: 1, activitiesCompleted: 1 });
      expect(res.json.totals.leadsCreated).to.be.at.least(3);
      // Changes older than the period are left out.
      await db("UPDATE lead_stage_changes SET changed_at = now() - interval '10 days' WHERE lead_id = ANY($1::uuid[])", [ids]);
      const later = await get('/crm/reports/operations?periodDays=7');
      expect(later.json.byRep.find((r: { userId: string }) => r.userId === doer.userId)).to.deep.include({
        leadsCreated: 0,
        won: 0,
        lost: 0,
        activitiesCompleted: 1,
      });
      expect((await get('/crm/reports/operations')).json.periodDays).to.equal(30);
      for (const bad of ['0', '366', '1.5', 'x'])
        expectProblem(await get(`/crm/reports/operations?periodDays=${bad}`), 400, 'validation_failed');
      expect((await get('/crm/reports/operations?periodDays=365')).status).to.equal(200);
    });
  });
});
