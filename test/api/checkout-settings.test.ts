/**
 * Checkout settings: the defaults before anything is saved, every validation bound, replacing the
 * settings (audited once per change), tenant isolation, and the onboarding step they complete.
 */
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { auditRows, expectProblem } from '../helpers/accounts';
import { merchant, type Merchant } from '../helpers/fixtures';

describe('checkout settings', function () {
  this.timeout(60_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  const newMerchant = async (): Promise<Merchant> => suite.addMerchant(await merchant(server));

  const get = (m: Merchant, storeId = m.storeId) =>
    call(server, 'GET', `/api/v1/checkout-settings?storeId=${storeId}`, { headers: m.headers });
  const put = (m: Merchant, body: Record<string, unknown>) =>
    call(server, 'PUT', '/api/v1/checkout-settings', { headers: m.headers, body: { storeId: m.storeId, ...body } });

  it('answers the defaults when nothing is saved', async () => {
    const m = await newMerchant();
    const res = await get(m);
    expect(res.status, res.text).to.equal(200);
    expect(res.json).to.deep.equal({
      storeId: m.storeId,
      configured: false,
      enabledProviders: ['iyzico', 'stripe', 'adyen'],
      defaultProvider: 'iyzico',
      threeDsPolicy: 'RISK_BASED',
      installments: { enabled: false, maxCount: 1, minAmount: 0 },
      guestCheckout: true,
      requirePhone: false,
      termsUrl: null,
      termsText: null,
      readyToSell: true,
      updatedAt: null,
    });
    expectProblem(await call(server, 'GET', '/api/v1/checkout-settings', { headers: m.headers }), 400, 'validation_failed');
  });

  it('saves and replaces the settings, audited once per change; fields left out take their defaults', async () => {
    const m = await newMerchant();
    const full = {
      enabledProviders: ['stripe', 'adyen'],
      defaultProvider: 'adyen',
      threeDsPolicy: 'ALWAYS',
      installments: { enabled: true, maxCount: 12, minAmount: 250.5 },
      guestCheckout: false,
      requirePhone: true,
      termsUrl: 'https://shop.example.com/terms',
    };
    const saved = await put(m, full);
    expect(saved.status, saved.text).to.equal(200);
    expect(saved.json).to.deep.include({ ...full, configured: true, termsText: null, readyToSell: true });
    expect((await get(m)).json).to.deep.equal(saved.json);
    // The same again writes nothing.
    expect((await put(m, full)).json.updatedAt).to.equal(saved.json.updatedAt);

    const replaced = await put(m, { enabledProviders: ['iyzico'], termsText: '  Our terms.  ' });
    expect(replaced.json).to.deep.include({
      enabledProviders: ['iyzico'],
      defaultProvider: 'iyzico',
      threeDsPolicy: 'RISK_BASED',
      installments: { enabled: false, maxCount: 1, minAmount: 0 },
      guestCheckout: true,
      requirePhone: false,
      termsUrl: null,
      termsText: 'Our terms.',
    });
    const none = await put(m, { enabledProviders: [] });
    expect(none.json).to.include({ readyToSell: false, defaultProvider: null, configured: true });

    const audit = (await auditRows(server, m.owner.tenantId)).filter((a) => a.resource_type === 'checkout_settings');
    expect(audit.map((a) => a.action)).to.deep.equal(['checkout_settings.create', 'checkout_settings.update', 'checkout_settings.update']);
    expect(audit[0]!.after).to.include({ defaultProvider: 'adyen', threeDsPolicy: 'ALWAYS', installmentsMaxCount: 12 });
    expect(audit[1]!.before).to.include({ defaultProvider: 'adyen' });
  });

  it('refuses every value out of its bounds and inconsistent settings, saving nothing', async () => {
    const m = await newMerchant();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'body.enabledProviders'],
      [{ enabledProviders: ['paypal'] }, 'body.enabledProviders[0]'],
      [{ enabledProviders: ['stripe', 'stripe'] }, 'body.enabledProviders[1]'],
      [{ enabledProviders: ['stripe'], defaultProvider: 'iyzico' }, 'body.defaultProvider'],
      [{ enabledProviders: ['stripe'], defaultProvider: 'paypal' }, 'body.defaultProvider'],
      [{ enabledProviders: ['stripe'], threeDsPolicy: 'SOMETIMES' }, 'body.threeDsPolicy'],
      [{ enabledProviders: ['stripe'], installments: { enabled: true, maxCount: 13 } }, 'body.installments.maxCount'],
      [{ enabledProviders: ['stripe'], installments: { enabled: true, maxCount: 0 } }, 'body.installments.maxCount'],
      [{ enabledProviders: ['stripe'], installments: { enabled: true, maxCount: 1 } }, 'body.installments.maxCount'],
      [{ enabledProviders: ['stripe'], installments: { enabled: true, maxCount: 3, minAmount: -1 } }, 'body.installments.minAmount'],
      [
        { enabledProviders: ['stripe'], installments: { enabled: true, maxCount: 3, minAmount: 1_000_000_001 } },
        'body.installments.minAmount',
      ],
      [{ enabledProviders: ['stripe'], installments: { maxCount: 3 } }, 'body.installments.enabled'],
      [{ enabledProviders: ['stripe'], guestCheckout: 'yes' }, 'body.guestCheckout'],
      [{ enabledProviders: ['stripe'], termsUrl: 'ftp://example.com/terms' }, 'body.termsUrl'],
      [{ enabledProviders: ['stripe'], termsUrl: `https://example.com/${'a'.repeat(2000)}` }, 'body.termsUrl'],
      [{ enabledProviders: ['stripe'], termsText: 'x'.repeat(20001) }, 'body.termsText'],
      [{ enabledProviders: ['stripe'], termsText: '   ' }, 'body.termsText'],
      [{ enabledProviders: ['stripe'], termsUrl: 'https://example.com/t', termsText: 'Terms' }, 'body'],
      [{ enabledProviders: ['stripe'], surprise: 1 }, 'body.surprise'],
    ];
    for (const [body, path] of cases) {
      const res = await put(m, body);
      expectProblem(res, 400, 'validation_failed');
      expect(
        res.json.errors.map((e: { path: string }) => e.path),
        JSON.stringify(body).slice(0, 100),
      ).to.include(path);
    }
    expectProblem(
      await call(server, 'PUT', '/api/v1/checkout-settings', { headers: m.headers, body: { enabledProviders: ['stripe'] } }),
      400,
      'validation_failed',
    );
    // The bounds themselves are accepted.
    const edge = await put(m, {
      enabledProviders: ['iyzico', 'stripe', 'adyen'],
      installments: { enabled: true, maxCount: 2, minAmount: 1_000_000_000 },
      termsUrl: `https://e.com/${'a'.repeat(1986)}`,
    });
    expect(edge.status, edge.text).to.equal(200);
    expect(edge.json.installments).to.deep.equal({ enabled: true, maxCount: 2, minAmount: 1_000_000_000 });
    expect((await put(m, { enabledProviders: ['stripe'], termsText: 'x'.repeat(20000) })).status).to.equal(200);
  });

  it("another tenant's store answers 404 and is not changed; the onboarding step follows the saved settings", async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    expectProblem(await get(b, a.storeId), 404, 'store_not_found');
    expectProblem(
      await call(server, 'PUT', '/api/v1/checkout-settings', {
        headers: b.headers,
        body: { storeId: a.storeId, enabledProviders: ['stripe'] },
      }),
      404,
      'store_not_found',
    );
    expect((await get(a)).json.configured).to.equal(false);
    expect((await call(server, 'GET', `/api/v1/checkout-settings?storeId=${a.storeId}`)).status).to.equal(401);

    const step = async () =>
      (await call(server, 'GET', '/api/v1/organization/onboarding-status', { headers: a.headers })).json.steps.find(
        (s: any) => s.key === 'checkout_configured',
      );
    expect(await step()).to.include({ done: false, available: true });
    await put(a, { enabledProviders: ['adyen'] });
    expect(await step()).to.include({ done: true });
  });
});
