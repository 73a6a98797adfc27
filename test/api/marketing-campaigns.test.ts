/**
 * Marketing campaigns: segments against known customers and orders, the state machine (allowed and
 * refused moves), sending now and at a scheduled time on a moved clock, per-recipient outcomes
 * (suppression and opt-out respected), a resumed send that writes to nobody twice, the unsubscribe
 * link, tenant isolation, roles and bounds.
 */
import { expect } from 'chai';
import { uuidv7 } from '../../storage/ids';
import { emailHash } from '../../storage/customer-messages';
import { systemContext } from '../../storage/request-context';
import { runMarketingPass, sendCampaignBatch } from '../../api/marketing/marketing-scheduler';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { addMember, auditRows, expectProblem } from '../helpers/accounts';
import { customer, merchant, type Headers, type Merchant } from '../helpers/fixtures';

describe('marketing campaigns', () => {
  let server: TestServer;
  apiSuite((started) => (server = started));

  const base = '/api/v1/marketing/campaigns';
  const create = (h: Headers, body: Record<string, unknown>) => call(server, 'POST', base, { headers: h, body });
  const get = (h: Headers, id: string) => call(server, 'GET', `${base}/${id}`, { headers: h });
  const patch = (h: Headers, id: string, body: Record<string, unknown>) => call(server, 'PATCH', `${base}/${id}`, { headers: h, body });
  const remove = (h: Headers, id: string) => call(server, 'DELETE', `${base}/${id}`, { headers: h });
  const send = (h: Headers, id: string) => call(server, 'POST', `${base}/${id}/send`, { headers: h });
  const ctx = () => systemContext(server.runtime.dataSource, uuidv7(), undefined, 'test', server.runtime.services);
  const q = (sql: string, params: unknown[] = []) => server.runtime.dataSource.query(sql, params);

  async function campaign(m: Merchant, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
    const res = await create(m.headers, {
      storeId: m.storeId,
      name: 'Spring',
      subject: 'Hello {{ firstName }}',
      body: 'Dear {{firstName}}, spring is here.',
      category: 'MARKETING',
      segment: {},
      ...body,
    });
    expect(res.status, res.text).to.equal(201);
    return res.json;
  }

  async function order(m: Merchant, customerId: string, total: string, daysAgo: number, city = 'Izmir', status = 'PLACED') {
    await q(
      `INSERT INTO orders (id, tenant_id, store_id, customer_id, status, currency, subtotal, total, item_count, shipping_city, shipping_district, created_at, cancelled_at)
       VALUES ($1, $2, $3, $4, $5, 'EUR', $6, $6, 1, $7, 'Center', now() - make_interval(days => $8::int), $9)`,
      [uuidv7(), m.owner.tenantId, m.storeId, customerId, status, total, city, daysAgo, status === 'CANCELLED' ? new Date() : null],
    );
  }

  const recipients = async (campaignId: string): Promise<Record<string, string>> =>
    Object.fromEntries(
      ((await q('SELECT customer_id, status FROM campaign_recipients WHERE campaign_id = $1', [campaignId])) as any[]).map((r) => [
        r.customer_id,
        r.status,
      ]),
    );
  const messagesTo = async (customerId: string): Promise<any[]> =>
    q("SELECT subject, body, dedupe_key, category FROM outbound_messages WHERE customer_id = $1 AND dedupe_key LIKE 'campaign:%'", [
      customerId,
    ]);

  it('segments pick exactly the matching customers of the store', async () => {
    const m = await merchant(server);
    const big = await customer(server, m, { name: 'Ada Big', accepts_marketing: true, tags: ['vip'] });
    const small = await customer(server, m, { name: 'Bo Small', accepts_marketing: true });
    const old = await customer(server, m, { name: 'Cy Old', accepts_marketing: true, addresses: JSON.stringify([{ city: 'Ankara' }]) });
    const noConsent = await customer(server, m, { name: 'Di No', accepts_marketing: false, tags: ['vip'] });
    await order(m, big, '150.00', 2);
    await order(m, big, '60.50', 40);
    await order(m, small, '20.00', 3);
    await order(m, small, '500.00', 1, 'Izmir', 'CANCELLED');
    await order(m, old, '300.00', 200, 'Bursa');
    await order(m, noConsent, '900.00', 1);

    const audience = async (segment: Record<string, unknown>): Promise<string[]> => {
      const c = await campaign(m, { segment });
      const res = await send(m.headers, c.id);
      expect(res.status, res.text).to.equal(201);
      return Object.keys(await recipients(c.id)).sort();
    };
    expect(await audience({})).to.deep.equal([big, small, old].sort());
    expect(await audience({ spentOver: 200 })).to.deep.equal([big, old].sort()); // 210.50 and 300; the cancelled 500 does not count
    expect(await audience({ spentOver: 210.5 })).to.deep.equal([old]);
    expect(await audience({ orderedWithinDays: 7 })).to.deep.equal([big, small].sort());
    expect(await audience({ notOrderedWithinDays: 30 })).to.deep.equal([old]);
    expect(await audience({ city: 'ankara' })).to.deep.equal([old]); // from the address book
    expect(await audience({ city: 'BURSA' })).to.deep.equal([old]); // from an order
    expect(await audience({ tag: 'vip' })).to.deep.equal([big]);
    expect(await audience({ tag: 'vip', acceptsMarketing: false })).to.deep.equal([noConsent]);
    expect(await audience({ orderedWithinDays: 7, spentOver: 100 })).to.deep.equal([big]);
  });

  it('sends now through the pipeline: per-recipient outcomes, suppression and opt-out respected, merge and unsubscribe link', async () => {
    const m = await merchant(server);
    const ok = await customer(server, m, { name: 'Ada Lovelace', accepts_marketing: true });
    const suppressed = await customer(server, m, { accepts_marketing: true });
    const optedOut = await customer(server, m, { accepts_marketing: true });
    const [{ email }] = await q('SELECT email FROM customers WHERE id = $1', [suppressed]);
    await q(
      `INSERT INTO email_suppression_entries (id, tenant_id, store_id, email_hash, email_domain, reason, created_by_type)
       VALUES ($1, $2, $3, $4, 'example.com', 'UNSUBSCRIBE', 'system')`,
      [uuidv7(), m.owner.tenantId, m.storeId, emailHash(email)],
    );
    await q(
      "INSERT INTO customer_notification_preferences (tenant_id, customer_id, category, enabled) VALUES ($1, $2, 'MARKETING', false)",
      [m.owner.tenantId, optedOut],
    );
    const c = await campaign(m);
    const sent = await send(m.headers, c.id);
    expect(sent.status, sent.text).to.equal(201);
    expect(sent.json.status).to.equal('SENDING');
    expect(sent.json.recipients).to.equal(3);
    expect(sent.json.deliveries.pending).to.equal(3);

    await runMarketingPass(ctx());
    expect(await recipients(c.id)).to.deep.equal({ [ok]: 'queued', [suppressed]: 'suppressed', [optedOut]: 'opted_out' });
    const after = await get(m.headers, c.id);
    expect(after.json.status).to.equal('SENT');
    expect(after.json.deliveries).to.include({ queued: 1, suppressed: 1, opted_out: 1, pending: 0 });
    const [message, ...more] = await messagesTo(ok);
    expect(more).to.have.length(0);
    expect(message.subject).to.equal('Hello Ada');
    expect(message.body).to.match(/^Dear Ada, spring is here\./);
    expect(message.body).to.include('/email-suppression-entries/public/unsubscribe?token=');
    expect(message.dedupe_key).to.equal(`campaign:${c.id}:${ok}`);
    expect(message.category).to.equal('MARKETING');
    expect(await messagesTo(suppressed)).to.have.length(0);
    expect(await messagesTo(optedOut)).to.have.length(0);
    expect((await auditRows(server, m.owner.tenantId)).filter((a) => a.resource_id === c.id).map((a) => a.action)).to.include.members([
      'campaign.create',
      'campaign.start_sending',
      'campaign.sent',
    ]);
  });

  it('a scheduled campaign waits for its time on the moved clock', async () => {
    const m = await merchant(server);
    const who = await customer(server, m, { accepts_marketing: true });
    const at = new Date(Date.now() + 3_600_000);
    const c = await campaign(m, { scheduledAt: at.toISOString() });
    const res = await send(m.headers, c.id);
    expect(res.status, res.text).to.equal(201);
    expect(res.json.status).to.equal('SCHEDULED');
    await runMarketingPass(ctx(), new Date(at.getTime() - 60_000));
    expect((await get(m.headers, c.id)).json.status).to.equal('SCHEDULED');
    expect(await messagesTo(who)).to.have.length(0);
    // Still changeable while scheduled.
    expect((await patch(m.headers, c.id, { name: 'Renamed' })).status).to.equal(200);
    await runMarketingPass(ctx(), new Date(at.getTime() + 60_000));
    const done = await get(m.headers, c.id);
    expect(done.json.status).to.equal('SENT');
    expect(done.json.name).to.equal('Renamed');
    expect(await messagesTo(who)).to.have.length(1);
  });

  it('allows and refuses state moves (409 on a wrong state)', async () => {
    const m = await merchant(server);
    await customer(server, m, { accepts_marketing: true });
    const c = await campaign(m);
    expect((await patch(m.headers, c.id, { subject: 'New' })).status).to.equal(200);
    expect((await send(m.headers, c.id)).status).to.equal(201);
    expectProblem(await send(m.headers, c.id), 409, 'campaign_state_refused'); // SENDING
    expectProblem(await patch(m.headers, c.id, { name: 'x' }), 409, 'campaign_state_refused');
    expectProblem(await remove(m.headers, c.id), 409, 'campaign_state_refused');
    await runMarketingPass(ctx());
    expect((await get(m.headers, c.id)).json.status).to.equal('SENT');
    expectProblem(await send(m.headers, c.id), 409, 'campaign_state_refused');
    expectProblem(await remove(m.headers, c.id), 409, 'campaign_state_refused');

    const scheduled = await campaign(m, { scheduledAt: new Date(Date.now() + 86_400_000).toISOString() });
    expect((await send(m.headers, scheduled.id)).json.status).to.equal('SCHEDULED');
    expectProblem(await send(m.headers, scheduled.id), 409, 'campaign_state_refused');
    const cleared = await patch(m.headers, scheduled.id, { scheduledAt: null });
    expect(cleared.json.status).to.equal('DRAFT');
    expect((await remove(m.headers, scheduled.id)).status).to.equal(204);
    expectProblem(await get(m.headers, scheduled.id), 404, 'campaign_not_found');
  });

  it('a resumed send writes to nobody twice', async () => {
    const m = await merchant(server);
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await customer(server, m, { accepts_marketing: true }));
    const c = await campaign(m);
    expect((await send(m.headers, c.id)).status).to.equal(201);
    // A worker sends one batch of 2, then "crashes"; one sent recipient is even left pending, as if its row update were lost.
    expect(await sendCampaignBatch(ctx(), c.id, new Date(), 2)).to.equal(2);
    const sent = Object.entries(await recipients(c.id)).filter(([, s]) => s === 'queued');
    expect(sent).to.have.length(2);
    await q("UPDATE campaign_recipients SET status = 'pending' WHERE campaign_id = $1 AND customer_id = $2", [c.id, sent[0]![0]]);
    await runMarketingPass(ctx());
    const final = await recipients(c.id);
    expect(final[sent[0]![0]]).to.equal('duplicate');
    expect(Object.values(final).filter((s) => s === 'queued')).to.have.length(4);
    for (const id of ids) expect(await messagesTo(id), id).to.have.length(1);
    expect((await get(m.headers, c.id)).json.status).to.equal('SENT');
  });

  it('keeps tenants apart, lists in pages, and any member may work on campaigns', async () => {
    const m = await merchant(server);
    const other = await merchant(server);
    const c = await campaign(m);
    expectProblem(await get(other.headers, c.id), 404, 'campaign_not_found');
    expectProblem(await patch(other.headers, c.id, { name: 'x' }), 404, 'campaign_not_found');
    expectProblem(await send(other.headers, c.id), 404, 'campaign_not_found');
    expectProblem(await remove(other.headers, c.id), 404, 'campaign_not_found');
    expect(
      (await create(other.headers, { storeId: m.storeId, name: 'x', subject: 's', body: 'b', category: 'MARKETING', segment: {} })).status,
    ).to.equal(404);
    expect(((await call(server, 'GET', base, { headers: other.headers })).json.items as any[]).map((i) => i.id)).to.not.include(c.id);

    await campaign(m);
    await campaign(m);
    const page1 = await call(server, 'GET', `${base}?limit=2`, { headers: m.headers });
    expect(page1.status, page1.text).to.equal(200);
    expect(page1.json.items).to.have.length(2);
    const page2 = await call(server, 'GET', `${base}?limit=2&cursor=${page1.json.nextCursor}`, { headers: m.headers });
    expect(page2.json.items.map((i: any) => i.id)).to.deep.equal([c.id]);
    expect(page2.json.nextCursor).to.equal(null);

    const staff = await addMember(server, m.owner, 'staff');
    const res = await call(server, 'GET', `${base}/${c.id}`, { headers: staff.headers });
    expect(res.status, res.text).to.equal(200);
    expect((await call(server, 'GET', base)).status).to.equal(401);
  });

  it('validates bounds', async () => {
    const m = await merchant(server);
    const ok = { storeId: m.storeId, name: 'n', subject: 's', body: 'b', category: 'MARKETING', segment: {} };
    for (const bad of [
      { category: 'TRANSACTIONAL' },
      { segment: { orderedWithinDays: 0 } },
      { segment: { spentOver: -1 } },
      { segment: { nope: 1 } },
      { name: '' },
      { subject: 'x'.repeat(201) },
      { scheduledAt: 'tomorrow' },
      { extra: true },
    ]) {
      const res = await create(m.headers, { ...ok, ...bad });
      expectProblem(res, 400, 'validation_failed');
    }
    delete (ok as any).segment;
    expectProblem(await create(m.headers, ok), 400, 'validation_failed');
    expectProblem(await call(server, 'GET', `${base}?limit=101`, { headers: m.headers }), 400, 'validation_failed');
    const c = await campaign(m);
    expectProblem(await patch(m.headers, c.id, {}), 400, 'validation_failed');
  });
});
