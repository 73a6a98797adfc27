/**
 * A merchant pays a plan purchase through the 3-D Secure pages in a real browser (Debian's chromium
 * driven by playwright-core): our page for the purchase, the simulator's challenge page with the
 * card's code, and the return page that says the payment was received; the purchase is then PAID.
 * A wrong code ends on the return page saying the payment failed. The server listens on the address
 * of PUBLIC_BASE_URL, since the pages link to each other by absolute addresses.
 */
import { expect } from 'chai';
import { chromium, type Browser } from 'playwright-core';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { merchant, type Merchant } from '../helpers/fixtures';
import { startOnOwnAddress } from '../helpers/own-address';
import { TEST_CARDS } from '../../api/sandbox/sandbox.cards';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

describe('web: a plan purchase paid through the 3-D Secure pages in the browser', function () {
  this.timeout(120_000);
  let server: TestServer;
  let browser: Browser;
  const suite = apiSuite((started) => (server = started), { start: startOnOwnAddress });

  before(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  });
  after(async () => {
    await browser?.close();
  });

  const challengeCard = TEST_CARDS.find((c) => c.provider === 'stripe' && c.flow === 'THREE_DS_CHALLENGE')!;

  /** A purchase of STARTER paid with the 3-D Secure card: the address of our page for it. */
  async function purchaseNeedingChallenge(m: Merchant): Promise<{ id: string; page: string }> {
    const checkout = await call(server, 'POST', '/api/v1/billing/subscription/checkout', { headers: m.headers, body: { plan: 'STARTER' } });
    expect(checkout.status, checkout.text).to.equal(200);
    const card = {
      number: challengeCard.number,
      expiryMonth: challengeCard.expiryMonth,
      expiryYear: challengeCard.expiryYear,
      cvc: challengeCard.cvc,
      holderName: challengeCard.holderName,
    };
    const paid = await call(server, 'POST', `/api/v1/billing/plan-purchases/${checkout.json.id}/pay`, {
      headers: m.headers,
      body: { provider: 'stripe', card },
    });
    expect(paid.status, paid.text).to.equal(200);
    expect(paid.json.status).to.equal('REQUIRES_ACTION');
    return { id: checkout.json.id, page: new URL(paid.json.nextAction.url, server.baseUrl).toString() };
  }

  const statusOf = async (m: Merchant, id: string): Promise<string> =>
    (await call(server, 'GET', `/api/v1/billing/plan-purchases/${id}/status`, { headers: m.headers })).json.status;

  for (const [label, code, heading, status] of [
    ['the right code: paid', challengeCard.threeDsCode!, 'Payment received', 'PAID'],
    ['a wrong code: failed', '000000', 'Payment failed', 'FAILED'],
  ] as const) {
    it(`completes the challenge with ${label}`, async () => {
      const m = suite.addMerchant(await merchant(server));
      const purchase = await purchaseNeedingChallenge(m);
      const page = await browser.newPage();
      try {
        await page.goto(purchase.page);
        expect(await page.textContent('h1')).to.equal('Confirm your payment');
        await page.click('#challenge');
        await page.waitForSelector('#code');
        await page.fill('#code', code);
        await Promise.all([page.waitForURL(/\/billing\/plan-purchases\/callback\/stripe/), page.click('button[type=submit]')]);
        expect(await page.textContent('h1')).to.equal(heading);
      } finally {
        await page.close();
      }
      expect(await statusOf(m, purchase.id)).to.equal(status);
    });
  }
});
