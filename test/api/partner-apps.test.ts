/**
 * Partner apps (extensions of the app store): a partner's own listings (roles, isolation between
 * partners, bounds), versions (semantic versions, 409 when not newer, the first release publishes),
 * development installs on a sandbox (claimed by the first partner, enabled without purchase, a
 * svc-dev:// endpoint with a secret shown once) and the forwarding feed of that endpoint (signed with
 * the dispatcher's signature over the stored body, only for the sandbox's own tenant, never pushed by
 * the dispatcher, outcomes recorded).
 */
import { expect } from 'chai';
import { limitKey } from '../../api/auth/accounts';
import { WebhookDispatcher } from '../../api/webhooks/dispatcher';
import { verifyWebhookSignature } from '../../api/webhooks/verify';
import { uuidv7 } from '../../storage/ids';
import { auditRows, bearer, expectProblem, GOOD_PASSWORD, uniqueEmail } from '../helpers/accounts';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { silentLogger } from '../helpers/indexing';
import { createProduct, merchant, type Merchant } from '../helpers/fixtures';
import { fanOutWebhooks } from '../helpers/webhook-fan-out';

type Json = Record<string, any>;

interface Partner {
  tenantId: string;
  headers: Record<string, string>;
}

interface SandboxInfo {
  tenantId: string;
  storeId: string;
  token: string;
}

describe('partner apps', function () {
  this.timeout(120_000);
  let server: TestServer;
  const tenants: string[] = [];
  const suite = apiSuite((started) => (server = started));
  after(async () => {
    await server.runtime.dataSource.query('DELETE FROM tenants WHERE id = ANY($1::uuid[])', [tenants]);
  });

  const q = <T = Json>(sql: string, params: unknown[] = []): Promise<T[]> => server.runtime.dataSource.query(sql, params);
  const api = (headers: Record<string, string>, method: string, path: string, body?: unknown) =>
    call(server, method, `/api/v1${path}`, { headers, body });

  async function resetLimits(): Promise<void> {
    const limiter = server.runtime.services.rateLimiter;
    for (const ip of ['127.0.0.1', '::ffff:127.0.0.1', '::1']) {
      await limiter.reset(limitKey('registerPerIp', ip));
      await limiter.reset(`sandbox:create:ip:${ip}`);
    }
  }

  async function partner(): Promise<Partner> {
    await resetLimits();
    const res = await call(server, 'POST', '/api/v1/auth/partner-register', {
      body: { email: uniqueEmail('partner'), password: GOOD_PASSWORD, name: 'Pat', companyName: `Apps ${uuidv7().slice(-6)}` },
    });
    expect(res.status, res.text).to.equal(201);
    tenants.push(res.json.tenant.id);
    suite.addTenant(res.json.tenant.id);
    return { tenantId: res.json.tenant.id, headers: bearer(res.json.accessToken) };
  }

  async function sandbox(): Promise<SandboxInfo> {
    await resetLimits();
    const res = await call(server, 'POST', '/api/v1/sandbox', { body: { email: uniqueEmail('appdev') } });
    expect(res.status, res.text).to.equal(201);
    tenants.push(res.json.tenantId);
    suite.addTenant(res.json.tenantId);
    suite.addIndexedStore(res.json.storeId);
    return { tenantId: res.json.tenantId, storeId: res.json.storeId, token: res.json.token };
  }

  const slug = (label = 'app') => `${label}-${uuidv7().slice(-12)}`;
  const appBody = (overrides: Json = {}): Json => ({
    slug: slug(),
    name: 'Order Notes',
    summary: 'Notes on every order.',
    category: 'partner-test',
    scopes: ['orders:read'],
    webhookTopics: ['product.created', 'order.placed'],
    ...overrides,
  });

  async function createApp(p: Partner, overrides: Json = {}): Promise<Json> {
    const res = await api(p.headers, 'POST', '/app-store/partner/apps', appBody(overrides));
    expect(res.status, res.text).to.equal(201);
    return res.json;
  }

  const fanOut = (tenantId: string): Promise<number> => fanOutWebhooks(server, tenantId);

  let p1: Partner;
  let p2: Partner;
  let m: Merchant;
  before(async () => {
    p1 = await partner();
    p2 = await partner();
    m = suite.addMerchant(await merchant(server));
    tenants.push(m.owner.tenantId);
  });

  describe('listings', () => {
    it('creates an unpublished app owned by the partner, audited; lists and reads it by id and slug', async () => {
      const created = await createApp(p1, { description: 'Longer text.' });
      expect(created).to.deep.include({
        name: 'Order Notes',
        category: 'partner-test',
        description: 'Longer text.',
        scopes: ['orders:read'],
        webhookTopics: ['order.placed', 'product.created'],
        published: false,
        currentVersion: null,
      });
      expect(created.developer).to.match(/^Apps /);
      expect((await api(p1.headers, 'GET', `/app-store/partner/apps/${created.slug}`)).json).to.deep.equal(created);
      expect((await api(p1.headers, 'GET', `/app-store/partner/apps/${created.id}`)).json).to.deep.equal(created);
      const list = await api(p1.headers, 'GET', '/app-store/partner/apps?limit=100');
      expect(list.status).to.equal(200);
      expect(list.json.items.map((a: Json) => a.id)).to.include(created.id);
      // Unpublished: neither the public catalog nor a merchant sees it, nor can enable it.
      expectProblem(await call(server, 'GET', `/api/v1/app-store/public-listings/${created.slug}`), 404, 'app_listing_not_found');
      expectProblem(
        await api(m.headers, 'POST', `/app-store/listings/${created.id}/enable`, { storeId: m.storeId }),
        404,
        'app_listing_not_found',
      );
      const audits = (await auditRows(server, p1.tenantId)).filter((a) => a.action === 'partner_app.create');
      expect(audits.map((a) => a.resource_id)).to.include(created.id);
    });

    it('pages the list with a cursor and refuses a tampered one', async () => {
      const p = await partner();
      const ids = [(await createApp(p)).id, (await createApp(p)).id, (await createApp(p)).id];
      const first = await api(p.headers, 'GET', '/app-store/partner/apps?limit=2');
      expect(first.json.items.map((a: Json) => a.id)).to.deep.equal(ids.slice(0, 2));
      const second = await api(p.headers, 'GET', `/app-store/partner/apps?limit=2&cursor=${first.json.nextCursor}`);
      expect(second.json).to.deep.include({ nextCursor: null });
      expect(second.json.items.map((a: Json) => a.id)).to.deep.equal([ids[2]]);
      expectProblem(await api(p.headers, 'GET', '/app-store/partner/apps?cursor=not-a-cursor'), 400, 'validation_failed');
      expectProblem(await api(p.headers, 'GET', '/app-store/partner/apps?limit=0'), 400, 'validation_failed');
      expectProblem(await api(p.headers, 'GET', '/app-store/partner/apps?limit=101'), 400, 'validation_failed');
    });

    it('is for partners only: merchants, API keys and anonymous callers are refused', async () => {
      expect((await api(m.headers, 'GET', '/app-store/partner/apps')).status).to.equal(403);
      expect((await api(m.headers, 'POST', '/app-store/partner/apps', appBody())).status).to.equal(403);
      expect((await call(server, 'GET', '/api/v1/app-store/partner/apps')).status).to.equal(401);
      const sb = await sandbox();
      expectProblem(await api(bearer(sb.token), 'GET', '/app-store/partner/apps'), 403, 'api_key_not_allowed');
    });

    it("keeps partners apart: another partner's app answers 404 everywhere", async () => {
      const app = await createApp(p1);
      for (const path of [
        `/app-store/partner/apps/${app.id}`,
        `/app-store/partner/apps/${app.slug}`,
        `/app-store/partner/apps/${app.id}/versions`,
      ])
        expectProblem(await api(p2.headers, 'GET', path), 404, 'partner_app_not_found');
      expectProblem(
        await api(p2.headers, 'POST', `/app-store/partner/apps/${app.id}/versions`, { version: '1.0.0' }),
        404,
        'partner_app_not_found',
      );
      const sb = await sandbox();
      expectProblem(
        await api(p2.headers, 'POST', `/app-store/partner/apps/${app.slug}/dev-installs`, { sandboxToken: sb.token }),
        404,
        'partner_app_not_found',
      );
      const list = await api(p2.headers, 'GET', '/app-store/partner/apps?limit=100');
      expect(list.json.items.map((a: Json) => a.id)).not.to.include(app.id);
    });

    it('refuses a taken slug (a catalog app or any partner app) and invalid fields, changing nothing', async () => {
      const app = await createApp(p1);
      expectProblem(await api(p2.headers, 'POST', '/app-store/partner/apps', appBody({ slug: app.slug })), 409, 'partner_app_slug_taken');
      expectProblem(
        await api(p1.headers, 'POST', '/app-store/partner/apps', appBody({ slug: 'seo-booster' })),
        409,
        'partner_app_slug_taken',
      );
      const bad: Json[] = [
        { slug: '' },
        { slug: 'Upper' },
        { slug: 'a'.repeat(101) },
        { slug: '-lead' },
        { name: '' },
        { name: 'n'.repeat(101) },
        { summary: '' },
        { summary: 's'.repeat(301) },
        { description: 'd'.repeat(5001) },
        { category: '' },
        { category: 'c'.repeat(61) },
        { category: 'Bad Category' },
        { scopes: ['*'] },
        { scopes: ['orders:read', 'orders:read'] },
        { scopes: ['nothing'] },
        { scopes: ['nosuch-area:read'] },
        { webhookTopics: ['no.such.topic'] },
        { webhookTopics: ['order.placed', 'order.placed'] },
        { webhookTopics: 'order.placed' },
        { name: 'bad\u0000name' },
        { summary: 'lone \ud800 surrogate' },
        { other: 1 },
      ];
      for (const overrides of bad) {
        const body = appBody(overrides);
        const res = await api(p1.headers, 'POST', '/app-store/partner/apps', body);
        expectProblem(res, 400, 'validation_failed');
        expect(await q('SELECT 1 FROM app_listings WHERE slug = $1', [body.slug])).to.have.length(0);
      }
    });
  });

  describe('versions', () => {
    it('releases semantic versions in precedence order, 409 when not newer; the first release publishes the listing', async () => {
      const app = await createApp(p1);
      const path = `/app-store/partner/apps/${app.slug}/versions`;
      const first = await api(p1.headers, 'POST', path, { version: '1.0.0-rc.1', notes: 'first' });
      expect(first.status, first.text).to.equal(201);
      expect(first.json).to.deep.include({ listingId: app.id, version: '1.0.0-rc.1', notes: 'first' });
      const read = (await api(p1.headers, 'GET', `/app-store/partner/apps/${app.id}`)).json;
      expect(read).to.include({ published: true, currentVersion: '1.0.0-rc.1' });
      const pub = await call(server, 'GET', `/api/v1/app-store/public-listings/${app.slug}`);
      expect(pub.status).to.equal(200);
      expect(pub.json.pricing).to.deep.equal({ type: 'FREE', price: 0, currency: 'EUR' });

      expect((await api(p1.headers, 'POST', path, { version: '1.0.0' })).status).to.equal(201);
      for (const version of ['1.0.0', '1.0.0+build.2', '0.9.0', '1.0.0-rc.2'])
        expectProblem(await api(p1.headers, 'POST', path, { version }), 409, 'app_version_not_newer');
      expect((await api(p1.headers, 'POST', path, { version: '1.10.0+b.1' })).status).to.equal(201);
      expectProblem(await api(p1.headers, 'POST', path, { version: '1.9.0' }), 409, 'app_version_not_newer');

      const list = await api(p1.headers, 'GET', path);
      expect(list.json.items.map((v: Json) => v.version)).to.deep.equal(['1.10.0+b.1', '1.0.0', '1.0.0-rc.1']);
      expect((await api(p1.headers, 'GET', `/app-store/partner/apps/${app.id}`)).json.currentVersion).to.equal('1.10.0+b.1');
      const releases = (await auditRows(server, p1.tenantId)).filter((a) => a.action === 'app_version.release' && a.resource_id === app.id);
      expect(releases.map((a) => a.after.currentVersion)).to.deep.equal(['1.0.0-rc.1', '1.0.0', '1.10.0+b.1']);
    });

    it('refuses what is not a semantic version or out of bounds, changing nothing', async () => {
      const app = await createApp(p1);
      const path = `/app-store/partner/apps/${app.id}/versions`;
      for (const body of [
        { version: '1.0' },
        { version: 'v1.0.0' },
        { version: '01.0.0' },
        { version: '1.0.0-01' },
        { version: '1.0.0+' },
        { version: `1.0.0-${'a'.repeat(123)}` },
        { version: '' },
        { version: 1 },
        {},
        { version: '1.0.0', notes: 'n'.repeat(2001) },
        { version: '1.0.0', other: true },
      ]) {
        const res = await api(p1.headers, 'POST', path, body);
        expectProblem(res, 400, 'validation_failed');
      }
      expect(await q('SELECT 1 FROM app_versions WHERE listing_id = $1', [app.id])).to.have.length(0);
      expect((await api(p1.headers, 'GET', `/app-store/partner/apps/${app.id}`)).json).to.include({
        published: false,
        currentVersion: null,
      });
      expect((await api(m.headers, 'POST', path, { version: '1.0.0' })).status).to.equal(403);
    });
  });

  describe('development installs and the forwarding feed', () => {
    it('installs on a sandbox, feeds its deliveries signed over the stored body, records outcomes, never pushes them', async () => {
      const app = await createApp(p1);
      const sb = await sandbox();
      const res = await api(p1.headers, 'POST', `/app-store/partner/apps/${app.slug}/dev-installs`, { sandboxToken: sb.token });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.deep.include({ appId: app.id, slug: app.slug, sandboxTenantId: sb.tenantId, storeId: sb.storeId, enabled: true });
      expect(res.json.endpoint).to.deep.include({ url: `svc-dev://${app.slug}`, topics: ['order.placed', 'product.created'] });
      expect(res.json.endpoint.secret).to.match(/^whsec_/);
      const endpointId: string = res.json.endpoint.id;

      // Enabled on the sandbox's store without a purchase, as the sandbox sees it.
      const sandboxHeaders = bearer(sb.token);
      const entitlements = await api(sandboxHeaders, 'GET', `/app-store/stores/${sb.storeId}/entitlements`);
      expect(entitlements.status, entitlements.text).to.equal(200);
      expect(entitlements.json.items.find((e: Json) => e.listingId === app.id)).to.deep.include({ state: 'ENABLED', enabled: true });

      // Installing again renews the secret (the old one stops signing) and keeps one endpoint.
      const again = await api(p1.headers, 'POST', `/app-store/partner/apps/${app.id}/dev-installs`, { sandboxToken: sb.token });
      expect(again.json.endpoint.id).to.equal(endpointId);
      expect(again.json.endpoint.secret).not.to.equal(res.json.endpoint.secret);
      const secret: string = again.json.endpoint.secret;

      // A real event of the sandbox: a product created with the sandbox token.
      await createProduct(server, { headers: sandboxHeaders, storeId: sb.storeId } as unknown as Merchant, { title: 'Forwarded hat' });
      expect(await fanOut(sb.tenantId)).to.be.at.least(1);
      // The dispatcher never claims a development endpoint's deliveries.
      const dispatcher = new WebhookDispatcher(
        server.runtime.dataSource,
        { ...server.runtime.config.webhooks, appSecret: server.runtime.config.appSecret },
        silentLogger,
      );
      await dispatcher.runOnce();
      await dispatcher.stop();

      const feed = await api(sandboxHeaders, 'GET', `/webhooks/endpoints/${endpointId}/forwarding?waitSeconds=5`);
      expect(feed.status, feed.text).to.equal(200);
      const item = feed.json.items.find((d: Json) => d.topic === 'product.created');
      expect(item, feed.text).to.not.equal(undefined);
      const [stored] = await q('SELECT body, status, attempts FROM webhook_deliveries WHERE id = $1', [item.deliveryId]);
      expect(stored).to.include({ status: 'PENDING', attempts: 0 });
      expect(item.body).to.equal(stored.body);
      expect(item.headers).to.include({
        'Content-Type': 'application/json',
        'X-Service-Topic': 'product.created',
        'X-Service-Delivery-Id': item.deliveryId,
      });
      expect(verifyWebhookSignature({ rawBody: item.body, header: item.headers['X-Service-Signature'], secret })).to.include({ ok: true });
      expect(
        verifyWebhookSignature({ rawBody: item.body, header: item.headers['X-Service-Signature'], secret: res.json.endpoint.secret }),
      ).to.include({ ok: false });
      expect(JSON.parse(item.body)).to.include({ topic: 'product.created', deliveryId: item.deliveryId, tenantId: sb.tenantId });

      // The outcome: a 2xx delivers it (and it leaves the feed); the same report again is refused.
      const outcome = `/webhooks/endpoints/${endpointId}/forwarding/${item.deliveryId}`;
      for (const body of [
        { statusCode: 99 },
        { statusCode: 600 },
        {},
        { statusCode: 200, durationMs: -1 },
        { statusCode: 200, error: 'e'.repeat(1001) },
      ])
        expectProblem(await api(sandboxHeaders, 'POST', outcome, body), 400, 'validation_failed');
      const done = await api(sandboxHeaders, 'POST', outcome, { statusCode: 204, durationMs: 12 });
      expect(done.status, done.text).to.equal(200);
      expect(done.json).to.deep.equal({ deliveryId: item.deliveryId, status: 'DELIVERED', attempts: 1 });
      expectProblem(await api(sandboxHeaders, 'POST', outcome, { statusCode: 200 }), 409, 'webhook_delivery_not_pending');
      const [attempt] = await q('SELECT outcome, status_code, duration_ms FROM webhook_attempts WHERE delivery_id = $1', [item.deliveryId]);
      expect(attempt).to.deep.equal({ outcome: 'SUCCESS', status_code: 204, duration_ms: 12 });
      const after = await api(sandboxHeaders, 'GET', `/webhooks/endpoints/${endpointId}/forwarding`);
      expect(after.json.items.map((d: Json) => d.deliveryId)).not.to.include(item.deliveryId);

      // A failed one is DEAD, and a replay puts it back in the feed.
      await createProduct(server, { headers: sandboxHeaders, storeId: sb.storeId } as unknown as Merchant, { title: 'Second hat' });
      await fanOut(sb.tenantId);
      const next = (await api(sandboxHeaders, 'GET', `/webhooks/endpoints/${endpointId}/forwarding?waitSeconds=5`)).json.items[0];
      const failed = await api(sandboxHeaders, 'POST', `/webhooks/endpoints/${endpointId}/forwarding/${next.deliveryId}`, {
        statusCode: null,
        error: 'connection refused',
      });
      expect(failed.json).to.include({ status: 'DEAD' });
      expect((await api(sandboxHeaders, 'POST', `/webhooks/deliveries/${next.deliveryId}/replay`)).status).to.equal(202);
      const replayed = await api(sandboxHeaders, 'GET', `/webhooks/endpoints/${endpointId}/forwarding`);
      expect(replayed.json.items.map((d: Json) => d.deliveryId)).to.include(next.deliveryId);
    });

    it("serves the feed only to the endpoint's own tenant, only for development endpoints, within bounds", async () => {
      const app = await createApp(p1);
      const sb = await sandbox();
      const other = await sandbox();
      const endpointId = (await api(p1.headers, 'POST', `/app-store/partner/apps/${app.id}/dev-installs`, { sandboxToken: sb.token })).json
        .endpoint.id;
      expectProblem(
        await api(bearer(other.token), 'GET', `/webhooks/endpoints/${endpointId}/forwarding`),
        404,
        'webhook_endpoint_not_found',
      );
      expectProblem(await api(m.headers, 'GET', `/webhooks/endpoints/${endpointId}/forwarding`), 404, 'webhook_endpoint_not_found');
      expectProblem(
        await api(bearer(other.token), 'POST', `/webhooks/endpoints/${endpointId}/forwarding/${uuidv7()}`, { statusCode: 200 }),
        404,
        'webhook_endpoint_not_found',
      );
      expectProblem(
        await api(bearer(sb.token), 'POST', `/webhooks/endpoints/${endpointId}/forwarding/${uuidv7()}`, { statusCode: 200 }),
        404,
        'webhook_delivery_not_found',
      );
      for (const query of ['waitSeconds=26', 'waitSeconds=-1', 'limit=0', 'limit=51', 'other=1'])
        expectProblem(
          await api(bearer(sb.token), 'GET', `/webhooks/endpoints/${endpointId}/forwarding?${query}`),
          400,
          'validation_failed',
        );
      expectProblem(await api(bearer(sb.token), 'GET', '/webhooks/endpoints/not-a-uuid/forwarding'), 400, 'validation_failed');
      // A pushed endpoint has no feed.
      const pushed = await api(m.headers, 'POST', '/webhooks/endpoints', { url: 'https://hooks.example.com/x', topics: ['order.placed'] });
      expectProblem(await api(m.headers, 'GET', `/webhooks/endpoints/${pushed.json.id}/forwarding`), 409, 'webhook_endpoint_not_pull');
      // Nobody registers a svc-dev:// URL through the endpoint API.
      expectProblem(
        await api(m.headers, 'POST', '/webhooks/endpoints', { url: 'svc-dev://sneaky', topics: ['order.placed'] }),
        400,
        'validation_failed',
      );
    });

    it('claims a sandbox for the first partner; another partner, a bad token and a non-sandbox key are refused', async () => {
      const sb = await sandbox();
      const mine = await createApp(p1);
      const theirs = await createApp(p2);
      expect(
        (await api(p1.headers, 'POST', `/app-store/partner/apps/${mine.id}/dev-installs`, { sandboxToken: sb.token })).status,
      ).to.equal(200);
      expectProblem(
        await api(p2.headers, 'POST', `/app-store/partner/apps/${theirs.id}/dev-installs`, { sandboxToken: sb.token }),
        409,
        'sandbox_claimed_by_other_partner',
      );
      expectProblem(
        await api(p1.headers, 'POST', `/app-store/partner/apps/${mine.id}/dev-installs`, { sandboxToken: `${sb.token.slice(0, -2)}xx` }),
        422,
        'sandbox_token_invalid',
      );
      const key = await api(m.headers, 'POST', '/api-keys', { name: 'not a sandbox', storeId: m.storeId, scopes: ['*'] });
      if (key.status === 201)
        expectProblem(
          await api(p1.headers, 'POST', `/app-store/partner/apps/${mine.id}/dev-installs`, { sandboxToken: key.json.key }),
          422,
          'sandbox_token_invalid',
        );
      for (const body of [{}, { sandboxToken: 'short' }, { sandboxToken: 'not a token at all' }, { sandboxToken: sb.token, x: 1 }])
        expectProblem(await api(p1.headers, 'POST', `/app-store/partner/apps/${mine.id}/dev-installs`, body), 400, 'validation_failed');
      expect((await api(m.headers, 'POST', `/app-store/partner/apps/${mine.id}/dev-installs`, { sandboxToken: sb.token })).status).to.equal(
        403,
      );
      expect(await q('SELECT 1 FROM store_app_entitlements WHERE listing_id = $1', [theirs.id])).to.have.length(0);
    });
  });
});
