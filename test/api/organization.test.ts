/**
 * Organization: summary, onboarding status from real data, tenant settings, stores (create, create
 * the default, update, archive), store readiness and the public slug check — with roles (staff and
 * API keys refused where they must be), tenant isolation (another tenant's store is 404 on every
 * route) and the audit entries of every write (none for a refused one).
 */
import { expect } from 'chai';
import { uuidv7 } from '../../storage/ids';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { addMember, auditRows, bearer, expectProblem, signUp, startIsolatedServer, type SignedUp } from '../helpers/accounts';
import { apiKey, product, uniqueSlug } from '../helpers/fixtures';
import { CHECK_SLUG_LIMIT } from '../../api/organization/organization.service';

describe('organization', () => {
  let server: TestServer;
  apiSuite((started) => (server = started));

  async function createStore(owner: SignedUp, body: Record<string, unknown> = {}): Promise<TestResponse> {
    return call(server, 'POST', '/api/v1/organization/stores', {
      headers: bearer(owner.accessToken),
      body: { name: 'Test Shop', slug: uniqueSlug(), ...body },
    });
  }

  async function storeOf(owner: SignedUp, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
    const res = await createStore(owner, body);
    expect(res.status, res.text).to.equal(201);
    return res.json;
  }

  const checkSlug = (slug: string) => call(server, 'GET', `/api/v1/organization/public/check-slug?slug=${encodeURIComponent(slug)}`);

  describe('GET /organization/public/check-slug', () => {
    it('says available for a free, well-formed slug, without a token', async () => {
      const slug = uniqueSlug('free');
      const res = await checkSlug(slug);
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.deep.equal({ slug, available: true });
    });

    it('says taken (case-insensitively) and suggests a slug that is really free', async () => {
      const owner = await signUp(server);
      const store = await storeOf(owner);
      for (const asked of [store.slug, store.slug.toUpperCase()]) {
        const res = await checkSlug(asked);
        expect(res.status).to.equal(200);
        expect(res.json).to.include({ slug: asked, available: false });
      }
      const taken = (await checkSlug(store.slug)).json;
      expect(taken.reason).to.equal('taken');
      expect(taken.suggestion).to.equal(`${store.slug}-2`);
      expect((await checkSlug(taken.suggestion)).json).to.deep.equal({ slug: taken.suggestion, available: true });
      // Once the suggestion is taken too, the next one is offered.
      await storeOf(owner, { slug: taken.suggestion });
      expect((await checkSlug(store.slug)).json.suggestion).to.equal(`${store.slug}-3`);
    });

    it('says reserved for platform words, with a free suggestion', async () => {
      for (const word of ['admin', 'api', 'www', 'app', 'docs']) {
        const res = await checkSlug(word);
        expect(res.json).to.include({ slug: word, available: false, reason: 'reserved' });
        expect((await checkSlug(res.json.suggestion)).json.available, res.json.suggestion).to.equal(true);
      }
    });

    it('says invalid for malformed slugs, suggesting a well-formed free one', async () => {
      for (const bad of [
        'ab',
        'Has Spaces',
        'UPPER',
        '-leading',
        'trailing-',
        'double--hyphen',
        'ünïcödé-shop',
        'x'.repeat(61),
        'dots.here',
      ]) {
        const res = await checkSlug(bad);
        expect(res.status, bad).to.equal(200);
        expect(res.json, bad).to.include({ slug: bad, available: false, reason: 'invalid' });
        expect(res.json.suggestion, bad).to.match(/^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9]))*$/);
        expect(res.json.suggestion.length, bad).to.be.within(3, 60);
        expect((await checkSlug(res.json.suggestion)).json.available, res.json.suggestion).to.equal(true);
      }
      expect((await checkSlug('Has Spaces')).json.suggestion).to.match(/^has-spaces/);
    });

    it('is rate limited per client address (429 with Retry-After)', async () => {
      const isolated = await startIsolatedServer();
      try {
        const check = () => call(isolated, 'GET', '/api/v1/organization/public/check-slug?slug=some-shop');
        for (let i = 0; i < CHECK_SLUG_LIMIT.limit; i += 50) {
          const batch = await Promise.all(Array.from({ length: 50 }, check));
          expect(batch.map((r) => r.status)).to.deep.equal(Array(50).fill(200));
        }
        const limited = await check();
        expectProblem(limited, 429, 'rate_limited');
        expect(Number(limited.headers.get('retry-after'))).to.be.within(1, CHECK_SLUG_LIMIT.windowSeconds);
      } finally {
        await isolated.close();
      }
    });

    it('requires the slug (1 to 200 characters) and refuses unknown parameters', async () => {
      expectProblem(await call(server, 'GET', '/api/v1/organization/public/check-slug'), 400, 'validation_failed');
      expectProblem(await checkSlug('x'.repeat(201)), 400, 'validation_failed');
      expectProblem(await call(server, 'GET', '/api/v1/organization/public/check-slug?slug=abc&other=1'), 400, 'validation_failed');
    });
  });

  describe('stores', () => {
    it('creates stores (201): the first becomes the default, later ones not; values default to the tenant; audited', async () => {
      const owner = await signUp(server);
      const slug = uniqueSlug();
      const first = await createStore(owner, { name: 'Main Shop', slug, contactEmail: 'Shop@Example.test', defaultLocale: 'de-DE' });
      expect(first.status, first.text).to.equal(201);
      expect(first.json).to.include({
        name: 'Main Shop',
        slug,
        status: 'active',
        isDefault: true,
        currency: 'EUR',
        timezone: 'UTC',
        defaultLocale: 'de-DE',
        contactEmail: 'shop@example.test',
        archivedAt: null,
      });
      expect(Object.keys(first.json)).to.have.members([
        'id',
        'name',
        'slug',
        'status',
        'isDefault',
        'currency',
        'defaultLocale',
        'timezone',
        'contactEmail',
        'createdAt',
        'updatedAt',
        'archivedAt',
        'priceVisibility',
      ]);
      const second = await storeOf(owner, { name: 'Outlet', currency: 'USD', timezone: 'America/New_York' });
      expect(second).to.include({ isDefault: false, currency: 'USD', timezone: 'America/New_York', defaultLocale: 'en' });
      const audit = (await auditRows(server, owner.tenantId)).filter((a) => a.action === 'store.create');
      expect(audit.map((a) => a.resource_id)).to.deep.equal([first.json.id, second.id]);
      expect(audit[0]).to.deep.include({ resource_type: 'store', actor_type: 'user', actor_id: owner.userId, before: null });
      expect(audit[0]!.after).to.include({ slug, isDefault: true, name: 'Main Shop' });
    });

    it('derives a unique slug from the name when none is given', async () => {
      const owner = await signUp(server);
      const name = `Çiçek Dükkânı ${uuidv7().slice(-6)}`;
      const a = await storeOf(owner, { name, slug: undefined });
      const b = await storeOf(owner, { name, slug: undefined });
      expect(a.slug).to.match(/^cicek-dukkani-[a-z0-9]+$/);
      expect(b.slug).to.equal(`${a.slug}-2`);
    });

    it('answers 409 slug_taken for a slug of any tenant (any case) and leaves no store and no audit entry', async () => {
      const owner = await signUp(server);
      const other = await signUp(server);
      const taken = await storeOf(other);
      const before = await auditRows(server, owner.tenantId);
      expectProblem(await createStore(owner, { slug: taken.slug }), 409, 'slug_taken');
      const summary = await call(server, 'GET', '/api/v1/organization/summary', { headers: bearer(owner.accessToken) });
      expect(summary.json.stores).to.deep.equal([]);
      expect(await auditRows(server, owner.tenantId)).to.deep.equal(before);
    });

    it('refuses reserved (400 slug_reserved) and malformed slugs, bad currencies, time zones and unknown fields (400)', async () => {
      const owner = await signUp(server);
      expectProblem(await createStore(owner, { slug: 'admin' }), 400, 'slug_reserved');
      for (const body of [
        { slug: 'Bad Slug' },
        { slug: 'ab' },
        { slug: '-abc' },
        { currency: 'EURO' },
        { currency: 'ZZZ' },
        { timezone: 'Mars/Olympus' },
        { contactEmail: 'not-an-email' },
        { name: '' },
        { isDefault: true },
        { tenantId: owner.tenantId },
      ]) {
        expectProblem(await createStore(owner, body), 400, 'validation_failed');
      }
      expectProblem(
        await call(server, 'POST', '/api/v1/organization/stores', { headers: bearer(owner.accessToken), body: { slug: uniqueSlug() } }),
        400,
        'validation_failed',
      );
      expect((await auditRows(server, owner.tenantId)).filter((a) => a.action.startsWith('store.'))).to.deep.equal([]);
    });

    it('POST /organization/stores/default creates the default from the tenant, then answers 409 default_store_exists', async () => {
      const companyName = `Default Co ${uuidv7().slice(-8)}`;
      const owner = await signUp(server, { companyName });
      await call(server, 'PATCH', '/api/v1/organization/tenant', {
        headers: bearer(owner.accessToken),
        body: { defaultCurrency: 'TRY', timezone: 'Europe/Istanbul' },
      });
      const res = await call(server, 'POST', '/api/v1/organization/stores/default', { headers: bearer(owner.accessToken) });
      expect(res.status, res.text).to.equal(201);
      expect(res.json).to.include({ name: companyName, isDefault: true, status: 'active', currency: 'TRY', timezone: 'Europe/Istanbul' });
      expect(res.json.slug).to.match(/^default-co-/);
      expectProblem(
        await call(server, 'POST', '/api/v1/organization/stores/default', { headers: bearer(owner.accessToken) }),
        409,
        'default_store_exists',
      );
      // A tenant whose first store was created with POST /organization/stores has its default already.
      const other = await signUp(server);
      await storeOf(other);
      expectProblem(
        await call(server, 'POST', '/api/v1/organization/stores/default', { headers: bearer(other.accessToken), body: {} }),
        409,
        'default_store_exists',
      );
      expectProblem(
        await call(server, 'POST', '/api/v1/organization/stores/default', { headers: bearer(other.accessToken), body: { name: 'x' } }),
        400,
        'unexpected_body',
      );
      expect((await auditRows(server, owner.tenantId)).filter((a) => a.action === 'store.create').map((a) => a.resource_id)).to.deep.equal([
        res.json.id,
      ]);
    });

    it('updates a store (200) with the changed fields audited before and after; a taken slug is 409', async () => {
      const owner = await signUp(server);
      const store = await storeOf(owner);
      const taken = await storeOf(await signUp(server));
      const newSlug = uniqueSlug('renamed');
      const res = await call(server, 'PATCH', `/api/v1/organization/stores/${store.id}`, {
        headers: bearer(owner.accessToken),
        body: { name: 'Renamed', slug: newSlug, contactEmail: 'hello@example.test', currency: store.currency },
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.include({ id: store.id, name: 'Renamed', slug: newSlug, contactEmail: 'hello@example.test' });
      const audit = (await auditRows(server, owner.tenantId)).filter((a) => a.action === 'store.update');
      expect(audit).to.have.length(1);
      expect(audit[0]!.before).to.deep.equal({ name: 'Test Shop', slug: store.slug, contactEmail: null });
      expect(audit[0]!.after).to.deep.equal({ name: 'Renamed', slug: newSlug, contactEmail: 'hello@example.test' });
      expectProblem(
        await call(server, 'PATCH', `/api/v1/organization/stores/${store.id}`, {
          headers: bearer(owner.accessToken),
          body: { slug: taken.slug },
        }),
        409,
        'slug_taken',
      );
      expectProblem(
        await call(server, 'PATCH', `/api/v1/organization/stores/${store.id}`, { headers: bearer(owner.accessToken), body: {} }),
        400,
        'validation_failed',
      );
      expectProblem(
        await call(server, 'PATCH', `/api/v1/organization/stores/${store.id}`, {
          headers: bearer(owner.accessToken),
          body: { status: 'archived' },
        }),
        400,
        'validation_failed',
      );
      expectProblem(
        await call(server, 'PATCH', `/api/v1/organization/stores/${uuidv7()}`, { headers: bearer(owner.accessToken), body: { name: 'x' } }),
        404,
        'store_not_found',
      );
      expect((await auditRows(server, owner.tenantId)).filter((a) => a.action === 'store.update')).to.have.length(1);
    });

    it('moves the default with isDefault: true; the default cannot be archived while other active stores exist', async () => {
      const owner = await signUp(server);
      const main = await storeOf(owner);
      const outlet = await storeOf(owner);
      const h = bearer(owner.accessToken);
      expectProblem(await call(server, 'DELETE', `/api/v1/organization/stores/${main.id}`, { headers: h }), 409, 'default_store_in_use');
      const moved = await call(server, 'PATCH', `/api/v1/organization/stores/${outlet.id}`, { headers: h, body: { isDefault: true } });
      expect(moved.status, moved.text).to.equal(200);
      expect(moved.json.isDefault).to.equal(true);
      const summary = await call(server, 'GET', '/api/v1/organization/summary', { headers: h });
      expect(summary.json.stores.map((s: any) => [s.id, s.isDefault])).to.deep.equal([
        [main.id, false],
        [outlet.id, true],
      ]);
      const updates = (await auditRows(server, owner.tenantId)).filter((a) => a.action === 'store.update');
      expect(updates.map((a) => [a.resource_id, a.after])).to.deep.equal([
        [main.id, { isDefault: false }],
        [outlet.id, { isDefault: true }],
      ]);
      expectProblem(
        await call(server, 'PATCH', `/api/v1/organization/stores/${outlet.id}`, { headers: h, body: { isDefault: false } }),
        400,
        'validation_failed',
      );
    });

    it('archives a store (204): it keeps its slug, takes no more changes, and archiving again changes nothing', async () => {
      const owner = await signUp(server);
      const h = bearer(owner.accessToken);
      const main = await storeOf(owner);
      const outlet = await storeOf(owner);
      const res = await call(server, 'DELETE', `/api/v1/organization/stores/${outlet.id}`, { headers: h });
      expect(res.status, res.text).to.equal(204);
      expect(res.text).to.equal('');
      expect((await call(server, 'DELETE', `/api/v1/organization/stores/${outlet.id}`, { headers: h })).status).to.equal(204);
      expectProblem(
        await call(server, 'PATCH', `/api/v1/organization/stores/${outlet.id}`, { headers: h, body: { name: 'Back' } }),
        409,
        'store_archived',
      );
      expect((await checkSlug(outlet.slug)).json.reason).to.equal('taken');
      const archive = (await auditRows(server, owner.tenantId)).filter((a) => a.action === 'store.archive');
      expect(archive).to.have.length(1);
      expect(archive[0]).to.deep.include({ resource_id: outlet.id, before: { status: 'active', isDefault: false } });
      expect(archive[0]!.after).to.include({ status: 'archived' });
      // One store event (cached public search answers of the store are dropped), none for the repeat.
      const events = await server.runtime.dataSource.query(
        "SELECT topic FROM outbox WHERE aggregate_type = 'store' AND aggregate_id = $1 AND topic = 'store.archived'",
        [outlet.id],
      );
      expect(events).to.have.length(1);
      const summary = (await call(server, 'GET', '/api/v1/organization/summary', { headers: h })).json;
      expect(summary.counts.stores).to.equal(1);
      expect(summary.stores.find((s: any) => s.id === outlet.id).status).to.equal('archived');
      // The only active store, though the default, may be archived; the next store becomes the default.
      expect((await call(server, 'DELETE', `/api/v1/organization/stores/${main.id}`, { headers: h })).status).to.equal(204);
      const next = await storeOf(owner);
      expect(next.isDefault).to.equal(true);
    });
  });

  describe('tenant', () => {
    it('PATCH /organization/tenant updates the settings (owner and admin), audited with the changed fields', async () => {
      const owner = await signUp(server);
      const res = await call(server, 'PATCH', '/api/v1/organization/tenant', {
        headers: bearer(owner.accessToken),
        body: {
          name: 'Renamed Co',
          legalName: 'Renamed Co GmbH',
          country: 'DE',
          defaultCurrency: 'EUR',
          timezone: 'Europe/Berlin',
          website: 'https://renamed.example',
        },
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.include({
        id: owner.tenantId,
        name: 'Renamed Co',
        legalName: 'Renamed Co GmbH',
        country: 'DE',
        timezone: 'Europe/Berlin',
        website: 'https://renamed.example',
        kind: 'merchant',
      });
      const update = (await auditRows(server, owner.tenantId)).filter((a) => a.action === 'tenant.update');
      expect(update).to.have.length(1);
      // defaultCurrency was already EUR: not a change.
      expect(update[0]!.after).to.deep.equal({
        name: 'Renamed Co',
        legalName: 'Renamed Co GmbH',
        country: 'DE',
        timezone: 'Europe/Berlin',
        website: 'https://renamed.example',
      });
      expect(update[0]!.before).to.include({ legalName: null, country: null, timezone: 'UTC' });
      const admin = (await addMember(server, owner, 'admin')).headers;
      const cleared = await call(server, 'PATCH', '/api/v1/organization/tenant', {
        headers: admin,
        body: { legalName: null, website: null },
      });
      expect(cleared.status, cleared.text).to.equal(200);
      expect(cleared.json).to.include({ legalName: null, website: null });
    });

    it('validates country (ISO 3166-1 alpha-2), currency (ISO 4217), time zone (IANA) and refuses an empty or unknown change', async () => {
      const owner = await signUp(server);
      const h = bearer(owner.accessToken);
      for (const body of [
        { country: 'XX' },
        { country: 'UK' },
        { country: 'de' },
        { defaultCurrency: 'ABC' },
        { defaultCurrency: 'eur' },
        { timezone: 'Europe/Nowhere' },
        { timezone: 'europe/berlin' },
        { website: 'javascript:alert(1)' },
        {},
        { kind: 'partner' },
      ]) {
        expectProblem(await call(server, 'PATCH', '/api/v1/organization/tenant', { headers: h, body }), 400, 'validation_failed');
      }
      for (const timezone of ['UTC', 'Asia/Tokyo', 'America/Argentina/Buenos_Aires', 'Asia/Kolkata', 'Etc/GMT+5']) {
        expect((await call(server, 'PATCH', '/api/v1/organization/tenant', { headers: h, body: { timezone } })).status, timezone).to.equal(
          200,
        );
      }
    });

    it('refuses staff (403 insufficient_role) without writing anything', async () => {
      const owner = await signUp(server);
      const staff = (await addMember(server, owner, 'staff')).headers;
      expectProblem(
        await call(server, 'PATCH', '/api/v1/organization/tenant', { headers: staff, body: { name: 'Hijacked' } }),
        403,
        'insufficient_role',
      );
      expectProblem(
        await call(server, 'POST', '/api/v1/organization/stores', { headers: staff, body: { name: 'S', slug: uniqueSlug() } }),
        403,
        'insufficient_role',
      );
      expectProblem(await call(server, 'POST', '/api/v1/organization/stores/default', { headers: staff }), 403, 'insufficient_role');
      const store = await storeOf(owner);
      expectProblem(
        await call(server, 'PATCH', `/api/v1/organization/stores/${store.id}`, { headers: staff, body: { name: 'x' } }),
        403,
        'insufficient_role',
      );
      expectProblem(await call(server, 'DELETE', `/api/v1/organization/stores/${store.id}`, { headers: staff }), 403, 'insufficient_role');
      // Staff may read.
      expect((await call(server, 'GET', '/api/v1/organization/summary', { headers: staff })).json.tenant.name).to.not.equal('Hijacked');
      expect((await call(server, 'GET', '/api/v1/organization/onboarding-status', { headers: staff })).status).to.equal(200);
      expect((await call(server, 'GET', `/api/v1/organization/stores/${store.id}/readiness`, { headers: staff })).status).to.equal(200);
      expect(
        (await auditRows(server, owner.tenantId))
          .map((a) => a.action)
          .filter((a) => a.startsWith('tenant.update') || a.startsWith('store.')),
      ).to.deep.equal(['store.create']);
    });
  });

  describe('reads', () => {
    it('GET /organization/summary: tenant, stores and counts (active stores, members, live API keys)', async () => {
      const owner = await signUp(server);
      const empty = await call(server, 'GET', '/api/v1/organization/summary', { headers: bearer(owner.accessToken) });
      expect(empty.status, empty.text).to.equal(200);
      expect(empty.json.tenant).to.include({ id: owner.tenantId, kind: 'merchant', defaultCurrency: 'EUR', timezone: 'UTC' });
      expect(empty.json.stores).to.deep.equal([]);
      expect(empty.json.counts).to.deep.equal({ stores: 0, users: 1, apiKeys: 0 });
      const store = await storeOf(owner);
      await addMember(server, owner, 'staff');
      await apiKey(server, { headers: bearer(owner.accessToken), storeId: store.id }, ['organization:read']);
      const revoked = await call(server, 'POST', '/api/v1/api-keys', {
        headers: bearer(owner.accessToken),
        body: { storeId: store.id, name: 'old', scopes: ['*'] },
      });
      await call(server, 'DELETE', `/api/v1/api-keys/${revoked.json.id}`, { headers: bearer(owner.accessToken) });
      const full = await call(server, 'GET', '/api/v1/organization/summary', { headers: bearer(owner.accessToken) });
      expect(full.json.stores).to.deep.equal([{ id: store.id, name: store.name, slug: store.slug, status: 'active', isDefault: true }]);
      expect(full.json.counts).to.deep.equal({ stores: 1, users: 2, apiKeys: 1 });
    });

    it('GET /organization/onboarding-status is computed from the data, checkout from saved checkout settings', async () => {
      const owner = await signUp(server);
      const h = bearer(owner.accessToken);
      const start = await call(server, 'GET', '/api/v1/organization/onboarding-status', { headers: h });
      expect(start.status, start.text).to.equal(200);
      const done = (res: TestResponse) => Object.fromEntries(res.json.steps.map((s: any) => [s.key, s.done]));
      expect(start.json.steps.map((s: any) => s.key)).to.deep.equal([
        'account_verified',
        'store_created',
        'product_published',
        'checkout_configured',
        'api_key_created',
      ]);
      expect(done(start)).to.deep.equal({
        account_verified: false,
        store_created: false,
        product_published: false,
        checkout_configured: false,
        api_key_created: false,
      });
      expect(start.json).to.include({ complete: false, nextStep: 'account_verified', completed: 0, total: 5 });
      expect(start.json.steps.find((s: any) => s.key === 'product_published')).to.include({ done: false, available: true });
      expect(start.json.steps.find((s: any) => s.key === 'checkout_configured')).to.include({ done: false, available: true });

      await server.runtime.dataSource.query('UPDATE users SET email_verified_at = now() WHERE id = $1', [owner.userId]);
      const store = await storeOf(owner);
      expect((await call(server, 'GET', '/api/v1/organization/onboarding-status', { headers: h })).json).to.include({
        nextStep: 'product_published',
        completed: 2,
      });
      await apiKey(server, { headers: bearer(owner.accessToken), storeId: store.id }, ['organization:read']);
      const later = await call(server, 'GET', '/api/v1/organization/onboarding-status', { headers: h });
      expect(done(later)).to.deep.equal({
        account_verified: true,
        store_created: true,
        product_published: false,
        checkout_configured: false,
        api_key_created: true,
      });
      expect(later.json).to.include({ complete: false, nextStep: 'product_published', completed: 3 });

      // A draft product is not enough; a published one in an active store is.
      await product(server, { owner, headers: h, storeId: store.id }, { status: 'DRAFT' });
      expect(done(await call(server, 'GET', '/api/v1/organization/onboarding-status', { headers: h })).product_published).to.equal(false);
      await product(server, { owner, headers: h, storeId: store.id }, { status: 'PUBLISHED' });
      const published = await call(server, 'GET', '/api/v1/organization/onboarding-status', { headers: h });
      expect(done(published).product_published).to.equal(true);
      // Only checkout is left: saving settings without a provider does not count, with one it does.
      expect(published.json).to.include({ complete: false, nextStep: 'checkout_configured', completed: 4 });
      const save = (enabledProviders: string[]) =>
        call(server, 'PUT', '/api/v1/checkout-settings', { headers: h, body: { storeId: store.id, enabledProviders } });
      expect((await save([])).status).to.equal(200);
      expect(done(await call(server, 'GET', '/api/v1/organization/onboarding-status', { headers: h })).checkout_configured).to.equal(false);
      expect((await save(['stripe'])).status).to.equal(200);
      const configured = await call(server, 'GET', '/api/v1/organization/onboarding-status', { headers: h });
      expect(done(configured).checkout_configured).to.equal(true);
      expect(configured.json).to.include({ complete: true, nextStep: null, completed: 5 });
    });

    it('GET /organization/stores/{id}/readiness lists what is missing, checkout settings included', async () => {
      const owner = await signUp(server);
      const h = bearer(owner.accessToken);
      const store = await storeOf(owner);
      const res = await call(server, 'GET', `/api/v1/organization/stores/${store.id}/readiness`, { headers: h });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.include({ storeId: store.id, ready: false });
      expect(res.json.missing.map((m: any) => m.key)).to.have.members([
        'contact_email',
        'tenant_legal_name',
        'tenant_country',
        'owner_email_verified',
        'published_product',
        'checkout_configured',
      ]);
      expect(res.json.missing.find((m: any) => m.key === 'published_product')).to.include({ available: true });
      expect(res.json.missing.find((m: any) => m.key === 'checkout_configured')).to.include({ available: true });

      await call(server, 'PATCH', `/api/v1/organization/stores/${store.id}`, { headers: h, body: { contactEmail: 'shop@example.test' } });
      await call(server, 'PATCH', '/api/v1/organization/tenant', { headers: h, body: { legalName: 'Co Ltd', country: 'TR' } });
      await server.runtime.dataSource.query('UPDATE users SET email_verified_at = now() WHERE id = $1', [owner.userId]);
      const later = await call(server, 'GET', `/api/v1/organization/stores/${store.id}/readiness`, { headers: h });
      expect(later.json.ready).to.equal(false);
      expect(later.json.missing.map((m: any) => [m.key, m.available])).to.deep.equal([
        ['published_product', true],
        ['checkout_configured', true],
      ]);
      await product(server, { owner, headers: h, storeId: store.id }, { status: 'PUBLISHED' });
      const published = await call(server, 'GET', `/api/v1/organization/stores/${store.id}/readiness`, { headers: h });
      expect(published.json.missing.map((m: any) => [m.key, m.available])).to.deep.equal([['checkout_configured', true]]);
      const saved = await call(server, 'PUT', '/api/v1/checkout-settings', {
        headers: h,
        body: { storeId: store.id, enabledProviders: ['iyzico'] },
      });
      expect(saved.status, saved.text).to.equal(200);
      const ready = await call(server, 'GET', `/api/v1/organization/stores/${store.id}/readiness`, { headers: h });
      expect(ready.json).to.deep.equal({ storeId: store.id, ready: true, missing: [] });
    });
  });

  describe('access', () => {
    it("answers 404 store_not_found for another tenant's store on every store route, and changes nothing", async () => {
      const owner = await signUp(server);
      const intruder = await signUp(server);
      const store = await storeOf(owner);
      const h = bearer(intruder.accessToken);
      expectProblem(await call(server, 'GET', `/api/v1/organization/stores/${store.id}/readiness`, { headers: h }), 404, 'store_not_found');
      expectProblem(
        await call(server, 'PATCH', `/api/v1/organization/stores/${store.id}`, { headers: h, body: { name: 'Mine now' } }),
        404,
        'store_not_found',
      );
      expectProblem(
        await call(server, 'PATCH', `/api/v1/organization/stores/${store.id}`, { headers: h, body: { isDefault: true } }),
        404,
        'store_not_found',
      );
      expectProblem(await call(server, 'DELETE', `/api/v1/organization/stores/${store.id}`, { headers: h }), 404, 'store_not_found');
      // The same answer as for a store that does not exist at all.
      const missing = await call(server, 'GET', `/api/v1/organization/stores/${uuidv7()}/readiness`, { headers: h });
      expectProblem(missing, 404, 'store_not_found');
      // Lists and counts hold only the caller's tenant.
      const summary = await call(server, 'GET', '/api/v1/organization/summary', { headers: h });
      expect(summary.json.tenant.id).to.equal(intruder.tenantId);
      expect(summary.json.stores).to.deep.equal([]);
      expect(summary.json.counts).to.deep.equal({ stores: 0, users: 1, apiKeys: 0 });
      expect(
        (await call(server, 'GET', '/api/v1/organization/onboarding-status', { headers: h })).json.steps.find(
          (s: any) => s.key === 'store_created',
        ).done,
      ).to.equal(false);
      const stillThere = await call(server, 'GET', `/api/v1/organization/stores/${store.id}/readiness`, {
        headers: bearer(owner.accessToken),
      });
      expect(stillThere.status).to.equal(200);
      expect((await call(server, 'GET', '/api/v1/organization/summary', { headers: bearer(owner.accessToken) })).json.stores[0]).to.include(
        { name: 'Test Shop', status: 'active' },
      );
      expect((await auditRows(server, intruder.tenantId)).filter((a) => a.action.startsWith('store.'))).to.deep.equal([]);
    });

    it('needs a token (401) on every merchant route', async () => {
      const id = uuidv7();
      for (const [method, path] of [
        ['GET', '/organization/summary'],
        ['GET', '/organization/onboarding-status'],
        ['PATCH', '/organization/tenant'],
        ['GET', `/organization/stores/${id}/readiness`],
        ['POST', '/organization/stores/default'],
        ['POST', '/organization/stores'],
        ['PATCH', `/organization/stores/${id}`],
        ['DELETE', `/organization/stores/${id}`],
      ] as const) {
        expectProblem(
          await call(server, method, `/api/v1${path}`, {
            body: method === 'PATCH' || path === '/organization/stores' ? { name: 'x' } : undefined,
          }),
          401,
          'unauthorized',
        );
      }
    });

    it('lets an API key read the readiness of its own store only; tenant-wide operations refuse API keys (403)', async () => {
      const owner = await signUp(server);
      const store = await storeOf(owner);
      const sibling = await storeOf(owner);
      const key = await apiKey(server, { headers: bearer(owner.accessToken), storeId: store.id }, ['*']);
      expect((await call(server, 'GET', `/api/v1/organization/stores/${store.id}/readiness`, { headers: key })).status).to.equal(200);
      expectProblem(
        await call(server, 'GET', `/api/v1/organization/stores/${sibling.id}/readiness`, { headers: key }),
        404,
        'store_not_found',
      );
      expectProblem(await call(server, 'GET', '/api/v1/organization/summary', { headers: key }), 403, 'api_key_not_allowed');
      expectProblem(await call(server, 'GET', '/api/v1/organization/onboarding-status', { headers: key }), 403, 'api_key_not_allowed');
      expectProblem(
        await call(server, 'PATCH', '/api/v1/organization/tenant', { headers: key, body: { name: 'x' } }),
        403,
        'api_key_not_allowed',
      );
      expectProblem(
        await call(server, 'POST', '/api/v1/organization/stores', { headers: key, body: { name: 'x' } }),
        403,
        'api_key_not_allowed',
      );
      expectProblem(
        await call(server, 'PATCH', `/api/v1/organization/stores/${store.id}`, { headers: key, body: { name: 'x' } }),
        403,
        'api_key_not_allowed',
      );
      expectProblem(await call(server, 'DELETE', `/api/v1/organization/stores/${store.id}`, { headers: key }), 403, 'api_key_not_allowed');
      const readOnly = await apiKey(server, { headers: bearer(owner.accessToken), storeId: store.id }, ['api-keys:read']);
      expectProblem(
        await call(server, 'GET', `/api/v1/organization/stores/${store.id}/readiness`, { headers: readOnly }),
        403,
        'insufficient_scope',
      );
    });
  });
});
