/**
 * In-app notifications over HTTP: the member's list (newest first, unreadOnly, limit bounds), marking
 * one read (another tenant's or another member's: 404) and all read (the count), with audit entries.
 */
import { expect } from 'chai';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { addMember, auditRows, expectProblem } from '../helpers/accounts';
import { createProduct, merchant, type Merchant } from '../helpers/fixtures';
import { uuidv7 } from '../../storage/ids';
import { notifyTenant } from '../../storage/notifications';
import { inTransaction, systemContext } from '../../storage/request-context';

const API = '/api/v1/communications/notifications';

describe('messaging: communications (in-app notifications)', function () {
  this.timeout(60_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));

  const get = (query: string, headers: Record<string, string>): Promise<TestResponse> => call(server, 'GET', `${API}${query}`, { headers });
  const post = (path: string, headers: Record<string, string>): Promise<TestResponse> => call(server, 'POST', `${API}${path}`, { headers });

  async function notify(m: Merchant, title: string, userId: string | null = null): Promise<string> {
    const ctx = systemContext(server.runtime.dataSource, uuidv7(), m.owner.tenantId, 'test');
    await inTransaction(ctx, (tx) =>
      notifyTenant(tx, { tenantId: m.owner.tenantId, userId, topic: 'test.event', title, body: `${title} body` }),
    );
    const [row] = await server.runtime.dataSource.query('SELECT id FROM merchant_notifications WHERE tenant_id = $1 AND title = $2', [
      m.owner.tenantId,
      title,
    ]);
    return row.id;
  }

  it('lists the tenant’s notifications newest first, with unreadOnly and the limit bounds', async () => {
    const m = suite.addMerchant(await merchant(server));
    const ids = [await notify(m, 'first'), await notify(m, 'second'), await notify(m, 'third')];
    const all = await get('?unreadOnly=false&limit=50', m.headers);
    expect(all.status, all.text).to.equal(200);
    expect(all.json.items.map((n: any) => n.id)).to.deep.equal([...ids].reverse());
    expect(all.json.unreadCount).to.equal(3);
    expect(all.json.items[0]).to.include({ title: 'third', topic: 'test.event', read: false, readAt: null });
    expect((await get('?limit=2', m.headers)).json.items).to.have.length(2);
    expect((await get('', m.headers)).json.items).to.have.length(3);
    for (const bad of ['?limit=0', '?limit=101', '?unreadOnly=perhaps', '?page=2'])
      expectProblem(await get(bad, m.headers), 400, 'validation_failed');
    expect((await get('?limit=100', m.headers)).status).to.equal(200);
    expect((await call(server, 'GET', API)).status).to.equal(401);
    const read = await post(`/${ids[1]}/read`, m.headers);
    expect(read.status, read.text).to.equal(204);
    const unread = await get('?unreadOnly=true&limit=50', m.headers);
    expect(unread.json.items.map((n: any) => n.id)).to.deep.equal([ids[2], ids[0]]);
    expect(unread.json.unreadCount).to.equal(2);
    expect((await post(`/${ids[1]}/read`, m.headers)).status, 'again: nothing changes').to.equal(204);
  });

  it("answers 404 for another tenant's notification and another member's own one", async () => {
    const m = suite.addMerchant(await merchant(server));
    const other = suite.addMerchant(await merchant(server));
    const theirs = await notify(other, 'theirs');
    expectProblem(await post(`/${theirs}/read`, m.headers), 404, 'notification_not_found');
    expectProblem(await post(`/${uuidv7()}/read`, m.headers), 404, 'notification_not_found');
    expectProblem(await post('/not-a-uuid/read', m.headers), 400, 'validation_failed');
    expect((await get('?limit=50', m.headers)).json.items.map((n: any) => n.id)).not.to.include(theirs);
    const member = await addMember(server, m.owner, 'staff');
    const forOwnerOnly = await notify(m, 'owner only', m.owner.userId);
    const memberHeaders = member.headers;
    expect((await get('?limit=50', memberHeaders)).json.items.map((n: any) => n.id)).not.to.include(forOwnerOnly);
    expectProblem(await post(`/${forOwnerOnly}/read`, memberHeaders), 404, 'notification_not_found');
    expect((await post(`/${forOwnerOnly}/read`, m.headers)).status).to.equal(204);
  });

  it('marks all read with the count, audited', async () => {
    const m = suite.addMerchant(await merchant(server));
    const other = suite.addMerchant(await merchant(server));
    await notify(m, 'one');
    await notify(m, 'two');
    const theirs = await notify(other, 'not mine');
    const res = await post('/read-all', m.headers);
    expect(res.status, res.text).to.equal(200);
    expect(res.json).to.deep.equal({ count: 2 });
    expect((await post('/read-all', m.headers)).json).to.deep.equal({ count: 0 });
    const [row] = await server.runtime.dataSource.query('SELECT read_at FROM merchant_notifications WHERE id = $1', [theirs]);
    expect(row.read_at).to.equal(null);
    const audit = (await auditRows(server, m.owner.tenantId)).filter((r) => r.action === 'notification.read_all');
    expect(audit.map((r) => r.after)).to.deep.equal([{ count: 2 }]);
  });

  it('a finished bulk edit notifies the tenant in-app, once', async () => {
    const m = suite.addMerchant(await merchant(server));
    const product = await createProduct(server, m);
    const res = await call(server, 'POST', '/api/v1/catalog/products/bulk/update-price', {
      headers: m.headers,
      body: { storeId: m.storeId, productIds: [product.id], mode: 'ADD', value: 1 },
    });
    expect(res.status, res.text).to.equal(200);
    const list = await get('?unreadOnly=true&limit=50', m.headers);
    const notes = list.json.items.filter((n: any) => n.topic === 'product_bulk_edits.finished');
    expect(notes).to.have.length(1);
    expect(notes[0]).to.include({ title: 'Bulk edit finished', body: '1 of 1 products changed.', storeId: m.storeId });
  });
});
