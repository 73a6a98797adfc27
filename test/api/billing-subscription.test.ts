/**
 * Billing for merchants over HTTP: plans, the subscription's life (free by default, subscribe,
 * checkout, cancel), plan purchases paid by card with each provider's SUCCESS card, FRAUD declines,
 * 3-D Secure through our page, the simulator's challenge and the GET return (success and failure),
 * provider callbacks (valid, bad signature, replay, unknown purchase), Idempotency-Key on pay,
 * refused purchase transitions, features, usage, plan limits on stores and products, the invoice PDF
 * parsed back, and tenant isolation.
 */
import { inflateSync } from 'node:zlib';
import { expect } from 'chai';
import { PDFDocument, PDFRawStream, PDFName } from 'pdf-lib';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem } from '../helpers/accounts';
import { merchant, uniqueSlug, type Merchant } from '../helpers/fixtures';
import { uuidv7 } from '../../storage/ids';
import { systemContext } from '../../storage/request-context';
import { TEST_CARDS, type TestCardFlow } from '../../api/sandbox/sandbox.cards';
import { SimulatedProvider } from '../../api/payments/providers/simulator';
import { SIGNATURE_HEADER } from '../../api/payments/providers/signing';

const API = '/api/v1';

describe('Billing: subscription and plan purchases', function () {
  this.timeout(60_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  const newMerchant = async (): Promise<Merchant> => suite.addMerchant(await merchant(server));
  const db = (sql: string, params: unknown[] = []): Promise<any[]> => server.runtime.dataSource.query(sql, params);
  const get = (m: Merchant | undefined, path: string): Promise<TestResponse> =>
    call(server, 'GET', `${API}${path}`, { headers: m?.headers ?? {} });
  const send = (m: Merchant | undefined, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    call(server, method, `${API}${path}`, { headers: { ...(m?.headers ?? {}), ...headers }, body });

  const card = (provider: string, flow: TestCardFlow) => {
    const c = TEST_CARDS.find((t) => t.provider === provider && t.flow === flow)!;
    return { number: c.number, expiryMonth: c.expiryMonth, expiryYear: c.expiryYear, cvc: c.cvc, holderName: c.holderName };
  };
  const codeOf = (provider: string) => TEST_CARDS.find((t) => t.provider === provider && t.flow === 'THREE_DS_CHALLENGE')!.threeDsCode!;

  async function purchase(m: Merchant, plan = 'STARTER'): Promise<Record<string, any>> {
    const res = await send(m, 'POST', '/billing/subscription/checkout', { plan });
    expect(res.status, res.text).to.equal(200);
    return res.json;
  }
  const pay = (m: Merchant, id: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    send(m, 'POST', `/billing/plan-purchases/${id}/pay`, body, headers);

  /** The path and query of an absolute URL (the test server answers every address of the app). */
  const local = (url: string): string => {
    const u = new URL(url, 'http://x');
    return `${u.pathname}${u.search}`;
  };

  describe('plans and the free default', () => {
    it('lists the seeded plans with prices, limits and features', async () => {
      const m = await newMerchant();
      const res = await get(m, '/billing/plans');
      expect(res.status, res.text).to.equal(200);
      const codes = res.json.items.map((p: any) => p.code);
      expect(codes.slice(0, 4)).to.deep.equal(['FREE', 'STARTER', 'GROWTH', 'SCALE']);
      const growth = res.json.items.find((p: any) => p.code === 'GROWTH');
      expect(growth).to.deep.include({ monthlyPrice: 799, currency: 'TRY' });
      expect(growth.limits).to.deep.equal({ stores: 25, products: 2000000, staffMembers: 25, apiCallsPerMonth: 1000000 });
      expect(growth.features).to.deep.equal({ visualSearch: true, sponsoredListings: true, customDomain: true });
    });

    it('a tenant that never subscribed is on FREE; anonymous callers get 401', async () => {
      const m = await newMerchant();
      const res = await get(m, '/billing/subscription');
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.deep.include({ status: 'ACTIVE', free: true, cancelAtPeriodEnd: false, pendingPurchase: null, suspended: false });
      expect(res.json.plan.code).to.equal('FREE');
      expectProblem(await get(undefined, '/billing/subscription'), 401, 'unauthorized');
      // Cancelling the free plan is refused.
      expectProblem(await send(m, 'POST', '/billing/subscription/cancel'), 409, 'subscription_not_cancellable');
      expectProblem(await send(m, 'POST', '/billing/subscription', { plan: 'FREE' }), 409, 'already_subscribed');
      expectProblem(await send(m, 'POST', '/billing/subscription', { plan: 'NOPE' }), 404, 'plan_not_found');
      expectProblem(await send(m, 'POST', '/billing/subscription/checkout', { plan: 'FREE' }), 409, 'plan_not_paid');
      const bad = await send(m, 'POST', '/billing/subscription', { plan: 'STARTER', extra: 1 });
      expect(bad.status).to.equal(400);
    });
  });

  describe('paying a plan purchase', () => {
    for (const provider of ['iyzico', 'stripe', 'adyen']) {
      it(`activates the plan with the ${provider} SUCCESS card and writes a PAID invoice`, async () => {
        const m = await newMerchant();
        const sub = await send(m, 'POST', '/billing/subscription', { plan: 'GROWTH' });
        expect(sub.status, sub.text).to.equal(201);
        expect(sub.json.plan.code).to.equal('FREE');
        expect(sub.json.pendingPlanCode).to.equal('GROWTH');
        const p = sub.json.pendingPurchase;
        // 799 + 20% VAT
        expect(p).to.deep.include({ status: 'PENDING', amount: 958.8, currency: 'TRY', planCode: 'GROWTH' });
        const res = await pay(m, p.id, { provider, card: card(provider, 'SUCCESS') });
        expect(res.status, res.text).to.equal(200);
        expect(res.json).to.deep.include({ status: 'PAID', provider, cardLast4: card(provider, 'SUCCESS').number.slice(-4) });
        expect(res.json.invoiceId).to.be.a('string');
        const after = await get(m, '/billing/subscription');
        expect(after.json).to.deep.include({ free: false, status: 'ACTIVE', pendingPlanCode: null });
        expect(after.json.plan.code).to.equal('GROWTH');
        expect(new Date(after.json.currentPeriodEnd).getTime()).to.be.greaterThan(Date.now() + 27 * 86_400_000);
        const invoices = await get(m, '/billing/my-invoices');
        expect(invoices.json.items).to.have.length(1);
        expect(invoices.json.items[0]).to.deep.include({
          status: 'PAID',
          subtotal: 799,
          vatAmount: 159.8,
          total: 958.8,
          planCode: 'GROWTH',
        });
        expect(invoices.json.items[0].number).to.equal(`INV-${new Date().getUTCFullYear()}-000001`);
        // A PAID purchase is not paid again.
        expectProblem(await pay(m, p.id, { provider, card: card(provider, 'SUCCESS') }), 409, 'plan_purchase_transition_refused');
        const audit = await db("SELECT action FROM audit_log WHERE tenant_id = $1 AND resource_type IN ('plan_purchase', 'subscription')", [
          m.owner.tenantId,
        ]);
        expect(audit.map((a) => a.action)).to.include.members(['plan_purchase.create', 'plan_purchase.paid', 'subscription.activate']);
      });
    }

    it('fails with the FRAUD card (decline code kept) and can then be paid with another card', async () => {
      const m = await newMerchant();
      const p = await purchase(m);
      const res = await pay(m, p.id, { provider: 'stripe', card: card('stripe', 'FRAUD_DECLINE') });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.deep.include({ status: 'FAILED', declineCode: 'fraud_suspected' });
      expect((await get(m, '/billing/subscription')).json.plan.code).to.equal('FREE');
      const again = await pay(m, p.id, { provider: 'stripe', card: card('stripe', 'SUCCESS') });
      expect(again.json).to.deep.include({ status: 'PAID', declineCode: null });
      const status = await get(m, `/billing/plan-purchases/${p.id}/status`);
      expect(status.json.status).to.equal('PAID');
    });

    it('answers the first result for a repeated Idempotency-Key and 409 for the same key with another body', async () => {
      const m = await newMerchant();
      const p = await purchase(m);
      const body = { provider: 'iyzico', card: card('iyzico', 'SUCCESS') };
      const key = { 'Idempotency-Key': `pay-${uuidv7()}` };
      const [a, b] = await Promise.all([pay(m, p.id, body, key), pay(m, p.id, body, key)]);
      expect(a.status, a.text).to.equal(200);
      expect(b.status, b.text).to.equal(200);
      expect(b.json).to.deep.equal(a.json);
      const third = await pay(m, p.id, body, key);
      expect(third.json).to.deep.equal(a.json);
      const invoices = await db('SELECT count(*)::int AS n FROM billing_invoices WHERE tenant_id = $1', [m.owner.tenantId]);
      expect(invoices[0].n).to.equal(1);
      expectProblem(await pay(m, p.id, { ...body, installments: 2 }, key), 409, 'idempotency_key_reused');
    });

    it("hides another tenant's purchase (404) and refuses a bad card body (400)", async () => {
      const m = await newMerchant();
      const other = await newMerchant();
      const p = await purchase(m);
      expectProblem(await get(other, `/billing/plan-purchases/${p.id}/status`), 404, 'plan_purchase_not_found');
      expectProblem(await pay(other, p.id, { provider: 'stripe', card: card('stripe', 'SUCCESS') }), 404, 'plan_purchase_not_found');
      const bad = await pay(m, p.id, { provider: 'paypal', card: card('stripe', 'SUCCESS') });
      expect(bad.status).to.equal(400);
    });
  });

  describe('3-D Secure', () => {
    async function challenged(m: Merchant, provider: string) {
      const p = await purchase(m);
      const res = await pay(m, p.id, { provider, card: card(provider, 'THREE_DS_CHALLENGE') });
      expect(res.status, res.text).to.equal(200);
      expect(res.json.status).to.equal('REQUIRES_ACTION');
      expect(res.json.nextAction.type).to.equal('THREE_DS');
      expect(res.json.nextAction.url).to.match(/^\/api\/v1\/billing\/plan-purchases\/3ds\/[A-Za-z0-9_-]{16,}$/);
      // A purchase waiting for its challenge is not paid again.
      expectProblem(await pay(m, p.id, { provider, card: card(provider, 'SUCCESS') }), 409, 'plan_purchase_transition_refused');
      return res.json;
    }

    /** Our page → the simulator's challenge page → its form → the signed return (GET): the final page. */
    async function throughChallenge(nextUrl: string, code: string): Promise<TestResponse> {
      const page = await call(server, 'GET', nextUrl);
      expect(page.status, page.text).to.equal(200);
      expect(page.headers.get('content-type')).to.match(/^text\/html/);
      expect(page.text).to.contain('358.80 TRY').and.to.contain('Starter');
      const href = /id="challenge" href="([^"]+)"/.exec(page.text)![1]!.replace(/&amp;/g, '&');
      const challenge = await call(server, 'GET', local(href));
      expect(challenge.status, challenge.text).to.equal(200);
      const answered = await fetch(`${server.baseUrl}${local(href)}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: `code=${encodeURIComponent(code)}`,
        redirect: 'manual',
      });
      expect(answered.status).to.equal(303);
      const back = local(answered.headers.get('location')!);
      expect(back).to.match(/^\/api\/v1\/billing\/plan-purchases\/callback\//);
      return call(server, 'GET', back);
    }

    it('the right code pays the purchase through our page, the challenge and the GET return', async () => {
      const m = await newMerchant();
      const started = await challenged(m, 'iyzico');
      const final = await throughChallenge(started.nextAction.url, codeOf('iyzico'));
      expect(final.status, final.text).to.equal(200);
      expect(final.headers.get('content-type')).to.match(/^text\/html/);
      expect(final.text).to.contain('data-status="PAID"');
      const status = await get(m, `/billing/plan-purchases/${started.id}/status`);
      expect(status.json).to.deep.include({ status: 'PAID', nextAction: null });
      expect((await get(m, '/billing/subscription')).json.plan.code).to.equal('STARTER');
      // The page is gone once the purchase is settled.
      expectProblem(await call(server, 'GET', started.nextAction.url), 404, 'three_ds_page_not_found');
    });

    it('a wrong code fails the purchase (three_ds_failed)', async () => {
      const m = await newMerchant();
      const started = await challenged(m, 'stripe');
      const final = await throughChallenge(started.nextAction.url, '000000');
      expect(final.status, final.text).to.equal(200);
      expect(final.text).to.contain('data-status="FAILED"');
      const status = await get(m, `/billing/plan-purchases/${started.id}/status`);
      expect(status.json).to.deep.include({ status: 'FAILED', declineCode: 'three_ds_failed' });
      expect((await get(m, '/billing/subscription')).json.plan.code).to.equal('FREE');
    });

    it('a tampered return is refused with 400 and changes nothing', async () => {
      const m = await newMerchant();
      const started = await challenged(m, 'adyen');
      const res = await call(
        server,
        'GET',
        `${API}/billing/plan-purchases/callback/adyen?provider_payment_id=x&reference=${started.id}&outcome=CAPTURED&t=${Math.floor(Date.now() / 1000)}&sig=00`,
      );
      expectProblem(res, 400, 'provider_callback_invalid');
      expect((await get(m, `/billing/plan-purchases/${started.id}/status`)).json.status).to.equal('REQUIRES_ACTION');
    });
  });

  describe('provider callbacks', () => {
    const sim = (provider: 'iyzico' | 'stripe' | 'adyen') =>
      new SimulatedProvider(provider, systemContext(server.runtime.dataSource, uuidv7(), undefined, 'test', server.runtime.services));
    function callback(provider: 'iyzico' | 'stripe' | 'adyen', event: Record<string, unknown>, sign = true) {
      const raw = Buffer.from(JSON.stringify({ provider, occurredAt: new Date().toISOString(), ...event }));
      const signature = sign ? sim(provider).signCallback(raw) : 't=1,v1=00';
      return call(server, 'POST', `${API}/billing/plan-purchases/callback/${provider}`, {
        rawBody: raw,
        contentType: 'application/json',
        headers: { [SIGNATURE_HEADER]: signature },
      });
    }

    it('settles a purchase waiting for its challenge once; a replay, a bad signature and an unknown purchase change nothing', async () => {
      const m = await newMerchant();
      const p = await purchase(m);
      const started = await pay(m, p.id, { provider: 'stripe', card: card('stripe', 'THREE_DS_CHALLENGE') });
      expect(started.json.status).to.equal('REQUIRES_ACTION');
      const [row] = await db('SELECT provider_payment_id FROM billing_plan_purchases WHERE id = $1', [p.id]);
      const event = { eventId: `evt_${uuidv7()}`, type: 'payment.captured', providerPaymentId: row.provider_payment_id, reference: p.id };

      const forged = await callback('stripe', event, false);
      expectProblem(forged, 400, 'provider_callback_invalid');
      expect((await get(m, `/billing/plan-purchases/${p.id}/status`)).json.status).to.equal('REQUIRES_ACTION');

      const first = await callback('stripe', event);
      expect(first.status, first.text).to.equal(201);
      expect(first.json).to.deep.equal({ received: true, changed: true });
      expect((await get(m, `/billing/plan-purchases/${p.id}/status`)).json.status).to.equal('PAID');

      const replay = await callback('stripe', event);
      expect(replay.status).to.equal(201);
      expect(replay.json).to.deep.equal({ received: true, changed: false });
      const invoices = await db('SELECT count(*)::int AS n FROM billing_invoices WHERE tenant_id = $1', [m.owner.tenantId]);
      expect(invoices[0].n).to.equal(1);

      const unknown = await callback('stripe', { ...event, eventId: `evt_${uuidv7()}`, reference: uuidv7() });
      expect(unknown.status).to.equal(201);
      expect(unknown.json).to.deep.equal({ received: true, changed: false });
    });

    it('a declined callback fails the purchase', async () => {
      const m = await newMerchant();
      const p = await purchase(m);
      await pay(m, p.id, { provider: 'iyzico', card: card('iyzico', 'THREE_DS_CHALLENGE') });
      const [row] = await db('SELECT provider_payment_id FROM billing_plan_purchases WHERE id = $1', [p.id]);
      const res = await callback('iyzico', {
        eventId: `evt_${uuidv7()}`,
        type: 'payment.declined',
        providerPaymentId: row.provider_payment_id,
        reference: p.id,
        declineCode: 'three_ds_failed',
      });
      expect(res.json).to.deep.equal({ received: true, changed: true });
      expect((await get(m, `/billing/plan-purchases/${p.id}/status`)).json).to.deep.include({
        status: 'FAILED',
        declineCode: 'three_ds_failed',
      });
    });
  });

  describe('cancel, features, usage and limits', () => {
    it('cancels a paid subscription at its period end, once', async () => {
      const m = await newMerchant();
      const p = await purchase(m);
      await pay(m, p.id, { provider: 'stripe', card: card('stripe', 'SUCCESS') });
      const res = await send(m, 'POST', '/billing/subscription/cancel');
      expect(res.status, res.text).to.equal(201);
      expect(res.json).to.deep.include({ status: 'CANCELLED', cancelAtPeriodEnd: true, free: false });
      expect(res.json.plan.code).to.equal('STARTER');
      expectProblem(await send(m, 'POST', '/billing/subscription/cancel'), 409, 'subscription_not_cancellable');
    });

    it("answers features and usage from the plan and real data; another tenant's store is 404", async () => {
      const m = await newMerchant();
      const other = await newMerchant();
      await send(m, 'POST', '/catalog/products', { storeId: m.storeId, title: 'A thing', type: 'PHYSICAL', price: 10 });
      const features = await get(m, `/billing/features?storeId=${m.storeId}`);
      expect(features.status, features.text).to.equal(200);
      expect(features.json.planCode).to.equal('FREE');
      expect(features.json.features).to.deep.equal({ visualSearch: false, sponsoredListings: false, customDomain: false });
      const stores = features.json.limits.find((l: any) => l.name === 'stores');
      expect(stores).to.deep.equal({ name: 'stores', limit: 10, used: 1, remaining: 9 });
      expect((await get(other, `/billing/features?storeId=${m.storeId}`)).status).to.equal(404);
      const usage = await get(m, '/billing/usage');
      expect(usage.status, usage.text).to.equal(200);
      const metric = (name: string) => usage.json.metrics.find((x: any) => x.name === name);
      expect(metric('stores')).to.deep.equal({ name: 'stores', used: 1, limit: 10 });
      expect(metric('staffMembers').used).to.equal(1);
      expect(metric('orders').used).to.equal(0);
      expect(metric('apiCalls').limit).to.equal(50000);
    });

    it('refuses a store or a product beyond a lowered plan with 403 plan_limit_reached', async () => {
      const m = await newMerchant();
      const code = `TINY_${uuidv7().replace(/-/g, '').slice(-8).toUpperCase()}`;
      await db(
        "INSERT INTO billing_plans (code, name, monthly_price, max_stores, max_products, max_staff, is_public) VALUES ($1, 'Tiny', 1, 1, 1, 1, false)",
        [code],
      );
      await db("INSERT INTO billing_subscriptions (tenant_id, plan_code, status, current_period_start) VALUES ($1, $2, 'ACTIVE', now())", [
        m.owner.tenantId,
        code,
      ]);
      const store = await send(m, 'POST', '/organization/stores', { name: 'Second', slug: uniqueSlug('second') });
      expectProblem(store, 403, 'plan_limit_reached');
      expect(store.json.detail).to.contain('stores');
      const first = await send(m, 'POST', '/catalog/products', { storeId: m.storeId, title: 'One', type: 'PHYSICAL', price: 10 });
      expect(first.status, first.text).to.equal(201);
      const second = await send(m, 'POST', '/catalog/products', { storeId: m.storeId, title: 'Two', type: 'PHYSICAL', price: 10 });
      expectProblem(second, 403, 'plan_limit_reached');
      expect(second.json.detail).to.contain('products');
      const [{ n }] = await db('SELECT count(*)::int AS n FROM products WHERE tenant_id = $1', [m.owner.tenantId]);
      expect(n).to.equal(1);
    });
  });

  describe('invoice PDF', () => {
    /** The text shown by the PDF's content streams (pdf-lib writes WinAnsi hex strings). */
    async function pdfText(bytes: Buffer): Promise<string> {
      const doc = await PDFDocument.load(bytes);
      let text = '';
      for (const [, object] of doc.context.enumerateIndirectObjects()) {
        if (!(object instanceof PDFRawStream)) continue;
        const filter = object.dict.get(PDFName.of('Filter'));
        const raw = Buffer.from(object.contents);
        const content = filter?.toString() === '/FlateDecode' ? inflateSync(raw) : raw;
        for (const m of content.toString('latin1').matchAll(/<([0-9A-Fa-f]*)>\s*Tj/g))
          text += `${Buffer.from(m[1]!, 'hex').toString('latin1')}\n`;
        for (const m of content.toString('latin1').matchAll(/\(((?:\\.|[^\\)])*)\)\s*Tj/g)) text += `${m[1]}\n`;
      }
      return text;
    }

    it('renders the invoice as a PDF with its number and exact totals; another tenant gets 404', async () => {
      const m = await newMerchant();
      const other = await newMerchant();
      const p = await purchase(m, 'SCALE');
      await pay(m, p.id, { provider: 'adyen', card: card('adyen', 'SUCCESS') });
      const [invoice] = (await get(m, '/billing/my-invoices')).json.items;
      const res = await fetch(`${server.baseUrl}${API}/billing/my-invoices/${invoice.id}/pdf`, { headers: m.headers });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/pdf/);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(bytes.subarray(0, 5).toString()).to.equal('%PDF-');
      const text = await pdfText(bytes);
      expect(text).to.contain(invoice.number);
      expect(text).to.contain('2499.00'); // subtotal
      expect(text).to.contain('499.80 TRY'); // VAT 20%
      expect(text).to.contain('2998.80 TRY'); // total
      expectProblem(await get(other, `/billing/my-invoices/${invoice.id}/pdf`), 404, 'invoice_not_found');
      expect((await get(other, '/billing/my-invoices')).json.items).to.deep.equal([]);
    });
  });
});
