/**
 * The storefront's cart and checkout in a real browser (Debian's chromium driven by playwright-core,
 * like web.test.ts): a shopper adds two products to the cart, checks out with a SUCCESS card and sees
 * the confirmation; checks out with a THREE_DS_CHALLENGE card, completes the simulator's challenge
 * page with the right code and sees the confirmation; a wrong code shows the decline on the checkout
 * page and the stock is back. The server listens on the address of PUBLIC_BASE_URL, since the
 * simulator's challenge page is served there.
 *
 * A missing browser fails these tests (scripts/test installs chromium with apt-get when it can);
 * CHROMIUM_PATH points at another binary.
 */
import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { merchant, product, variant, type Merchant } from '../helpers/fixtures';
import { startOnOwnAddress } from '../helpers/own-address';
import { readLimitKey, writeLimitKey } from '../../api/storefront-checkout/storefront-checkout.service';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

describe('web: cart and checkout in the browser', function () {
  this.timeout(120_000);
  let server: TestServer;
  let browser: Browser;
  let m: Merchant;
  let mug: { slug: string; variantId: string };
  let tea: { slug: string; variantId: string };
  const suite = apiSuite((started) => (server = started), { start: startOnOwnAddress });

  before(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    m = suite.addMerchant(await merchant(server));
    const make = async (title: string, price: string, stock: number) => {
      const slug = `${title.toLowerCase()}-${m.storeId.slice(-8)}`;
      const id = await product(server, m, { title, slug, price, status: 'PUBLISHED', published_at: new Date() });
      return { slug, variantId: await variant(server, m, id, { stock }) };
    };
    mug = await make('Mug', '12.35', 10);
    tea = await make('Tea', '7.10', 10);
    const rate = await call(server, 'POST', '/api/v1/shipping-rates', {
      headers: m.headers,
      body: { storeId: m.storeId, name: 'Istanbul courier', city: 'Istanbul', price: 4.99 },
    });
    expect(rate.status, rate.text).to.equal(201);
  });

  beforeEach(async () => {
    for (const ip of ['127.0.0.1', '::ffff:127.0.0.1']) {
      await server.runtime.services.rateLimiter.reset(readLimitKey(ip));
      await server.runtime.services.rateLimiter.reset(writeLimitKey(ip));
    }
  });

  after(async () => {
    await browser?.close();
  });

  const shop = (rest = ''): string => `${server.baseUrl}/shop/${m.storeId}${rest}`;
  const stockOf = async (variantId: string): Promise<number> =>
    (await server.runtime.dataSource.query('SELECT stock FROM product_variants WHERE id = $1', [variantId]))[0].stock;

  async function fillCart(page: Page): Promise<void> {
    await page.goto(shop(`/products/${mug.slug}`));
    await page.fill('#quantity', '2');
    await page.click('#add-to-cart');
    await page.waitForURL(shop('/cart'));
    await page.goto(shop(`/products/${tea.slug}`));
    await page.click('#add-to-cart');
    await page.waitForURL(shop('/cart'));
    expect(await page.textContent('#cart-subtotal')).to.equal('31.80 EUR');
  }

  async function checkout(page: Page, card: string): Promise<void> {
    await page.click('text=Check out');
    await page.fill('.ship-to input[name=city]', 'Istanbul');
    await page.fill('.ship-to input[name=district]', 'Kadıköy');
    await page.click('text=Show shipping options');
    expect(await page.textContent('#checkout-total')).to.equal('36.79 EUR');
    const form = page.locator('#checkout-form');
    await form.locator('input[name=email]').fill('shopper@example.test');
    await form.locator('input[name=name]').fill('Ayşe Yılmaz');
    await form.locator('input[name=line1]').fill('Bağdat Cd. 1');
    await form.locator('select[name=provider]').selectOption('iyzico');
    await form.locator('input[name=cardNumber]').fill(card);
    await form.locator('input[name=expiryMonth]').fill('12');
    await form.locator('input[name=expiryYear]').fill('2030');
    await form.locator('input[name=cvc]').fill('123');
    await form.locator('input[name=holderName]').fill('Sandbox Tester');
    await page.click('#pay');
  }

  it('adds two products to the cart and pays with a SUCCESS card: the confirmation page', async () => {
    const page = await browser.newPage();
    const before = await stockOf(mug.variantId);
    await fillCart(page);
    await checkout(page, '4111111111111111');
    await page.waitForURL(/\/orders\/[0-9a-f-]{36}\?key=/);
    expect(await page.textContent('h1')).to.contain('Thank you');
    expect(await page.textContent('#order-total')).to.equal('36.79 EUR');
    expect(await stockOf(mug.variantId)).to.equal(before - 2);
    // The cart is empty afterwards.
    await page.goto(shop('/cart'));
    expect(await page.textContent('.cart')).to.contain('Your cart is empty');
    await page.close();
  });

  it('pays with a 3-D Secure card: the challenge page with the right code leads to the confirmation', async () => {
    const page = await browser.newPage();
    await fillCart(page);
    await checkout(page, '5555555555554444');
    await page.waitForSelector('input[name=code]');
    await page.fill('input[name=code]', '283126');
    await page.click('button[type=submit]');
    await page.waitForURL(/\/orders\/[0-9a-f-]{36}\?key=/);
    expect(await page.textContent('h1')).to.contain('Thank you');
    expect(await page.getAttribute('.order-status', 'data-status')).to.equal('PAID');
    await page.close();
  });

  it('a wrong challenge code shows the decline and the stock is back', async () => {
    const page = await browser.newPage();
    const before = await stockOf(mug.variantId);
    await fillCart(page);
    await checkout(page, '5555555555554444');
    await page.waitForSelector('input[name=code]');
    expect(await stockOf(mug.variantId)).to.equal(before - 2);
    await page.fill('input[name=code]', '000000');
    await page.click('button[type=submit]');
    await page.waitForSelector('#checkout-error');
    expect(await page.textContent('#checkout-error')).to.contain('declined');
    expect(await stockOf(mug.variantId)).to.equal(before);
    await page.close();
  });

  it('a form post from another site is refused and changes nothing', async () => {
    const res = await fetch(shop('/cart/add'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'https://evil.example' },
      body: `variant=${mug.variantId}&quantity=1`,
      redirect: 'manual',
    });
    expect(res.status).to.equal(403);
    expect(res.headers.get('set-cookie')).to.equal(null);
  });
});
