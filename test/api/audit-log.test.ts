/**
 * The audit log: the list (newest first, filters, cursor pages, only the caller's tenant), the diff
 * of one entry (404 for another tenant's), the CSV export (same filters, formula injection
 * neutralised), access (owners and admins only), and entries absent for rolled-back writes.
 */
import { expect } from 'chai';
import { createStore } from '../../api/organization/organization.stores.service';
import { uuidv7 } from '../../storage/ids';
import type { RequestContext } from '../../storage/request-context';
import { inTransaction } from '../../storage/request-context';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { addMember, auditRows, bearer, expectProblem, signUp } from '../helpers/accounts';
import { store } from '../helpers/fixtures';

describe('audit log', () => {
  let server: TestServer;
  apiSuite((started) => (server = started));

  /** A store made through POST /organization/stores with `headers` (the request whose entry the tests read). */
  const newStore = (headers: Record<string, string>, name = 'Audited Shop'): Promise<string> => store(server, { headers }, { name });

  const auditLog = (headers: Record<string, string>, query = '') => call(server, 'GET', `/api/v1/audit-log${query}`, { headers });

  it('lists the tenant entries newest first with actor, address, user agent and request id', async () => {
    const owner = await signUp(server);
    const h = { ...bearer(owner.accessToken), 'User-Agent': 'AuditTest/1.0', 'X-Request-Id': `req-${uuidv7()}` };
    const storeId = await newStore(h);
    await call(server, 'PATCH', `/api/v1/organization/stores/${storeId}`, { headers: h, body: { name: 'Renamed' } });
    const res = await auditLog(bearer(owner.accessToken));
    expect(res.status, res.text).to.equal(200);
    const actions = res.json.items.map((i: any) => i.action);
    expect(actions.slice(0, 2)).to.deep.equal(['store.update', 'store.create']);
    expect(actions).to.include('tenant.create');
    const ids = res.json.items.map((i: any) => i.id);
    expect(ids).to.deep.equal([...ids].sort().reverse());
    const update = res.json.items[0];
    expect(Object.keys(update)).to.have.members([
      'id',
      'action',
      'resourceType',
      'resourceId',
      'actor',
      'ip',
      'userAgent',
      'requestId',
      'createdAt',
    ]);
    expect(update).to.deep.include({
      resourceType: 'store',
      resourceId: storeId,
      actor: { type: 'user', id: owner.userId },
      userAgent: 'AuditTest/1.0',
      requestId: h['X-Request-Id'],
    });
    expect(update.ip).to.be.a('string');
    expect(res.json.nextCursor).to.equal(null);
  });

  it('filters by action, resource type, actor and time, and pages with the cursor', async () => {
    const owner = await signUp(server);
    const h = bearer(owner.accessToken);
    const admin = await addMember(server, owner, 'admin');
    const started = new Date();
    const stores = [await newStore(h, 'One'), await newStore(h, 'Two'), await newStore(admin.headers, 'Three')];
    const byAction = await auditLog(h, '?action=store.create');
    expect(byAction.json.items.map((i: any) => i.resourceId)).to.deep.equal([...stores].reverse());
    expect((await auditLog(h, '?resourceType=tenant')).json.items.map((i: any) => i.action)).to.deep.equal(['tenant.create']);
    const byAdmin = (await auditLog(h, `?actorUserId=${admin.userId}`)).json.items;
    expect(byAdmin.map((i: any) => i.action)).to.deep.equal(['store.create', 'session.create']);
    expect(byAdmin[0].resourceId).to.equal(stores[2]);
    expect((await auditLog(h, `?action=store.create&actorUserId=${owner.userId}`)).json.items).to.have.length(2);
    expect((await auditLog(h, `?from=${encodeURIComponent(started.toISOString())}`)).json.items).to.have.length(3);
    expect((await auditLog(h, `?to=${encodeURIComponent(started.toISOString())}`)).json.items.map((i: any) => i.action)).to.not.include(
      'store.create',
    );
    expect((await auditLog(h, '?from=2000-01-01&to=2000-01-02')).json.items).to.deep.equal([]);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: any = await auditLog(h, `?action=store.create&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status, page.text).to.equal(200);
      expect(page.json.items.length).to.be.at.most(2);
      seen.push(...page.json.items.map((i: any) => i.resourceId));
      cursor = page.json.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).to.equal(2);
    expect(seen).to.deep.equal([...stores].reverse());
  });

  it('validates filters and bounds (400)', async () => {
    const owner = await signUp(server);
    const h = bearer(owner.accessToken);
    for (const query of [
      '?limit=0',
      '?limit=101',
      '?limit=abc',
      '?actorUserId=nope',
      '?from=yesterday',
      '?unknown=1',
      `?action=${'x'.repeat(101)}`,
      '?from=2020-01-02&to=2020-01-01',
    ]) {
      expectProblem(await auditLog(h, query), 400, 'validation_failed');
    }
    expectProblem(await auditLog(h, '?cursor=not-a-cursor'), 400, 'invalid_cursor');
    expect((await auditLog(h, '?limit=100')).status).to.equal(200);
  });

  it('shows the diff of one entry: before, after and the changed fields', async () => {
    const owner = await signUp(server);
    const h = bearer(owner.accessToken);
    const storeId = await newStore(h, 'Before');
    await call(server, 'PATCH', `/api/v1/organization/stores/${storeId}`, {
      headers: h,
      body: { name: 'After', contactEmail: 'shop@example.test' },
    });
    const [entry] = (await auditLog(h, '?action=store.update')).json.items;
    const res = await call(server, 'GET', `/api/v1/audit-log/${entry.id}/diff`, { headers: h });
    expect(res.status, res.text).to.equal(200);
    expect(res.json).to.deep.include({
      id: entry.id,
      action: 'store.update',
      resourceType: 'store',
      resourceId: storeId,
      before: { name: 'Before', contactEmail: null },
      after: { name: 'After', contactEmail: 'shop@example.test' },
    });
    expect(res.json.changes).to.deep.equal([
      { field: 'name', before: 'Before', after: 'After' },
      { field: 'contactEmail', before: null, after: 'shop@example.test' },
    ]);
    // A creation: every field is a change from null.
    const [created] = (await auditLog(h, '?action=store.create')).json.items;
    const creation = await call(server, 'GET', `/api/v1/audit-log/${created.id}/diff`, { headers: h });
    expect(creation.json.before).to.equal(null);
    expect(creation.json.changes).to.deep.include({ field: 'name', before: null, after: 'Before' });
    expectProblem(await call(server, 'GET', `/api/v1/audit-log/${uuidv7()}/diff`, { headers: h }), 404, 'audit_entry_not_found');
  });

  it("keeps tenants apart: lists hold only the caller's entries and another tenant's entry is 404", async () => {
    const owner = await signUp(server);
    const intruder = await signUp(server);
    await newStore(bearer(owner.accessToken));
    const [entry] = (await auditLog(bearer(owner.accessToken), '?action=store.create')).json.items;
    const h = bearer(intruder.accessToken);
    expectProblem(await call(server, 'GET', `/api/v1/audit-log/${entry.id}/diff`, { headers: h }), 404, 'audit_entry_not_found');
    const listed = await auditLog(h);
    expect(listed.json.items.map((i: any) => i.action))
      .to.include('tenant.create')
      .and.not.include('store.create');
    expect(listed.json.items.every((i: any) => i.actor.id === intruder.userId)).to.equal(true);
    const own = await server.runtime.dataSource.query('SELECT id FROM audit_log WHERE tenant_id = $1 ORDER BY id DESC', [
      intruder.tenantId,
    ]);
    expect(listed.json.items.map((i: any) => i.id)).to.deep.equal(own.map((r: { id: string }) => r.id));
    expect((await auditLog(h, `?actorUserId=${owner.userId}`)).json.items).to.deep.equal([]);
    expect((await auditLog(h, `?cursor=${uuidv7()}`)).json.items.map((i: any) => i.id)).to.not.include(entry.id);
    const csv = await call(server, 'GET', '/api/v1/audit-log/export', { headers: h });
    expect(csv.text).to.not.include(entry.id);
    expect(csv.text).to.not.include(owner.userId);
  });

  it('is for owners and admins: staff and API keys get 403', async () => {
    const owner = await signUp(server);
    const storeId = await newStore(bearer(owner.accessToken));
    const [entry] = (await auditLog(bearer(owner.accessToken))).json.items;
    const staff = await addMember(server, owner, 'staff');
    const admin = await addMember(server, owner, 'admin');
    const keyRes = await call(server, 'POST', '/api/v1/api-keys', {
      headers: bearer(owner.accessToken),
      body: { storeId, name: 'audit reader', scopes: ['audit-log:read'] },
    });
    const key = { 'X-API-Key': keyRes.json.key };
    for (const headers of [staff.headers, key]) {
      const code = headers === key ? 'api_key_not_allowed' : 'insufficient_role';
      expectProblem(await auditLog(headers), 403, code);
      expectProblem(await call(server, 'GET', `/api/v1/audit-log/${entry.id}/diff`, { headers }), 403, code);
      expectProblem(await call(server, 'GET', '/api/v1/audit-log/export', { headers }), 403, code);
    }
    expect((await auditLog(admin.headers)).status).to.equal(200);
    for (const path of ['/audit-log', `/audit-log/${entry.id}/diff`, '/audit-log/export']) {
      expectProblem(await call(server, 'GET', `/api/v1${path}`), 401, 'unauthorized');
    }
  });

  it('exports CSV with the filters, oldest first, with formula injection neutralised', async () => {
    const owner = await signUp(server);
    const h = { ...bearer(owner.accessToken), 'User-Agent': '=cmd()|" /C calc"!A0' };
    const storeId = await newStore(h, '=HYPERLINK("http://evil.example")');
    await call(server, 'PATCH', `/api/v1/organization/stores/${storeId}`, {
      headers: { ...h, 'User-Agent': '-2+3' },
      body: { name: '@SUM(1)' },
    });
    const res = await call(server, 'GET', '/api/v1/audit-log/export?resourceType=store', { headers: bearer(owner.accessToken) });
    expect(res.status, res.text).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/csv/);
    expect(res.headers.get('content-disposition')).to.match(/^attachment; filename="audit-log-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = res.text.trimEnd().split('\r\n');
    expect(lines[0]).to.equal('id,createdAt,action,resourceType,resourceId,actorType,actorId,ip,userAgent,requestId,before,after');
    expect(lines).to.have.length(3);
    expect(lines[1]).to.include(',store.create,store,');
    expect(lines[2]).to.include(',store.update,store,');
    expect(lines[1]).to.include(`,"'=cmd()|"" /C calc""!A0",`);
    expect(lines[2]).to.include(",'-2+3,");
    // JSON cells start with { and hold the values as data.
    expect(res.text).to.not.match(/(^|,)"?[=+@-]/m);
    expect(
      (await call(server, 'GET', '/api/v1/audit-log/export?action=no.such', { headers: bearer(owner.accessToken) })).text.trimEnd(),
    ).to.equal(lines[0]);
  });

  it('exports long logs across batches without losing or repeating entries', async () => {
    const owner = await signUp(server);
    // More entries than one export batch (1000), written directly to keep the test fast.
    const values = Array.from(
      { length: 1005 },
      (_, i) => `('${uuidv7()}', '${owner.tenantId}', 'user', '${owner.userId}', 'bulk.test', 'thing', '${i}')`,
    ).join(',');
    await server.runtime.dataSource.query(
      `INSERT INTO audit_log (id, tenant_id, actor_type, actor_id, action, resource_type, resource_id) VALUES ${values}`,
    );
    const res = await call(server, 'GET', '/api/v1/audit-log/export?action=bulk.test', { headers: bearer(owner.accessToken) });
    expect(res.status).to.equal(200);
    const lines = res.text.trimEnd().split('\r\n').slice(1);
    expect(lines).to.have.length(1005);
    expect(lines.map((line) => line.split(',')[4])).to.deep.equal(Array.from({ length: 1005 }, (_, i) => String(i)));
  });

  it('writes no entry for a rolled-back write: the store and its store.create entry vanish together', async () => {
    const owner = await signUp(server);
    const ctx: RequestContext = {
      requestId: `rollback-${uuidv7()}`,
      tenantId: owner.tenantId,
      actor: { type: 'user', id: owner.userId, tenantRole: 'owner' },
      dataSource: server.runtime.dataSource,
      manager: server.runtime.dataSource.manager,
      inTransaction: false,
      services: server.runtime.services,
    };
    const before = await auditRows(server, owner.tenantId);
    let created: string | undefined;
    const failure = await inTransaction(ctx, async (tx) => {
      created = (await createStore(tx, { name: 'Doomed' })).id;
      // The entry exists inside the transaction…
      const inside = await tx.manager.query('SELECT action FROM audit_log WHERE resource_id = $1', [created]);
      expect(inside).to.deep.equal([{ action: 'store.create' }]);
      throw new Error('a later step of the same write fails');
    }).catch((error: Error) => error);
    expect(failure).to.be.instanceOf(Error);
    // …and is gone with the store after the rollback.
    expect(await server.runtime.dataSource.query('SELECT id FROM stores WHERE id = $1', [created])).to.deep.equal([]);
    expect(await auditRows(server, owner.tenantId)).to.deep.equal(before);
    // Refused writes over HTTP leave none either.
    const taken = (
      await call(server, 'POST', '/api/v1/organization/stores', { headers: bearer(owner.accessToken), body: { name: 'Real' } })
    ).json.slug;
    expect(
      (
        await call(server, 'POST', '/api/v1/organization/stores', {
          headers: bearer(owner.accessToken),
          body: { name: 'Dup', slug: taken },
        })
      ).status,
    ).to.equal(409);
    expect((await auditRows(server, owner.tenantId)).filter((a) => a.action === 'store.create')).to.have.length(1);
  });
});
