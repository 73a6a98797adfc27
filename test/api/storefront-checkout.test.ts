/**
 * The public storefront checkout (api/storefront-checkout): quote arithmetic to the cent, validation
 * bounds, stock reserved by an order and released on a declined card and on a failed 3-D Secure
 * challenge, insufficient stock, an idempotent double Pay, the per-client rate limit, and the view key
 * of the public order page.
 */
import { expect } from 'chai';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem } from '../helpers/accounts';
import { merchant, product, uniqueSlug, variant, type Merchant } from '../helpers/fixtures';
import { call, type TestServer } from '../helpers/harness';
import { ABANDON_MARGIN_MINUTES, sweepAbandonedChallenges } from '../../api/storefront-checkout/abandoned-challenges';
import { readLimitKey, writeLimitKey, CHECKOUT_READ_LIMIT } from '../../api/storefront-checkout/storefront-checkout.service';

const SUCCESS = { number: '4111111111111111', expiryMonth: 12, expiryYear: 2030, cvc: '123', holderName: 'Sandbox Tester' };
const FRAUD = { ...SUCCESS, number: '4000000000000259' };
const THREE_DS = { ...SUCCESS, number: '5555555555554444' };
const THREE_DS_CODE = '283126';

describe('storefront checkout', function () {
  this.timeout(120_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));

  interface Shop {
    m: Merchant;
    /** Two variants: 12.35 (stock 5) and 7.10 (stock 3); a rate for Istanbul 4.99 and a fallback 9.90. */
    a: string;
    b: string;
    cityRate: string;
    fallbackRate: string;
  }

  async function resetLimits(): Promise<void> {
    for (const ip of ['127.0.0.1', '::ffff:127.0.0.1', '::1']) {
      await server.runtime.services.rateLimiter.reset(readLimitKey(ip));
      await server.runtime.services.rateLimiter.reset(writeLimitKey(ip));
    }
  }

  beforeEach(resetLimits);

  async function rate(m: Merchant, body: Record<string, unknown>): Promise<string> {
    const res = await call(server, 'POST', '/api/v1/shipping-rates', { headers: m.headers, body: { storeId: m.storeId, ...body } });
    expect(res.status, res.text).to.equal(201);
    return res.json.id;
  }

  async function shop(): Promise<Shop> {
    const m = suite.addMerchant(await merchant(server));
    const p1 = await product(server, m, { status: 'PUBLISHED', title: 'Mug', price: '12.35' });
    const p2 = await product(server, m, { status: 'PUBLISHED', title: 'Tea', price: '7.10' });
    const a = await variant(server, m, p1, { stock: 5, sku: 'MUG-1' });
    const b = await variant(server, m, p2, { stock: 3, sku: 'TEA-1' });
    const cityRate = await rate(m, { name: 'Istanbul courier', city: 'Istanbul', price: 4.99, minDeliveryDays: 1, maxDeliveryDays: 2 });
    const fallbackRate = await rate(m, { name: 'Post', price: 9.9 });
    return { m, a, b, cityRate, fallbackRate };
  }

  const stockOf = async (variantId: string): Promise<number> =>
    (await server.runtime.dataSource.query('SELECT stock FROM product_variants WHERE id = $1', [variantId]))[0].stock;

  const address = { name: 'Ayşe Yılmaz', line1: 'Bağdat Cd. 1', city: 'Istanbul', district: 'Kadıköy', postalCode: '34710', country: 'TR' };

  function order(s: Shop, overrides: Record<string, unknown> = {}) {
    return {
      lines: [
        { variantId: s.a, quantity: 2 },
        { variantId: s.b, quantity: 1 },
      ],
      customer: { email: `shopper-${uniqueSlug('x')}@example.test`, name: 'Ayşe Yılmaz' },
      shippingAddress: address,
      shippingRateId: s.cityRate,
      payment: { provider: 'iyzico', card: SUCCESS },
      ...overrides,
    };
  }

  const quote = (s: Shop, body: unknown) => call(server, 'POST', `/api/v1/storefront/stores/${s.m.storeId}/checkout/quote`, { body });
  const place = (s: Shop, body: unknown, headers: Record<string, string> = {}) =>
    call(server, 'POST', `/api/v1/storefront/stores/${s.m.storeId}/checkout`, { body, headers });

  describe('quote', () => {
    it('prices the lines, offers the shipping options of the address and totals to the cent', async () => {
      const s = await shop();
      const res = await quote(s, {
        lines: [
          { variantId: s.a, quantity: 2 },
          { variantId: s.b, quantity: 1 },
          { variantId: s.a, quantity: 1 },
        ],
        shippingAddress: { city: 'istanbul', district: 'Kadıköy' },
        shippingRateId: s.cityRate,
      });
      expect(res.status, res.text).to.equal(200);
      expect(
        res.json.lines.map((l: { variantId: string; quantity: number; unitPrice: number; lineTotal: number }) => [
          l.variantId,
          l.quantity,
          l.unitPrice,
          l.lineTotal,
        ]),
      ).to.deep.equal([
        [s.a, 3, 12.35, 37.05],
        [s.b, 1, 7.1, 7.1],
      ]);
      expect(res.json.subtotal).to.equal(44.15);
      expect(res.json.itemCount).to.equal(4);
      expect(res.json.shippingOptions.map((o: { rateId: string; price: number }) => [o.rateId, o.price])).to.deep.equal([
        [s.cityRate, 4.99],
      ]);
      expect(res.json.shipping.rateId).to.equal(s.cityRate);
      expect(res.json.total).to.equal(49.14);
      expect(res.json.allAvailable).to.equal(true);
      expect(res.json.currency).to.equal('EUR');
    });

    it('without an address has no shipping options; a city without its own rate gets the fallback', async () => {
      const s = await shop();
      const bare = await quote(s, { lines: [{ variantId: s.b, quantity: 3 }] });
      expect(bare.status, bare.text).to.equal(200);
      expect(bare.json.shippingOptions).to.deep.equal([]);
      expect(bare.json.shipping).to.equal(null);
      expect(bare.json.total).to.equal(21.3);
      const ankara = await quote(s, {
        lines: [{ variantId: s.b, quantity: 4 }],
        shippingAddress: { city: 'Ankara' },
        shippingRateId: s.fallbackRate,
      });
      expect(ankara.status, ankara.text).to.equal(200);
      expect(ankara.json.lines[0].available).to.equal(false);
      expect(ankara.json.allAvailable).to.equal(false);
      expect(ankara.json.total).to.equal(38.3);
      const wrong = await quote(s, {
        lines: [{ variantId: s.b, quantity: 1 }],
        shippingAddress: { city: 'Ankara' },
        shippingRateId: s.cityRate,
      });
      expectProblem(wrong, 409, 'shipping_rate_unavailable');
    });

    it('refuses bodies out of bounds and variants of another store or of unpublished products', async () => {
      const s = await shop();
      const other = await shop();
      const line = { variantId: s.a, quantity: 1 };
      for (const body of [
        { lines: [] },
        { lines: Array.from({ length: 51 }, () => line) },
        { lines: [{ variantId: s.a, quantity: 0 }] },
        { lines: [{ variantId: s.a, quantity: 100 }] },
        { lines: [{ variantId: 'nope', quantity: 1 }] },
        { lines: [line], extra: true },
        { lines: [line], shippingAddress: { city: '' } },
        { lines: [line], shippingAddress: { city: 'x'.repeat(121) } },
        {
          lines: [
            { variantId: s.a, quantity: 60 },
            { variantId: s.a, quantity: 40 },
          ],
        },
      ]) {
        expectProblem(await quote(s, body), 400, 'validation_failed');
      }
      const foreign = await quote(s, { lines: [line, { variantId: other.a, quantity: 1 }] });
      expectProblem(foreign, 404, 'variant_not_found');
      expect(foreign.json.errors[0].path).to.equal('body.lines[1].variantId');
      const draft = await product(server, s.m, { price: '3' });
      const draftVariant = await variant(server, s.m, draft);
      expectProblem(await quote(s, { lines: [{ variantId: draftVariant, quantity: 1 }] }), 404, 'variant_not_found');
      expectProblem(
        await call(server, 'POST', '/api/v1/storefront/stores/00000000-0000-7000-8000-000000000000/checkout/quote', {
          body: { lines: [line] },
        }),
        404,
        'store_not_found',
      );
    });

    it('is refused where the store hides its prices', async () => {
      const s = await shop();
      await server.runtime.dataSource.query("UPDATE stores SET price_visibility = 'SIGNED_IN' WHERE id = $1", [s.m.storeId]);
      expectProblem(await quote(s, { lines: [{ variantId: s.a, quantity: 1 }] }), 409, 'checkout_unavailable');
    });

    it('is rate-limited per client address', async () => {
      const s = await shop();
      const body = { lines: [{ variantId: s.a, quantity: 1 }] };
      for (let i = 0; i < CHECKOUT_READ_LIMIT.limit; i += 1) expect((await quote(s, body)).status).to.equal(200);
      const limited = await quote(s, body);
      expectProblem(limited, 429, 'rate_limited');
      expect(Number(limited.headers.get('retry-after'))).to.be.greaterThan(0);
    });
  });

  describe('options', () => {
    it('lists every provider by default, the enabled ones when the store saved settings, and test cards only in sandbox stores', async () => {
      const s = await shop();
      const res = await call(server, 'GET', `/api/v1/storefront/stores/${s.m.storeId}/checkout/options`);
      expect(res.status, res.text).to.equal(200);
      expect(res.json.providers).to.deep.equal(['iyzico', 'stripe', 'adyen']);
      expect(res.json.available).to.equal(true);
      expect(res.json.sandbox).to.equal(false);
      expect(res.json.testCards).to.deep.equal([]);
      await server.runtime.dataSource.query("UPDATE tenants SET kind = 'sandbox' WHERE id = $1", [s.m.owner.tenantId]);
      const sandbox = await call(server, 'GET', `/api/v1/storefront/stores/${s.m.storeId}/checkout/options`);
      expect(sandbox.json.sandbox).to.equal(true);
      expect(sandbox.json.testCards.map((c: { number: string }) => c.number)).to.include('4111111111111111');
    });
  });

  describe('place', () => {
    it('validates the body before anything is reserved', async () => {
      const s = await shop();
      const good = order(s);
      for (const body of [
        { ...good, customer: { email: 'not-an-address', name: 'A' } },
        { ...good, shippingAddress: { ...address, country: 'Turkey' } },
        { ...good, shippingAddress: { ...address, line1: undefined } },
        { ...good, payment: { provider: 'paypal', card: SUCCESS } },
        { ...good, payment: { provider: 'iyzico', card: { ...SUCCESS, number: '4111 1111' } } },
        { ...good, payment: { provider: 'iyzico', card: { ...SUCCESS, expiryMonth: 13 } } },
        { ...good, payment: { provider: 'iyzico', card: { ...SUCCESS, cvc: '12' } } },
        { ...good, payment: { provider: 'iyzico', card: SUCCESS, installments: 13 } },
        { ...good, shippingRateId: undefined },
        { ...good, returnUrl: 'https://evil.example/phish' },
      ]) {
        const res = await place(s, body);
        expectProblem(res, 400, 'validation_failed');
      }
      expect(await stockOf(s.a)).to.equal(5);
    });

    it('answers 409 insufficient_stock naming the line and reserves nothing', async () => {
      const s = await shop();
      const res = await place(
        s,
        order(s, {
          lines: [
            { variantId: s.a, quantity: 1 },
            { variantId: s.b, quantity: 4 },
          ],
        }),
      );
      expectProblem(res, 409, 'insufficient_stock');
      expect(res.json.errors.map((e: { path: string }) => e.path)).to.deep.equal(['body.items[1].quantity']);
      expect(await stockOf(s.a)).to.equal(5);
      expect(await stockOf(s.b)).to.equal(3);
    });

    it('pays with a SUCCESS card: the order is paid, its total carries the shipping, the stock is reserved', async () => {
      const s = await shop();
      const body = order(s, { expectedTotal: 36.79 });
      const res = await place(s, body);
      expect(res.status, res.text).to.equal(201);
      expect(res.json.status).to.equal('PAID');
      expect(res.json.challengeUrl).to.equal(null);
      expect(res.json.order).to.include({ checkoutStatus: 'PAID', status: 'PLACED', subtotal: 31.8, total: 36.79, itemCount: 3 });
      expect(res.json.order.shipping).to.deep.equal({ name: 'Istanbul courier', price: 4.99 });
      expect(await stockOf(s.a)).to.equal(3);
      expect(await stockOf(s.b)).to.equal(2);
      const [row] = await server.runtime.dataSource.query('SELECT total, subtotal, customer_id FROM orders WHERE id = $1', [
        res.json.orderId,
      ]);
      expect([row.subtotal, row.total]).to.deep.equal(['31.8000', '36.7900']);
      const [customer] = await server.runtime.dataSource.query('SELECT email, store_id FROM customers WHERE id = $1', [row.customer_id]);
      expect(customer).to.deep.equal({ email: body.customer.email, store_id: s.m.storeId });
      const audit = await server.runtime.dataSource.query('SELECT action FROM audit_log WHERE resource_id = $1 ORDER BY created_at', [
        res.json.orderId,
      ]);
      expect(audit.map((r: { action: string }) => r.action)).to.include.members([
        'order.create',
        'storefront_checkout.place',
        'storefront_checkout.paid',
      ]);

      const view = await call(server, 'GET', `/api/v1/storefront/stores/${s.m.storeId}/orders/${res.json.orderId}?key=${res.json.viewKey}`);
      expect(view.status, view.text).to.equal(200);
      expect(view.json).to.deep.equal(res.json.order);
      // The same shopper again: the customer is found by e-mail, not made twice.
      const again = await place(s, order(s, { customer: { email: body.customer.email.toUpperCase(), name: 'Someone else' } }));
      expect(again.status, again.text).to.equal(201);
      const [second] = await server.runtime.dataSource.query('SELECT customer_id FROM orders WHERE id = $1', [again.json.orderId]);
      expect(second.customer_id).to.equal(row.customer_id);
    });

    it('refuses an expectedTotal that is not the total, and a provider the store did not enable', async () => {
      const s = await shop();
      expectProblem(await place(s, order(s, { expectedTotal: 31.8 })), 409, 'checkout_total_changed');
      await server.runtime.dataSource.query(
        `INSERT INTO checkout_settings (store_id, tenant_id, enabled_providers, three_ds_policy, installments_enabled, installments_max_count,
                                        installments_min_amount, guest_checkout, require_phone)
         VALUES ($1, $2, '{stripe}', 'RISK_BASED', false, 1, 0, true, false)`,
        [s.m.storeId, s.m.owner.tenantId],
      );
      expectProblem(await place(s, order(s)), 409, 'provider_not_enabled');
      expect(await stockOf(s.a)).to.equal(5);
    });

    it("follows the shop's checkout settings: terms to accept, guest checkout, the installment minimum", async () => {
      const s = await shop();
      const settings = (body: Record<string, unknown>) =>
        call(server, 'PUT', '/api/v1/checkout-settings', {
          headers: s.m.headers,
          body: { storeId: s.m.storeId, enabledProviders: ['iyzico', 'stripe', 'adyen'], ...body },
        });
      const saved = await settings({
        termsText: 'No returns after 30 days.',
        installments: { enabled: true, maxCount: 6, minAmount: 100 },
      });
      expect(saved.status, saved.text).to.equal(200);
      const options = await call(server, 'GET', `/api/v1/storefront/stores/${s.m.storeId}/checkout/options`);
      expect(options.json).to.deep.include({
        terms: { url: null, text: 'No returns after 30 days.' },
        guestCheckout: true,
        maxInstallments: 6,
      });
      expect(options.json.installmentsMinAmount).to.equal(100);

      const refused = await place(s, order(s));
      expectProblem(refused, 400, 'terms_not_accepted');
      expect(refused.json.errors[0].path).to.equal('body.acceptTerms');
      // The total (36.79) is below the installment minimum (100): a single payment only.
      const installments = order(s, { acceptTerms: true, payment: { provider: 'iyzico', card: SUCCESS, installments: 3 } });
      expectProblem(await place(s, installments), 409, 'installments_below_minimum');
      expect(await stockOf(s.a), 'nothing reserved').to.equal(5);
      const paid = await place(s, order(s, { acceptTerms: true }));
      expect(paid.status, paid.text).to.equal(201);

      expect((await settings({ guestCheckout: false })).status).to.equal(200);
      expectProblem(await place(s, order(s, { acceptTerms: true })), 409, 'guest_checkout_disabled');
    });

    it('a declined card cancels the order, releases the stock and answers 402 with the decline code', async () => {
      const s = await shop();
      const res = await place(s, order(s, { payment: { provider: 'iyzico', card: FRAUD } }));
      expectProblem(res, 402, 'payment_declined');
      expect(res.json.errors[0].message).to.equal('fraud_suspected');
      expect(await stockOf(s.a)).to.equal(5);
      expect(await stockOf(s.b)).to.equal(3);
      const orders = await server.runtime.dataSource.query(
        'SELECT o.status, c.status AS checkout FROM orders o JOIN storefront_checkouts c ON c.order_id = o.id WHERE o.store_id = $1',
        [s.m.storeId],
      );
      expect(orders).to.deep.equal([{ status: 'CANCELLED', checkout: 'DECLINED' }]);
    });

    it('a double Pay with one Idempotency-Key places one order; another body with that key is refused', async () => {
      const s = await shop();
      const body = order(s);
      const key = { 'Idempotency-Key': `pay-${uniqueSlug('k')}` };
      const [first, second] = await Promise.all([place(s, body, key), place(s, body, key)]);
      expect(first.status, first.text).to.equal(201);
      expect(second.status, second.text).to.equal(201);
      expect(second.json.orderId).to.equal(first.json.orderId);
      expect(await stockOf(s.a)).to.equal(3);
      const count = await server.runtime.dataSource.query('SELECT count(*)::int AS n FROM orders WHERE store_id = $1', [s.m.storeId]);
      expect(count[0].n).to.equal(1);
      expectProblem(await place(s, { ...body, shippingRateId: s.fallbackRate }, key), 409, 'idempotency_key_reused');
    });

    it('is rate-limited per client address', async () => {
      const s = await shop();
      const body = order(s, { lines: [{ variantId: s.a, quantity: 99 }] });
      for (let i = 0; i < 20; i += 1) expectProblem(await place(s, body), 409, 'insufficient_stock');
      expectProblem(await place(s, body), 429, 'rate_limited');
    });
  });

  describe('3-D Secure', () => {
    /** Opens the challenge page, answers `code` in its form, and answers the signed query of the return it redirects to. */
    async function challenge(url: string, code: string): Promise<{ location: URL }> {
      // The simulator's page is on PUBLIC_BASE_URL; this server answers it on its own port.
      const at = new URL(url);
      const challengeUrl = `${server.baseUrl}${at.pathname}${at.search}`;
      const page = await fetch(challengeUrl);
      expect(page.status).to.equal(200);
      const html = await page.text();
      const form = /<form[^>]*>[\s\S]*?<\/form>/i.exec(html)?.[0] ?? '';
      const action = /action="([^"]*)"/i.exec(form)?.[1]?.replace(/&amp;/g, '&') ?? challengeUrl;
      const fields = new URLSearchParams();
      for (const input of form.matchAll(/<input[^>]*>/gi)) {
        const name = /name="([^"]+)"/i.exec(input[0])?.[1];
        if (!name) continue;
        const value = /value="([^"]*)"/i.exec(input[0])?.[1] ?? '';
        fields.set(name, /code/i.test(name) ? code : value.replace(/&amp;/g, '&'));
      }
      const posted = await fetch(new URL(action, challengeUrl), {
        method: 'POST',
        body: fields,
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      });
      expect(posted.status, await posted.text()).to.equal(303);
      return { location: new URL(posted.headers.get('location')!) };
    }

    const settle = (s: Shop, location: URL) =>
      call(server, 'POST', `/api/v1/storefront/stores/${s.m.storeId}/checkout/return/iyzico`, {
        body: { query: Object.fromEntries(location.searchParams) },
      });

    it('the right code pays the order; settling again changes nothing', async () => {
      const s = await shop();
      const res = await place(s, order(s, { payment: { provider: 'iyzico', card: THREE_DS } }));
      expect(res.status, res.text).to.equal(201);
      expect(res.json.status).to.equal('CHALLENGE_REQUIRED');
      expect(res.json.order.checkoutStatus).to.equal('CHALLENGE_REQUIRED');
      expect(await stockOf(s.a)).to.equal(3);
      const { location } = await challenge(res.json.challengeUrl, THREE_DS_CODE);
      expect(location.pathname).to.equal(`/shop/${s.m.storeId}/checkout/return/iyzico`);
      const settled = await settle(s, location);
      expect(settled.status, settled.text).to.equal(200);
      expect(settled.json).to.deep.equal({ status: 'PAID', orderId: res.json.orderId, declineCode: null });
      expect((await settle(s, location)).json.status).to.equal('PAID');
      const view = await call(server, 'GET', `/api/v1/storefront/stores/${s.m.storeId}/orders/${res.json.orderId}?key=${res.json.viewKey}`);
      expect(view.json.checkoutStatus).to.equal('PAID');
      expect(await stockOf(s.a)).to.equal(3);
    });

    it('a wrong code declines: the order is cancelled and the stock released', async () => {
      const s = await shop();
      const res = await place(s, order(s, { payment: { provider: 'iyzico', card: THREE_DS } }));
      expect(res.json.status).to.equal('CHALLENGE_REQUIRED');
      const { location } = await challenge(res.json.challengeUrl, '000000');
      const settled = await settle(s, location);
      expect(settled.status, settled.text).to.equal(200);
      expect(settled.json.status).to.equal('DECLINED');
      expect(await stockOf(s.a)).to.equal(5);
      expect(await stockOf(s.b)).to.equal(3);
      const [o] = await server.runtime.dataSource.query('SELECT status FROM orders WHERE id = $1', [res.json.orderId]);
      expect(o.status).to.equal('CANCELLED');
      // A return of this store presented to another store is not recognised.
      const other = await shop();
      const foreign = await call(server, 'POST', `/api/v1/storefront/stores/${other.m.storeId}/checkout/return/iyzico`, {
        body: { query: Object.fromEntries(location.searchParams) },
      });
      expectProblem(foreign, 404, 'return_not_recognised');
    });

    it('a shopper who leaves the challenge: once it expired, the payment is declined and the stock released', async () => {
      const s = await shop();
      const res = await place(s, order(s, { payment: { provider: 'iyzico', card: THREE_DS } }));
      expect(res.json.status).to.equal('CHALLENGE_REQUIRED');
      expect(await stockOf(s.a)).to.equal(3);
      // Not before the challenge expired (and the margin passed).
      await sweepAbandonedChallenges(server.runtime.dataSource, new Date());
      expect(await stockOf(s.a)).to.equal(3);
      const later = new Date(Date.now() + (15 + ABANDON_MARGIN_MINUTES + 1) * 60_000);
      expect(await sweepAbandonedChallenges(server.runtime.dataSource, later)).to.be.at.least(1);
      expect(await stockOf(s.a)).to.equal(5);
      const [o] = await server.runtime.dataSource.query('SELECT status FROM orders WHERE id = $1', [res.json.orderId]);
      expect(o.status).to.equal('CANCELLED');
      const [p] = await server.runtime.dataSource.query('SELECT status, decline_code FROM payments WHERE order_id = $1', [
        res.json.orderId,
      ]);
      expect(p).to.deep.equal({ status: 'DECLINED', decline_code: 'challenge_expired' });
      const view = await call(server, 'GET', `/api/v1/storefront/stores/${s.m.storeId}/orders/${res.json.orderId}?key=${res.json.viewKey}`);
      expect(view.json.checkoutStatus).to.equal('DECLINED');
      // The sweep gives each checkout up once.
      await sweepAbandonedChallenges(server.runtime.dataSource, later);
      expect(await stockOf(s.a)).to.equal(5);
    });
  });

  describe('order view', () => {
    it('answers 404 for a wrong key, another store and an unknown order', async () => {
      const s = await shop();
      const res = await place(s, order(s));
      expect(res.status, res.text).to.equal(201);
      const other = await shop();
      const base = (storeId: string, orderId: string, key: string) => `/api/v1/storefront/stores/${storeId}/orders/${orderId}?key=${key}`;
      const wrongKey = res.json.viewKey.slice(0, -2) + (res.json.viewKey.endsWith('AA') ? 'BB' : 'AA');
      expectProblem(await call(server, 'GET', base(s.m.storeId, res.json.orderId, wrongKey)), 404, 'order_not_found');
      expectProblem(await call(server, 'GET', base(other.m.storeId, res.json.orderId, res.json.viewKey)), 404, 'order_not_found');
      expectProblem(
        await call(server, 'GET', base(s.m.storeId, '00000000-0000-7000-8000-000000000000', res.json.viewKey)),
        404,
        'order_not_found',
      );
      expectProblem(
        await call(server, 'GET', `/api/v1/storefront/stores/${s.m.storeId}/orders/${res.json.orderId}`),
        400,
        'validation_failed',
      );
    });
  });
});
