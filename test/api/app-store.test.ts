/**
 * App store: public and merchant listings (bounds, cursor, category), enabling and disabling free
 * and paid apps, purchases paid through the payment simulator (success, fraud, 3-D Secure through our
 * page, the challenge and the return), provider callbacks (valid, bad signature, replay, unknown),
 * idempotent pay, the purchase state table, tenant isolation and roles.
 */
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { addMember, auditRows, expectProblem } from '../helpers/accounts';
import { merchant, type Merchant } from '../helpers/fixtures';
import { TEST_CARDS, type TestCardFlow } from '../../api/sandbox/sandbox.cards';
import { providerSecret, signCallback, signReturnQuery } from '../../api/payments/providers/signing';
import type { PaymentProviderName } from '../../api/payments/providers/port';

const FREE = '01950000-0000-7000-8000-000000000a01'; // product-reviews
const ONE_TIME = '01950000-0000-7000-8000-000000000a03'; // seo-booster, 149.90 EUR
const MONTHLY = '01950000-0000-7000-8000-000000000a04'; // loyalty-points, 19.00 EUR

describe('app store', function () {
  this.timeout(60_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  const newMerchant = async (): Promise<Merchant> => suite.addMerchant(await merchant(server));

  const card = (provider: PaymentProviderName, flow: TestCardFlow) => {
    const c = TEST_CARDS.find((t) => t.provider === provider && t.flow === flow)!;
    return { number: c.number, expiryMonth: c.expiryMonth, expiryYear: c.expiryYear, cvc: c.cvc, holderName: c.holderName };
  };
  const threeDsCode = (provider: PaymentProviderName) =>
    TEST_CARDS.find((t) => t.provider === provider && t.flow === 'THREE_DS_CHALLENGE')!.threeDsCode!;

  const post = (m: Merchant, path: string, body: unknown, headers: Record<string, string> = {}) =>
    call(server, 'POST', `/api/v1${path}`, { headers: { ...m.headers, ...headers }, body });

  async function purchase(m: Merchant, listingId = ONE_TIME): Promise<Record<string, any>> {
    const res = await post(m, `/app-store/listings/${listingId}/purchase`, { storeId: m.storeId });
    expect(res.status, res.text).to.equal(200);
    return res.json;
  }

  const pay = (m: Merchant, id: string, provider: PaymentProviderName, flow: TestCardFlow, headers: Record<string, string> = {}) =>
    post(m, `/app-store/purchases/${id}/pay`, { provider, card: card(provider, flow) }, headers);

  const entitlement = async (m: Merchant, listingId: string) => {
    const res = await call(server, 'GET', `/api/v1/app-store/listings/${listingId}?storeId=${m.storeId}`, { headers: m.headers });
    expect(res.status, res.text).to.equal(200);
    return res.json.entitlement;
  };

  const secret = (provider: PaymentProviderName) => providerSecret(server.runtime.config.appSecret, provider);
  const sendCallback = (provider: PaymentProviderName, body: Record<string, unknown>, signature?: string) => {
    const raw = Buffer.from(JSON.stringify({ provider, occurredAt: new Date().toISOString(), ...body }));
    return call(server, 'POST', `/api/v1/app-store/purchases/callback/${provider}`, {
      rawBody: raw,
      contentType: 'application/json',
      headers: { 'X-Provider-Signature': signature ?? signCallback(secret(provider), raw) },
    });
  };
  /** Opens the simulator's challenge page, posts `code` in its form, and follows the 303 to our return. */
  async function answerChallenge(challengeUrl: string, code: string) {
    const path = new URL(challengeUrl).pathname;
    const page = await call(server, 'GET', path);
    expect(page.status, page.text).to.equal(200);
    expect(page.text).to.match(/<form[^>]*method="post"/i);
    const answered = await fetch(`${server.baseUrl}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ code }).toString(),
    });
    expect(answered.status).to.equal(303);
    const location = new URL(answered.headers.get('location')!);
    expect(location.pathname).to.match(/^\/api\/v1\/app-store\/purchases\/callback\/[a-z]+$/);
    return call(server, 'GET', `${location.pathname}${location.search}`);
  }
  const purchaseRow = async (id: string) => (await server.runtime.dataSource.query('SELECT * FROM app_purchases WHERE id = $1', [id]))[0];

  describe('listings', () => {
    it('serves the public catalog by category and by slug, without a token', async () => {
      const all = await call(server, 'GET', '/api/v1/app-store/public-listings');
      expect(all.status, all.text).to.equal(200);
      const slugs = all.json.items.map((l: any) => l.slug);
      expect(slugs).to.include.members([
        'product-reviews',
        'live-chat',
        'seo-booster',
        'loyalty-points',
        'inventory-sync',
        'invoice-studio',
      ]);
      const marketing = await call(server, 'GET', '/api/v1/app-store/public-listings?category=marketing');
      expect(marketing.json.items.map((l: any) => l.slug)).to.have.members(['product-reviews', 'seo-booster', 'loyalty-points']);
      expect(marketing.json.items.every((l: any) => l.category === 'marketing')).to.equal(true);
      expectProblem(await call(server, 'GET', `/api/v1/app-store/public-listings?category=${'x'.repeat(61)}`), 400, 'validation_failed');
      expectProblem(await call(server, 'GET', '/api/v1/app-store/public-listings?other=1'), 400, 'validation_failed');

      const one = await call(server, 'GET', '/api/v1/app-store/public-listings/seo-booster');
      expect(one.status, one.text).to.equal(200);
      expect(one.json).to.deep.include({
        id: ONE_TIME,
        slug: 'seo-booster',
        category: 'marketing',
        pricing: { type: 'ONE_TIME', price: 149.9, currency: 'EUR' },
        iconUrl: '/app-icons/seo-booster.svg',
      });
      expect(one.json.scopes).to.include('products:read');
      expect((await call(server, 'GET', '/api/v1/app-store/public-listings/product-reviews')).json.pricing).to.deep.equal({
        type: 'FREE',
        price: 0,
        currency: 'EUR',
      });
      expectProblem(await call(server, 'GET', '/api/v1/app-store/public-listings/no-such-app'), 404, 'app_listing_not_found');
    });

    it('lists listings for a store with bounds, category and cursor, and reads one by id or slug', async () => {
      const m = await newMerchant();
      const list = (q: string) => call(server, 'GET', `/api/v1/app-store/listings?storeId=${m.storeId}${q}`, { headers: m.headers });
      const all = await list('');
      expect(all.status, all.text).to.equal(200);
      expect(all.json.nextCursor).to.equal(null);
      expect(all.json.items.length).to.be.at.least(6);
      expect(all.json.items.find((l: any) => l.id === FREE).entitlement).to.deep.include({
        state: 'NOT_INSTALLED',
        enabled: false,
        purchaseRequired: false,
      });
      expect(all.json.items.find((l: any) => l.id === ONE_TIME).entitlement).to.include({ purchaseRequired: true, activePurchaseId: null });

      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: any = await list(`&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.status, page.text).to.equal(200);
        expect(page.json.items.length).to.be.at.most(2);
        seen.push(...page.json.items.map((l: any) => l.id));
        cursor = page.json.nextCursor;
      } while (cursor);
      expect(seen).to.deep.equal(all.json.items.map((l: any) => l.id));

      const ops = await list('&category=operations');
      expect(ops.json.items.map((l: any) => l.slug)).to.deep.equal(['inventory-sync']);
      for (const bad of ['&limit=0', '&limit=201', '&cursor=nope', `&category=${'x'.repeat(61)}`, '&unknown=1'])
        expectProblem(await list(bad), 400, 'validation_failed');
      expectProblem(await call(server, 'GET', '/api/v1/app-store/listings', { headers: m.headers }), 400, 'validation_failed');
      expect((await list('&limit=200')).status).to.equal(200);

      const bySlug = await call(server, 'GET', `/api/v1/app-store/listings/seo-booster?storeId=${m.storeId}`, { headers: m.headers });
      const byId = await call(server, 'GET', `/api/v1/app-store/listings/${ONE_TIME}?storeId=${m.storeId}`, { headers: m.headers });
      expect(bySlug.status, bySlug.text).to.equal(200);
      expect(bySlug.json).to.deep.equal(byId.json);
      expectProblem(
        await call(server, 'GET', `/api/v1/app-store/listings/nothing-here?storeId=${m.storeId}`, { headers: m.headers }),
        404,
        'app_listing_not_found',
      );
    });
  });

  describe('entitlements', () => {
    it('enables and disables a free app at once, audited and announced; repeating changes nothing', async () => {
      const m = await newMerchant();
      const enabled = await post(m, `/app-store/listings/${FREE}/enable`, { storeId: m.storeId });
      expect(enabled.status, enabled.text).to.equal(200);
      expect(enabled.json).to.include({ listingId: FREE, storeId: m.storeId, state: 'ENABLED', enabled: true, purchaseRequired: false });
      expect((await post(m, `/app-store/listings/${FREE}/enable`, { storeId: m.storeId })).json.state).to.equal('ENABLED');
      const disabled = await post(m, `/app-store/listings/${FREE}/disable`, { storeId: m.storeId });
      expect(disabled.json).to.include({ state: 'DISABLED', enabled: false });
      expect(disabled.json.disabledAt).to.be.a('string');
      expect((await post(m, `/app-store/listings/${FREE}/disable`, { storeId: m.storeId })).json.state).to.equal('DISABLED');

      const audit = (await auditRows(server, m.owner.tenantId)).filter((a) => a.resource_type === 'app_entitlement');
      expect(audit.map((a) => a.action)).to.deep.equal(['app_entitlement.enable', 'app_entitlement.disable']);
      const notes = await server.runtime.dataSource.query('SELECT topic FROM merchant_notifications WHERE tenant_id = $1 ORDER BY id', [
        m.owner.tenantId,
      ]);
      expect(notes.map((n: any) => n.topic)).to.deep.equal(['app_store.app_enabled', 'app_store.app_disabled']);

      const list = await call(server, 'GET', `/api/v1/app-store/stores/${m.storeId}/entitlements`, { headers: m.headers });
      expect(list.status, list.text).to.equal(200);
      expect(list.json.items).to.have.length(1);
      expect(list.json.items[0]).to.deep.include({ listingId: FREE, state: 'DISABLED' });
      expect(list.json.items[0].listing.slug).to.equal('product-reviews');

      expectProblem(await post(m, `/app-store/listings/${FREE}/enable`, {}), 400, 'validation_failed');
      expectProblem(await post(m, `/app-store/listings/${FREE}/enable`, { storeId: m.storeId, extra: 1 }), 400, 'validation_failed');
      expectProblem(await post(m, '/app-store/listings/not-a-uuid/enable', { storeId: m.storeId }), 400, 'validation_failed');
    });

    it('refuses a paid app without a paid purchase, and a purchase of a free app', async () => {
      const m = await newMerchant();
      expectProblem(await post(m, `/app-store/listings/${ONE_TIME}/enable`, { storeId: m.storeId }), 409, 'app_purchase_required');
      expectProblem(await post(m, `/app-store/listings/${FREE}/purchase`, { storeId: m.storeId }), 409, 'app_is_free');
      const p = await purchase(m);
      expect(p).to.include({
        status: 'PENDING',
        amount: 149.9,
        currency: 'EUR',
        listingId: ONE_TIME,
        storeId: m.storeId,
        nextAction: null,
      });
      // A PENDING purchase does not enable.
      expectProblem(await post(m, `/app-store/listings/${ONE_TIME}/enable`, { storeId: m.storeId }), 409, 'app_purchase_required');
    });
  });

  describe('paying', () => {
    it('pays with a success card: PAID, the app enabled; disabling keeps the purchase, enabling again needs no payment', async () => {
      const m = await newMerchant();
      const p = await purchase(m);
      const paid = await pay(m, p.id, 'stripe', 'SUCCESS');
      expect(paid.status, paid.text).to.equal(200);
      expect(paid.json).to.include({
        id: p.id,
        status: 'PAID',
        provider: 'stripe',
        cardBrand: 'VISA',
        cardLast4: '4242',
        nextAction: null,
      });
      expect(paid.json.paidAt).to.be.a('string');
      expect(paid.json.paidThrough).to.equal(null);
      expect(await entitlement(m, ONE_TIME)).to.include({ state: 'ENABLED', purchaseRequired: false, activePurchaseId: p.id });
      const row = await purchaseRow(p.id);
      expect(JSON.stringify(row)).not.to.include('4242424242424242');

      expect((await post(m, `/app-store/listings/${ONE_TIME}/disable`, { storeId: m.storeId })).json).to.include({
        state: 'DISABLED',
        activePurchaseId: p.id,
      });
      expect((await post(m, `/app-store/listings/${ONE_TIME}/enable`, { storeId: m.storeId })).json.state).to.equal('ENABLED');
      // Paid: a second purchase and a second payment are refused.
      expectProblem(await post(m, `/app-store/listings/${ONE_TIME}/purchase`, { storeId: m.storeId }), 409, 'app_already_purchased');
      expectProblem(await pay(m, p.id, 'stripe', 'SUCCESS'), 409, 'app_purchase_state_refused');

      const status = await call(server, 'GET', `/api/v1/app-store/purchases/${p.id}/status`, { headers: m.headers });
      expect(status.json).to.include({ status: 'PAID' });
      const actions = (await auditRows(server, m.owner.tenantId)).filter((a) => a.resource_type === 'app_purchase').map((a) => a.action);
      expect(actions).to.deep.equal(['app_purchase.create', 'app_purchase.paid']);
    });

    it('a MONTHLY app is paid for 30 days', async () => {
      const m = await newMerchant();
      const p = await purchase(m, MONTHLY);
      const paid = await pay(m, p.id, 'iyzico', 'SUCCESS');
      expect(paid.json.status, paid.text).to.equal('PAID');
      const days = (Date.parse(paid.json.paidThrough) - Date.parse(paid.json.paidAt)) / 86_400_000;
      expect(days).to.equal(30);
      expect(await entitlement(m, MONTHLY)).to.include({ state: 'ENABLED', paidThrough: paid.json.paidThrough });
    });

    it('a fraud card fails the purchase; it can be paid again', async () => {
      const m = await newMerchant();
      const p = await purchase(m);
      const failed = await pay(m, p.id, 'iyzico', 'FRAUD_DECLINE');
      expect(failed.status, failed.text).to.equal(200);
      expect(failed.json).to.include({ status: 'FAILED', declineCode: 'fraud_suspected' });
      expect(await entitlement(m, ONE_TIME)).to.include({ state: 'NOT_INSTALLED', purchaseRequired: true });
      const again = await pay(m, p.id, 'iyzico', 'SUCCESS');
      expect(again.json).to.include({ status: 'PAID', declineCode: null });
    });

    it('validates the pay body', async () => {
      const m = await newMerchant();
      const p = await purchase(m);
      const good = { provider: 'stripe', card: card('stripe', 'SUCCESS') };
      for (const bad of [
        {},
        { ...good, provider: 'paypal' },
        { ...good, card: { ...good.card, number: '4242' } },
        { ...good, card: { ...good.card, expiryMonth: 13 } },
        { ...good, card: { ...good.card, cvc: '12' } },
        { ...good, installments: 0 },
        { ...good, installments: 13 },
        { ...good, extra: true },
      ])
        expectProblem(await post(m, `/app-store/purchases/${p.id}/pay`, bad), 400, 'validation_failed');
      expectProblem(
        await post(m, `/app-store/purchases/${p.id}/pay`, good, { 'Idempotency-Key': 'x'.repeat(256) }),
        400,
        'idempotency_key_invalid',
      );
      expect((await purchaseRow(p.id)).status).to.equal('PENDING');
    });

    it('an Idempotency-Key gives back the first answer; another body with it is 409', async () => {
      const m = await newMerchant();
      const p = await purchase(m);
      const key = { 'Idempotency-Key': `pay-${p.id}` };
      const answers = await Promise.all([1, 2, 3, 4, 5].map(() => pay(m, p.id, 'stripe', 'SUCCESS', key)));
      for (const a of answers) expect(a.status, a.text).to.equal(200);
      expect(new Set(answers.map((a) => a.text)).size, answers.map((a) => a.text).join('\n')).to.equal(1);
      expect(answers[0]!.json.status).to.equal('PAID');
      const paidAudits = (await auditRows(server, m.owner.tenantId)).filter((a) => a.action === 'app_purchase.paid');
      expect(paidAudits).to.have.length(1);
      expectProblem(await pay(m, p.id, 'adyen', 'SUCCESS', key), 409, 'idempotency_key_reused');
    });

    it('3-D Secure: our page leads to the challenge; the right code pays through the return, the callback then changes nothing', async () => {
      const m = await newMerchant();
      const p = await purchase(m);
      const started = await pay(m, p.id, 'stripe', 'THREE_DS_CHALLENGE');
      expect(started.status, started.text).to.equal(200);
      expect(started.json.status).to.equal('CHALLENGE_REQUIRED');
      const next = started.json.nextAction;
      expect(next.type).to.equal('THREE_DS_CHALLENGE');
      const pagePath = new URL(next.url).pathname;
      expect(pagePath).to.match(/^\/api\/v1\/app-store\/purchases\/3ds\/[A-Za-z0-9_-]{16,}$/);
      expect(
        (await call(server, 'GET', `/api/v1/app-store/purchases/${p.id}/status`, { headers: m.headers })).json.nextAction.url,
      ).to.equal(next.url);

      const page = await call(server, 'GET', pagePath);
      expect(page.status, page.text).to.equal(200);
      expect(page.headers.get('content-type')).to.match(/^text\/html/);
      expect(page.headers.get('content-security-policy')).to.be.a('string');
      expect(page.text, page.text).to.include('SEO Booster').and.include('149.90 EUR');
      const challengeUrl = /id="challenge" href="([^"]+)"/.exec(page.text)![1]!.replace(/&amp;/g, '&');
      const row = await purchaseRow(p.id);
      expect(challengeUrl).to.equal(row.challenge_url);

      // The challenge page answered with the right code: the browser is sent back to our return with the signed query.
      const back = await answerChallenge(challengeUrl, threeDsCode('stripe'));
      expect(back.status, back.text).to.equal(200);
      expect(back.headers.get('content-type')).to.match(/^text\/html/);
      expect(back.text).to.include('Payment complete');
      expect((await purchaseRow(p.id)).status).to.equal('PAID');
      expect(await entitlement(m, ONE_TIME)).to.include({ state: 'ENABLED' });
      // Our page is gone once the purchase no longer waits.
      expect((await call(server, 'GET', pagePath)).status).to.equal(404);

      // The provider's callback of the same outcome arrives afterwards: recorded, nothing changes.
      const cb = await sendCallback('stripe', {
        eventId: `evt-${p.id}`,
        type: 'payment.captured',
        providerPaymentId: row.provider_payment_id,
        reference: p.id,
      });
      expect(cb.status, cb.text).to.equal(201);
      expect(cb.json).to.deep.equal({ received: true, applied: false, purchaseId: p.id, status: 'PAID' });
    });

    it('3-D Secure: a failed challenge fails the purchase; a return with a bad signature is 400 and changes nothing', async () => {
      const m = await newMerchant();
      const p = await purchase(m);
      const started = await pay(m, p.id, 'iyzico', 'THREE_DS_CHALLENGE');
      expect(started.json.status, started.text).to.equal('CHALLENGE_REQUIRED');
      const row = await purchaseRow(p.id);
      const params = {
        provider_payment_id: row.provider_payment_id,
        reference: p.id,
        outcome: 'DECLINED',
        decline_code: 'three_ds_failed',
      };
      const forged = signReturnQuery(secret('stripe'), params); // signed with another provider's secret
      expectProblem(await call(server, 'GET', `/api/v1/app-store/purchases/callback/iyzico?${forged}`), 400, 'provider_callback_invalid');
      expect((await purchaseRow(p.id)).status).to.equal('CHALLENGE_REQUIRED');
      const back = await answerChallenge(row.challenge_url, '000000');
      expect(back.status, back.text).to.equal(200);
      expect(back.text).to.include('Payment not completed').and.include('three_ds_failed');
      expect(await purchaseRow(p.id)).to.include({ status: 'FAILED', decline_code: 'three_ds_failed' });
      expect(await entitlement(m, ONE_TIME)).to.include({ state: 'NOT_INSTALLED' });
      // The signed return again (a reload) changes nothing.
      const again = await call(server, 'GET', `/api/v1/app-store/purchases/callback/iyzico?${signReturnQuery(secret('iyzico'), params)}`);
      expect(again.status, again.text).to.equal(200);
      expect((await purchaseRow(p.id)).status).to.equal('FAILED');
    });
  });

  describe('callbacks', () => {
    it('applies a signed callback once; a bad signature is 400; a replay and an unknown purchase change nothing', async () => {
      const m = await newMerchant();
      const p = await purchase(m);
      expect((await pay(m, p.id, 'adyen', 'THREE_DS_CHALLENGE')).json.status).to.equal('CHALLENGE_REQUIRED');
      const row = await purchaseRow(p.id);
      const body = { eventId: `evt-a-${p.id}`, type: 'payment.captured', providerPaymentId: row.provider_payment_id, reference: p.id };

      const bad = await sendCallback('adyen', body, 't=1,v1=' + '0'.repeat(64));
      expectProblem(bad, 400, 'provider_callback_invalid');
      expect((await purchaseRow(p.id)).status).to.equal('CHALLENGE_REQUIRED');
      expectProblem(await sendCallback('adyen', body, signCallback(secret('stripe'), Buffer.from('{}'))), 400, 'provider_callback_invalid');

      const ok = await sendCallback('adyen', body);
      expect(ok.status, ok.text).to.equal(201);
      expect(ok.json).to.deep.equal({ received: true, applied: true, purchaseId: p.id, status: 'PAID' });
      expect(await entitlement(m, ONE_TIME)).to.include({ state: 'ENABLED' });

      const replay = await sendCallback('adyen', { ...body, type: 'payment.declined' });
      expect(replay.json).to.deep.equal({ received: true, applied: false, purchaseId: null, status: null });
      expect((await purchaseRow(p.id)).status).to.equal('PAID');

      const unknown = await sendCallback('adyen', { ...body, eventId: `evt-u-${p.id}`, reference: '01950000-0000-7000-8000-0000000000ff' });
      expect(unknown.status).to.equal(201);
      expect(unknown.json.applied).to.equal(false);
      expectProblem(
        await call(server, 'POST', '/api/v1/app-store/purchases/callback/paypal', {
          body: { ...body, provider: 'adyen', occurredAt: new Date().toISOString() },
        }),
        404,
        'payment_provider_unknown',
      );

      // A refund callback refunds the purchase and disables the app.
      const refund = await sendCallback('adyen', { ...body, eventId: `evt-r-${p.id}`, type: 'payment.refunded' });
      expect(refund.json).to.include({ applied: true, status: 'REFUNDED' });
      expect(await entitlement(m, ONE_TIME)).to.include({ state: 'DISABLED', purchaseRequired: true });
    });
  });

  describe('access', () => {
    it("another tenant's purchase and store answer 404 and change nothing; staff members may buy apps", async () => {
      const a = await newMerchant();
      const b = await newMerchant();
      const p = await purchase(a);
      expectProblem(
        await call(server, 'GET', `/api/v1/app-store/purchases/${p.id}/status`, { headers: b.headers }),
        404,
        'app_purchase_not_found',
      );
      expectProblem(await pay(b, p.id, 'stripe', 'SUCCESS'), 404, 'app_purchase_not_found');
      expect((await purchaseRow(p.id)).status).to.equal('PENDING');
      expectProblem(await post(b, `/app-store/listings/${FREE}/enable`, { storeId: a.storeId }), 404, 'store_not_found');
      expectProblem(
        await call(server, 'GET', `/api/v1/app-store/stores/${a.storeId}/entitlements`, { headers: b.headers }),
        404,
        'store_not_found',
      );
      expectProblem(
        await call(server, 'GET', `/api/v1/app-store/listings?storeId=${a.storeId}`, { headers: b.headers }),
        404,
        'store_not_found',
      );

      expect((await call(server, 'GET', `/api/v1/app-store/listings?storeId=${a.storeId}`)).status).to.equal(401);
      expect((await call(server, 'POST', `/api/v1/app-store/purchases/${p.id}/pay`, { body: {} })).status).to.equal(401);

      const staff = await addMember(server, a.owner, 'staff');
      const res = await call(server, 'POST', `/api/v1/app-store/listings/${FREE}/enable`, {
        headers: staff.headers,
        body: { storeId: a.storeId },
      });
      expect(res.status, res.text).to.equal(200);
    });
  });
});
