/**
 * The back office end to end, through the operations only: a prospect's demo request becomes a lead;
 * sales works it to WON, links the merchant's store and hands it over; support claims and accepts
 * it, asks for missing information; sales answers; support completes the tasks and the handoff; the
 * lead is ACTIVATED, the merchant has followed the plan, and the lead's history tells the story.
 */
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { platformStaff, uniqueEmail } from '../helpers/accounts';
import { merchant } from '../helpers/fixtures';

type Headers = Record<string, string>;

describe('back office flow: lead → won → handoff → info request → answer → completed → activated', function () {
  this.timeout(60_000);
  let server: TestServer;
  apiSuite((started) => (server = started));

  it('runs the whole flow', async () => {
    const sales = await platformStaff(server, 'sales_rep');
    const agent = await platformStaff(server, 'support_agent', { name: 'Onboarding Olcay' });
    const shop = await merchant(server);
    const api = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH', path: string, headers: Headers, body?: unknown, status = 200) => {
      const res = await call(server, method, `/api/v1${path}`, { headers, body });
      expect(res.status, `${method} ${path}: ${res.text}`).to.equal(status);
      return res.json;
    };

    // 1. The prospect asks for a demo (public); the lead appears in the CRM.
    const email = uniqueEmail('prospect');
    await api('POST', '/crm/demo-request', {}, { company: 'Kebap Evi Ltd', name: 'Deniz Yılmaz', email, message: 'We sell spices.' }, 202);
    const leads = await api('GET', '/crm/leads?stage=NEW', sales.headers);
    const lead = leads.items.find((l: { contactEmail: string }) => l.contactEmail === email);
    expect(lead, 'the demo request made a NEW lead').to.not.equal(undefined);
    expect(lead).to.deep.include({ companyName: 'Kebap Evi Ltd', source: 'DEMO_REQUEST', stage: 'NEW' });

    // 2. Sales takes it and works it to WON.
    await api('PATCH', `/crm/leads/${lead.id}`, sales.headers, { ownerUserId: sales.userId, expectedValue: 12000, expectedPlan: 'Growth' });
    for (const stage of ['QUALIFIED', 'DEMO_SCHEDULED', 'PROPOSAL_SENT', 'WON']) {
      expect((await api('PATCH', `/crm/leads/${lead.id}`, sales.headers, { stage })).stage).to.equal(stage);
    }

    // 3. The merchant opened a store; sales links it and hands the lead over.
    await api('POST', `/crm/leads/${lead.id}/store-link`, sales.headers, { storeId: shop.storeId });
    const handoff = await api(
      'POST',
      `/crm/leads/${lead.id}/handoff`,
      sales.headers,
      {
        summary: 'Growth plan; 2,000 products from a spreadsheet.',
        tasks: [
          { title: 'Import the product spreadsheet', owner: 'MERCHANT' },
          { title: 'Set up payments', owner: 'SUPPORT' },
        ],
      },
      201,
    );
    expect(handoff).to.deep.include({ status: 'PENDING', storeId: shop.storeId });

    // 4. Support claims and accepts it: the lead is in onboarding, the merchant sees the plan.
    await api('POST', `/support/handoffs/${handoff.id}/claim`, agent.headers);
    await api('POST', `/support/handoffs/${handoff.id}/accept`, agent.headers);
    expect((await api('GET', `/crm/leads/${lead.id}`, sales.headers)).stage).to.equal('ONBOARDING_IN_PROGRESS');
    const plan = await api('GET', '/merchant/onboarding/plan', shop.headers);
    expect(plan.handoff).to.deep.include({ id: handoff.id, status: 'ACCEPTED', specialist: { name: 'Onboarding Olcay' } });
    expect(plan.progress).to.deep.equal({ completed: 0, total: 2, percent: 0 });

    // 5. Support needs to know which payment provider; the handoff waits on sales.
    await api('POST', `/support/handoffs/${handoff.id}/request-info`, agent.headers, { question: 'Which payment provider?' });
    const awaiting = await api('GET', '/crm/handoffs/awaiting', sales.headers);
    expect(awaiting.items.map((h: { id: string }) => h.id)).to.include(handoff.id);

    // 6. Sales answers, adding a task; the handoff is accepted again.
    const answered = await api('PUT', `/crm/leads/${lead.id}/handoff`, sales.headers, {
      summary: 'Growth plan; 2,000 products from a spreadsheet. Payments through the bank.',
      note: 'Bank transfer first, card payments next quarter.',
      tasks: [
        { title: 'Import the product spreadsheet', owner: 'MERCHANT' },
        { title: 'Set up payments', owner: 'SUPPORT' },
        { title: 'Send bank details', owner: 'SALES' },
      ],
    });
    expect(answered.status).to.equal('ACCEPTED');

    // 7. Every task done, the handoff completed: the lead is ACTIVATED.
    for (const task of answered.tasks) await api('POST', `/support/handoffs/${handoff.id}/tasks/${task.id}/complete`, agent.headers, {});
    expect((await api('GET', '/merchant/onboarding/plan', shop.headers)).progress).to.deep.equal({ completed: 3, total: 3, percent: 100 });
    expect((await api('POST', `/support/handoffs/${handoff.id}/complete`, agent.headers)).status).to.equal('COMPLETED');
    expect((await api('GET', `/crm/leads/${lead.id}`, sales.headers)).stage).to.equal('ACTIVATED');
    expect((await api('GET', '/merchant/onboarding/plan', shop.headers)).handoff.status).to.equal('COMPLETED');

    // The lead's history has every stage it went through.
    const history = await api('GET', `/crm/leads/${lead.id}/history`, sales.headers);
    const stages = JSON.stringify(history);
    for (const stage of ['QUALIFIED', 'WON', 'ONBOARDING_IN_PROGRESS', 'ACTIVATED']) expect(stages).to.contain(stage);
  });
});
