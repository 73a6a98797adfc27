/**
 * API keys: the secret shown once and stored hashed, scopes (known ones only; a missing scope is 403),
 * a key bound to its own store (another store of the same tenant is 404), revocation and expiry (401
 * at once), roles (staff lists, owners and admins manage; keys never manage keys), tenant isolation on
 * every route, the CSV export (no secrets, formula injection neutralised) and the audit entries.
 */
import { expect } from 'chai';
import { sha256 } from '../../api/auth/secrets';
import { uuidv7 } from '../../storage/ids';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { addMember, auditRows, bearer, expectProblem, type SignedUp } from '../helpers/accounts';
import { merchant, store } from '../helpers/fixtures';
import { eventually } from '../helpers/wait';

describe('api keys', () => {
  let server: TestServer;
  apiSuite((started) => (server = started));

  function create(headers: Record<string, string>, body: Record<string, unknown>): Promise<TestResponse> {
    return call(server, 'POST', '/api/v1/api-keys', { headers, body });
  }

  async function key(
    owner: SignedUp,
    storeId: string,
    scopes: string[],
    name = 'integration',
  ): Promise<{ id: string; key: string; prefix: string }> {
    const res = await create(bearer(owner.accessToken), { storeId, name, scopes });
    expect(res.status, res.text).to.equal(201);
    return res.json;
  }

  const list = (headers: Record<string, string>, storeId: string) =>
    call(server, 'GET', `/api/v1/api-keys?storeId=${storeId}`, { headers });

  it('creates a key (201) whose secret is shown once and stored only as a hash with a visible prefix', async () => {
    const { owner, storeId } = await merchant(server);
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const res = await create(bearer(owner.accessToken), {
      storeId,
      name: 'ERP sync',
      scopes: ['api-keys:read', 'organization:read'],
      expiresAt,
    });
    expect(res.status, res.text).to.equal(201);
    expect(Object.keys(res.json)).to.have.members(['id', 'name', 'storeId', 'prefix', 'scopes', 'createdAt', 'expiresAt', 'key']);
    expect(res.json).to.deep.include({ name: 'ERP sync', storeId, scopes: ['api-keys:read', 'organization:read'], expiresAt });
    expect(res.json.prefix).to.match(/^sk_[a-z0-9]{10}$/);
    expect(res.json.key.startsWith(`${res.json.prefix}_`)).to.equal(true);
    expect(res.json.key.length).to.be.greaterThan(res.json.prefix.length + 40);

    const [row] = await server.runtime.dataSource.query('SELECT * FROM api_keys WHERE id = $1', [res.json.id]);
    expect(row.secret_hash).to.equal(sha256(res.json.key));
    expect(JSON.stringify(row)).to.not.include(res.json.key.slice(res.json.prefix.length + 1));
    expect(row.created_by).to.equal(owner.userId);

    // Never again: not in the list, the export or the audit log.
    const listed = await list(bearer(owner.accessToken), storeId);
    expect(listed.status, listed.text).to.equal(200);
    expect(listed.json.items).to.have.length(1);
    expect(listed.json.items[0]).to.deep.include({
      id: res.json.id,
      prefix: res.json.prefix,
      status: 'active',
      lastUsedAt: null,
      revokedAt: null,
      createdBy: owner.userId,
    });
    expect(listed.json.nextCursor).to.equal(null);
    expect(listed.text).to.not.include(res.json.key);
    const csv = await call(server, 'GET', `/api/v1/api-keys/export?storeId=${storeId}`, { headers: bearer(owner.accessToken) });
    expect(csv.text).to.include(res.json.prefix).and.not.include(res.json.key);
    const audit = (await auditRows(server, owner.tenantId)).filter((a) => a.action === 'api_key.create');
    expect(audit).to.have.length(1);
    expect(audit[0]).to.deep.include({ resource_type: 'api_key', resource_id: res.json.id, actor_id: owner.userId });
    expect(audit[0]!.after).to.deep.equal({
      name: 'ERP sync',
      storeId,
      prefix: res.json.prefix,
      scopes: ['api-keys:read', 'organization:read'],
      expiresAt,
    });
    expect(JSON.stringify(audit)).to.not.include(res.json.key);
  });

  it('authorises a key by its scopes on its own store only (403 insufficient_scope, 404 for other stores)', async () => {
    const { owner, storeId } = await merchant(server);
    const sibling = await store(server, { headers: bearer(owner.accessToken) });
    const reader = await key(owner, storeId, ['api-keys:read']);
    const ok = await list({ 'X-API-Key': reader.key }, storeId);
    expect(ok.status, ok.text).to.equal(200);
    expect(ok.json.items.map((k: any) => k.id)).to.deep.equal([reader.id]);
    // Also as a bearer token.
    expect((await list(bearer(reader.key), storeId)).status).to.equal(200);
    expect(
      (await call(server, 'GET', `/api/v1/api-keys/export?storeId=${storeId}`, { headers: { 'X-API-Key': reader.key } })).status,
    ).to.equal(200);
    // Another store of the same tenant does not exist for this key.
    expectProblem(await list({ 'X-API-Key': reader.key }, sibling), 404, 'store_not_found');
    expectProblem(
      await call(server, 'GET', `/api/v1/api-keys/export?storeId=${sibling}`, { headers: { 'X-API-Key': reader.key } }),
      404,
      'store_not_found',
    );
    // Without the scope: 403.
    const other = await key(owner, storeId, ['organization:read']);
    expectProblem(await list({ 'X-API-Key': other.key }, storeId), 403, 'insufficient_scope');
    // last used is recorded (after the answer).
    const lastUsed = async (): Promise<Date | null> =>
      (await server.runtime.dataSource.query('SELECT last_used_at FROM api_keys WHERE id = $1', [reader.id]))[0].last_used_at;
    expect(await eventually(lastUsed, 'the key to be marked as used')).to.be.instanceOf(Date);
  });

  it('refuses wrong and tampered keys with 401', async () => {
    const { owner, storeId } = await merchant(server);
    const valid = await key(owner, storeId, ['*']);
    const tampered = `${valid.key.slice(0, -2)}${valid.key.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const wrong of [tampered, `${valid.prefix}_`, valid.prefix, 'sk_nonexistent_abc', 'sk_']) {
      expectProblem(await list({ 'X-API-Key': wrong }, storeId), 401, 'invalid_api_key');
    }
  });

  it('revokes a key (204): it answers 401 at once; revoking again is 204 and audited once', async () => {
    const { owner, storeId } = await merchant(server);
    const k = await key(owner, storeId, ['api-keys:read']);
    expect((await list({ 'X-API-Key': k.key }, storeId)).status).to.equal(200);
    const res = await call(server, 'DELETE', `/api/v1/api-keys/${k.id}`, { headers: bearer(owner.accessToken) });
    expect(res.status, res.text).to.equal(204);
    expectProblem(await list({ 'X-API-Key': k.key }, storeId), 401, 'invalid_api_key');
    expect((await call(server, 'DELETE', `/api/v1/api-keys/${k.id}`, { headers: bearer(owner.accessToken) })).status).to.equal(204);
    const item = (await list(bearer(owner.accessToken), storeId)).json.items[0];
    expect(item.status).to.equal('revoked');
    expect(item.revokedAt).to.be.a('string');
    const revokes = (await auditRows(server, owner.tenantId)).filter((a) => a.action === 'api_key.revoke');
    expect(revokes).to.have.length(1);
    expect(revokes[0]).to.deep.include({ resource_id: k.id, before: { status: 'active' } });
    expectProblem(
      await call(server, 'DELETE', `/api/v1/api-keys/${uuidv7()}`, { headers: bearer(owner.accessToken) }),
      404,
      'api_key_not_found',
    );
  });

  it('stops an expired key with 401 and lists it as expired', async () => {
    const { owner, storeId } = await merchant(server);
    const k = await key(owner, storeId, ['api-keys:read']);
    await server.runtime.dataSource.query("UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1", [k.id]);
    expectProblem(await list({ 'X-API-Key': k.key }, storeId), 401, 'invalid_api_key');
    expect((await list(bearer(owner.accessToken), storeId)).json.items[0].status).to.equal('expired');
  });

  it('never lets a key create or revoke keys (403), whatever its scopes', async () => {
    const { owner, storeId } = await merchant(server);
    const admin = await key(owner, storeId, ['*']);
    const writer = await key(owner, storeId, ['api-keys:write']);
    for (const k of [admin, writer]) {
      expectProblem(await create({ 'X-API-Key': k.key }, { storeId, name: 'child', scopes: ['*'] }), 403, 'api_key_not_allowed');
      expectProblem(
        await call(server, 'DELETE', `/api/v1/api-keys/${admin.id}`, { headers: { 'X-API-Key': k.key } }),
        403,
        'api_key_not_allowed',
      );
    }
    expect((await list(bearer(owner.accessToken), storeId)).json.items).to.have.length(2);
    expect((await auditRows(server, owner.tenantId)).filter((a) => a.action.startsWith('api_key.')).map((a) => a.action)).to.deep.equal([
      'api_key.create',
      'api_key.create',
    ]);
  });

  it('lets staff list and export but not create or revoke (403); admins manage', async () => {
    const { owner, storeId } = await merchant(server);
    const k = await key(owner, storeId, ['api-keys:read']);
    const staff = (await addMember(server, owner, 'staff')).headers;
    expect((await list(staff, storeId)).status).to.equal(200);
    expect((await call(server, 'GET', `/api/v1/api-keys/export?storeId=${storeId}`, { headers: staff })).status).to.equal(200);
    expectProblem(await create(staff, { storeId, name: 'mine', scopes: ['*'] }), 403, 'insufficient_role');
    expectProblem(await call(server, 'DELETE', `/api/v1/api-keys/${k.id}`, { headers: staff }), 403, 'insufficient_role');
    expect((await list({ 'X-API-Key': k.key }, storeId)).status).to.equal(200);
    const admin = (await addMember(server, owner, 'admin')).headers;
    expect((await create(admin, { storeId, name: 'by admin', scopes: ['organization:read'] })).status).to.equal(201);
    expect((await call(server, 'DELETE', `/api/v1/api-keys/${k.id}`, { headers: admin })).status).to.equal(204);
  });

  it("answers 404 for another tenant's store and key on every route, and lists only the caller's keys", async () => {
    const { owner, storeId } = await merchant(server);
    const { owner: intruder, storeId: ownStore } = await merchant(server);
    const k = await key(owner, storeId, ['api-keys:read']);
    const h = bearer(intruder.accessToken);
    expectProblem(await list(h, storeId), 404, 'store_not_found');
    expectProblem(await call(server, 'GET', `/api/v1/api-keys/export?storeId=${storeId}`, { headers: h }), 404, 'store_not_found');
    expectProblem(await create(h, { storeId, name: 'planted', scopes: ['*'] }), 404, 'store_not_found');
    expectProblem(await call(server, 'DELETE', `/api/v1/api-keys/${k.id}`, { headers: h }), 404, 'api_key_not_found');
    // The owner's key cannot reach the intruder's store either.
    expectProblem(await list({ 'X-API-Key': k.key }, ownStore), 404, 'store_not_found');
    // Nothing changed: the key still works, and no key was planted.
    expect((await list({ 'X-API-Key': k.key }, storeId)).json.items.map((i: any) => i.id)).to.deep.equal([k.id]);
    expect((await list(h, ownStore)).json.items).to.deep.equal([]);
    expect((await auditRows(server, intruder.tenantId)).filter((a) => a.action.startsWith('api_key.'))).to.deep.equal([]);
  });

  it('validates the request: known scopes only (1 to 50, no duplicates), a name of 1 to 100, a future expiry', async () => {
    const { owner, storeId } = await merchant(server);
    const h = bearer(owner.accessToken);
    for (const body of [
      { storeId, name: 'x', scopes: [] },
      { storeId, name: 'x', scopes: ['catalog:admin'] },
      { storeId, name: 'x', scopes: ['no-such-area:read'] },
      { storeId, name: 'x', scopes: ['auth:read'] },
      { storeId, name: 'x', scopes: ['API-KEYS:read'] },
      { storeId, name: 'x', scopes: ['api-keys:read', 'api-keys:read'] },
      { storeId, name: 'x', scopes: Array.from({ length: 51 }, () => '*') },
      { storeId, name: '', scopes: ['*'] },
      { storeId, name: 'x'.repeat(101), scopes: ['*'] },
      { storeId, name: 'x', scopes: ['*'], expiresAt: new Date(Date.now() - 60_000).toISOString() },
      { storeId, name: 'x', scopes: ['*'], expiresAt: 'tomorrow' },
      { storeId: 'not-a-uuid', name: 'x', scopes: ['*'] },
      { name: 'x', scopes: ['*'] },
      { storeId, name: 'x', scopes: ['*'], tenantId: owner.tenantId },
    ]) {
      expectProblem(await create(h, body), 400, 'validation_failed');
    }
    expectProblem(await call(server, 'GET', '/api/v1/api-keys', { headers: h }), 400, 'validation_failed');
    // Scopes of every merchant area are known.
    expect(
      (await create(h, { storeId, name: 'wide', scopes: ['api-keys:write', 'audit-log:read', 'organization:write'] })).status,
    ).to.equal(201);
    expect((await auditRows(server, owner.tenantId)).filter((a) => a.action === 'api_key.create')).to.have.length(1);
  });

  it('refuses keys for an archived store (409) but still lists its keys', async () => {
    const m = await merchant(server);
    const { owner, storeId: main } = m;
    const outlet = await store(server, m);
    const k = await key(owner, outlet, ['api-keys:read']);
    expect((await call(server, 'DELETE', `/api/v1/organization/stores/${outlet}`, { headers: bearer(owner.accessToken) })).status).to.equal(
      204,
    );
    expectProblem(await create(bearer(owner.accessToken), { storeId: outlet, name: 'late', scopes: ['*'] }), 409, 'store_archived');
    expect((await list(bearer(owner.accessToken), outlet)).json.items.map((i: any) => i.id)).to.deep.equal([k.id]);
    expect((await list(bearer(owner.accessToken), main)).json.items).to.deep.equal([]);
  });

  it('exports CSV with a header row, as a download, never secrets, with formulas neutralised', async () => {
    const { owner, storeId } = await merchant(server);
    const evil = await key(owner, storeId, ['api-keys:read'], '=cmd()');
    await key(owner, storeId, ['organization:read', 'api-keys:read'], '+1, "quoted"');
    await key(owner, storeId, ['*'], '@SUM(A1)');
    const res = await call(server, 'GET', `/api/v1/api-keys/export?storeId=${storeId}`, { headers: bearer(owner.accessToken) });
    expect(res.status, res.text).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/csv/);
    expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="api-keys-${storeId}.csv"`);
    const lines = res.text.trimEnd().split('\r\n');
    expect(lines[0]).to.equal('id,name,prefix,scopes,status,createdAt,expiresAt,lastUsedAt,revokedAt,createdBy');
    expect(lines).to.have.length(4);
    expect(res.text).to.include(`${evil.id},'=cmd(),${evil.prefix},api-keys:read,active,`);
    expect(res.text).to.include(`,"'+1, ""quoted""",`);
    expect(res.text).to.include(`,'@SUM(A1),`);
    expect(res.text).to.not.match(/(^|,)[=+@-]/m);
    expect(res.text).to.not.include(evil.key);
  });
});
