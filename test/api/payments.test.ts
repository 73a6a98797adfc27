/**
 * Payments over HTTP: every sandbox test card of the three providers through the simulator, 3-D
 * Secure through the real challenge page, provider callbacks (valid, bad signature, replay, unknown
 * payment), idempotency keys, the state machine (every allowed move and refused ones), a seeded
 * reconciliation of random partial captures and refunds checked in SQL, and access (anonymous,
 * another tenant, an API key with the payments scope). Each test makes its own tenants and orders.
 */
import { expect } from 'chai';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem } from '../helpers/accounts';
import { apiKey, customer, merchant, type Merchant } from '../helpers/fixtures';
import { uuidv7 } from '../../storage/ids';
import { TEST_CARDS, type TestCard } from '../../api/sandbox/sandbox.cards';
import { SimulatedProvider } from '../../api/payments/providers/simulator';
import { systemContext } from '../../storage/request-context';
import type { PaymentProviderName } from '../../api/payments/providers';
import { PAYMENT_TRANSITIONS } from '../../api/payments/payment-states';

const API = '/api/v1';

describe('Payments', function () {
  this.timeout(120_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  let m: Merchant;

  const db = (sql: string, params: unknown[] = []): Promise<any[]> => server.runtime.dataSource.query(sql, params);
  const post = (path: string, body?: unknown, headers: Record<string, string> = m.headers): Promise<TestResponse> =>
    call(server, 'POST', `${API}${path}`, { headers, body });

  async function order(who: Merchant = m, total = '100.00', currency = 'EUR'): Promise<string> {
    const id = uuidv7();
    const customerId = await customer(server, who);
    await db(
      `INSERT INTO orders (id, tenant_id, store_id, customer_id, status, currency, subtotal, total, item_count, shipping_city, shipping_district)
       VALUES ($1, $2, $3, $4, 'PLACED', $5, $6, $6, 1, 'Istanbul', 'Kadikoy')`,
      [id, who.owner.tenantId, who.storeId, customerId, currency, total],
    );
    return id;
  }

  const cardOf = (c: TestCard) => ({
    number: c.number,
    expiryMonth: c.expiryMonth,
    expiryYear: c.expiryYear,
    cvc: c.cvc,
    holderName: c.holderName,
  });
  const find = (provider: string, flow: TestCard['flow']) => TEST_CARDS.find((c) => c.provider === provider && c.flow === flow)!;

  async function authorize(body: Record<string, unknown>, headers?: Record<string, string>): Promise<TestResponse> {
    return post('/payments', body, headers);
  }

  async function authorized(provider: PaymentProviderName = 'stripe', amount?: number, orderId?: string): Promise<Record<string, any>> {
    const res = await authorize({
      orderId: orderId ?? (await order()),
      provider,
      card: cardOf(find(provider, 'REFUND')),
      ...(amount ? { amount } : {}),
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.json.status).to.equal('AUTHORIZED');
    return res.json;
  }

  /** The path (and query) of an absolute URL the server built with its configured public address. */
  const local = (url: string): string => {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  };

  before(async () => {
    m = suite.addMerchant(await merchant(server));
  });

  describe('the simulator answers every test card as its outcome says', () => {
    for (const provider of ['iyzico', 'stripe', 'adyen'] as const) {
      for (const card of TEST_CARDS.filter((c) => c.provider === provider)) {
        it(`${provider} ${card.flow} (${card.number})`, async () => {
          const res = await authorize({ orderId: await order(), provider, card: cardOf(card) });
          expect(res.status, res.text).to.equal(201);
          if (card.flow === 'SUCCESS' || card.flow === 'REFUND') {
            expect(res.json).to.include({ status: 'AUTHORIZED', amount: 100, captured: 0, capturable: 100 });
            expect(res.json.card).to.deep.equal({ brand: card.brand, last4: card.number.slice(-4) });
            const cap = await post(`/payments/${res.json.id}/capture`);
            expect(cap.status, cap.text).to.equal(201);
            const refund = await post(`/payments/${res.json.id}/refund`, { amount: 40 });
            expect(refund.status, refund.text).to.equal(201);
            expect(refund.json).to.include({ status: 'PARTIALLY_REFUNDED', refunded: 40, refundable: 60 });
          } else if (card.flow === 'FRAUD_DECLINE') {
            expect(res.json).to.include({ status: 'DECLINED', declineCode: 'fraud_suspected', captured: 0 });
            expectProblem(await post(`/payments/${res.json.id}/capture`), 409, 'payment_transition_refused');
          } else {
            expect(res.json.status).to.equal('PENDING_CHALLENGE');
            expect(res.json.challenge.url).to.match(new RegExp(`/api/v1/sandbox-provider/${provider}/challenge/[A-Za-z0-9_-]{16,}$`));
          }
        });
      }
    }

    it('declines a card of another provider, an unknown number, a past expiry and a Luhn-invalid number', async () => {
      const stripeCard = cardOf(find('stripe', 'SUCCESS'));
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ provider: 'adyen', card: stripeCard }, 'card_not_supported'],
        [{ provider: 'stripe', card: { ...stripeCard, number: '4012888888881881' } }, 'card_not_supported'],
        [{ provider: 'stripe', card: { ...stripeCard, expiryYear: 2020 } }, 'expired_card'],
        [{ provider: 'stripe', card: { ...stripeCard, number: '4242424242424241' } }, 'invalid_card_number'],
        [{ provider: 'stripe', card: cardOf(find('stripe', 'REFUND')), installments: 3 }, 'installments_not_available'],
      ];
      for (const [body, code] of cases) {
        const res = await authorize({ orderId: await order(), ...body });
        expect(res.status, res.text).to.equal(201);
        expect(res.json, code).to.include({ status: 'DECLINED', declineCode: code });
      }
    });

    it('answers installment options by BIN with the rounding difference on the last installment', async () => {
      const sim = new SimulatedProvider(
        'iyzico',
        systemContext(server.runtime.dataSource, 't', undefined, 'test', server.runtime.services),
      );
      const options = await sim.installmentOptions('55555555', '100.00', 'EUR');
      expect(options.map((o) => o.count)).to.deep.equal([1, 2, 3, 6, 9, 12]);
      expect(options.find((o) => o.count === 3)).to.deep.equal({ count: 3, perInstallment: '34.16', total: '102.5' });
      expect(await sim.installmentOptions('37828224', '100', 'EUR')).to.deep.equal([{ count: 1, perInstallment: '100', total: '100' }]);
    });
  });

  describe('3-D Secure through the challenge page', () => {
    async function challenge(provider: PaymentProviderName, code: string, returnUrl?: string) {
      const card = find(provider, 'THREE_DS_CHALLENGE');
      const res = await authorize({ orderId: await order(), provider, card: cardOf(card), ...(returnUrl ? { returnUrl } : {}) });
      expect(res.json.status, res.text).to.equal('PENDING_CHALLENGE');
      const page = await call(server, 'GET', local(res.json.challenge.url));
      expect(page.status, page.text).to.equal(200);
      expect(page.headers.get('content-type')).to.match(/^text\/html/);
      expect(page.headers.get('content-security-policy')).to.include("script-src 'self'");
      expect(page.text).to.include('<form method="post"').and.include('100 EUR');
      const answer = await fetch(`${server.baseUrl}${local(res.json.challenge.url)}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ code }).toString(),
        redirect: 'manual',
      });
      expect(answer.status).to.equal(303);
      const location = answer.headers.get('location')!;
      expect(location).to.include(`/api/v1/payments/3ds-return/${provider}?`).and.include('sig=');
      const back = await fetch(`${server.baseUrl}${local(location)}`, { redirect: 'manual' });
      return { payment: res.json, back, location, challengeUrl: res.json.challenge.url as string, card };
    }

    for (const provider of ['iyzico', 'stripe', 'adyen'] as const) {
      it(`${provider}: the right code authorizes the payment; the page is single use`, async () => {
        const { payment, back, challengeUrl } = await challenge(provider, find(provider, 'THREE_DS_CHALLENGE').threeDsCode!);
        expect(back.status).to.equal(200);
        expect(await back.text()).to.include('AUTHORIZED');
        const [row] = await db('SELECT status FROM payments WHERE id = $1', [payment.id]);
        expect(row.status).to.equal('AUTHORIZED');
        expectProblem(await call(server, 'GET', local(challengeUrl)), 409, 'challenge_closed');
        const cap = await post(`/payments/${payment.id}/capture`);
        expect(cap.json.status, cap.text).to.equal('CAPTURED');
      });
    }

    it('a wrong code declines (three_ds_failed), and the return sends the browser on to the returnUrl', async () => {
      const { payment, back } = await challenge('stripe', '000000', 'https://merchant.example/after?x=1');
      expect(back.status).to.equal(303);
      const next = new URL(back.headers.get('location')!);
      expect(next.origin + next.pathname).to.equal('https://merchant.example/after');
      expect(next.searchParams.get('paymentId')).to.equal(payment.id);
      expect(next.searchParams.get('status')).to.equal('DECLINED');
      const [row] = await db('SELECT status, decline_code FROM payments WHERE id = $1', [payment.id]);
      expect(row).to.deep.equal({ status: 'DECLINED', decline_code: 'three_ds_failed' });
      const [callback] = await db(`SELECT body FROM provider_sim_callbacks WHERE body::jsonb ->> 'providerPaymentId' = $1`, [
        payment.providerPaymentId,
      ]);
      expect(JSON.parse(callback.body)).to.include({ type: 'payment.declined', reference: payment.id });
    });

    it('refuses a return whose signature was tampered with, and an unknown token', async () => {
      const { location } = await challenge('adyen', '654321');
      const tampered = local(location).replace('outcome=AUTHORIZED', 'outcome=CAPTURED');
      expectProblem(await call(server, 'GET', tampered), 400, 'provider_callback_invalid');
      expectProblem(await call(server, 'GET', `${API}/sandbox-provider/adyen/challenge/${'x'.repeat(32)}`), 404, 'challenge_not_found');
    });
  });

  describe('provider callbacks', () => {
    const sim = () =>
      new SimulatedProvider('stripe', systemContext(server.runtime.dataSource, 't', undefined, 'test', server.runtime.services));
    const send = (body: Record<string, unknown>, signature?: string) => {
      const raw = Buffer.from(JSON.stringify(body));
      return call(server, 'POST', `${API}/payments/callbacks/stripe`, {
        rawBody: raw,
        contentType: 'application/json',
        headers: { 'X-Provider-Signature': signature ?? sim().signCallback(raw) },
      });
    };
    async function pending(): Promise<Record<string, any>> {
      const res = await authorize({ orderId: await order(), provider: 'stripe', card: cardOf(find('stripe', 'THREE_DS_CHALLENGE')) });
      expect(res.json.status).to.equal('PENDING_CHALLENGE');
      return res.json;
    }
    const event = (p: Record<string, any>, type = 'payment.authorized') => ({
      eventId: `evt_${uuidv7()}`,
      provider: 'stripe',
      occurredAt: new Date().toISOString(),
      type,
      providerPaymentId: p.providerPaymentId,
      reference: p.id,
      amount: '100',
    });

    it('applies a valid callback once; a replay of the same event id changes nothing', async () => {
      const p = await pending();
      const body = event(p);
      const first = await send(body);
      expect(first.status, first.text).to.equal(200);
      expect(first.json).to.deep.equal({ received: true, duplicate: false, applied: true, paymentId: p.id });
      const [row] = await db('SELECT status FROM payments WHERE id = $1', [p.id]);
      expect(row.status).to.equal('AUTHORIZED');
      const replay = await send({ ...body, type: 'payment.declined' });
      expect(replay.json).to.deep.equal({ received: true, duplicate: true, applied: false, paymentId: null });
      const [after] = await db('SELECT status FROM payments WHERE id = $1', [p.id]);
      expect(after.status).to.equal('AUTHORIZED');
    });

    it('refuses a bad signature and a stale timestamp with 400 and changes nothing', async () => {
      const p = await pending();
      const body = event(p);
      expectProblem(await send(body, `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`), 400, 'provider_callback_invalid');
      const raw = Buffer.from(JSON.stringify(body));
      const stale = sim()
        .signCallback(raw)
        .replace(/^t=\d+/, `t=${Math.floor(Date.now() / 1000) - 600}`);
      expectProblem(await send(body, stale), 400, 'provider_callback_invalid');
      const [row] = await db('SELECT status FROM payments WHERE id = $1', [p.id]);
      expect(row.status).to.equal('PENDING_CHALLENGE');
      const [seen] = await db('SELECT count(*)::int AS n FROM provider_callback_events WHERE event_id = $1', [body.eventId]);
      expect(seen.n).to.equal(0);
    });

    it('acknowledges a callback of an unknown payment without effect', async () => {
      const res = await send(event({ providerPaymentId: 'pi_unknown', id: uuidv7() }));
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.deep.equal({ received: true, duplicate: false, applied: false, paymentId: null });
    });
  });

  describe('idempotency keys', () => {
    it('answers the same payment for the same key and body, 409 for another body, 400 for a bad key', async () => {
      const orderId = await order();
      const body = { orderId, provider: 'stripe', card: cardOf(find('stripe', 'SUCCESS')), amount: 10 };
      const key = { ...m.headers, 'Idempotency-Key': `key-${uuidv7()}` };
      const first = await authorize(body, key);
      const second = await authorize(body, key);
      expect(first.status, first.text).to.equal(201);
      expect(second.status, second.text).to.equal(201);
      expect(second.json.id).to.equal(first.json.id);
      expectProblem(await authorize({ ...body, amount: 11 }, key), 409, 'idempotency_key_reused');
      const [count] = await db('SELECT count(*)::int AS n FROM payments WHERE order_id = $1', [orderId]);
      expect(count.n).to.equal(1);
      expectProblem(await authorize(body, { ...m.headers, 'Idempotency-Key': 'k'.repeat(256) }), 400, 'idempotency_key_invalid');
      // Another tenant's same key is its own.
      const other = suite.addMerchant(await merchant(server));
      const theirs = await authorize(
        { ...body, orderId: await order(other) },
        { ...other.headers, 'Idempotency-Key': key['Idempotency-Key'] },
      );
      expect(theirs.status, theirs.text).to.equal(201);
      expect(theirs.json.id).to.not.equal(first.json.id);
    });

    it('50 concurrent duplicates create exactly one payment', async () => {
      const orderId = await order();
      const body = { orderId, provider: 'adyen', card: cardOf(find('adyen', 'SUCCESS')) };
      const headers = { ...m.headers, 'Idempotency-Key': `burst-${uuidv7()}` };
      const answers = await Promise.all(Array.from({ length: 50 }, () => authorize(body, headers)));
      for (const a of answers) expect(a.status, a.text).to.equal(201);
      expect(new Set(answers.map((a) => a.json.id)).size).to.equal(1);
      const [count] = await db('SELECT count(*)::int AS n FROM payments WHERE order_id = $1', [orderId]);
      expect(count.n).to.equal(1);
    });
  });

  describe('states and transitions', () => {
    it('the table names every action with its from and to states', () => {
      expect(Object.keys(PAYMENT_TRANSITIONS).sort()).to.deep.equal(
        ['cancelManualRefund', 'capture', 'completeChallenge', 'confirmManualRefund', 'refund', 'void'].sort(),
      );
      expect(PAYMENT_TRANSITIONS.void.from).to.deep.equal(['AUTHORIZED']);
    });

    it('AUTHORIZED → PARTIALLY_CAPTURED → CAPTURED → PARTIALLY_REFUNDED → REFUNDED, with the ledger and webhooks', async () => {
      const p = await authorized('stripe');
      const c1 = await post(`/payments/${p.id}/capture?amount=30`);
      expect(c1.json).to.include({ status: 'PARTIALLY_CAPTURED', captured: 30, capturable: 70 });
      expectProblem(await post(`/payments/${p.id}/capture?amount=70.01`), 409, 'capture_exceeds_authorized');
      expectProblem(await post(`/payments/${p.id}/void`), 409, 'payment_transition_refused');
      const c2 = await post(`/payments/${p.id}/capture?amount=70`);
      expect(c2.json).to.include({ status: 'CAPTURED', captured: 100, capturable: 0 });
      expectProblem(await post(`/payments/${p.id}/capture?amount=1`), 409, 'payment_transition_refused');
      const r1 = await post(`/payments/${p.id}/refund`, { amount: 25.5, reason: 'one item returned' });
      expect(r1.json).to.include({ status: 'PARTIALLY_REFUNDED', refunded: 25.5, refundable: 74.5 });
      expectProblem(await post(`/payments/${p.id}/refund`, { amount: 74.51 }), 409, 'refund_exceeds_captured');
      expectProblem(await post(`/payments/${p.id}/refund`, { amount: 1.005 }), 400, 'amount_invalid');
      const r2 = await post(`/payments/${p.id}/refund`, {});
      expect(r2.json).to.include({ status: 'REFUNDED', refunded: 100, refundable: 0 });
      expectProblem(await post(`/payments/${p.id}/refund`, { amount: 1 }), 409, 'payment_transition_refused');
      expect(r2.json.operations.map((o: any) => `${o.kind}:${o.amount}`)).to.deep.equal([
        'AUTHORIZE:100',
        'CAPTURE:30',
        'CAPTURE:70',
        'REFUND:25.5',
        'REFUND:74.5',
      ]);
      const events = await db(
        `SELECT topic, payload FROM outbox WHERE tenant_id = $1 AND aggregate_type = 'webhook_event' AND payload -> 'data' ->> 'paymentId' = $2 ORDER BY id`,
        [m.owner.tenantId, p.id],
      );
      expect(events.map((e) => e.topic)).to.deep.equal(['payment.captured', 'payment.captured', 'payment.refunded', 'payment.refunded']);
      expect(events[2].payload.data).to.include({ amount: 25.5, refundedTotal: 25.5, capturedTotal: 100, manual: false, currency: 'EUR' });
      const audit = await db(`SELECT action FROM audit_log WHERE resource_id = $1 ORDER BY id`, [p.id]);
      expect(audit.map((a) => a.action)).to.deep.equal([
        'payment.authorize',
        'payment.capture',
        'payment.capture',
        'payment.refund',
        'payment.refund',
      ]);
    });

    it('AUTHORIZED → VOIDED; a voided payment refuses everything and nothing changes', async () => {
      const p = await authorized('adyen');
      const v = await post(`/payments/${p.id}/void`);
      expect(v.json).to.include({ status: 'VOIDED', capturable: 0 });
      for (const path of ['capture', 'void', 'refund/cancel-manual'])
        expectProblem(await post(`/payments/${p.id}/${path}`), 409, 'payment_transition_refused');
      expectProblem(await post(`/payments/${p.id}/refund`, {}), 409, 'payment_transition_refused');
      const [row] = await db('SELECT status, captured, refunded FROM payments WHERE id = $1', [p.id]);
      expect(row).to.deep.equal({ status: 'VOIDED', captured: '0.0000', refunded: '0.0000' });
      expectProblem(await post(`/payments/${p.id}/refund`, { amount: 1 }), 409, 'payment_transition_refused');
      // Nothing else pays for the order: it is cancelled (its stock goes back).
      const [order] = await db('SELECT status FROM orders WHERE id = $1', [p.orderId]);
      expect(order.status).to.equal('CANCELLED');
    });

    it('a void leaves the order alone while another payment still pays for it', async () => {
      const orderId = await order();
      const first = await authorized('stripe', 40, orderId);
      await authorized('adyen', 60, orderId);
      expect((await post(`/payments/${first.id}/void`)).json.status).to.equal('VOIDED');
      const [row] = await db('SELECT status FROM orders WHERE id = $1', [orderId]);
      expect(row.status).to.equal('PLACED');
    });

    it('iyzico after a partial capture: the refund waits as a manual refund; confirm and cancel', async () => {
      const p = await authorized('iyzico');
      await post(`/payments/${p.id}/capture?amount=60`);
      const manual = await post(`/payments/${p.id}/refund`, { amount: 20 });
      expect(manual.status, manual.text).to.equal(201);
      expect(manual.json).to.include({ status: 'PARTIALLY_CAPTURED', refunded: 0, pendingManualRefund: 20, refundable: 40 });
      expectProblem(await post(`/payments/${p.id}/refund/confirm-manual`, { amount: 19 }), 409, 'manual_refund_amount_mismatch');
      const confirmed = await post(`/payments/${p.id}/refund/confirm-manual`, { amount: 20, reference: 'bank transfer 123' });
      expect(confirmed.json).to.include({ status: 'PARTIALLY_REFUNDED', refunded: 20, pendingManualRefund: 0 });
      expectProblem(await post(`/payments/${p.id}/refund/confirm-manual`, { amount: 20 }), 409, 'no_pending_manual_refund');
      await post(`/payments/${p.id}/refund`, { amount: 10 });
      const cancelled = await post(`/payments/${p.id}/refund/cancel-manual`);
      expect(cancelled.json).to.include({ status: 'PARTIALLY_REFUNDED', refunded: 20, pendingManualRefund: 0, refundable: 40 });
      expect(cancelled.json.operations.map((o: any) => o.kind)).to.deep.equal([
        'AUTHORIZE',
        'CAPTURE',
        'MANUAL_REFUND_REQUESTED',
        'MANUAL_REFUND_CONFIRMED',
        'MANUAL_REFUND_REQUESTED',
        'MANUAL_REFUND_CANCELLED',
      ]);
      expectProblem(await post(`/payments/${p.id}/refund/cancel-manual`), 409, 'no_pending_manual_refund');
    });

    it('refuses an amount above the unpaid total, and a cancelled order', async () => {
      const orderId = await order(m, '50.00');
      await authorized('stripe', 30, orderId);
      expectProblem(
        await authorize({ orderId, provider: 'stripe', card: cardOf(find('stripe', 'SUCCESS')), amount: 20.01 }),
        409,
        'amount_exceeds_unpaid',
      );
      const rest = await authorize({ orderId, provider: 'stripe', card: cardOf(find('stripe', 'SUCCESS')) });
      expect(rest.json).to.include({ status: 'AUTHORIZED', amount: 20 });
      expectProblem(await authorize({ orderId, provider: 'stripe', card: cardOf(find('stripe', 'SUCCESS')) }), 409, 'order_not_payable');
      const cancelled = await order();
      await db(`UPDATE orders SET status = 'CANCELLED', cancelled_at = now() WHERE id = $1`, [cancelled]);
      expectProblem(
        await authorize({ orderId: cancelled, provider: 'stripe', card: cardOf(find('stripe', 'SUCCESS')) }),
        409,
        'order_not_payable',
      );
    });
  });

  describe('reconciliation', () => {
    it('random partial captures and refunds (seeded) reconcile to the cent in SQL', async () => {
      let seed = 20_240_601;
      const random = (): number => {
        seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
        return seed / 2 ** 31;
      };
      const orderId = await order(m, '987.65');
      const ids: string[] = [];
      for (const amount of [400, 300.65, 287])
        ids.push((await authorized(['iyzico', 'stripe', 'adyen'][ids.length] as PaymentProviderName, amount, orderId)).id);
      for (let step = 0; step < 60; step += 1) {
        const id = ids[Math.floor(random() * ids.length)]!;
        const cents = 1 + Math.floor(random() * 12_000);
        const amount = cents / 100;
        const action = random() < 0.55 ? 'capture' : 'refund';
        const res = await post(
          action === 'capture' ? `/payments/${id}/capture?amount=${amount}` : `/payments/${id}/refund`,
          action === 'capture' ? undefined : { amount },
        );
        expect([201, 409], res.text).to.include(res.status);
        if (res.json?.pendingManualRefund > 0) {
          const confirm = random() < 0.5;
          await post(
            `/payments/${id}/refund/${confirm ? 'confirm-manual' : 'cancel-manual'}`,
            confirm ? { amount: res.json.pendingManualRefund } : undefined,
          );
        }
      }
      const rows = await db(
        `SELECT p.id, p.captured - p.refunded AS net,
                COALESCE((SELECT SUM(CASE o.kind WHEN 'CAPTURE' THEN o.amount WHEN 'REFUND' THEN -o.amount WHEN 'MANUAL_REFUND_CONFIRMED' THEN -o.amount ELSE 0 END)
                  FROM payment_operations o WHERE o.payment_id = p.id), 0) AS ledger,
                p.captured <= p.amount AS within, p.refunded + p.pending_manual_refund <= p.captured AS refunds_within
           FROM payments p WHERE p.order_id = $1`,
        [orderId],
      );
      expect(rows).to.have.length(3);
      for (const r of rows) {
        expect(r.net, r.id).to.equal(r.ledger);
        expect(r.within).to.equal(true);
        expect(r.refunds_within).to.equal(true);
      }
      const [total] = await db(
        `SELECT SUM(p.captured) <= o.total AS captured_within, SUM(p.captured - p.refunded) <= o.total AS net_within
           FROM payments p JOIN orders o ON o.id = p.order_id WHERE p.order_id = $1 GROUP BY o.total`,
        [orderId],
      );
      expect(total).to.deep.equal({ captured_within: true, net_within: true });
      const [moved] = await db(
        `SELECT count(*)::int AS n FROM payment_operations o JOIN payments p ON p.id = o.payment_id WHERE p.order_id = $1 AND o.kind IN ('CAPTURE', 'REFUND')`,
        [orderId],
      );
      expect(moved.n).to.be.greaterThan(10);
    });
  });

  describe('access', () => {
    it('anonymous 401; another tenant gets 404 for the payment and the order; an API key with payments:write may act, one without it 403', async () => {
      const p = await authorized('stripe');
      expectProblem(await call(server, 'POST', `${API}/payments/${p.id}/capture`), 401, 'unauthorized');
      const other = suite.addMerchant(await merchant(server));
      expectProblem(await post(`/payments/${p.id}/capture`, undefined, other.headers), 404, 'payment_not_found');
      expectProblem(await post(`/payments/${p.id}/refund/cancel-manual`, undefined, other.headers), 404, 'payment_not_found');
      expectProblem(
        await authorize({ orderId: await order(), provider: 'stripe', card: cardOf(find('stripe', 'SUCCESS')) }, other.headers),
        404,
        'order_not_found',
      );
      const [row] = await db('SELECT status FROM payments WHERE id = $1', [p.id]);
      expect(row.status).to.equal('AUTHORIZED');
      const key = await apiKey(server, m, ['payments:write']);
      const cap = await post(`/payments/${p.id}/capture?amount=5`, undefined, key);
      expect(cap.status, cap.text).to.equal(201);
      const readOnly = await apiKey(server, m, ['catalog:write']);
      expect((await post(`/payments/${p.id}/capture?amount=5`, undefined, readOnly)).status).to.equal(403);
    });
  });
});
