/**
 * A lead's store invitation from both ends: sales e-mails it; the invited person registers with the
 * token (through the API, or through the console's "Open your store" page the link leads to); the
 * token is spent, and the tenant's first store is linked to the lead. A used, unknown or expired
 * token registers nobody.
 */
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { emailedToken, expectProblem, GOOD_PASSWORD, lastMessage, platformStaff, uniqueEmail, type Staff } from '../helpers/accounts';
import { web } from '../helpers/web-page';

describe('CRM store invitation, accepted', function () {
  this.timeout(60_000);
  let server: TestServer;
  let rep: Staff;
  const suite = apiSuite((started) => (server = started));

  before(async () => {
    rep = await platformStaff(server, 'sales_rep');
  });

  const api = (method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: unknown) =>
    call(server, method, `/api/v1${path}`, { headers, body });

  /** A lead with a contact address, invited: its id, the address and the e-mailed token. */
  async function invited(): Promise<{ leadId: string; email: string; token: string }> {
    const email = uniqueEmail('invitee');
    const lead = await api('POST', '/crm/leads', rep.headers, { companyName: 'Invited Ltd', contactEmail: email, source: 'REFERRAL' });
    expect(lead.status, lead.text).to.equal(201);
    expect((await api('POST', `/crm/leads/${lead.json.id}/store-invitation`, rep.headers)).status).to.equal(200);
    return { leadId: lead.json.id, email, token: await emailedToken(server, email, 'crm_store_invitation') };
  }

  const register = (email: string, invitationToken: string) =>
    call(server, 'POST', '/api/v1/auth/register', {
      body: { email, password: GOOD_PASSWORD, name: 'Invited Owner', companyName: 'Invited Ltd', invitationToken },
    });

  it('registers with the token once, and links the first store the tenant creates to the lead', async () => {
    const { leadId, email, token } = await invited();
    const message = await lastMessage(server, email, 'crm_store_invitation');
    expect(message!.body).to.contain(`/register?invitation_token=${token}`);

    const registered = await register(email, token);
    expect(registered.status, registered.text).to.equal(201);
    suite.addTenant(registered.json.tenant.id);
    expectProblem(await register(uniqueEmail('again'), token), 400, 'invitation_invalid');

    expectProblem(await api('GET', `/crm/leads/${leadId}/store`, rep.headers), 404, 'lead_store_not_linked');
    const owner = { Authorization: `Bearer ${registered.json.accessToken}` };
    const store = await api('POST', '/organization/stores', owner, { name: 'Invited Shop' });
    expect(store.status, store.text).to.equal(201);
    const linked = await api('GET', `/crm/leads/${leadId}/store`, rep.headers);
    expect(linked.status, linked.text).to.equal(200);
    expect(JSON.stringify(linked.json)).to.contain(store.json.id);
    // Only the first store: a second one leaves the lead as it is.
    const second = await api('POST', '/organization/stores', owner, { name: 'Second Shop' });
    expect(JSON.stringify((await api('GET', `/crm/leads/${leadId}/store`, rep.headers)).json)).not.to.contain(second.json.id);

    const history = JSON.stringify((await api('GET', `/crm/leads/${leadId}/history`, rep.headers)).json);
    expect(history).to.contain('lead.invitation_accepted');
    expect(history).to.contain('lead.store_link');
  });

  it('registers nobody with an unknown or expired token', async () => {
    const unknownEmail = uniqueEmail('nobody');
    expectProblem(await register(unknownEmail, 'x'.repeat(43)), 400, 'invitation_invalid');
    const { email, token } = await invited();
    await server.runtime.dataSource.query(
      "UPDATE one_time_tokens SET expires_at = now() - interval '1 second' WHERE purpose = 'lead_store_invitation' AND data ->> 'email' = $1",
      [email],
    );
    expectProblem(await register(email, token), 400, 'invitation_invalid');
    const users = await server.runtime.dataSource.query('SELECT id FROM users WHERE email = ANY($1)', [[unknownEmail, email]]);
    expect(users, 'nothing was registered').to.deep.equal([]);
    expectProblem(await register(email, 'short'), 400, 'validation_failed');
  });

  it("opens the store from the console's invitation page", async () => {
    const { leadId, email, token } = await invited();
    const link = await web(server, 'GET', `/register?invitation_token=${token}`);
    expect(link.status).to.equal(302);
    expect(link.location).to.equal(`/console/register?invitation_token=${token}`);
    const form = await web(server, 'GET', link.location!);
    expect(form.status).to.equal(200);
    expect(form.text).to.contain('Open your store').and.to.contain(`value="${token}"`);
    expect((await web(server, 'GET', '/console/register')).status).to.equal(400);

    const fields = { invitation_token: token, name: 'Page Owner', company: 'Page Ltd', email, store: 'Page Shop' };
    const differ = await web(server, 'POST', '/console/register', {
      form: { ...fields, password: GOOD_PASSWORD, password_repeat: `${GOOD_PASSWORD}x` },
      headers: { Origin: server.baseUrl },
    });
    expect(differ.status).to.equal(400);
    expect(differ.text).to.contain('The two passwords differ');

    const done = await web(server, 'POST', '/console/register', {
      form: { ...fields, password: GOOD_PASSWORD, password_repeat: GOOD_PASSWORD },
      headers: { Origin: server.baseUrl },
    });
    expect(done.status, done.text).to.equal(302);
    const storeId = /^\/console\/stores\/([0-9a-f-]{36})\/zero-results/.exec(done.location ?? '')?.[1];
    expect(storeId, done.location ?? '').to.be.a('string');
    expect(Object.keys(done.cookies).length, 'signed in').to.be.at.least(1);
    const [user] = await server.runtime.dataSource.query('SELECT tenant_id FROM users WHERE email = $1', [email]);
    suite.addTenant(user.tenant_id);
    const linked = await api('GET', `/crm/leads/${leadId}/store`, rep.headers);
    expect(JSON.stringify(linked.json)).to.contain(storeId!);

    const reused = await web(server, 'POST', '/console/register', {
      form: { ...fields, email: uniqueEmail('late'), password: GOOD_PASSWORD, password_repeat: GOOD_PASSWORD },
      headers: { Origin: server.baseUrl },
    });
    expect(reused.status).to.equal(400);
    expect(reused.text).to.contain('invalid, already used or expired');
  });
});
