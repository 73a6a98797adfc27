/**
 * Sandbox: created with an e-mail address and seeded with exactly 100 products, 50 customers,
 * 200 orders and 3 vendors; the token works on the production operations; the seed is searchable at
 * once; sandboxes are isolated; reset brings back the factory data and removes everything else
 * (timed in the benchmark, not here); the token simulator (expired → 401, missing scope → 403,
 * minting only within the calling token's scopes and lifetime, refresh rotation and reuse revoking the
 * whole refresh family); test cards; seed images; rate limits and bounds.
 */
import { expect } from 'chai';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { auditRows, expectProblem, uniqueEmail } from '../helpers/accounts';
import { merchant } from '../helpers/fixtures';
import { uuidv7 } from '../../storage/ids';
import { storeIndexUid } from '../../search/index-names';
import { luhnValid } from '../../api/sandbox/sandbox.cards';

describe('sandbox', function () {
  this.timeout(120_000);
  let server: TestServer;
  /** The tenants the file made: deleted at the end, once the suite has settled their outbox rows and indexes. */
  const tenants: string[] = [];
  const suite = apiSuite((started) => (server = started));
  after(async () => {
    await server.runtime.dataSource.query('DELETE FROM tenants WHERE id = ANY($1::uuid[])', [tenants]);
  });

  const db = () => server.runtime.dataSource;
  const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

  async function create(email = uniqueEmail('dev')): Promise<TestResponse> {
    const res = await call(server, 'POST', '/api/v1/sandbox', { body: { email } });
    if (res.status === 201) {
      tenants.push(res.json.tenantId);
      suite.addTenant(res.json.tenantId);
      suite.addIndexedStore(res.json.storeId);
    }
    return res;
  }

  let a: any;
  let b: any;

  async function dbCounts(storeId: string) {
    const [row] = await db().query(
      `SELECT (SELECT count(*)::int FROM products WHERE store_id = $1) AS products,
              (SELECT count(*)::int FROM products WHERE store_id = $1 AND status = 'PUBLISHED') AS published,
              (SELECT count(*)::int FROM product_variants WHERE store_id = $1) AS variants,
              (SELECT count(*)::int FROM product_images i JOIN products p ON p.id = i.product_id WHERE p.store_id = $1) AS images,
              (SELECT count(*)::int FROM categories WHERE store_id = $1) AS categories,
              (SELECT count(*)::int FROM brands WHERE store_id = $1) AS brands,
              (SELECT count(*)::int FROM customers WHERE store_id = $1) AS customers,
              (SELECT count(*)::int FROM orders WHERE store_id = $1) AS orders,
              (SELECT count(DISTINCT vendor_id)::int FROM products WHERE store_id = $1) AS vendors,
              (SELECT count(*)::int FROM api_keys WHERE store_id = $1) AS keys`,
      [storeId],
    );
    return row;
  }

  it('creates a sandbox with an e-mail address, seeded exactly, and answers its token once', async () => {
    const res = await create();
    expect(res.status, res.text).to.equal(201);
    a = res.json;
    expect(a.token).to.match(/^sk_[a-z0-9]{10}_/);
    expect(a.tokenPrefix).to.equal(a.token.split('_').slice(0, 2).join('_'));
    expect(a.counts).to.deep.equal({ products: 100, customers: 50, orders: 200, vendors: 3 });
    expect(a.defaults).to.deep.equal({ products: 100, customers: 50, orders: 200, vendors: 3 });
    expect(a).to.deep.include({ lastResetAt: null, resetCount: 0, searchReady: true });
    const counts = await dbCounts(a.storeId);
    expect(counts).to.deep.include({
      products: 100,
      published: 100,
      images: 100,
      categories: 14,
      brands: 10,
      customers: 50,
      orders: 200,
      vendors: 3,
      keys: 1,
    });
    expect(counts.variants).to.be.greaterThan(100);
    // Image vectors of every seeded product, with visual search enabled.
    expect(a.visualSearch).to.equal(true);
    const [vectors] = await db().query(
      "SELECT count(*)::int AS n FROM product_image_vectors WHERE store_id = $1 AND status = 'INDEXED' AND octet_length(vector) = 4 * 1280",
      [a.storeId],
    );
    expect(vectors.n).to.equal(100);
    const [tenant] = await db().query('SELECT kind FROM tenants WHERE id = $1', [a.tenantId]);
    expect(tenant.kind).to.equal('sandbox');
    // Sales counts are the quantities of the seeded orders that are not cancelled.
    const [sales] = await db().query(
      `SELECT (SELECT sum(sales_count)::int FROM products WHERE store_id = $1) AS counted,
              (SELECT sum(i.quantity)::int FROM order_items i JOIN orders o ON o.id = i.order_id WHERE o.store_id = $1 AND o.status = 'PLACED') AS sold`,
      [a.storeId],
    );
    expect(sales.counted).to.equal(sales.sold).and.to.be.greaterThan(0);
    const status = await call(server, 'GET', '/api/v1/sandbox', { headers: auth(a.token) });
    expect(status.status, status.text).to.equal(200);
    const { token: _token, ...rest } = a;
    expect(status.json).to.deep.equal(rest);
    expect(status.json).to.not.have.property('token');
  });

  it('seeds the same catalog every time (deterministic titles, prices, stock)', async () => {
    const res = await create();
    expect(res.status, res.text).to.equal(201);
    b = res.json;
    const catalog = (storeId: string) =>
      db().query(
        `SELECT p.title, p.slug, p.price, p.compare_at_price, p.sales_count, array_agg(v.sku || ':' || v.stock ORDER BY v.position) AS variants
           FROM products p JOIN product_variants v ON v.product_id = p.id WHERE p.store_id = $1 GROUP BY p.id ORDER BY p.slug`,
        [storeId],
      );
    expect(await catalog(b.storeId)).to.deep.equal(await catalog(a.storeId));
  });

  it('accepts the sandbox token on the production operations (catalog, orders)', async () => {
    const products = await call(server, 'GET', `/api/v1/catalog/products?storeId=${a.storeId}`, { headers: auth(a.token) });
    expect(products.status, products.text).to.equal(200);
    const [customer] = await db().query('SELECT id FROM customers WHERE store_id = $1 ORDER BY email LIMIT 1', [a.storeId]);
    const [variant] = await db().query('SELECT id, stock FROM product_variants WHERE store_id = $1 AND stock > 2 ORDER BY sku LIMIT 1', [
      a.storeId,
    ]);
    const order = await call(server, 'POST', '/api/v1/orders', {
      headers: auth(a.token),
      body: {
        customerId: customer.id,
        items: [{ variantId: variant.id, quantity: 2 }],
        shippingAddress: { city: 'Ankara', district: 'Çankaya' },
      },
    });
    expect(order.status, order.text).to.equal(201);
    expect(order.json).to.deep.include({ storeId: a.storeId, currency: 'TRY' });
    const list = await call(server, 'GET', `/api/v1/orders?storeId=${a.storeId}&limit=100`, { headers: auth(a.token) });
    expect(list.status).to.equal(200);
    expect(list.json.items[0].id).to.equal(order.json.id);
    expect(list.json.nextCursor).to.be.a('string');
  });

  it('is searchable as soon as it is created', async () => {
    const all = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${a.storeId}`);
    expect(all.status, all.text).to.equal(200);
    expect(all.json.total).to.equal(100);
    const titles: string[] = (await db().query('SELECT title FROM products WHERE store_id = $1 ORDER BY slug', [a.storeId])).map(
      (r: any) => r.title,
    );
    for (const title of [titles[0]!, titles[57]!]) {
      const found = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${a.storeId}&q=${encodeURIComponent(title)}`);
      expect(found.status).to.equal(200);
      expect(found.json.items[0].title, title).to.equal(title);
    }
    // Another sandbox's products are not in this one's results.
    const [bTitle] = await db().query('SELECT title FROM products WHERE store_id = $1 LIMIT 1', [b.storeId]);
    const mine = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${a.storeId}&q=${encodeURIComponent(bTitle.title)}`);
    const aIds = new Set((await db().query('SELECT id FROM products WHERE store_id = $1', [a.storeId])).map((r: any) => r.id));
    for (const item of mine.json.items) expect(aIds.has(item.id)).to.equal(true);
  });

  it('isolates sandboxes from each other', async () => {
    const [order] = await db().query('SELECT id FROM orders WHERE store_id = $1 LIMIT 1', [b.storeId]);
    expectProblem(await call(server, 'GET', `/api/v1/orders/${order.id}`, { headers: auth(a.token) }), 404, 'order_not_found');
    expectProblem(await call(server, 'GET', `/api/v1/orders?storeId=${b.storeId}`, { headers: auth(a.token) }), 404, 'store_not_found');
    expectProblem(
      await call(server, 'GET', `/api/v1/catalog/products?storeId=${b.storeId}`, { headers: auth(a.token) }),
      404,
      'store_not_found',
    );
    const [customer] = await db().query('SELECT id FROM customers WHERE store_id = $1 LIMIT 1', [b.storeId]);
    const [variant] = await db().query('SELECT id FROM product_variants WHERE store_id = $1 AND stock > 0 LIMIT 1', [a.storeId]);
    expectProblem(
      await call(server, 'POST', '/api/v1/orders', {
        headers: auth(a.token),
        body: { customerId: customer.id, items: [{ variantId: variant.id, quantity: 1 }], shippingAddress: { city: 'x', district: 'y' } },
      }),
      404,
      'customer_not_found',
    );
    const statusB = await call(server, 'GET', '/api/v1/sandbox', { headers: auth(b.token) });
    expect(statusB.json.storeId).to.equal(b.storeId);
    expect(statusB.json.counts.orders).to.equal(200);
    // A tenant that is not a sandbox has none.
    const m = suite.addMerchant(await merchant(server));
    tenants.push(m.owner.tenantId);
    expectProblem(await call(server, 'GET', '/api/v1/sandbox', { headers: m.headers }), 404, 'sandbox_not_found');
    expectProblem(await call(server, 'POST', '/api/v1/sandbox/reset', { headers: m.headers }), 404, 'sandbox_not_found');
    expect((await call(server, 'GET', '/api/v1/sandbox')).status).to.equal(401);
  });

  it('issues simulated tokens: expired → 401, missing scope → 403, scoped access works', async () => {
    const issue = (body: Record<string, unknown>) => call(server, 'POST', '/api/v1/sandbox/tokens', { headers: auth(a.token), body });
    const expired = await issue({ scopes: ['*'], expiresInSeconds: -60 });
    expect(expired.status, expired.text).to.equal(201);
    expect(expired.json).to.deep.include({ expired: true, refreshToken: null, scopes: ['*'] });
    expectProblem(
      await call(server, 'GET', `/api/v1/orders?storeId=${a.storeId}`, { headers: auth(expired.json.token) }),
      401,
      'invalid_api_key',
    );
    const readOnly = await issue({ scopes: ['orders:read'], expiresInSeconds: 600 });
    expect(readOnly.json.expired).to.equal(false);
    expect(Date.parse(readOnly.json.expiresAt) - Date.now()).to.be.within(590_000, 601_000);
    expect((await call(server, 'GET', `/api/v1/orders?storeId=${a.storeId}`, { headers: auth(readOnly.json.token) })).status).to.equal(200);
    expectProblem(
      await call(server, 'POST', '/api/v1/orders', {
        headers: auth(readOnly.json.token),
        body: { customerId: uuidv7(), items: [{ variantId: uuidv7(), quantity: 1 }], shippingAddress: { city: 'x', district: 'y' } },
      }),
      403,
      'insufficient_scope',
    );
    expectProblem(
      await call(server, 'GET', `/api/v1/catalog/products?storeId=${a.storeId}`, { headers: auth(readOnly.json.token) }),
      403,
      'insufficient_scope',
    );
    expectProblem(
      await call(server, 'POST', '/api/v1/sandbox/tokens', {
        headers: auth(readOnly.json.token),
        body: { scopes: ['*'], expiresInSeconds: 60 },
      }),
      403,
      'insufficient_scope',
    );
    const none = await issue({ scopes: [], expiresInSeconds: 60 });
    expectProblem(
      await call(server, 'GET', `/api/v1/orders?storeId=${a.storeId}`, { headers: auth(none.json.token) }),
      403,
      'insufficient_scope',
    );

    for (const [body, path] of [
      [{ scopes: ['*'], expiresInSeconds: -86_401 }, 'body.expiresInSeconds'],
      [{ scopes: ['*'], expiresInSeconds: 2_592_001 }, 'body.expiresInSeconds'],
      [{ scopes: ['*'], expiresInSeconds: 1.5 }, 'body.expiresInSeconds'],
      [{ scopes: ['*'] }, 'body.expiresInSeconds'],
      [{ scopes: ['ORDERS'], expiresInSeconds: 60 }, 'body.scopes[0]'],
      [{ scopes: ['nosuch:read'], expiresInSeconds: 60 }, 'body.scopes'],
      [{ expiresInSeconds: 60 }, 'body.scopes'],
      [{ scopes: ['*'], expiresInSeconds: 60, extra: true }, 'body.extra'],
    ] as Array<[Record<string, unknown>, string]>) {
      const res = await issue(body);
      expectProblem(res, 400, 'validation_failed');
      expect(res.json.errors.map((e: any) => e.path)).to.include(path);
    }
    // Bounds are inclusive.
    expect((await issue({ scopes: ['*'], expiresInSeconds: -86_400 })).status).to.equal(201);
    expect((await issue({ scopes: ['*'], expiresInSeconds: 2_592_000 })).status).to.equal(201);
  });

  it('mints only within the calling token: its own scopes, never past its own expiry', async () => {
    const mint = (token: string, body: Record<string, unknown>) =>
      call(server, 'POST', '/api/v1/sandbox/tokens', { headers: auth(token), body });
    // A token holding only sandbox:write (10 minutes left) may call the simulator, but not widen its rights.
    const writer = await mint(a.token, { scopes: ['sandbox:write'], expiresInSeconds: 600 });
    expect(writer.status, writer.text).to.equal(201);
    const escalation = await mint(writer.json.token, { scopes: ['*'], expiresInSeconds: 31_536_000 });
    expectProblem(escalation, 400, 'validation_failed');
    const star = await mint(writer.json.token, { scopes: ['*'], expiresInSeconds: 60 });
    expectProblem(star, 403, 'scope_not_held');
    expect(star.json.errors).to.deep.equal([{ path: 'body.scopes', message: '* is not a scope of the calling token' }]);
    const wider = await mint(writer.json.token, { scopes: ['sandbox:write', 'orders:read', 'catalog:write'], expiresInSeconds: 60 });
    expectProblem(wider, 403, 'scope_not_held');
    expect(wider.json.errors.map((e: any) => e.message)).to.deep.equal([
      'orders:read is not a scope of the calling token',
      'catalog:write is not a scope of the calling token',
    ]);
    // Longer than the caller has left: refused, naming what is left.
    const longer = await mint(writer.json.token, { scopes: ['sandbox:write'], expiresInSeconds: 3_600 });
    expectProblem(longer, 403, 'token_lifetime_exceeded');
    expect(longer.json.errors[0].path).to.equal('body.expiresInSeconds');
    // A subset, within its lifetime: allowed.
    const within = await mint(writer.json.token, { scopes: ['sandbox:write'], expiresInSeconds: 300 });
    expect(within.status, within.text).to.equal(201);
    expect(within.json.scopes).to.deep.equal(['sandbox:write']);
    expect((await mint(writer.json.token, { scopes: [], expiresInSeconds: 60 })).status).to.equal(201);
    // Nothing the refused requests asked for was written: only the two minted tokens are new.
    const [{ count }] = await db().query(
      `SELECT count(*)::int AS count FROM api_keys
        WHERE store_id = $1 AND created_at >= (SELECT created_at FROM api_keys WHERE id = $2)`,
      [a.storeId, writer.json.tokenId],
    );
    expect(count).to.equal(3);

    // A refresh credential never outlives the minting token either, nor does any token refreshed from it
    // (the one-hour minimum of a refreshed lifetime stops at the minter's expiry).
    const withRefresh = await mint(writer.json.token, { scopes: ['sandbox:write'], expiresInSeconds: 0, refresh: true });
    expect(withRefresh.status, withRefresh.text).to.equal(201);
    const ceiling = Date.parse(writer.json.expiresAt);
    expect(Date.parse(withRefresh.json.refreshExpiresAt)).to.be.at.most(ceiling);
    const refreshed = await call(server, 'POST', '/api/v1/sandbox/tokens/refresh', {
      body: { refreshToken: withRefresh.json.refreshToken },
    });
    expect(refreshed.status, refreshed.text).to.equal(200);
    expect(Date.parse(refreshed.json.expiresAt)).to.be.at.most(ceiling);
    expect(Date.parse(refreshed.json.refreshExpiresAt)).to.be.at.most(ceiling);
    expect(refreshed.json.expired).to.equal(false);

    // The sandbox token (every scope, no expiry) may mint anything up to the fixed cap.
    expect((await mint(a.token, { scopes: ['*'], expiresInSeconds: 2_592_000 })).status).to.equal(201);
  });

  it('rehearses refresh: rotation, the old token revoked, reuse refused and the new token revoked', async () => {
    const issued = await call(server, 'POST', '/api/v1/sandbox/tokens', {
      headers: auth(a.token),
      body: { scopes: ['orders:read'], expiresInSeconds: 0, refresh: true },
    });
    expect(issued.status, issued.text).to.equal(201);
    expect(issued.json.refreshToken).to.match(/^rt_/);
    expectProblem(
      await call(server, 'GET', `/api/v1/orders?storeId=${a.storeId}`, { headers: auth(issued.json.token) }),
      401,
      'invalid_api_key',
    );
    const refreshed = await call(server, 'POST', '/api/v1/sandbox/tokens/refresh', { body: { refreshToken: issued.json.refreshToken } });
    expect(refreshed.status, refreshed.text).to.equal(200);
    expect(refreshed.json).to.deep.include({ scopes: ['orders:read'], expired: false });
    expect(refreshed.json.token).to.not.equal(issued.json.token);
    expect(refreshed.json.refreshToken).to.match(/^rt_/).and.not.equal(issued.json.refreshToken);
    expect(Date.parse(refreshed.json.expiresAt) - Date.now()).to.be.greaterThan(3_500_000);
    expect((await call(server, 'GET', `/api/v1/orders?storeId=${a.storeId}`, { headers: auth(refreshed.json.token) })).status).to.equal(
      200,
    );
    // Reuse of the first credential: refused, and the token it produced stops working.
    expectProblem(
      await call(server, 'POST', '/api/v1/sandbox/tokens/refresh', { body: { refreshToken: issued.json.refreshToken } }),
      401,
      'refresh_token_reused',
    );
    expectProblem(
      await call(server, 'GET', `/api/v1/orders?storeId=${a.storeId}`, { headers: auth(refreshed.json.token) }),
      401,
      'invalid_api_key',
    );
    expectProblem(
      await call(server, 'POST', '/api/v1/sandbox/tokens/refresh', { body: { refreshToken: 'rt_unknown_credential' } }),
      401,
      'invalid_refresh_token',
    );
    expectProblem(
      await call(server, 'POST', '/api/v1/sandbox/tokens/refresh', { body: { refreshToken: 'short' } }),
      400,
      'validation_failed',
    );
  });

  it('reuse of a traded refresh credential revokes its whole family; an honest chain keeps rotating', async () => {
    const refresh = (refreshToken: string) => call(server, 'POST', '/api/v1/sandbox/tokens/refresh', { body: { refreshToken } });
    const works = async (token: string) =>
      (await call(server, 'GET', `/api/v1/orders?storeId=${a.storeId}`, { headers: auth(token) })).status;
    const mintWithRefresh = async () => {
      const res = await call(server, 'POST', '/api/v1/sandbox/tokens', {
        headers: auth(a.token),
        body: { scopes: ['orders:read'], expiresInSeconds: 600, refresh: true },
      });
      expect(res.status, res.text).to.equal(201);
      return res.json;
    };

    // A normal chain: each credential trades once for the next, every new token works.
    let current = await mintWithRefresh();
    for (let i = 0; i < 3; i++) {
      const next = await refresh(current.refreshToken);
      expect(next.status, next.text).to.equal(200);
      expect(await works(next.json.token)).to.equal(200);
      expect(await works(current.token)).to.equal(401);
      current = next.json;
    }

    // A → B, then A again: refused, and B (its token and its refresh credential) stops working too.
    const first = await mintWithRefresh();
    const second = await refresh(first.refreshToken);
    expect(second.status, second.text).to.equal(200);
    expectProblem(await refresh(first.refreshToken), 401, 'refresh_token_reused');
    expect(await works(second.json.token)).to.equal(401);
    expectProblem(await refresh(second.json.refreshToken), 401, 'invalid_refresh_token');

    // A → B → C, then A again: C, two generations on, is revoked as well.
    const a1 = await mintWithRefresh();
    const b1 = (await refresh(a1.refreshToken)).json;
    const c1 = await refresh(b1.refreshToken);
    expect(c1.status, c1.text).to.equal(200);
    expect(await works(c1.json.token)).to.equal(200);
    expectProblem(await refresh(a1.refreshToken), 401, 'refresh_token_reused');
    expect(await works(c1.json.token)).to.equal(401);
    expectProblem(await refresh(c1.json.refreshToken), 401, 'invalid_refresh_token');
    // Another family is untouched.
    expect(await works(current.token)).to.equal(200);
    expect((await refresh(current.refreshToken)).status).to.equal(200);

    // A reuse racing a rotation of the same family: whichever runs first, nothing of the family survives.
    for (let i = 0; i < 5; i++) {
      const root = await mintWithRefresh();
      const next = (await refresh(root.refreshToken)).json;
      const [reuse, rotation] = await Promise.all([refresh(root.refreshToken), refresh(next.refreshToken)]);
      expectProblem(reuse, 401, 'refresh_token_reused');
      for (const token of [next.token, ...(rotation.status === 200 ? [rotation.json.token] : [])]) expect(await works(token)).to.equal(401);
      if (rotation.status === 200) expectProblem(await refresh(rotation.json.refreshToken), 401, 'invalid_refresh_token');
    }

    // The reuse is a security event in the audit log, naming the family and what it revoked.
    const audit = (await auditRows(server, a.tenantId)).filter((row) => row.action === 'sandbox.refresh_reused');
    expect(audit.length).to.be.at.least(2);
    const family = audit.find((row) => row.after.revokedCredentials === 1 && row.after.revokedApiKeys === 1);
    expect(family, JSON.stringify(audit.map((row) => row.after))).to.not.equal(undefined);
    expect(family!.after.familyId).to.match(/^[0-9a-f-]{36}$/);
  });

  it('lists test cards of three providers for the four flows', async () => {
    const res = await call(server, 'GET', '/api/v1/sandbox/test-cards', { headers: auth(a.token) });
    expect(res.status, res.text).to.equal(200);
    const cards = res.json.items as Array<Record<string, any>>;
    expect(cards).to.have.length(12);
    expect([...new Set(cards.map((c) => c.provider))].sort()).to.deep.equal(['adyen', 'iyzico', 'stripe']);
    for (const provider of ['adyen', 'iyzico', 'stripe']) {
      expect(
        cards
          .filter((c) => c.provider === provider)
          .map((c) => c.flow)
          .sort(),
      ).to.deep.equal(['FRAUD_DECLINE', 'REFUND', 'SUCCESS', 'THREE_DS_CHALLENGE']);
    }
    for (const c of cards) expect(luhnValid(c.number), c.number).to.equal(true);
    expect(cards.filter((c) => c.flow === 'THREE_DS_CHALLENGE').every((c) => typeof c.threeDsCode === 'string')).to.equal(true);
    const filtered = await call(server, 'GET', '/api/v1/sandbox/test-cards?provider=stripe&flow=REFUND', { headers: auth(a.token) });
    expect(filtered.json.items).to.have.length(1);
    expectProblem(
      await call(server, 'GET', '/api/v1/sandbox/test-cards?provider=paypal', { headers: auth(a.token) }),
      400,
      'validation_failed',
    );
    expect((await call(server, 'GET', '/api/v1/sandbox/test-cards')).status).to.equal(401);
  });

  it('serves the generated seed images', async () => {
    const [image] = await db().query(
      'SELECT i.url FROM product_images i JOIN products p ON p.id = i.product_id WHERE p.store_id = $1 ORDER BY p.created_at LIMIT 1',
      [a.storeId],
    );
    expect(image.url).to.equal(`${server.runtime.config.publicBaseUrl}/api/v1/sandbox/images/1`);
    const res = await fetch(`${server.baseUrl}/api/v1/sandbox/images/1`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('image/png');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(1, 4).toString('latin1')).to.equal('PNG');
    const again = Buffer.from(await (await fetch(`${server.baseUrl}/api/v1/sandbox/images/1`)).arrayBuffer());
    expect(again.equals(bytes)).to.equal(true);
    expect((await call(server, 'GET', '/api/v1/sandbox/images/100')).status).to.equal(200);
    expectProblem(await call(server, 'GET', '/api/v1/sandbox/images/101'), 400, 'validation_failed');
    expectProblem(await call(server, 'GET', '/api/v1/sandbox/images/0'), 400, 'validation_failed');
  });

  it('resets to factory defaults: extra data gone, token kept, simulated tokens removed, searchable again', async () => {
    const simulated = await call(server, 'POST', '/api/v1/sandbox/tokens', {
      headers: auth(a.token),
      body: { scopes: ['*'], expiresInSeconds: 600 },
    });
    const extraCustomer = uuidv7();
    await db().query('INSERT INTO customers (id, tenant_id, store_id, email) VALUES ($1, $2, $3, $4)', [
      extraCustomer,
      a.tenantId,
      a.storeId,
      'extra@example.com',
    ]);
    await db().query("UPDATE products SET title = 'Changed title' WHERE store_id = $1", [a.storeId]);
    const before = await call(server, 'GET', '/api/v1/sandbox', { headers: auth(a.token) });
    expect(before.json.counts).to.deep.equal({ products: 100, customers: 51, orders: 201, vendors: 3 });

    const res = await call(server, 'POST', '/api/v1/sandbox/reset', { headers: auth(a.token) });
    expect(res.status, res.text).to.equal(200);
    expect(res.json.counts).to.deep.equal({ products: 100, customers: 50, orders: 200, vendors: 3 });
    expect(res.json).to.deep.include({
      id: a.id,
      storeId: a.storeId,
      tenantId: a.tenantId,
      resetCount: 1,
      searchReady: true,
      createdAt: a.createdAt,
      tokenPrefix: a.tokenPrefix,
    });
    expect(res.json.lastResetAt).to.be.a('string');
    expect(res.json.durationMs).to.be.a('number');
    const counts = await dbCounts(a.storeId);
    expect(counts).to.deep.include({ products: 100, customers: 50, orders: 200, vendors: 3, keys: 1, categories: 14, brands: 10 });
    expect((await db().query('SELECT count(*)::int AS n FROM customers WHERE id = $1', [extraCustomer]))[0].n).to.equal(0);
    expect(
      (await db().query("SELECT count(*)::int AS n FROM products WHERE store_id = $1 AND title = 'Changed title'", [a.storeId]))[0].n,
    ).to.equal(0);
    expectProblem(
      await call(server, 'GET', `/api/v1/orders?storeId=${a.storeId}`, { headers: auth(simulated.json.token) }),
      401,
      'invalid_api_key',
    );
    const status = await call(server, 'GET', '/api/v1/sandbox', { headers: auth(a.token) });
    expect(status.status).to.equal(200);
    expect(status.json.lastResetAt).to.equal(res.json.lastResetAt);
    const search = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${a.storeId}`);
    expect(search.json.total).to.equal(100);
    const ids = new Set((await db().query('SELECT id FROM products WHERE store_id = $1', [a.storeId])).map((r: any) => r.id));
    const stats = await server.runtime.meiliAdmin.index(storeIndexUid(a.storeId)).getStats();
    expect(stats.numberOfDocuments).to.equal(100);
    for (const item of search.json.items) expect(ids.has(item.id)).to.equal(true);
    // The other sandbox is untouched.
    expect((await dbCounts(b.storeId)).orders).to.equal(200);
    const audit = await db().query(
      "SELECT action FROM audit_log WHERE tenant_id = $1 AND action IN ('sandbox.create', 'sandbox.reset') ORDER BY id",
      [a.tenantId],
    );
    expect(audit.map((r: any) => r.action)).to.deep.equal(['sandbox.create', 'sandbox.reset']);
  });

  it('runs concurrent resets of one sandbox one after the other', async () => {
    const results = await Promise.all([0, 1].map(() => call(server, 'POST', '/api/v1/sandbox/reset', { headers: auth(b.token) })));
    expect(results.map((r) => r.status)).to.deep.equal([200, 200]);
    expect(results.map((r) => r.json.resetCount).sort()).to.deep.equal([1, 2]);
    expect(await dbCounts(b.storeId)).to.deep.include({ products: 100, customers: 50, orders: 200, vendors: 3, keys: 1 });
    const stats = await server.runtime.meiliAdmin.index(storeIndexUid(b.storeId)).getStats();
    expect(stats.numberOfDocuments).to.equal(100);
  });

  it('validates the e-mail address and rate-limits creation per address', async () => {
    for (const body of [{}, { email: 'not-an-address' }, { email: `${'a'.repeat(250)}@x.io` }, { email: 'a@b.co', extra: 1 }]) {
      expectProblem(await call(server, 'POST', '/api/v1/sandbox', { body }), 400, 'validation_failed');
    }
    const email = uniqueEmail('limited');
    for (let i = 0; i < 3; i += 1) expect((await create(email)).status).to.equal(201);
    const limited = await create(email.toUpperCase());
    expectProblem(limited, 429, 'rate_limited');
    expect(limited.headers.get('retry-after')).to.match(/^\d+$/);
  });

  it("imports and exports with the sandbox token without storeId; another sandbox's store is 404", async () => {
    const post = (path: string, token: string, csv?: string) =>
      call(server, 'POST', `/api/v1${path}`, {
        headers: auth(token),
        ...(csv === undefined ? {} : { rawBody: csv, contentType: 'text/csv' }),
      });
    const products = await post('/bulk-import/products', a.token, 'handle,title,price\nsandbox-import,Sandbox import,9.5\n');
    expect(products.status, products.text).to.equal(200);
    expect(products.json.products).to.deep.include({ created: 1, failed: 0 });
    const [row] = await db().query("SELECT store_id FROM products WHERE slug = 'sandbox-import' AND tenant_id = $1", [a.tenantId]);
    expect(row.store_id).to.equal(a.storeId);
    const job = await post('/bulk-import/products/async', a.token, 'handle,title,price\nsandbox-job,Sandbox job,4\n');
    expect(job.status, job.text).to.equal(202);
    expect(job.json.storeId).to.equal(a.storeId);
    const exported = await post('/bulk-import/products/export', a.token);
    expect(exported.status, exported.text).to.equal(202);
    expect(exported.json.storeId).to.equal(a.storeId);
    const customers = await post('/customers/import', a.token, 'email\nsandbox-import@example.test\n');
    expect(customers.status, customers.text).to.equal(200);
    expect(customers.json.customers.created).to.equal(1);
    // A simulated token with import:write is bound to the sandbox store too.
    const simulated = await call(server, 'POST', '/api/v1/sandbox/tokens', {
      headers: auth(a.token),
      body: { scopes: ['import:write'], expiresInSeconds: 600 },
    });
    expect((await post('/customers/import', simulated.json.token, 'email\nsimulated@example.test\n')).status).to.equal(200);
    // Naming another sandbox's store disagrees with the token: 404, as for any store not the token's own.
    for (const [path, csv] of [
      ['/bulk-import/products', 'handle,title,price\nx,X,1\n'],
      ['/bulk-import/products/async', 'handle,title,price\nx,X,1\n'],
      ['/bulk-import/products/export', undefined],
      ['/customers/import', 'email\nx@example.test\n'],
    ] as Array<[string, string | undefined]>) {
      expectProblem(await post(`${path}?storeId=${b.storeId}`, a.token, csv), 404, 'store_not_found');
    }
  });
});
