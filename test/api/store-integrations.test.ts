/**
 * Store integrations over HTTP: the catalog and the public catalog, connecting with settings checked
 * against each integration's schema (unknown keys, required and secret fields, patterns, types, every
 * bound of the body), secrets that never leave the API (not in any answer, ciphertext in the
 * database, not in the audit log), toggling, one default per kind and store (also under concurrent
 * calls), disconnecting, the store's list, roles and tenant isolation.
 */
import { expect } from 'chai';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { auditRows, expectProblem } from '../helpers/accounts';
import { apiKey, merchant, store, type Merchant } from '../helpers/fixtures';
import { uuidv7 } from '../../storage/ids';
import { openIntegrationSecrets } from '../../api/store-integrations/integration-secrets';
import {
  DisconnectedIntegrationResponse,
  IntegrationCatalogResponse,
  PublicIntegrationCatalogResponse,
  StoreIntegrationListResponse,
  StoreIntegrationResponse,
} from '../../api/store-integrations/store-integrations.schemas';

const API = '/api/v1';
const CARRIER_KEY = 'ck_live_Zq8Wm3Xr9Tb2Yv6N';

describe('Store integrations', function () {
  this.timeout(60_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  let m: Merchant;

  before(async () => {
    m = suite.addMerchant(await merchant(server));
  });

  const db = (sql: string, params: unknown[] = []): Promise<any[]> => server.runtime.dataSource.query(sql, params);
  const connect = (body: Record<string, unknown>, who: { headers: Record<string, string>; storeId: string } = m) =>
    call(server, 'POST', `${API}/store-integrations/connect`, { headers: who.headers, body: { storeId: who.storeId, ...body } });
  const list = (storeId: string, headers = m.headers) => call(server, 'GET', `${API}/store-integrations?storeId=${storeId}`, { headers });
  const toggle = (id: string, enabled: unknown, headers = m.headers) =>
    call(server, 'POST', `${API}/store-integrations/${id}/toggle`, { headers, body: { enabled } });
  const setDefault = (id: string, headers = m.headers) => call(server, 'POST', `${API}/store-integrations/${id}/set-default`, { headers });
  const disconnect = (id: string, headers = m.headers) => call(server, 'POST', `${API}/store-integrations/${id}/disconnect`, { headers });
  const rowsOf = (storeId: string) => db(`SELECT * FROM store_integrations WHERE store_id = $1 ORDER BY created_at, id`, [storeId]);

  function expectIntegration(res: TestResponse): Record<string, any> {
    expect(res.status, res.text).to.equal(200);
    expect(StoreIntegrationResponse.schema.validate(res.json).error?.message).to.equal(undefined);
    return res.json;
  }

  it('answers the catalog with each integration’s settings schema, and the public catalog without them', async () => {
    const res = await call(server, 'GET', `${API}/store-integrations/catalog`, { headers: m.headers });
    expect(res.status, res.text).to.equal(200);
    expect(IntegrationCatalogResponse.schema.validate(res.json).error?.message).to.equal(undefined);
    expect(res.json.kinds.map((k: { kind: string }) => k.kind)).to.deep.equal([
      'marketplace_feed',
      'analytics',
      'shipping_carrier',
      'accounting_export',
    ]);
    const bySlug = Object.fromEntries(res.json.items.map((i: { slug: string }) => [i.slug, i]));
    expect(Object.keys(bySlug)).to.include.members([
      'google-merchant-feed',
      'google-analytics-4',
      'plausible-analytics',
      'parcel-carrier-api',
      'accounting-ledger-export',
    ]);
    expect(bySlug['google-merchant-feed']).to.include({ kind: 'marketplace_feed', live: true });
    expect(bySlug['parcel-carrier-api']).to.include({ kind: 'shipping_carrier', live: false });
    expect(bySlug['parcel-carrier-api'].settingsSchema.find((f: { key: string }) => f.key === 'apiKey')).to.include({
      secret: true,
      required: true,
    });
    expect((await call(server, 'GET', `${API}/store-integrations/catalog`)).status).to.equal(401);

    const pub = await call(server, 'GET', `${API}/store-integrations/public-catalog`);
    expect(pub.status, pub.text).to.equal(200);
    expect(PublicIntegrationCatalogResponse.schema.validate(pub.json).error?.message).to.equal(undefined);
    expect(pub.json.items.map((i: { slug: string }) => i.slug)).to.deep.equal(res.json.items.map((i: { slug: string }) => i.slug));
    for (const item of pub.json.items) expect(item).not.to.have.property('settingsSchema');
  });

  it('refuses bad bodies and settings that do not match the integration’s schema, writing nothing', async () => {
    const carrier = (settings: Record<string, unknown>) => ({ integration: 'parcel-carrier-api', settings });
    const good = { accountNumber: 'ACC-1234', apiKey: CARRIER_KEY };
    for (const body of [
      {},
      { integration: 'parcel-carrier-api', storeId: 'not-a-uuid' },
      { integration: 'Parcel Carrier' },
      { integration: 'x' },
      { integration: 'a'.repeat(64) },
      { ...carrier(good), extra: 1 },
      { ...carrier(good), enabled: 'yes' },
      carrier({ ...good, accountNumber: 5 }),
      carrier({ ...good, accountNumber: ['ACC-1234'] }),
      carrier({ ...good, apiKey: 'k'.repeat(2001) }),
      carrier(Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']))),
      { integration: 'parcel-carrier-api', settings: 'accountNumber=1' },
    ])
      expectProblem(await connect(body), 400, 'validation_failed');
    const invalid = async (settings: Record<string, unknown>, paths: string[]) => {
      const res = await connect(carrier(settings));
      expectProblem(res, 400, 'store_integration_settings_invalid');
      expect(res.json.errors.map((e: { path: string }) => e.path)).to.have.members(paths);
    };
    await invalid({ ...good, colour: 'red' }, ['body.settings.colour']);
    await invalid({ accountNumber: 'ACC-1234' }, ['body.settings.apiKey']);
    await invalid({}, ['body.settings.accountNumber', 'body.settings.apiKey']);
    await invalid({ ...good, apiKey: 'short' }, ['body.settings.apiKey']);
    await invalid({ ...good, apiKey: 'k'.repeat(501) }, ['body.settings.apiKey']);
    await invalid({ ...good, accountNumber: 'no spaces allowed' }, ['body.settings.accountNumber']);
    await invalid({ ...good, serviceLevel: 'overnight' }, ['body.settings.serviceLevel']);
    await invalid({ ...good, serviceLevel: true }, ['body.settings.serviceLevel']);
    const feed = await connect({ integration: 'google-merchant-feed', settings: { includeOutOfStock: 'no' } });
    expectProblem(feed, 400, 'store_integration_settings_invalid');
    for (const measurementId of ['G-<script>', 'UA-12345-1', 'g-abcd1234', 'G-ABC', '"><script>alert(1)</script>', 'G-ABCD1234 '])
      expectProblem(
        await connect({ integration: 'google-analytics-4', settings: { measurementId } }),
        400,
        'store_integration_settings_invalid',
      );
    expectProblem(await connect({ integration: 'no-such-integration', settings: {} }), 404, 'integration_not_found');
    expectProblem(await connect({ ...carrier(good), storeId: uuidv7() }), 404, 'store_not_found');
    expect(await rowsOf(m.storeId)).to.have.length(0);
  });

  it('keeps secrets encrypted and out of every answer and the audit log; reconnecting may leave them out', async () => {
    const owner = suite.addMerchant(await merchant(server));
    const connected = expectIntegration(
      await connect({ integration: 'parcel-carrier-api', settings: { accountNumber: 'ACC-1234', apiKey: CARRIER_KEY } }, owner),
    );
    expect(connected).to.deep.include({
      integration: 'parcel-carrier-api',
      kind: 'shipping_carrier',
      live: false,
      enabled: true,
      isDefault: true,
      settings: { accountNumber: 'ACC-1234', serviceLevel: 'standard' },
      secrets: [{ key: 'apiKey', set: true, last4: CARRIER_KEY.slice(-4) }],
      feed: null,
    });
    const listed = await list(owner.storeId, owner.headers);
    expect(listed.status).to.equal(200);
    expect(StoreIntegrationListResponse.schema.validate(listed.json).error?.message).to.equal(undefined);
    const secretBody = CARRIER_KEY.slice(0, -4);
    for (const res of [listed, await connect({ integration: 'parcel-carrier-api', settings: { accountNumber: 'ACC-9999' } }, owner)])
      expect(res.text).not.to.include(secretBody);

    const [row] = await rowsOf(owner.storeId);
    expect(row.secrets_enc).to.match(/^v1\./);
    expect(JSON.stringify(row)).not.to.include(secretBody);
    expect(row.settings).to.deep.equal({ accountNumber: 'ACC-9999', serviceLevel: 'standard' });
    // Reconnecting without the secret kept it.
    expect(openIntegrationSecrets(server.runtime.config.appSecret, row.secrets_enc)).to.deep.equal({ apiKey: CARRIER_KEY });

    // A short secret is never hinted at; a new one replaces the old.
    const replaced = expectIntegration(
      await connect(
        { integration: 'parcel-carrier-api', settings: { accountNumber: 'ACC-9999', apiKey: 'abcdefgh1', serviceLevel: 'express' } },
        owner,
      ),
    );
    expect(replaced.secrets).to.deep.equal([{ key: 'apiKey', set: true, last4: null }]);
    const [after] = await rowsOf(owner.storeId);
    expect(openIntegrationSecrets(server.runtime.config.appSecret, after.secrets_enc)).to.deep.equal({ apiKey: 'abcdefgh1' });

    const audit = (await auditRows(server, owner.owner.tenantId)).filter((r) => r.resource_type === 'store_integration');
    expect(audit.map((r) => r.action)).to.deep.equal([
      'store_integration.connect',
      'store_integration.reconnect',
      'store_integration.reconnect',
    ]);
    const auditText = JSON.stringify(audit);
    expect(auditText).not.to.include(secretBody);
    expect(auditText).not.to.include('abcdefgh1');
    expect(auditText).not.to.include(CARRIER_KEY.slice(-4));
    expect(audit[0]!.after).to.include({ integration: 'parcel-carrier-api', enabled: true });
  });

  it('toggles an integration; a store keeps one default per kind, the first enabled one, then the one set', async () => {
    const owner = suite.addMerchant(await merchant(server));
    const ga = expectIntegration(await connect({ integration: 'google-analytics-4', settings: { measurementId: 'G-ABCD1234' } }, owner));
    expect(ga.isDefault).to.equal(true);
    const plausible = expectIntegration(
      await connect({ integration: 'plausible-analytics', settings: { domain: 'shop.example.com' } }, owner),
    );
    expect(plausible.isDefault).to.equal(false);
    const feed = expectIntegration(await connect({ integration: 'google-merchant-feed', enabled: false }, owner));
    expect(feed).to.include({ enabled: false, isDefault: false });

    expect(expectIntegration(await setDefault(plausible.id, owner.headers)).isDefault).to.equal(true);
    const byId = async () => Object.fromEntries((await rowsOf(owner.storeId)).map((r) => [r.id, r]));
    expect((await byId())[ga.id].is_default).to.equal(false);
    // Setting the default again changes nothing; a disabled integration cannot become the default.
    expect(expectIntegration(await setDefault(plausible.id, owner.headers)).isDefault).to.equal(true);
    expectProblem(await setDefault(feed.id, owner.headers), 409, 'store_integration_disabled');

    // Turned off, the default stops being one; turned on again it is not the default by itself.
    expect(expectIntegration(await toggle(plausible.id, false, owner.headers))).to.include({ enabled: false, isDefault: false });
    expect(expectIntegration(await toggle(plausible.id, false, owner.headers))).to.include({ enabled: false });
    expect(expectIntegration(await toggle(plausible.id, true, owner.headers))).to.include({ enabled: true, isDefault: false });
    expect(expectIntegration(await toggle(feed.id, true, owner.headers))).to.include({ enabled: true });
    expectIntegration(await setDefault(feed.id, owner.headers));
    for (const enabled of [undefined, 'yes', 1, null]) expectProblem(await toggle(ga.id, enabled, owner.headers), 400, 'validation_failed');
    expectProblem(
      await call(server, 'POST', `${API}/store-integrations/${ga.id}/toggle`, { headers: owner.headers, body: { enabled: true, x: 1 } }),
      400,
      'validation_failed',
    );
    expectProblem(await toggle('not-a-uuid', true, owner.headers), 400, 'validation_failed');

    const actions = (await auditRows(server, owner.owner.tenantId))
      .filter((r) => r.resource_type === 'store_integration')
      .map((r) => r.action);
    expect(actions).to.deep.equal([
      'store_integration.connect',
      'store_integration.connect',
      'store_integration.connect',
      'store_integration.set_default',
      'store_integration.disable',
      'store_integration.enable',
      'store_integration.enable',
      'store_integration.set_default',
    ]);
  });

  it('leaves exactly one default when set-default calls on one kind race', async () => {
    const owner = suite.addMerchant(await merchant(server));
    const ga = expectIntegration(await connect({ integration: 'google-analytics-4', settings: { measurementId: 'G-RACE0001' } }, owner));
    const pl = expectIntegration(await connect({ integration: 'plausible-analytics', settings: { domain: 'race.example.com' } }, owner));
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => setDefault(i % 2 === 0 ? pl.id : ga.id, owner.headers)));
    for (const res of answers) expect(res.status, res.text).to.equal(200);
    const defaults = (await rowsOf(owner.storeId)).filter((r) => r.is_default);
    expect(defaults).to.have.length(1);
    const listed = await list(owner.storeId, owner.headers);
    expect(listed.json.items.filter((i: { isDefault: boolean }) => i.isDefault)).to.have.length(1);
  });

  it('disconnects an integration: gone from the list, audited, a second disconnect is 404', async () => {
    const owner = suite.addMerchant(await merchant(server));
    const ga = expectIntegration(await connect({ integration: 'google-analytics-4', settings: { measurementId: 'G-GONE0001' } }, owner));
    const res = await disconnect(ga.id, owner.headers);
    expect(res.status, res.text).to.equal(200);
    expect(DisconnectedIntegrationResponse.schema.validate(res.json).error?.message).to.equal(undefined);
    expect(res.json).to.deep.equal({
      id: ga.id,
      storeId: owner.storeId,
      integration: 'google-analytics-4',
      kind: 'analytics',
      disconnected: true,
      wasDefault: true,
    });
    expect((await list(owner.storeId, owner.headers)).json.items).to.deep.equal([]);
    expectProblem(await disconnect(ga.id, owner.headers), 404, 'store_integration_not_found');
    expectProblem(await toggle(ga.id, true, owner.headers), 404, 'store_integration_not_found');
    const audit = (await auditRows(server, owner.owner.tenantId)).filter((r) => r.action === 'store_integration.disconnect');
    expect(audit).to.have.length(1);
    expect(audit[0]!.before).to.include({ id: ga.id, integration: 'google-analytics-4' });
  });

  it('lists a store’s integrations by kind; another tenant, another store’s API key and missing scopes are refused', async () => {
    const owner = suite.addMerchant(await merchant(server));
    const carrier = expectIntegration(
      await connect({ integration: 'parcel-carrier-api', settings: { accountNumber: 'ACC-1234', apiKey: CARRIER_KEY } }, owner),
    );
    const feed = expectIntegration(await connect({ integration: 'google-merchant-feed' }, owner));
    const secondStore = await store(server, owner);
    expectIntegration(await connect({ integration: 'google-merchant-feed' }, { headers: owner.headers, storeId: secondStore }));
    const listed = await list(owner.storeId, owner.headers);
    expect(listed.json.items.map((i: { id: string }) => i.id)).to.deep.equal([feed.id, carrier.id]);

    const other = suite.addMerchant(await merchant(server));
    expectProblem(await list(owner.storeId, other.headers), 404, 'store_not_found');
    expectProblem(await toggle(feed.id, false, other.headers), 404, 'store_integration_not_found');
    expectProblem(await setDefault(feed.id, other.headers), 404, 'store_integration_not_found');
    expectProblem(await disconnect(feed.id, other.headers), 404, 'store_integration_not_found');
    expectProblem(
      await connect({ integration: 'google-merchant-feed' }, { headers: other.headers, storeId: owner.storeId }),
      404,
      'store_not_found',
    );
    expect((await rowsOf(owner.storeId)).map((r) => r.enabled)).to.deep.equal([true, true]);

    expect((await list(owner.storeId, {})).status).to.equal(401);
    const reader = await apiKey(server, owner, ['store-integrations:read']);
    expect((await list(owner.storeId, reader)).status).to.equal(200);
    expectProblem(await toggle(feed.id, false, reader), 403, 'insufficient_scope');
    const writer = await apiKey(server, owner, ['store-integrations:read', 'store-integrations:write']);
    expectIntegration(await toggle(feed.id, false, writer));
    const otherStoreKey = await apiKey(server, { headers: owner.headers, storeId: secondStore }, ['store-integrations:write']);
    expectProblem(await toggle(feed.id, true, otherStoreKey), 404, 'store_integration_not_found');
    expectProblem(await list(owner.storeId, { ...otherStoreKey }), 403, 'insufficient_scope');
  });
});
