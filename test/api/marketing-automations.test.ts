/**
 * Marketing automations: CRUD and bounds, a manual run whose steps follow their delays on a moved
 * clock (each step once), cancel (and 409 once finished), ORDER_PLACED and CUSTOMER_CREATED runs
 * started from the store's orders and customers (one run per event), tenant isolation and runs
 * listed in pages.
 */
import { expect } from 'chai';
import { uuidv7 } from '../../storage/ids';
import { systemContext } from '../../storage/request-context';
import { runMarketingPass } from '../../api/marketing/marketing-scheduler';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem } from '../helpers/accounts';
import { customer, merchant, type Headers, type Merchant } from '../helpers/fixtures';

describe('marketing automations', () => {
  let server: TestServer;
  apiSuite((started) => (server = started));

  const base = '/api/v1/marketing/automations';
  const create = (h: Headers, body: Record<string, unknown>) => call(server, 'POST', base, { headers: h, body });
  const get = (h: Headers, id: string) => call(server, 'GET', `${base}/${id}`, { headers: h });
  const patch = (h: Headers, id: string, body: Record<string, unknown>) => call(server, 'PATCH', `${base}/${id}`, { headers: h, body });
  const remove = (h: Headers, id: string) => call(server, 'DELETE', `${base}/${id}`, { headers: h });
  const trigger = (h: Headers, id: string, customerId: string) =>
    call(server, 'POST', `${base}/${id}/trigger`, { headers: h, body: { customerId } });
  const cancel = (h: Headers, runId: string) => call(server, 'POST', `${base}/runs/${runId}/cancel`, { headers: h });
  const runs = (h: Headers, id: string, query = '') => call(server, 'GET', `${base}/${id}/runs${query}`, { headers: h });
  const ctx = () => systemContext(server.runtime.dataSource, uuidv7(), undefined, 'test', server.runtime.services);
  const q = (sql: string, params: unknown[] = []) => server.runtime.dataSource.query(sql, params);
  const minutes = (n: number) => new Date(Date.now() + n * 60_000);

  const steps = [
    { delayMinutes: 0, subject: 'Welcome {{ firstName }}', body: 'Hi {{ firstName }}', category: 'MARKETING' },
    { delayMinutes: 60, subject: 'A tip', body: 'An hour later', category: 'NEWSLETTER' },
  ];

  async function automation(m: Merchant, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
    const res = await create(m.headers, { storeId: m.storeId, name: 'Welcome', trigger: 'MANUAL', steps, ...body });
    expect(res.status, res.text).to.equal(201);
    return res.json;
  }
  const messagesOf = (runId: string): Promise<Array<{ subject: string; dedupe_key: string }>> =>
    q('SELECT subject, dedupe_key FROM outbound_messages WHERE dedupe_key LIKE $1 ORDER BY dedupe_key', [`automation-run:${runId}:%`]);

  it('runs the steps of a manual run after their delays on the moved clock, each once', async () => {
    const m = await merchant(server);
    const who = await customer(server, m, { name: 'Ada Lovelace' });
    const a = await automation(m);
    const started = await trigger(m.headers, a.id, who);
    expect(started.status, started.text).to.equal(201);
    expect(started.json).to.include({ status: 'RUNNING', nextStep: 0, customerId: who });
    const runId = started.json.id;

    await runMarketingPass(ctx(), minutes(1));
    expect((await messagesOf(runId)).map((r) => r.subject)).to.deep.equal(['Welcome Ada']);
    await runMarketingPass(ctx(), minutes(30)); // the second step is due an hour after the first
    expect(await messagesOf(runId)).to.have.length(1);
    await runMarketingPass(ctx(), minutes(62));
    await runMarketingPass(ctx(), minutes(200));
    const sent = await messagesOf(runId);
    expect(sent.map((r) => r.dedupe_key)).to.deep.equal([`automation-run:${runId}:0`, `automation-run:${runId}:1`]);
    const list = await runs(m.headers, a.id);
    expect(list.status, list.text).to.equal(200);
    const [run] = list.json.items;
    expect(run).to.include({ id: runId, status: 'COMPLETED', nextStep: 2, nextStepAt: null });
    expect(run.outcomes.map((o: any) => o.status)).to.deep.equal(['queued', 'queued']);
    expectProblem(await cancel(m.headers, runId), 409, 'automation_run_finished');
  });

  it('cancel stops the remaining steps', async () => {
    const m = await merchant(server);
    const who = await customer(server, m);
    const a = await automation(m);
    const runId = (await trigger(m.headers, a.id, who)).json.id;
    await runMarketingPass(ctx(), minutes(1));
    const cancelled = await cancel(m.headers, runId);
    expect(cancelled.status, cancelled.text).to.equal(200);
    expect(cancelled.json.status).to.equal('CANCELLED');
    await runMarketingPass(ctx(), minutes(120));
    expect(await messagesOf(runId)).to.have.length(1);
    expectProblem(await cancel(m.headers, runId), 409, 'automation_run_finished');
  });

  it('ORDER_PLACED and CUSTOMER_CREATED start one run per event from their creation on', async () => {
    const m = await merchant(server);
    const before = await customer(server, m);
    const onOrder = await automation(m, { trigger: 'ORDER_PLACED', steps: [steps[0]] });
    const onCustomer = await automation(m, { trigger: 'CUSTOMER_CREATED', steps: [steps[0]] });
    const buyer = await customer(server, m);
    for (let i = 0; i < 2; i++)
      await q(
        `INSERT INTO orders (id, tenant_id, store_id, customer_id, status, currency, subtotal, total, item_count, shipping_city, shipping_district)
         VALUES ($1, $2, $3, $4, 'PLACED', 'EUR', 10, 10, 1, 'Izmir', 'Center')`,
        [uuidv7(), m.owner.tenantId, m.storeId, buyer],
      );
    await runMarketingPass(ctx(), minutes(1));
    await runMarketingPass(ctx(), minutes(2));
    const orderRuns = (await runs(m.headers, onOrder.id)).json.items;
    expect(orderRuns).to.have.length(2);
    expect(orderRuns.every((r: any) => r.customerId === buyer && r.status === 'COMPLETED' && r.triggerKey.startsWith('order:'))).to.equal(
      true,
    );
    const customerRuns = (await runs(m.headers, onCustomer.id)).json.items;
    expect(customerRuns.map((r: any) => r.customerId)).to.deep.equal([buyer]); // not the customer from before
    expect(customerRuns.map((r: any) => r.customerId)).to.not.include(before);

    // An inactive automation starts nothing, by event or by hand.
    expect((await patch(m.headers, onCustomer.id, { active: false })).json.active).to.equal(false);
    await customer(server, m);
    await runMarketingPass(ctx(), minutes(3));
    expect((await runs(m.headers, onCustomer.id)).json.items).to.have.length(1);
    expectProblem(await trigger(m.headers, onCustomer.id, buyer), 409, 'automation_inactive');
  });

  it('CRUD, tenant isolation, pages and bounds', async () => {
    const m = await merchant(server);
    const other = await merchant(server);
    const who = await customer(server, m);
    const stranger = await customer(server, other);
    const a = await automation(m);
    expect((await get(m.headers, a.id)).json).to.deep.equal(a);
    const renamed = await patch(m.headers, a.id, { name: 'Renamed', steps: [steps[1]] });
    expect(renamed.status, renamed.text).to.equal(200);
    expect(renamed.json.steps).to.deep.equal([steps[1]]);

    expectProblem(await get(other.headers, a.id), 404, 'automation_not_found');
    expectProblem(await patch(other.headers, a.id, { name: 'x' }), 404, 'automation_not_found');
    expectProblem(await trigger(other.headers, a.id, stranger), 404, 'automation_not_found');
    expectProblem(await trigger(m.headers, a.id, stranger), 404, 'automation_customer_not_found');
    const runId = (await trigger(m.headers, a.id, who)).json.id;
    expectProblem(await cancel(other.headers, runId), 404, 'automation_run_not_found');
    expectProblem(await runs(other.headers, a.id), 404, 'automation_not_found');
    expect(((await call(server, 'GET', base, { headers: other.headers })).json.items as any[]).map((i) => i.id)).to.not.include(a.id);

    await trigger(m.headers, a.id, who);
    const page1 = await runs(m.headers, a.id, '?limit=1');
    expect(page1.json.items).to.have.length(1);
    const page2 = await runs(m.headers, a.id, `?limit=1&cursor=${page1.json.nextCursor}`);
    expect(page2.json.items.map((r: any) => r.id)).to.deep.equal([runId]);
    expect(page2.json.nextCursor).to.equal(null);

    const ok = { storeId: m.storeId, name: 'n', trigger: 'MANUAL', steps };
    for (const bad of [
      { trigger: 'SOMETIMES' },
      { steps: [] },
      { steps: Array.from({ length: 11 }, () => steps[0]) },
      { steps: [{ ...steps[0], delayMinutes: 43_201 }] },
      { steps: [{ ...steps[0], delayMinutes: -1 }] },
      { steps: [{ ...steps[0], category: 'TRANSACTIONAL' }] },
      { unknown: 1 },
    ])
      expectProblem(await create(m.headers, { ...ok, ...bad }), 400, 'validation_failed');
    expect((await create(m.headers, { ...ok, steps: [{ ...steps[0], delayMinutes: 43_200 }] })).status).to.equal(201);
    expectProblem(await call(server, 'POST', `${base}/${a.id}/trigger`, { headers: m.headers, body: {} }), 400, 'validation_failed');
    expectProblem(await runs(m.headers, a.id, '?limit=0'), 400, 'validation_failed');

    expect((await remove(m.headers, a.id)).status).to.equal(204);
    expectProblem(await get(m.headers, a.id), 404, 'automation_not_found');
    expectProblem(await cancel(m.headers, runId), 404, 'automation_run_not_found');
  });
});
