/**
 * Onboarding handoffs: sales hands a WON lead over, support claims, accepts, asks for information,
 * works the tasks and completes; the merchant reads the plan. Each allowed move and refused ones
 * (409, nothing changed), the assignee rule, the list's filters and bounds, roles on every route,
 * the lead's stage moving with the handoff, the audit trail and the merchant's notifications.
 * Leads are written straight into their table here, so this file does not depend on the lead
 * operations (the whole flow through them is in onboarding-flow.test.ts).
 */
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem, platformStaff, signUp, bearer } from '../helpers/accounts';
import { merchant, type Merchant } from '../helpers/fixtures';
import { uuidv7 } from '../../storage/ids';

type Headers = Record<string, string>;

describe('onboarding handoffs', function () {
  this.timeout(60_000);
  let server: TestServer;
  let sales: Headers;
  let agent: Headers & Record<string, string>;
  let agentId: string;
  let otherAgent: Headers;
  let admin: Headers;
  let shop: Merchant;
  apiSuite((started) => (server = started));

  before(async () => {
    sales = (await platformStaff(server, 'sales_rep')).headers;
    const a = await platformStaff(server, 'support_agent', { name: 'Ayşe Agent' });
    agent = a.headers;
    agentId = a.userId;
    otherAgent = (await platformStaff(server, 'support_agent')).headers;
    admin = (await platformStaff(server, 'platform_admin')).headers;
    shop = await merchant(server);
  });

  const api = (method: 'GET' | 'POST' | 'PUT', path: string, headers: Headers, body?: unknown) =>
    call(server, method, `/api/v1${path}`, { headers, body });

  /** A lead in `stage`, optionally linked to a store. */
  async function lead(stage = 'WON', storeId: string | null = null): Promise<string> {
    const id = uuidv7();
    await server.runtime.dataSource.query(
      "INSERT INTO leads (id, stage, company_name, source, store_id, lost_reason) VALUES ($1, $2, $3, 'OTHER', $4, $5)",
      [id, stage, `Company ${id.slice(-6)}`, storeId, stage === 'LOST' ? 'Chose another platform' : null],
    );
    return id;
  }
  const stageOf = async (leadId: string): Promise<string> =>
    (await server.runtime.dataSource.query('SELECT stage FROM leads WHERE id = $1', [leadId]))[0].stage;

  const PLAN = {
    summary: 'Annual plan, 3 stores later this year. Wants help with the product import.',
    tasks: [
      { title: 'Import the catalog', owner: 'MERCHANT', dueDate: '2030-01-10' },
      { title: 'Configure payments', owner: 'SUPPORT' },
      { title: 'Send the signed contract', owner: 'SALES' },
    ],
  };

  async function handoff(options: { storeId?: string | null; leadStore?: string | null } = {}) {
    const leadId = await lead('WON', options.leadStore ?? null);
    const res = await api('POST', `/crm/leads/${leadId}/handoff`, sales, {
      ...PLAN,
      ...(options.storeId ? { storeId: options.storeId } : {}),
    });
    expect(res.status, res.text).to.equal(201);
    return { leadId, id: res.json.id as string, body: res.json };
  }

  it('creates a PENDING handoff of a WON lead with its tasks, once', async () => {
    const { leadId, id, body } = await handoff({ leadStore: shop.storeId });
    expect(body).to.deep.include({ leadId, status: 'PENDING', storeId: shop.storeId, assigneeUserId: null, summary: PLAN.summary });
    expect(
      body.tasks.map((t: { title: string; owner: string; position: number; completed: boolean }) => [
        t.position,
        t.title,
        t.owner,
        t.completed,
      ]),
    ).to.deep.equal([
      [0, 'Import the catalog', 'MERCHANT', false],
      [1, 'Configure payments', 'SUPPORT', false],
      [2, 'Send the signed contract', 'SALES', false],
    ]);
    expect(body.tasks[0].dueDate).to.equal('2030-01-10');
    expect(body.progress).to.deep.equal({ completed: 0, total: 3, percent: 0 });
    expect((await api('GET', `/crm/leads/${leadId}/handoff`, sales)).json.id).to.equal(id);
    expectProblem(await api('POST', `/crm/leads/${leadId}/handoff`, sales, PLAN), 409, 'handoff_exists');
  });

  it('refuses a lead that is not WON, an unknown lead or store, and bad bodies', async () => {
    for (const stage of ['NEW', 'PROPOSAL_SENT', 'LOST']) {
      const leadId = await lead(stage);
      expectProblem(await api('POST', `/crm/leads/${leadId}/handoff`, sales, PLAN), 409, 'lead_not_won');
      expectProblem(await api('GET', `/crm/leads/${leadId}/handoff`, sales), 404, 'handoff_not_found');
    }
    expectProblem(await api('POST', `/crm/leads/${uuidv7()}/handoff`, sales, PLAN), 404, 'lead_not_found');
    const won = await lead();
    expectProblem(await api('POST', `/crm/leads/${won}/handoff`, sales, { ...PLAN, storeId: uuidv7() }), 404, 'store_not_found');
    const bad = [
      { ...PLAN, tasks: [] },
      { ...PLAN, tasks: Array.from({ length: 51 }, (_, i) => ({ title: `T${i}`, owner: 'SUPPORT' })) },
      { ...PLAN, tasks: [{ title: 'x', owner: 'CUSTOMER' }] },
      { ...PLAN, tasks: [{ title: 'x'.repeat(201), owner: 'SALES' }] },
      { ...PLAN, tasks: [{ title: 'x', owner: 'SALES', dueDate: '2030-02-30' }] },
      { ...PLAN, summary: '' },
      { ...PLAN, summary: 'x'.repeat(5001) },
      { ...PLAN, extra: true },
      { tasks: PLAN.tasks },
    ];
    for (const body of bad) expectProblem(await api('POST', `/crm/leads/${won}/handoff`, sales, body), 400, 'validation_failed');
    expectProblem(await api('GET', `/crm/leads/${won}/handoff`, sales), 404, 'handoff_not_found');
  });

  it('moves through claim, accept, request-info, answer and complete, and moves the lead with it', async () => {
    const { leadId, id } = await handoff({ storeId: shop.storeId });
    const claimed = await api('POST', `/support/handoffs/${id}/claim`, agent);
    expect(claimed.status, claimed.text).to.equal(200);
    expect(claimed.json).to.deep.include({ status: 'ASSIGNED', assigneeUserId: agentId });
    expectProblem(await api('POST', `/support/handoffs/${id}/claim`, otherAgent), 409, 'handoff_transition_refused');
    expectProblem(await api('POST', `/support/handoffs/${id}/complete`, agent), 409, 'handoff_transition_refused');
    expectProblem(await api('POST', `/support/handoffs/${id}/accept`, otherAgent), 409, 'handoff_not_assignee');

    const accepted = await api('POST', `/support/handoffs/${id}/accept`, agent);
    expect(accepted.status, accepted.text).to.equal(200);
    expect(accepted.json.status).to.equal('ACCEPTED');
    expect(accepted.json.acceptedAt).to.be.a('string');
    expect(await stageOf(leadId)).to.equal('ONBOARDING_IN_PROGRESS');

    const asked = await api('POST', `/support/handoffs/${id}/request-info`, agent, { question: 'Which payment provider?' });
    expect(asked.json).to.deep.include({ status: 'INFO_MISSING', infoRequest: 'Which payment provider?' });
    const awaiting = await api('GET', '/crm/handoffs/awaiting', sales);
    expect(awaiting.status).to.equal(200);
    expect(awaiting.json.items.map((h: { id: string }) => h.id)).to.include(id);
    expectProblem(
      await api('POST', `/support/handoffs/${id}/request-info`, agent, { question: 'Again?' }),
      409,
      'handoff_transition_refused',
    );

    // The answer needs the answer itself; then the tasks as sales now wants them, keeping what was done.
    await api('POST', `/support/handoffs/${id}/tasks/${asked.json.tasks[1].id}/complete`, agent, { note: 'Provider sandbox keys set' });
    expectProblem(await api('PUT', `/crm/leads/${leadId}/handoff`, sales, PLAN), 400, 'validation_failed');
    const answered = await api('PUT', `/crm/leads/${leadId}/handoff`, sales, {
      ...PLAN,
      note: 'Provider A, contract attached',
      tasks: [...PLAN.tasks.slice(0, 2), { title: 'Train the staff', owner: 'SUPPORT' }],
    });
    expect(answered.status, answered.text).to.equal(200);
    expect(answered.json).to.deep.include({ status: 'ACCEPTED', infoAnswer: 'Provider A, contract attached' });
    expect(answered.json.tasks.map((t: { title: string; completed: boolean }) => [t.title, t.completed])).to.deep.equal([
      ['Import the catalog', false],
      ['Configure payments', true],
      ['Train the staff', false],
    ]);
    expect(answered.json.tasks[1].note).to.equal('Provider sandbox keys set');
    expectProblem(await api('PUT', `/crm/leads/${leadId}/handoff`, sales, { ...PLAN, note: 'twice' }), 409, 'handoff_transition_refused');
    expect((await api('GET', '/crm/handoffs/awaiting', sales)).json.items.map((h: { id: string }) => h.id)).not.to.include(id);

    // Completing needs every task done.
    expectProblem(await api('POST', `/support/handoffs/${id}/complete`, agent), 409, 'handoff_tasks_open');
    for (const task of answered.json.tasks.filter((t: { completed: boolean }) => !t.completed)) {
      const done = await api('POST', `/support/handoffs/${id}/tasks/${task.id}/complete`, agent, {});
      expect(done.status, done.text).to.equal(200);
    }
    const completed = await api('POST', `/support/handoffs/${id}/complete`, agent);
    expect(completed.status, completed.text).to.equal(200);
    expect(completed.json).to.deep.include({ status: 'COMPLETED', progress: { completed: 3, total: 3, percent: 100 } });
    expect(await stageOf(leadId)).to.equal('ACTIVATED');
    for (const step of ['claim', 'accept', 'complete']) {
      expectProblem(await api('POST', `/support/handoffs/${id}/${step}`, agent), 409, 'handoff_transition_refused');
    }
    expectProblem(
      await api('POST', `/support/handoffs/${id}/tasks/${completed.json.tasks[0].id}/reopen`, agent),
      409,
      'handoff_transition_refused',
    );

    const audit = await server.runtime.dataSource.query(
      "SELECT action FROM audit_log WHERE resource_type = 'onboarding_handoff' AND resource_id = $1 ORDER BY created_at, id",
      [id],
    );
    expect(audit.map((r: { action: string }) => r.action)).to.deep.equal([
      'onboarding_handoff.create',
      'onboarding_handoff.claim',
      'onboarding_handoff.accept',
      'onboarding_handoff.request_info',
      'onboarding_handoff.task_complete',
      'onboarding_handoff.answer',
      'onboarding_handoff.task_complete',
      'onboarding_handoff.task_complete',
      'onboarding_handoff.complete',
    ]);
    const notes = await server.runtime.dataSource.query(
      'SELECT topic FROM merchant_notifications WHERE tenant_id = $1 ORDER BY created_at, id',
      [shop.owner.tenantId],
    );
    expect(notes.map((n: { topic: string }) => n.topic)).to.deep.equal(['onboarding.accepted', 'onboarding.completed']);
  });

  it('completes and reopens tasks, refusing a second completion or a reopen of an open task', async () => {
    const { id, body } = await handoff();
    const task = body.tasks[0].id as string;
    expectProblem(await api('POST', `/support/handoffs/${id}/tasks/${task}/complete`, agent, {}), 409, 'handoff_transition_refused');
    await api('POST', `/support/handoffs/${id}/claim`, agent);
    expectProblem(await api('POST', `/support/handoffs/${id}/tasks/${task}/reopen`, agent), 409, 'handoff_task_state');
    const done = await api('POST', `/support/handoffs/${id}/tasks/${task}/complete`, agent, { note: 'Done on a call' });
    expect(done.json.tasks[0]).to.deep.include({ completed: true, note: 'Done on a call' });
    expect(done.json.progress).to.deep.equal({ completed: 1, total: 3, percent: 33 });
    expectProblem(await api('POST', `/support/handoffs/${id}/tasks/${task}/complete`, agent, {}), 409, 'handoff_task_state');
    expectProblem(await api('POST', `/support/handoffs/${id}/tasks/${task}/complete`, otherAgent, {}), 409, 'handoff_not_assignee');
    const reopened = await api('POST', `/support/handoffs/${id}/tasks/${task}/reopen`, admin);
    expect(reopened.status, reopened.text).to.equal(200);
    expect(reopened.json.tasks[0]).to.deep.include({ completed: false, completedAt: null, note: null });
    expectProblem(await api('POST', `/support/handoffs/${id}/tasks/${uuidv7()}/complete`, agent, {}), 404, 'handoff_task_not_found');
    expectProblem(await api('POST', `/support/handoffs/${id}/tasks/not-a-uuid/complete`, agent, {}), 400, 'validation_failed');
    expectProblem(await api('POST', `/support/handoffs/${id}/tasks/${task}/complete`, agent, { note: '' }), 400, 'validation_failed');
  });

  it('lists handoffs newest first with status and mine filters and cursor pages', async () => {
    const me = await platformStaff(server, 'support_agent');
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await handoff()).id);
    for (const id of made.slice(0, 2)) await api('POST', `/support/handoffs/${id}/claim`, me.headers);
    const mine = await api('GET', '/support/handoffs?mine=true&limit=1', me.headers);
    expect(mine.status, mine.text).to.equal(200);
    expect(mine.json.items.map((h: { id: string }) => h.id)).to.deep.equal([made[1]]);
    const next = await api('GET', `/support/handoffs?mine=true&limit=1&cursor=${mine.json.nextCursor}`, me.headers);
    expect(next.json.items.map((h: { id: string }) => h.id)).to.deep.equal([made[0]]);
    expect(next.json.nextCursor).to.equal(null);
    const notMine = await api('GET', '/support/handoffs?mine=false&status=PENDING&limit=200', me.headers);
    const ids = notMine.json.items.map((h: { id: string }) => h.id);
    expect(ids).to.include(made[2]);
    expect(ids).not.to.include(made[0]);
    expect(notMine.json.items.every((h: { status: string }) => h.status === 'PENDING')).to.equal(true);
    const assigned = await api('GET', '/support/handoffs?status=ASSIGNED&limit=200', me.headers);
    expect(assigned.json.items.every((h: { status: string }) => h.status === 'ASSIGNED')).to.equal(true);
    expect((await api('GET', `/support/handoffs/${made[2]}`, me.headers)).json.id).to.equal(made[2]);
    expectProblem(await api('GET', `/support/handoffs/${uuidv7()}`, me.headers), 404, 'handoff_not_found');
    for (const query of ['limit=0', 'limit=201', 'status=DONE', 'mine=maybe', 'cursor=abc', 'unknown=1']) {
      expectProblem(await api('GET', `/support/handoffs?${query}`, me.headers), 400, 'validation_failed');
    }
  });

  it("shows the merchant their plan without sales' notes, and nothing of another tenant", async () => {
    const owner = await merchant(server);
    const empty = await api('GET', '/merchant/onboarding/plan', owner.headers);
    expect(empty.status, empty.text).to.equal(200);
    expect(empty.json).to.deep.include({ handoff: null, tasks: [], progress: { completed: 0, total: 0, percent: 0 } });
    expect(empty.json.readiness.steps).to.be.an('array');

    const { id } = await handoff({ leadStore: owner.storeId });
    await api('POST', `/support/handoffs/${id}/claim`, agent);
    await api('POST', `/support/handoffs/${id}/accept`, agent);
    const plan = await api('GET', '/merchant/onboarding/plan', owner.headers);
    expect(plan.json.handoff).to.deep.include({ id, storeId: owner.storeId, status: 'ACCEPTED', specialist: { name: 'Ayşe Agent' } });
    expect(plan.json.tasks.map((t: { title: string }) => t.title)).to.deep.equal(PLAN.tasks.map((t) => t.title));
    expect(JSON.stringify(plan.json)).not.to.contain(PLAN.summary);
    expect(plan.json.tasks[0]).not.to.have.property('note');

    const stranger = bearer((await signUp(server)).accessToken);
    expect((await api('GET', '/merchant/onboarding/plan', stranger)).json.handoff).to.equal(null);
  });

  it('lets each route be called only by its roles', async () => {
    const { leadId, id, body } = await handoff();
    const task = body.tasks[0].id;
    const owner = shop.headers;
    const routes: Array<[string, string, Headers[], Headers[]]> = [
      ['GET', '/crm/handoffs/awaiting', [sales, admin], [agent, owner]],
      ['GET', `/crm/leads/${leadId}/handoff`, [sales, admin], [agent, owner]],
      ['POST', `/crm/leads/${leadId}/handoff`, [], [agent, owner]],
      ['PUT', `/crm/leads/${leadId}/handoff`, [], [agent, owner]],
      ['GET', '/support/handoffs', [agent, admin], [sales, owner]],
      ['GET', `/support/handoffs/${id}`, [agent, admin], [sales, owner]],
      ['POST', `/support/handoffs/${id}/claim`, [], [sales, owner]],
      ['POST', `/support/handoffs/${id}/accept`, [], [sales, owner]],
      ['POST', `/support/handoffs/${id}/request-info`, [], [sales, owner]],
      ['POST', `/support/handoffs/${id}/tasks/${task}/complete`, [], [sales, owner]],
      ['POST', `/support/handoffs/${id}/tasks/${task}/reopen`, [], [sales, owner]],
      ['POST', `/support/handoffs/${id}/complete`, [], [sales, owner]],
      ['GET', '/merchant/onboarding/plan', [owner], []],
    ];
    const bodies: Record<string, unknown> = { 'request-info': { question: 'q' }, complete: {}, handoff: PLAN };
    for (const [method, path, allowed, refused] of routes) {
      const body = method === 'GET' ? undefined : (bodies[path.split('/').pop()!] ?? {});
      const anonymous = await call(server, method as 'GET', `/api/v1${path}`, { body });
      expect(anonymous.status, `${method} ${path} anonymous`).to.equal(401);
      for (const headers of refused) {
        const res = await api(method as 'GET', path, headers, body);
        expect(res.status, `${method} ${path}: ${res.text}`).to.equal(403);
        if (headers !== owner) expect(res.json.code).to.equal('platform_role_required');
      }
      for (const headers of allowed) {
        const res = await api(method as 'GET', path, headers, body);
        expect(res.status, `${method} ${path}: ${res.text}`).to.equal(200);
      }
    }
    // Nothing a refused caller sent changed the handoff.
    expect((await api('GET', `/support/handoffs/${id}`, agent)).json).to.deep.include({ status: 'PENDING', assigneeUserId: null });
  });
});
