/**
 * The storefront search page's filters in a real browser (Debian's chromium driven by playwright-core,
 * like web.test.ts): on a phone (390 px) they sit behind a "Filters" button above the results and open
 * as a modal drawer; on a desktop the sidebar shows and there is no button. The price filter offers
 * ranges derived from the store's prices (nice bounds inside the real range, each with products,
 * counts adding up to the total) or exactly the merchant's configured ones, and a slider bounded by
 * the lowest and highest price of the results; a store that hides prices shows no price filter.
 *
 * A missing browser fails these tests (scripts/test installs chromium with apt-get when it can);
 * CHROMIUM_PATH points at another binary.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { brand, merchant, product, variant, type Merchant } from '../helpers/fixtures';
import { deliverIndexRows, indexHandler } from '../helpers/indexing';
import { NICE_LADDER } from '../../search/price-buckets';
import { PROJECT_ROOT } from '../../lib/config';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = path.join(PROJECT_ROOT, 'test-artifacts');

/** 30 prices from 131.5 to 7,690.99, evenly in log scale (the demo shop's span). */
const PRICES = Array.from({ length: 30 }, (_, i) => Math.round(131.5 * (7690.99 / 131.5) ** (i / 29) * 100) / 100);

describe('web: search filters on a phone and a desktop, price ranges and the price slider', function () {
  this.timeout(120_000);
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let derived: Merchant;
  let configured: Merchant;
  const brands: Record<string, string> = {};
  const suite = apiSuite((started) => (server = started));

  /** A store with one published product per price (brands Acme and Zenith in turn), indexed. */
  async function stock(m: Merchant, prices: number[]): Promise<void> {
    const acme = await brand(server, m, { name: 'Acme' });
    const zenith = await brand(server, m, { name: 'Zenith' });
    if (m === derived) Object.assign(brands, { acme, zenith });
    const ids: string[] = [];
    for (const [i, price] of prices.entries()) {
      const id = await product(server, m, {
        title: i === 0 ? 'Brass Lamp' : `Lamp ${i + 1}`,
        price,
        status: 'PUBLISHED',
        brand_id: i % 2 === 0 ? acme : zenith,
        published_at: new Date(),
      });
      await variant(server, m, id, { stock: 4 });
      ids.push(id);
    }
    await indexHandler(server).indexer.syncProducts(ids);
  }

  const shop = (m: Merchant, rest = ''): string => `${server.baseUrl}/shop/${m.storeId}${rest}`;
  const resultPrices = (): Promise<number[]> =>
    page.$$eval('#results .card [data-price]', (els) => els.map((e) => Number(e.getAttribute('data-price'))));
  const total = async (): Promise<number> => Number((await page.locator('#result-count').textContent())!.match(/\d+/)![0]);
  const buckets = (): Promise<Array<{ label: string; min: number; max: number | null; count: number; href: string }>> =>
    page.$$eval('fieldset[data-facet="price"] ul.buckets a', (links) =>
      links.map((a) => ({
        label: (a.firstChild?.textContent ?? '').trim(),
        min: Number(a.getAttribute('data-bucket-min')),
        max: a.hasAttribute('data-bucket-max') ? Number(a.getAttribute('data-bucket-max')) : null,
        count: Number(a.querySelector('[data-count]')?.getAttribute('data-count')),
        href: a.getAttribute('href') ?? '',
      })),
    );
  const activeInDrawer = (): Promise<boolean> =>
    page.evaluate<boolean>("Boolean(document.activeElement && document.activeElement.closest('#facets'))");

  before(async () => {
    if (!fs.existsSync(CHROMIUM))
      throw new Error(
        `No browser at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium; scripts/test does it as root) or set CHROMIUM_PATH.`,
      );
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    derived = suite.addMerchant(await merchant(server, { currency: 'TRY' }), { indexed: true });
    configured = suite.addMerchant(await merchant(server, { currency: 'TRY' }), { indexed: true });
    const put = await call(server, 'PUT', `/api/v1/storefront/filter-config?storeId=${configured.storeId}`, {
      headers: configured.headers,
      body: {
        facets: [
          { key: 'brand', label: 'Brand', display: 'checkbox' },
          { key: 'price', label: 'Price', display: 'range' },
        ],
        priceBuckets: [
          { min: 0, max: 1000, label: 'Up to 1,000' },
          { min: 1000, max: 5000 },
          { min: 5000, max: null },
        ],
      },
    });
    expect(put.status, put.text).to.equal(200);
    await stock(derived, PRICES);
    await stock(configured, PRICES);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  });

  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
  });
  afterEach(async () => context?.close());
  after(async () => browser?.close());

  it('on a phone: a Filters button above the results opens the filters as a drawer; a filter applies; Escape and Close close it', async () => {
    await page.goto(shop(derived, '/search'));
    const button = page.getByRole('button', { name: /^Filters/ });
    const drawer = page.locator('#facets');
    expect(await button.isVisible()).to.equal(true);
    expect(await drawer.isVisible()).to.equal(false);
    expect(await button.getAttribute('aria-expanded')).to.equal('false');
    expect(await button.getAttribute('aria-controls')).to.equal('facets');
    // Above the results, and near the top of the page: not 4,900 px down.
    const buttonBox = (await button.boundingBox())!;
    const firstCard = (await page.locator('#results .card').first().boundingBox())!;
    expect(buttonBox.y + buttonBox.height).to.be.at.most(firstCard.y);
    expect(buttonBox.y).to.be.below(400);

    await button.click();
    expect(await drawer.isVisible()).to.equal(true);
    expect(await button.getAttribute('aria-expanded')).to.equal('true');
    expect(await drawer.getAttribute('role')).to.equal('dialog');
    expect(await drawer.getAttribute('aria-modal')).to.equal('true');
    expect(await activeInDrawer()).to.equal(true);
    expect(await page.locator('fieldset[data-facet="brand"]').isVisible()).to.equal(true);
    expect(await page.locator('fieldset[data-facet="price"]').isVisible()).to.equal(true);
    expect(await page.getByLabel('Lowest price').isVisible()).to.equal(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'search-filters-phone-drawer.png') });
    // The page behind does not scroll.
    expect(await page.evaluate<string>('getComputedStyle(document.documentElement).overflow')).to.equal('hidden');
    // Tab stays inside the drawer.
    for (let i = 0; i < 25; i += 1) await page.keyboard.press('Tab');
    expect(await activeInDrawer()).to.equal(true);

    await page.keyboard.press('Escape');
    expect(await drawer.isVisible()).to.equal(false);
    expect(await button.getAttribute('aria-expanded')).to.equal('false');
    expect(await page.evaluate<string>("document.activeElement ? document.activeElement.id : ''")).to.equal('filters-toggle');
    expect(await page.evaluate<string>('getComputedStyle(document.documentElement).overflow')).to.not.equal('hidden');

    await button.click();
    await page.getByRole('button', { name: 'Close filters' }).click();
    expect(await drawer.isVisible()).to.equal(false);

    await button.click();
    await Promise.all([page.waitForURL(/brandIds=/), page.getByLabel(/^Acme/).check()]);
    expect(page.url()).to.contain(`brandIds=${brands.acme}`);
    expect(await total()).to.equal(15);
    expect(await page.getByRole('button', { name: /^Filters/ }).textContent()).to.equal('Filters (1)');
    expect(await page.locator('#facets').isVisible()).to.equal(false);
    await page.getByRole('button', { name: /^Filters/ }).click();
    expect(await page.getByLabel(/^Acme/).isChecked()).to.equal(true);
  });

  it('on a phone without JavaScript: the filters come above the results, with an Apply button', async () => {
    const plain = await browser.newContext({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
    try {
      const p = await plain.newPage();
      await p.goto(shop(derived, '/search'));
      expect(await p.locator('#filters-toggle').isVisible()).to.equal(false);
      const facets = (await p.locator('#facets').boundingBox())!;
      const firstCard = (await p.locator('#results .card').first().boundingBox())!;
      expect(facets.y).to.be.below(firstCard.y);
      await p.getByLabel('Min', { exact: true }).fill('1000');
      await Promise.all([p.waitForURL(/priceMin=1000/), p.getByRole('button', { name: 'Apply filters' }).click()]);
      const prices = await p.$$eval('#results .card [data-price]', (els) => els.map((e) => Number(e.getAttribute('data-price'))));
      expect(prices.length).to.be.greaterThan(0);
      for (const price of prices) expect(price).to.be.at.least(1000);
    } finally {
      await plain.close();
    }
  });

  it('on a desktop: the sidebar shows the filters and there is no Filters button', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(shop(derived, '/search'));
    expect(await page.locator('#facets').isVisible()).to.equal(true);
    expect(await page.locator('#filters-toggle').isVisible()).to.equal(false);
    expect(await page.locator('#facets').getAttribute('role')).to.equal(null);
    await page.screenshot({ path: path.join(ARTIFACTS, 'search-filters-desktop.png'), fullPage: true });
    const side = (await page.locator('#facets').boundingBox())!;
    const results = (await page.locator('#results').boundingBox())!;
    expect(side.x + side.width).to.be.at.most(results.x);
  });

  it('offers price ranges derived from the store: nice bounds inside the real range, each with products, adding up to the total; one filters to its range', async () => {
    await page.goto(shop(derived, '/search'));
    const all = await total();
    expect(all).to.equal(PRICES.length);
    const offered = await buckets();
    expect(offered.length).to.be.within(4, 5);
    const [lowest, highest] = [Math.min(...PRICES), Math.max(...PRICES)];
    expect(offered[0]!.min).to.be.at.most(lowest).and.at.least(100);
    expect(offered.at(-1)!.max).to.equal(null);
    for (const b of offered) {
      expect(b.min === 0 || NICE_LADDER.includes(b.min), `${b.label}: ${b.min} is a round bound`).to.equal(true);
      if (b.max !== null) {
        expect(NICE_LADDER.includes(b.max), `${b.label}: ${b.max} is a round bound`).to.equal(true);
        expect(b.max).to.be.greaterThan(lowest).and.at.most(highest);
      }
      expect(b.count, b.label).to.be.greaterThan(0);
    }
    expect(offered.reduce((sum, b) => sum + b.count, 0)).to.equal(all);
    expect(offered.map((b) => b.label)).to.include('1,000–2,500');

    const chosen = offered[1]!;
    await page.getByRole('button', { name: /^Filters/ }).click();
    await Promise.all([page.waitForURL(/priceMin=/), page.getByRole('link', { name: new RegExp(`^${chosen.label} `) }).click()]);
    expect(page.url()).to.contain(`priceMin=${chosen.min}`).and.contain(`priceMax=${chosen.max}`);
    expect(await total()).to.equal(chosen.count);
    for (const price of await resultPrices()) expect(price).to.be.at.least(chosen.min).and.below(chosen.max!);
    expect(await page.locator('fieldset[data-facet="price"] a[aria-current="true"]').textContent()).to.contain(chosen.label);

    // Under a query that finds one product, the ranges without products are not offered as links.
    await page.goto(shop(derived, '/search?q=brass'));
    expect(await total()).to.equal(1);
    expect((await buckets()).map((b) => [b.label, b.count])).to.deep.equal([[offered[0]!.label, 1]]);
  });

  it('has a price slider bounded by the lowest and highest price of the results, applying priceMin and priceMax', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(shop(derived, '/search'));
    const from = page.getByLabel('Lowest price');
    const to = page.getByLabel('Highest price');
    expect(await from.getAttribute('min')).to.equal(String(Math.floor(Math.min(...PRICES))));
    expect(await from.getAttribute('max')).to.equal(String(Math.ceil(Math.max(...PRICES))));
    expect(await to.inputValue()).to.equal(String(Math.ceil(Math.max(...PRICES))));
    await from.fill('500');
    await to.fill('3000');
    await page.waitForURL(/priceMin=500.*priceMax=3000|priceMax=3000.*priceMin=500/);
    const prices = await resultPrices();
    expect(prices.length).to.equal(PRICES.filter((p) => p >= 500 && p <= 3000).length);
    for (const price of prices) expect(price).to.be.within(500, 3000);
    expect(await page.getByLabel('Lowest price').inputValue()).to.equal('500');
    expect(await page.getByLabel('Min', { exact: true }).inputValue()).to.equal('500');
    // The slider keeps the bounds of all the results (the price selection aside), so it can widen again.
    expect(await page.getByLabel('Highest price').getAttribute('max')).to.equal(String(Math.ceil(Math.max(...PRICES))));
  });

  it('a store with configured price ranges gets exactly those', async () => {
    await page.goto(shop(configured, '/search'));
    const offered = await buckets();
    const within = (lo: number, hi: number | null) => PRICES.filter((p) => p >= lo && (hi === null || p < hi)).length;
    expect(offered.map((b) => [b.label, b.min, b.max, b.count])).to.deep.equal([
      ['Up to 1,000', 0, 1000, within(0, 1000)],
      ['1,000–5,000', 1000, 5000, within(1000, 5000)],
      ['5,000+', 5000, null, within(5000, null)],
    ]);
  });

  it('shows no price filter at all where the store hides prices', async () => {
    const hide = (visibility: string) =>
      call(server, 'PATCH', `/api/v1/organization/stores/${derived.storeId}`, {
        headers: derived.headers,
        body: { priceVisibility: visibility },
      });
    /** As the indexer role does with the store's event: the api drops what it cached for the store. */
    const settle = async () => {
      expect(await deliverIndexRows(server, derived.owner.tenantId)).to.deep.equal([]);
      server.runtime.services.search!.invalidate(derived.storeId);
    };
    expect((await hide('HIDDEN')).status).to.equal(200);
    await settle();
    try {
      await page.goto(shop(derived, '/search?priceMin=100'));
      await page.getByRole('button', { name: /^Filters/ }).click();
      expect(await page.locator('fieldset[data-facet="brand"]').isVisible()).to.equal(true);
      expect(await page.locator('fieldset[data-facet="price"]').count()).to.equal(0);
      expect(await page.locator('[data-price-slider]').count()).to.equal(0);
      expect(await page.locator('#results [data-price]').count()).to.equal(0);
    } finally {
      expect((await hide('EVERYONE')).status).to.equal(200);
      await settle();
    }
  });
});
