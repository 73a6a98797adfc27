/**
 * Billing for the platform operator over HTTP: who may call the platform rows (platform_admin only),
 * subscription invoices through their states (numbering without gaps, refused moves, delete only a
 * DRAFT), collecting a FAILED invoice again with the saved card (success and decline), dunning cases
 * step by step (by hand and by the scheduler on a fast clock), the tenant suspended (writes 403
 * tenant_suspended, reads and billing open) and lifted again, with notifications and e-mails.
 */
import { expect } from 'chai';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem, platformStaff, type Staff } from '../helpers/accounts';
import { merchant, uniqueSlug, type Merchant } from '../helpers/fixtures';
import { uuidv7 } from '../../storage/ids';
import { systemContext } from '../../storage/request-context';
import { billingRoutes } from '../../api/billing/billing.routes';
import { runDunningPass } from '../../api/billing/dunning-scheduler';
import { TEST_CARDS } from '../../api/sandbox/sandbox.cards';

const API = '/api/v1';

describe('Billing: invoices, dunning and suspension', function () {
  this.timeout(60_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  let admin: Staff;
  let agent: Staff;
  let rep: Staff;
  before(async () => {
    admin = await platformStaff(server, 'platform_admin');
    agent = await platformStaff(server, 'support_agent');
    rep = await platformStaff(server, 'sales_rep');
  });
  const newMerchant = async (): Promise<Merchant> => suite.addMerchant(await merchant(server));
  const db = (sql: string, params: unknown[] = []): Promise<any[]> => server.runtime.dataSource.query(sql, params);
  const as = (
    who: { headers: Record<string, string> } | undefined,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => call(server, method, `${API}${path}`, { headers: { ...(who?.headers ?? {}), ...headers }, body });

  async function draft(m: Merchant, lines = [{ description: 'Growth plan', quantity: 1, unitPrice: 799 }]): Promise<Record<string, any>> {
    const res = await as(admin, 'PUT', '/billing/invoices', { tenantId: m.owner.tenantId, planCode: 'GROWTH', lines });
    expect(res.status, res.text).to.equal(200);
    return res.json;
  }
  const advance = (id: string, to: string, reason?: string): Promise<TestResponse> =>
    as(admin, 'POST', `/billing/invoices/${id}/advance`, reason ? { to, reason } : { to });

  describe('access', () => {
    it('every platform row is platform_admin only; merchants, support agents and sales reps are refused', async () => {
      const rows = billingRoutes.filter((r) => r.auth === 'platform');
      expect(rows).to.have.length(9);
      for (const row of rows) expect(row.platformRoles, row.operationId).to.deep.equal(['platform_admin']);
      for (const row of billingRoutes) expect(row.handler, row.operationId).to.be.a('function');
      const m = await newMerchant();
      for (const row of rows) {
        const path = row.path.replace('{id}', uuidv7());
        const body = row.body ? {} : undefined;
        expectProblem(await as(undefined, row.method, path, body), 401, 'unauthorized');
        expectProblem(await as(m, row.method, path, body), 403, 'forbidden');
        expectProblem(await as(agent, row.method, path, body), 403, 'platform_role_required');
        expectProblem(await as(rep, row.method, path, body), 403, 'platform_role_required');
      }
      expect((await as(admin, 'GET', '/billing/invoices')).status).to.equal(200);
    });
  });

  describe('invoices', () => {
    it('computes exact totals, numbers invoices without gaps as they leave DRAFT, and refuses other moves', async () => {
      const m = await newMerchant();
      const a = await draft(m, [
        { description: 'Growth plan', quantity: 1, unitPrice: 799 },
        { description: 'Extra store', quantity: 3, unitPrice: 33.33 },
      ]);
      expect(a).to.deep.include({ status: 'DRAFT', number: null, subtotal: 898.99, vatAmount: 179.8, total: 1078.79 });
      const b = await draft(m);
      const c = await draft(m);
      // A draft is replaced and deleted; a deleted draft takes no number.
      const replaced = await as(admin, 'PUT', '/billing/invoices', {
        id: b.id,
        tenantId: m.owner.tenantId,
        lines: [{ description: 'X', quantity: 2, unitPrice: 10 }],
        vatRate: 0,
      });
      expect(replaced.json).to.deep.include({ total: 20, vatAmount: 0 });
      const del = await as(admin, 'DELETE', `/billing/invoices/${b.id}`);
      expect(del.status, del.text).to.equal(204);
      const year = new Date().getUTCFullYear();
      expect((await advance(c.id, 'OPEN')).json.number).to.equal(`INV-${year}-000001`);
      const opened = await advance(a.id, 'OPEN');
      expect(opened.json).to.deep.include({ status: 'OPEN', number: `INV-${year}-000002` });
      expect(opened.json.issuedAt).to.be.a('string');
      // Refused: DRAFT → PAID, delete a numbered invoice, change a non-draft, PAID → anything.
      const d = await draft(m);
      expectProblem(await advance(d.id, 'PAID'), 409, 'invoice_transition_refused');
      expectProblem(await as(admin, 'DELETE', `/billing/invoices/${a.id}`), 409, 'invoice_transition_refused');
      expectProblem(
        await as(admin, 'PUT', '/billing/invoices', {
          id: a.id,
          tenantId: m.owner.tenantId,
          lines: [{ description: 'X', quantity: 1, unitPrice: 1 }],
        }),
        409,
        'invoice_transition_refused',
      );
      expect((await advance(a.id, 'PAID')).json.status).to.equal('PAID');
      expectProblem(await advance(a.id, 'VOID'), 409, 'invoice_transition_refused');
      expect((await advance(c.id, 'VOID')).json.status).to.equal('VOID');
      expectProblem(await as(admin, 'POST', `/billing/invoices/${uuidv7()}/advance`, { to: 'OPEN' }), 404, 'invoice_not_found');
      // The merchant sees its numbered invoices, never a draft; the tenant was notified.
      const mine = await as(m, 'GET', '/billing/my-invoices');
      expect(mine.json.items.map((i: any) => i.number).sort()).to.deep.equal([`INV-${year}-000001`, `INV-${year}-000002`]);
      const notes = await db(
        "SELECT count(*)::int AS n FROM merchant_notifications WHERE tenant_id = $1 AND topic = 'billing.invoice_issued'",
        [m.owner.tenantId],
      );
      expect(notes[0].n).to.equal(2);
      const audit = await db("SELECT action FROM audit_log WHERE tenant_id = $1 AND resource_type = 'subscription_invoice'", [
        m.owner.tenantId,
      ]);
      expect(audit.map((r) => r.action)).to.include.members([
        'subscription_invoice.create',
        'subscription_invoice.update',
        'subscription_invoice.delete',
        'subscription_invoice.open',
        'subscription_invoice.paid',
        'subscription_invoice.void',
      ]);
    });

    it('collects a FAILED invoice again with the saved card: declined stays FAILED, a good card pays it and resolves its dunning case', async () => {
      const m = await newMerchant();
      const inv = await draft(m);
      await advance(inv.id, 'OPEN');
      expectProblem(await as(admin, 'POST', `/billing/invoices/${inv.id}/retry`), 409, 'no_payment_method');
      const failed = await advance(inv.id, 'FAILED', 'card expired');
      expect(failed.json).to.deep.include({ status: 'FAILED', lastError: 'card expired' });
      const [open] = await db('SELECT step FROM billing_dunning_cases WHERE invoice_id = $1', [inv.id]);
      expect(open.step).to.equal('REMINDER');
      // The card is saved by a plan purchase paid with saveCard: the provider keeps it, we keep its token. The test then
      // makes the provider's saved card a declining one (as a bank that starts to refuse it).
      const checkout = await as(m, 'POST', '/billing/subscription/checkout', { plan: 'STARTER' });
      const ok = TEST_CARDS.find((c) => c.provider === 'stripe' && c.flow === 'SUCCESS')!;
      const card = { number: ok.number, expiryMonth: ok.expiryMonth, expiryYear: ok.expiryYear, cvc: ok.cvc, holderName: ok.holderName };
      const paid = await as(m, 'POST', `/billing/plan-purchases/${checkout.json.id}/pay`, { provider: 'stripe', card, saveCard: true });
      expect(paid.json.status, paid.text).to.equal('PAID');
      const [saved] = await db('SELECT * FROM billing_payment_methods WHERE tenant_id = $1', [m.owner.tenantId]);
      expect(saved.card_last4).to.equal('4242');
      expect(saved.card_token).to.match(/^card_[0-9a-f]{24}$/);
      expect(JSON.stringify(saved), 'no card number or CVC on our side')
        .to.not.contain('4242424242424242')
        .and.not.contain(`"${card.cvc}"`);
      // A declining card on file: the retry stays FAILED with the reason, attempts counted.
      const fraud = TEST_CARDS.find((c) => c.provider === 'stripe' && c.flow === 'FRAUD_DECLINE')!;
      await db('UPDATE provider_sim_cards SET number = $2 WHERE token = $1', [saved.card_token, fraud.number]);
      const declined = await as(admin, 'POST', `/billing/invoices/${inv.id}/retry`);
      expect(declined.status, declined.text).to.equal(200);
      expect(declined.json).to.deep.include({ status: 'FAILED' });
      expect(declined.json.lastError).to.match(/^fraud_suspected/);
      // A saved card that asks for 3-D Secure cannot be charged with nobody present.
      const challenge = TEST_CARDS.find((c) => c.provider === 'stripe' && c.flow === 'THREE_DS_CHALLENGE')!;
      await db('UPDATE provider_sim_cards SET number = $2 WHERE token = $1', [saved.card_token, challenge.number]);
      const unauthenticated = await as(admin, 'POST', `/billing/invoices/${inv.id}/retry`);
      expect(unauthenticated.json.lastError).to.match(/^authentication_required/);
      await db('UPDATE provider_sim_cards SET number = $2 WHERE token = $1', [saved.card_token, card.number]);
      const key = { 'Idempotency-Key': `retry-${uuidv7()}` };
      const retried = await as(admin, 'POST', `/billing/invoices/${inv.id}/retry`, undefined, key);
      expect(retried.json).to.deep.include({ status: 'PAID', lastError: null });
      expect(retried.json.attempts).to.equal(3);
      expect((await as(admin, 'POST', `/billing/invoices/${inv.id}/retry`, undefined, key)).json).to.deep.equal(retried.json);
      const [resolved] = await db('SELECT step FROM billing_dunning_cases WHERE invoice_id = $1', [inv.id]);
      expect(resolved.step).to.equal('RESOLVED');
      expectProblem(await as(admin, 'POST', `/billing/invoices/${inv.id}/retry`), 409, 'invoice_transition_refused');
    });
  });

  describe('dunning and suspension', () => {
    async function openCase(m: Merchant): Promise<{ invoiceId: string; caseId: string }> {
      const inv = await draft(m);
      await advance(inv.id, 'OPEN');
      const res = await as(admin, 'PUT', '/billing/dunning', { invoiceId: inv.id, note: 'called twice' });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.deep.include({ step: 'REMINDER', note: 'called twice', tenantId: m.owner.tenantId });
      return { invoiceId: inv.id, caseId: res.json.id };
    }

    it('steps REMINDER → GRACE → SUSPENDED by hand, refuses writes while suspended, and lifts it when resolved', async () => {
      const m = await newMerchant();
      const { invoiceId, caseId } = await openCase(m);
      expectProblem(await as(admin, 'PUT', '/billing/dunning', { invoiceId }), 409, 'dunning_case_exists');
      const grace = await as(admin, 'POST', `/billing/dunning/${caseId}/advance`, {});
      expect(grace.json.step).to.equal('GRACE');
      const suspended = await as(admin, 'POST', `/billing/dunning/${caseId}/advance`, { to: 'SUSPENDED' });
      expect(suspended.json).to.deep.include({ step: 'SUSPENDED', nextStepAt: null });
      expectProblem(await as(admin, 'POST', `/billing/dunning/${caseId}/advance`, { to: 'GRACE' }), 409, 'dunning_transition_refused');
      expectProblem(await as(admin, 'DELETE', `/billing/dunning/${caseId}`), 409, 'dunning_transition_refused');

      const write = await as(m, 'POST', '/organization/stores', { name: 'More', slug: uniqueSlug('more') });
      expectProblem(write, 403, 'tenant_suspended');
      expect((await as(m, 'GET', '/organization/summary')).status).to.equal(200);
      const sub = await as(m, 'GET', '/billing/subscription');
      expect(sub.json.suspended).to.equal(true);
      // The storefront is closed meanwhile (the public read says so; the shop answers 503).
      const visibility = await call(server, 'GET', `/api/v1/catalog/public/stores/${m.storeId}/price-visibility`);
      expect(visibility.json.open).to.equal(false);
      const closedShop = await fetch(`${server.baseUrl}/shop/${m.storeId}`);
      expect(closedShop.status).to.equal(503);
      expect(await closedShop.text()).to.contain('temporarily unavailable');
      // Billing stays open: the tenant can still start a purchase.
      expect((await as(m, 'POST', '/billing/subscription/checkout', { plan: 'STARTER' })).status).to.equal(200);

      const resolved = await as(admin, 'POST', `/billing/dunning/${caseId}/advance`, { to: 'RESOLVED' });
      expect(resolved.json.step).to.equal('RESOLVED');
      expect(resolved.json.resolvedAt).to.be.a('string');
      expectProblem(await as(admin, 'POST', `/billing/dunning/${caseId}/advance`, {}), 409, 'dunning_transition_refused');
      const again = await as(m, 'POST', '/organization/stores', { name: 'More', slug: uniqueSlug('more') });
      expect(again.status, again.text).to.equal(201);
      expect((await fetch(`${server.baseUrl}/shop/${m.storeId}`)).status).to.equal(200);

      const topics = await db('SELECT topic FROM merchant_notifications WHERE tenant_id = $1 AND topic LIKE $2 ORDER BY created_at', [
        m.owner.tenantId,
        'billing.dunning_%',
      ]);
      expect(topics.map((t) => t.topic)).to.deep.equal([
        'billing.dunning_reminder',
        'billing.dunning_grace',
        'billing.dunning_suspended',
        'billing.dunning_resolved',
      ]);
      const mails = await db("SELECT template FROM outbound_messages WHERE tenant_id = $1 AND template LIKE 'billing.dunning_%'", [
        m.owner.tenantId,
      ]);
      expect(mails).to.have.length(4);
      const deleted = await as(admin, 'DELETE', `/billing/dunning/${caseId}`);
      expect(deleted.status).to.equal(204);
    });

    it('the scheduler moves a due case one step per pass on a fast clock, suspends, and paying the invoice lifts it', async () => {
      const m = await newMerchant();
      const { invoiceId, caseId } = await openCase(m);
      const ctx = () => systemContext(server.runtime.dataSource, uuidv7(), undefined, 'test', server.runtime.services);
      const config = server.runtime.config.billing;
      const day = 86_400_000;
      await runDunningPass(ctx(), new Date(Date.now() + config.dunningGraceAfterMs + 60_000));
      const [grace] = await db('SELECT step FROM billing_dunning_cases WHERE id = $1', [caseId]);
      expect(grace.step).to.equal('GRACE');
      await runDunningPass(ctx(), new Date(Date.now() + config.dunningSuspendAfterMs + day));
      const [suspended] = await db('SELECT step FROM billing_dunning_cases WHERE id = $1', [caseId]);
      expect(suspended.step).to.equal('SUSPENDED');
      expectProblem(
        await as(m, 'POST', '/catalog/products', { storeId: m.storeId, title: 'X', type: 'PHYSICAL', price: 1 }),
        403,
        'tenant_suspended',
      );
      expect((await advance(invoiceId, 'PAID')).json.status).to.equal('PAID');
      const [lifted] = await db('SELECT step FROM billing_dunning_cases WHERE id = $1', [caseId]);
      expect(lifted.step).to.equal('RESOLVED');
      const ok = await as(m, 'POST', '/catalog/products', { storeId: m.storeId, title: 'X', type: 'PHYSICAL', price: 1 });
      expect(ok.status, ok.text).to.equal(201);
      const list = await as(admin, 'GET', `/billing/dunning?tenantId=${m.owner.tenantId}`);
      expect(list.json.items.map((c: any) => c.id)).to.deep.equal([caseId]);
    });

    it('refuses a case for a paid or draft invoice and pages the lists', async () => {
      const m = await newMerchant();
      const inv = await draft(m);
      expectProblem(await as(admin, 'PUT', '/billing/dunning', { invoiceId: inv.id }), 409, 'dunning_invoice_not_unpaid');
      for (let i = 0; i < 3; i += 1) await draft(m);
      const first = await as(admin, 'GET', `/billing/invoices?tenantId=${m.owner.tenantId}&limit=2`);
      expect(first.json.items).to.have.length(2);
      const second = await as(admin, 'GET', `/billing/invoices?tenantId=${m.owner.tenantId}&limit=2&cursor=${first.json.nextCursor}`);
      expect(second.json.items).to.have.length(2);
      expect(second.json.nextCursor).to.equal(null);
      expectProblem(await as(admin, 'GET', '/billing/invoices?cursor=abc'), 400, 'validation_failed');
    });
  });
});
