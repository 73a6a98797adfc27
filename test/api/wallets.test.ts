/**
 * Merchant wallets and the storefront wallet checkout: configuration bounds, the domain association
 * file served as text/plain, domain verification recorded (against a local HTTP server the test
 * allows, and FAILED with its reason otherwise), and the wallet charge: success, decline, amount
 * mismatch, orders of another store, and the per-client limit (429).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { call, testRuntime, type TestServer } from '../helpers/harness';
import { createApp } from '../../app/http-app';
import type { Config } from '../../lib/config';
import { apiSuite } from '../helpers/api-suite';
import { auditRows, expectProblem, startIsolatedServer } from '../helpers/accounts';
import { customer, merchant, product, variant, type Merchant } from '../helpers/fixtures';
import { uuidv7 } from '../../storage/ids';

describe('wallets', function () {
  this.timeout(60_000);
  let server: TestServer;
  let files: http.Server;
  const served = new Map<string, string>();
  const suite = apiSuite((started) => (server = started));
  const newMerchant = async (): Promise<Merchant> => suite.addMerchant(await merchant(server));

  before(async () => {
    // Local "storefront domains": /<domain>/.well-known/… serves what the test put under that domain.
    files = http.createServer((req, res) => {
      const [, domain = '', ...rest] = String(req.url).split('/');
      const body = served.get(domain);
      if (`/${rest.join('/')}` !== '/.well-known/wallet-pay-domain-association' || body === undefined) {
        res.writeHead(404).end('no');
        return;
      }
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end(body);
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  });
  after(() => files.close());

  /** A server whose wallet verification fetches from the local file server (the allowance only tests have). */
  async function verifyingServer(wallets: Config['wallets']): Promise<TestServer> {
    const runtime = await testRuntime();
    const services = { ...runtime.services, config: { ...runtime.services.config, wallets } };
    const app = http.createServer(createApp({ ...runtime, services }).callback());
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    return {
      baseUrl: `http://127.0.0.1:${(app.address() as AddressInfo).port}`,
      runtime: { ...runtime, services },
      close: () => new Promise<void>((resolve) => app.close(() => resolve())),
    };
  }

  const put = (m: Merchant, body: Record<string, unknown>) =>
    call(server, 'PUT', '/api/v1/merchant-wallets', { headers: m.headers, body: { storeId: m.storeId, ...body } });
  const base = { enabled: true, displayName: 'My Shop' };

  it('answers an unconfigured wallet, then saves it with bounds; the association content is kept across saves', async () => {
    const m = await newMerchant();
    const empty = await call(server, 'GET', `/api/v1/merchant-wallets?storeId=${m.storeId}`, { headers: m.headers });
    expect(empty.status, empty.text).to.equal(200);
    expect(empty.json).to.include({ configured: false, enabled: false, provider: 'wallet-pay', domainAssociation: null });

    const saved = await put(m, { ...base, domains: ['Shop.Example.com', 'www.example.com'] });
    expect(saved.status, saved.text).to.equal(200);
    expect(saved.json).to.deep.include({
      configured: true,
      enabled: true,
      displayName: 'My Shop',
      supportedNetworks: ['visa', 'mastercard'],
    });
    expect(saved.json.domains).to.deep.equal([
      { domain: 'shop.example.com', verification: null },
      { domain: 'www.example.com', verification: null },
    ]);
    const association = saved.json.domainAssociation;
    expect(association.path).to.equal('/.well-known/wallet-pay-domain-association');
    expect(association.content).to.match(/^wallet-pay-domain-association:v1\n/);
    const again = await put(m, { ...base, displayName: 'Renamed', supportedNetworks: ['amex'] });
    expect(again.json.domainAssociation.content).to.equal(association.content);
    expect(again.json).to.include({ displayName: 'Renamed' });
    expect(again.json.domains).to.deep.equal([]);

    const cases: Array<[Record<string, unknown>, string]> = [
      [{ displayName: 'x' }, 'body.enabled'],
      [{ enabled: true }, 'body.displayName'],
      [{ ...base, displayName: 'x'.repeat(65) }, 'body.displayName'],
      [{ ...base, domains: Array.from({ length: 11 }, (_, i) => `s${i}.example.com`) }, 'body.domains'],
      [{ ...base, domains: ['https://shop.example.com'] }, 'body.domains[0]'],
      [{ ...base, domains: ['shop.example.com:443'] }, 'body.domains[0]'],
      [{ ...base, domains: ['127.0.0.1'] }, 'body.domains[0]'],
      [{ ...base, domains: ['localhost'] }, 'body.domains[0]'],
      [{ ...base, domains: ['a.example.com', 'a.example.com'] }, 'body.domains[1]'],
      [{ ...base, supportedNetworks: [] }, 'body.supportedNetworks'],
      [{ ...base, supportedNetworks: ['diners'] }, 'body.supportedNetworks[0]'],
      [{ ...base, provider: 'other-pay' }, 'body.provider'],
      [{ ...base, extra: 1 }, 'body.extra'],
    ];
    for (const [body, path] of cases) {
      const res = await put(m, body);
      expectProblem(res, 400, 'validation_failed');
      expect(
        res.json.errors.map((e: { path: string }) => e.path),
        JSON.stringify(body).slice(0, 80),
      ).to.include(path);
    }
    expect((await put(m, { ...base, domains: Array.from({ length: 10 }, (_, i) => `s${i}.example.com`) })).status).to.equal(200);
    const audit = (await auditRows(server, m.owner.tenantId)).filter((a) => a.resource_type === 'wallet_config').map((a) => a.action);
    expect(audit).to.deep.equal(['wallet_config.create', 'wallet_config.update', 'wallet_config.update']);

    const other = await newMerchant();
    expectProblem(
      await call(server, 'GET', `/api/v1/merchant-wallets?storeId=${m.storeId}`, { headers: other.headers }),
      404,
      'store_not_found',
    );
  });

  it('serves the domain association file as text/plain, only while the wallet is enabled', async () => {
    const m = await newMerchant();
    const path = `/api/v1/storefront/checkout/wallet/wallet-pay/${m.storeId}/domain-association`;
    expectProblem(await call(server, 'GET', path), 404, 'wallet_not_configured');
    const saved = await put(m, base);
    const file = await call(server, 'GET', path);
    expect(file.status, file.text).to.equal(200);
    expect(file.headers.get('content-type')).to.match(/^text\/plain/);
    expect(file.text).to.equal(saved.json.domainAssociation.content);
    await put(m, { ...base, enabled: false });
    expectProblem(await call(server, 'GET', path), 404, 'wallet_not_configured');
    expectProblem(
      await call(server, 'GET', `/api/v1/storefront/checkout/wallet/wallet-pay/${uuidv7()}/domain-association`),
      404,
      'wallet_not_configured',
    );
  });

  it('verifies domains and records each outcome with its reason', async () => {
    const port = (files.address() as AddressInfo).port;
    const local = await verifyingServer({ verifyBaseUrl: `http://127.0.0.1:${port}/{domain}`, allowAddresses: ['127.0.0.1'] });
    try {
      const m = suite.addMerchant(await merchant(local));
      const verify = () => call(local, 'POST', `/api/v1/merchant-wallets/wallet-pay/${m.storeId}/verify-domain`, { headers: m.headers });
      expectProblem(await verify(), 404, 'wallet_not_configured');
      await call(local, 'PUT', '/api/v1/merchant-wallets', { headers: m.headers, body: { storeId: m.storeId, ...base } });
      expectProblem(await verify(), 409, 'wallet_no_domains');
      const saved = await call(local, 'PUT', '/api/v1/merchant-wallets', {
        headers: m.headers,
        body: { storeId: m.storeId, ...base, domains: ['good.example.com', 'wrong.example.com', 'none.example.com'] },
      });
      expect(saved.status, saved.text).to.equal(200);
      served.set('good.example.com', `\n${saved.json.domainAssociation.content}\n`);
      served.set('wrong.example.com', 'someone else');
      const res = await verify();
      expect(res.status, res.text).to.equal(200);
      const byDomain = Object.fromEntries(res.json.domains.map((d: any) => [d.domain, d.verification]));
      expect(byDomain['good.example.com'], JSON.stringify(byDomain)).to.include({ status: 'VERIFIED', reason: null });
      expect(byDomain['wrong.example.com'].status).to.equal('FAILED');
      expect(byDomain['wrong.example.com'].reason).to.match(/^content_mismatch/);
      expect(byDomain['none.example.com'].status).to.equal('FAILED');
      expect(byDomain['none.example.com'].reason).to.match(/^http_status/);
      const rows = await local.runtime.dataSource.query('SELECT domain, status FROM wallet_domain_verifications WHERE store_id = $1', [
        m.storeId,
      ]);
      expect(rows).to.have.length(3);
      expect((await auditRows(local, m.owner.tenantId)).map((a) => a.action)).to.include('wallet_config.verify_domains');
    } finally {
      await local.close();
    }
  });

  it('without the test allowance, a local address is refused and recorded as FAILED', async () => {
    const m = await newMerchant();
    await put(m, { ...base, domains: ['shop.localhost'] });
    const res = await call(server, 'POST', `/api/v1/merchant-wallets/wallet-pay/${m.storeId}/verify-domain`, { headers: m.headers });
    expect(res.status, res.text).to.equal(200);
    expect(res.json.domains[0].verification.status).to.equal('FAILED');
    expect(res.json.domains[0].verification.reason).to.match(/^(address_not_allowed|dns_failed)/);
  });

  describe('wallet charge', () => {
    let limited: TestServer;
    before(async () => {
      limited = await startIsolatedServer();
    });
    after(() => limited.close());

    /** A merchant with wallet-pay enabled and a placed order of `total` (one unit at that price). */
    async function orderOf(s: TestServer, price = '42.50'): Promise<{ m: Merchant; orderId: string }> {
      const m = suite.addMerchant(await merchant(s));
      await call(s, 'PUT', '/api/v1/merchant-wallets', { headers: m.headers, body: { storeId: m.storeId, ...base } });
      const productId = await product(s, m, { title: 'Mug', status: 'PUBLISHED', price });
      const variantId = await variant(s, m, productId, {
        sku: `SKU-${uuidv7().slice(-10)}`,
        options: JSON.stringify({ size: 'M' }),
        stock: 10,
      });
      const customerId = await customer(s, m);
      const placed = await call(s, 'POST', '/api/v1/orders', {
        headers: m.headers,
        body: {
          storeId: m.storeId,
          customerId,
          items: [{ variantId, quantity: 1 }],
          shippingAddress: { city: 'İzmir', district: 'Konak' },
        },
      });
      expect(placed.status, placed.text).to.equal(201);
      return { m, orderId: placed.json.id };
    }
    const charge = (s: TestServer, body: Record<string, unknown>) => call(s, 'POST', '/api/v1/storefront/checkout/wallet/charge', { body });

    it('charges the unpaid total with a success token; a paid order is not charged again', async () => {
      const { m, orderId } = await orderOf(server);
      await call(server, 'PUT', '/api/v1/checkout-settings', {
        headers: m.headers,
        body: { storeId: m.storeId, enabledProviders: ['stripe'] },
      });
      const body = { storeId: m.storeId, orderId, token: 'wallet-pay:tok_success', amount: 42.5 };
      expectProblem(await charge(server, { ...body, amount: 42.49 }), 409, 'wallet_amount_mismatch');
      const res = await charge(server, body);
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.include({ orderId, status: 'PAID', provider: 'stripe', amount: 42.5, declineCode: null });
      const payments = await server.runtime.dataSource.query('SELECT status, captured FROM payments WHERE order_id = $1', [orderId]);
      expect(payments).to.have.length(1);
      expect(payments[0].status).to.equal('CAPTURED');
      expectProblem(await charge(server, body), 409, 'wallet_order_not_payable');
    });

    it('a fraud token is declined; bad tokens, other stores and disabled wallets are refused', async () => {
      const { m, orderId } = await orderOf(server);
      const body = { storeId: m.storeId, orderId, token: 'wallet-pay:tok_fraud', amount: 42.5 };
      const declined = await charge(server, body);
      expect(declined.status, declined.text).to.equal(200);
      expect(declined.json).to.include({ status: 'DECLINED', provider: 'iyzico', declineCode: 'fraud_suspected' });
      expectProblem(await charge(server, { ...body, token: 'wallet-pay:tok_unknown' }), 400, 'wallet_token_invalid');
      for (const bad of [
        { ...body, token: 'tok_success' },
        { ...body, amount: 0 },
        { ...body, orderId: 'x' },
        { ...body, extra: 1 },
      ])
        expectProblem(await charge(server, bad), 400, 'validation_failed');
      const other = await orderOf(server);
      expectProblem(
        await charge(server, { ...body, orderId: other.orderId, token: 'wallet-pay:tok_success' }),
        404,
        'wallet_order_not_found',
      );
      await put(m, { ...base, enabled: false });
      expectProblem(await charge(server, { ...body, token: 'wallet-pay:tok_success' }), 404, 'wallet_not_configured');
    });

    it('limits charges per client address: 429 with Retry-After', async () => {
      const { m, orderId } = await orderOf(limited);
      const body = { storeId: m.storeId, orderId, token: 'wallet-pay:tok_success', amount: 1 };
      for (let i = 0; i < 10; i++) expectProblem(await charge(limited, body), 409, 'wallet_amount_mismatch');
      const over = await charge(limited, body);
      expectProblem(over, 429, 'rate_limited');
      expect(Number(over.headers.get('retry-after'))).to.be.greaterThan(0);
    });
  });
});
