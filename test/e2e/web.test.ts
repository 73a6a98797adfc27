/**
 * The storefront and merchant console (web/) in a real browser: Debian's chromium driven by
 * playwright-core, against the app started in process on data created through the API (a merchant
 * signed up, brands, categories, products with photos served by a local image server, visual search
 * turned on; the vision worker and the indexer are run here on the tenant's outbox rows).
 *
 * A missing browser fails these tests (scripts/test installs chromium with apt-get when it can);
 * CHROMIUM_PATH points at another binary. Screenshots of the main pages go to test-artifacts/.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type BeeQueue from 'bee-queue';
import { expect } from 'chai';
import pino from 'pino';
import sharp from 'sharp';
import { chromium, type Browser, type Page } from 'playwright-core';
import { call, startTestServer, type TestServer } from '../helpers/harness';
import { GOOD_PASSWORD } from '../helpers/accounts';
import { merchant, type Merchant } from '../helpers/fixtures';
import { eventually } from '../helpers/wait';
import { jobIdFor, outboxConsumer, type OutboxJobData } from '../../storage/outbox';
import type { DeliveryHandler } from '../../storage/consumers';
import type { QueueName } from '../../storage/queues';
import { createIndexHandler } from '../../indexer/index-consumer';
import { createVisionHandler } from '../../vision/worker';
import { getEmbedder } from '../../vision/embedder';
import { storeIndexUid } from '../../search/index-names';
import type { InvalidationTarget } from '../../search/invalidation';
import { PROJECT_ROOT, type RenderBudgetConfig, type VisionConfig } from '../../lib/config';

const silent = pino({ level: 'silent' });
const retry = { retryBaseMs: 1_000, retryMaxMs: 60_000 };
const ARTIFACTS = path.join(PROJECT_ROOT, 'test-artifacts');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

type Rgb = [number, number, number];
function drawing(kind: 'circle' | 'stripes' | 'checker' | 'triangle' | 'ring' | 'bars', bg: Rgb, fg: Rgb, size = 256): Promise<Buffer> {
  const fill = `rgb(${fg.join(',')})`;
  const shapes: Record<typeof kind, string> = {
    circle: `<circle cx="128" cy="128" r="90" fill="${fill}"/>`,
    stripes: [0, 1, 2, 3, 4, 5, 6, 7].map((i) => `<rect x="${i * 32}" y="0" width="16" height="256" fill="${fill}"/>`).join(''),
    checker: [0, 1, 2, 3]
      .flatMap((r) =>
        [0, 1, 2, 3]
          .filter((c) => (r + c) % 2 === 0)
          .map((c) => `<rect x="${c * 64}" y="${r * 64}" width="64" height="64" fill="${fill}"/>`),
      )
      .join(''),
    triangle: `<polygon points="128,20 236,236 20,236" fill="${fill}"/>`,
    ring: `<circle cx="128" cy="128" r="90" fill="none" stroke="${fill}" stroke-width="30"/>`,
    bars: [0, 1, 2, 3, 4, 5, 6, 7].map((i) => `<rect x="0" y="${i * 32}" width="256" height="16" fill="${fill}"/>`).join(''),
  };
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 256 256"><rect width="256" height="256" fill="rgb(${bg.join(',')})"/>${shapes[kind]}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

describe('web: storefront and console in a browser', function () {
  this.timeout(120_000);
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let images: http.Server;
  let imageBase: string;
  let m: Merchant;
  let savedVision: VisionConfig;
  let savedBudgets: RenderBudgetConfig;
  const served = new Map<string, Buffer>();
  const ids: Record<string, string> = {};
  const slugs: Record<string, string> = {};
  let visionHandler: DeliveryHandler;
  let indexHandler: DeliveryHandler;

  async function drain(queue: QueueName, handler: DeliveryHandler): Promise<void> {
    const rows: Array<{ aggregate_type: string; aggregate_id: string }> = await server.runtime.dataSource.query(
      `WITH c AS (UPDATE outbox SET status = 'in_flight', claimed_at = now(), attempts = attempts + 1
                   WHERE tenant_id = $1 AND queue = $2 AND status = 'pending' RETURNING id, aggregate_type, aggregate_id)
       SELECT aggregate_type, aggregate_id, min(id) AS first FROM c GROUP BY 1, 2 ORDER BY first`,
      [m.owner.tenantId, queue],
    );
    const consume = outboxConsumer(server.runtime.dataSource, queue, retry, handler);
    await Promise.all(
      rows.map((row) => {
        const job = {
          id: jobIdFor(row.aggregate_type, row.aggregate_id),
          data: { aggregateType: row.aggregate_type, aggregateId: row.aggregate_id, tenantId: m.owner.tenantId },
        };
        return consume(job as BeeQueue.Job<OutboxJobData>);
      }),
    );
  }

  /** Runs the vision worker and the indexer until the tenant has nothing pending (what the worker roles do in `npm start`). */
  async function settle(): Promise<void> {
    await eventually(
      async () => {
        await drain('vision', visionHandler);
        await drain('index', indexHandler);
        const [left]: Array<{ n: number }> = await server.runtime.dataSource.query(
          "SELECT count(*)::int AS n FROM outbox WHERE tenant_id = $1 AND queue IN ('vision', 'index') AND status <> 'done'",
          [m.owner.tenantId],
        );
        return left!.n === 0;
      },
      'the outbox to settle',
      { timeoutMs: 90_000, intervalMs: 50 }, // embedding is slow on a busy machine; the file's timeout (120 s) bounds it too
    );
  }

  async function api(method: string, url: string, body?: unknown): Promise<any> {
    const res = await call(server, method, `/api/v1${url}`, { headers: m.headers, body });
    expect(res.status, `${method} ${url}: ${res.text}`).to.be.oneOf([200, 201, 202]);
    return res.json;
  }

  const shop = (rest = ''): string => `${server.baseUrl}/shop/${m.storeId}${rest}`;
  const shot = async (name: string): Promise<void> => {
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  };
  const counts = async (facet: string): Promise<Record<string, number>> =>
    page.$$eval(`fieldset[data-facet="${facet}"] li`, (items) =>
      Object.fromEntries(
        items
          .map(
            (li) =>
              [
                li
                  .querySelector('label')
                  ?.textContent?.replace(/\(\d+\)/, '')
                  .trim() ?? '',
                Number(li.querySelector('[data-count]')?.getAttribute('data-count') ?? NaN),
              ] as const,
          )
          .filter(([, n]) => !Number.isNaN(n)),
      ),
    );
  const resultTitles = (): Promise<string[]> => page.$$eval('#results .card .title', (els) => els.map((e) => e.textContent ?? ''));

  before(async function () {
    if (!fs.existsSync(CHROMIUM))
      throw new Error(
        `No browser at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium; scripts/test does it as root) or set CHROMIUM_PATH.`,
      );
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    server = await startTestServer();
    savedVision = { ...server.runtime.config.vision };
    savedBudgets = {
      defaults: { ...server.runtime.config.renderBudgets.defaults },
      overrides: { ...server.runtime.config.renderBudgets.overrides },
    };
    Object.assign(server.runtime.config.vision, { fetchAllowAddresses: ['127.0.0.1'], publicQueriesPerMinute: 100_000 });
    visionHandler = createVisionHandler({ dataSource: server.runtime.dataSource, logger: silent, config: server.runtime.config.vision });
    // As the indexer role announces changed stores to the api processes, which drop their cached search answers.
    const cache = server.runtime.services.search as unknown as InvalidationTarget | undefined;
    indexHandler = createIndexHandler({
      dataSource: server.runtime.dataSource,
      meili: server.runtime.meiliAdmin,
      logger: silent,
      onStoresChanged: async (stores) => {
        for (const storeId of stores) cache?.invalidate(storeId);
      },
    });
    images = http.createServer((req, res) => {
      const body = served.get(req.url ?? '');
      res.writeHead(body ? 200 : 404, { 'Content-Type': 'image/png' });
      res.end(body);
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', () => resolve()));
    imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
    served.set('/red-circle.png', await drawing('circle', [255, 255, 255], [220, 20, 20]));
    served.set('/blue-stripes.png', await drawing('stripes', [255, 255, 255], [20, 40, 200]));
    served.set('/green-checker.png', await drawing('checker', [0, 0, 0], [30, 190, 40]));
    served.set('/yellow-triangle.png', await drawing('triangle', [40, 40, 40], [250, 220, 30]));
    served.set('/purple-ring.png', await drawing('ring', [250, 250, 250], [130, 30, 160]));
    served.set('/orange-bars.png', await drawing('bars', [255, 255, 255], [250, 140, 20]));

    // The catalog, through the merchant API.
    m = await merchant(server);
    ids.acme = (await api('POST', '/catalog/brands', { storeId: m.storeId, name: 'Acme' })).id;
    ids.zenith = (await api('POST', '/catalog/brands', { storeId: m.storeId, name: 'Zenith' })).id;
    ids.shoes = (await api('POST', '/catalog/categories', { storeId: m.storeId, name: 'Shoes' })).id;
    ids.bags = (await api('POST', '/catalog/categories', { storeId: m.storeId, name: 'Bags' })).id;
    const products: Array<
      [key: string, title: string, brand: string, category: string | null, price: number, image: string, extra: Record<string, unknown>]
    > = [
      [
        'runner',
        'Canvas Running Shoe',
        'acme',
        'shoes',
        49.9,
        '/red-circle.png',
        {
          variants: [
            { options: { size: '42' }, stock: 5 },
            { options: { size: '43' }, stock: 2, price: 52 },
          ],
        },
      ],
      ['walker', 'Leather Walking Shoe', 'zenith', 'shoes', 89, '/blue-stripes.png', {}],
      ['trail', 'Trail Shoe', 'acme', 'shoes', 120, '/green-checker.png', { compareAtPrice: 150 }],
      ['tote', 'Canvas Tote Bag', 'zenith', 'bags', 25, '/yellow-triangle.png', {}],
      ['backpack', 'Leather Backpack', 'acme', 'bags', 140, '/purple-ring.png', {}],
      ['cap', 'Canvas Cap', 'acme', null, 15, '/orange-bars.png', {}],
    ];
    await api('PATCH', `/visual-search/stores/${m.storeId}/settings`, { enabled: true });
    for (const [key, title, brand, category, price, image, extra] of products) {
      const created = await api('POST', '/catalog/products', {
        storeId: m.storeId,
        title,
        type: 'PHYSICAL',
        status: 'PUBLISHED',
        price,
        brandId: ids[brand],
        categoryIds: category ? [ids[category]] : [],
        images: [{ url: `${imageBase}${image}`, alt: title }],
        variants: [{ stock: 3 }],
        descriptionHtml: `<p>${title}: sturdy and simple.</p>`,
        ...extra,
      });
      ids[key] = created.id;
      slugs[key] = created.slug;
    }
    await api('POST', '/content/pages', {
      storeId: m.storeId,
      title: 'About us',
      bodyHtml: '<p>We sell <strong>shoes</strong>.</p><script>alert(1)</script>',
      status: 'PUBLISHED',
    });
    const collection = await api('POST', '/catalog/collections', { storeId: m.storeId, name: 'Summer picks' });
    await api('POST', `/catalog/collections/${collection.id}/items`, { productIds: [ids.tote, ids.cap] });
    await getEmbedder('mobilenet-v2', server.runtime.config.vision);
    await settle();

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    page.setDefaultTimeout(10_000);
  });

  after(async () => {
    await browser?.close();
    if (server) {
      Object.assign(server.runtime.config.vision, savedVision);
      server.runtime.config.renderBudgets.overrides = savedBudgets.overrides;
      if (m) {
        await server.runtime.dataSource.query(
          "UPDATE outbox SET status = 'done', done_at = now() WHERE tenant_id = $1 AND status <> 'done'",
          [m.owner.tenantId],
        );
        await server.runtime.meiliAdmin
          .deleteIndex(storeIndexUid(m.storeId))
          .waitTask({ timeout: 10_000 })
          .catch(() => undefined);
      }
      await server.close();
    }
    await new Promise<void>((resolve) => (images ? images.close(() => resolve()) : resolve()));
  });

  it('renders the home page with collections, categories and featured products, server-side', async () => {
    const res = await page.goto(shop());
    expect(res?.status()).to.equal(200);
    expect(await page.locator('main h1').first().textContent()).to.contain('Find what you are looking for');
    expect(await page.locator('[data-section="collection-list"] a').allTextContents()).to.deep.equal(['Summer picks']);
    expect(await page.locator('nav[aria-label="Categories"] a').allTextContents()).to.have.members(['Shoes', 'Bags']);
    expect(await page.locator('[data-section="featured-products"] .card').count()).to.equal(6);
    // Every image has a text alternative.
    expect(await page.locator('img:not([alt])').count()).to.equal(0);
    await shot('home');
  });

  it('serves category, brand, collection and content pages, and a 404 page for unknown ones', async () => {
    await page.goto(shop());
    await Promise.all([
      page.waitForURL(/\/categories\//),
      page.getByRole('navigation', { name: 'Categories' }).getByRole('link', { name: 'Bags' }).click(),
    ]);
    expect(await page.locator('main h1').textContent()).to.equal('Bags');
    expect(await resultTitles()).to.have.members(['Canvas Tote Bag', 'Leather Backpack']);
    // The category is page context: its facet is not offered, the brand facet counts within it.
    expect(await page.locator('fieldset[data-facet="category"]').count()).to.equal(0);
    expect(await counts('brand')).to.deep.include({ Acme: 1, Zenith: 1 });

    await page.goto(shop(`/products/${slugs.walker}`));
    await Promise.all([page.waitForURL(/\/brands\//), page.getByRole('link', { name: 'Zenith' }).click()]);
    expect(await page.locator('main h1').textContent()).to.equal('Zenith');
    expect(await resultTitles()).to.have.members(['Leather Walking Shoe', 'Canvas Tote Bag']);

    await page.goto(shop());
    await Promise.all([page.waitForURL(/\/collections\//), page.getByRole('link', { name: 'Summer picks' }).click()]);
    expect(await page.locator('main .card .title').allTextContents()).to.deep.equal(['Canvas Tote Bag', 'Canvas Cap']);

    await Promise.all([page.waitForURL(/\/pages\//), page.getByRole('contentinfo').getByRole('link', { name: 'About us' }).click()]);
    expect(await page.locator('main h1').textContent()).to.equal('About us');
    expect(await page.locator('main .rte').innerHTML()).to.equal('<p>We sell <strong>shoes</strong>.</p>');

    const unknownStore = await page.goto(`${server.baseUrl}/shop/01a20000-0000-7000-8000-000000000000/search`);
    expect(unknownStore?.status()).to.equal(404);
    expect(await page.locator('[role="alert"]').textContent()).to.equal('There is no shop at this address.');
    for (const missing of [
      '/products/no-such-thing',
      '/categories/nope',
      '/brands/nope',
      '/collections/nope',
      '/pages/nope',
      '/no/such/page',
    ]) {
      const res = await page.goto(shop(missing));
      expect(res?.status(), missing).to.equal(404);
      expect(await page.locator('main h1').textContent()).to.equal('Page not found');
    }
  });

  it('suggests as the shopper types and picks a suggestion with the keyboard', async () => {
    await page.goto(shop());
    const box = page.getByRole('combobox', { name: 'Search products' });
    await box.click();
    await box.pressSequentially('leath', { delay: 20 });
    const listbox = page.getByRole('listbox', { name: 'Suggestions' });
    await listbox.waitFor({ state: 'visible' });
    expect(await box.getAttribute('aria-expanded')).to.equal('true');
    const options = await page.getByRole('option').allTextContents();
    expect(options).to.include.members(['Leather Walking Shoe', 'Leather Backpack']);
    await box.press('ArrowDown');
    const first = await box.getAttribute('aria-activedescendant');
    expect(first).to.equal('sugg-0');
    expect(await page.locator('#sugg-0').getAttribute('aria-selected')).to.equal('true');
    await box.press('ArrowDown');
    expect(await box.getAttribute('aria-activedescendant')).to.equal('sugg-1');
    await box.press('ArrowUp');
    expect(await box.getAttribute('aria-activedescendant')).to.equal('sugg-0');
    // Escape closes the list and keeps the text.
    await box.press('Escape');
    expect(await listbox.isHidden()).to.equal(true);
    expect(await box.getAttribute('aria-expanded')).to.equal('false');
    expect(await box.inputValue()).to.equal('leath');
    await box.press('ArrowDown');
    await listbox.waitFor({ state: 'visible' });
    await box.press('ArrowDown');
    const chosen = (await page.locator('#sugg-0').textContent())!;
    await Promise.all([page.waitForURL(/\/products\//), box.press('Enter')]);
    expect(await page.locator('h1#product-title').textContent()).to.equal(chosen);
  });

  it('filters with facets (disjunctive counts), sorts by price, toggles discounted, and keeps the state in shareable URLs', async () => {
    await page.goto(shop('/search?q=canvas'));
    expect(await page.locator('#result-count').textContent()).to.contain('3 products');
    expect(await resultTitles()).to.have.members(['Canvas Running Shoe', 'Canvas Tote Bag', 'Canvas Cap']);
    expect(await counts('brand')).to.deep.include({ Acme: 2, Zenith: 1 });
    expect(await counts('category')).to.deep.include({ Shoes: 1, Bags: 1 });

    await Promise.all([page.waitForURL(/brandIds=/), page.getByLabel(/^Acme/).check()]);
    expect(page.url()).to.contain('q=canvas').and.contain(`brandIds=${ids.acme}`);
    expect(await resultTitles()).to.have.members(['Canvas Running Shoe', 'Canvas Cap']);
    // Disjunctive: the brand facet still counts the other brand; the category facet follows the brand choice.
    expect(await counts('brand')).to.deep.include({ Acme: 2, Zenith: 1 });
    expect(await counts('category')).to.deep.equal({ Shoes: 1 });
    expect(await page.getByLabel(/^Acme/).isChecked()).to.equal(true);

    await page.goto(shop('/search'));
    await Promise.all([page.waitForURL(/sort=price_asc/), page.getByLabel('Sort by').selectOption('price_asc')]);
    expect(await page.locator('#sort option').count()).to.equal(9);
    const prices = await page.$$eval('#results .card [data-price]', (els) => els.map((e) => Number(e.getAttribute('data-price'))));
    expect(prices).to.deep.equal([...prices].sort((a, b) => a - b));
    expect(prices[0]).to.equal(15);
    await shot('search');

    await Promise.all([page.waitForURL(/sort=price_desc/), page.getByLabel('Sort by').selectOption('price_desc')]);
    const desc = await page.$$eval('#results .card [data-price]', (els) => els.map((e) => Number(e.getAttribute('data-price'))));
    expect(desc[0]).to.equal(140);

    // In-stock and discounted toggles, and the zero-results state.
    await Promise.all([page.waitForURL(/discounted=true/), page.getByLabel(/^Discounted only/).check()]);
    expect(await resultTitles()).to.deep.equal(['Trail Shoe']);
    await page.goto(shop('/search?q=canvas%20xyzzyq'));
    const loose = await page.locator('[data-loose-match]').textContent();
    expect(loose).to.contain('No products match every word of “canvas xyzzyq”');
    expect(loose).to.contain('Showing products without “xyzzyq”');
    expect(await resultTitles()).to.have.members(['Canvas Running Shoe', 'Canvas Tote Bag', 'Canvas Cap']);
    // One product has both words; the page goes on with those that have one, after a line saying so.
    await page.goto(shop('/search?q=canvas%20shoe'));
    const partial = await resultTitles();
    expect(partial[0]).to.equal('Canvas Running Shoe');
    expect(partial.length).to.be.greaterThan(1);
    expect(await page.locator('[data-partial-matches]').textContent()).to.contain('Products matching some of your words');
    expect(await page.locator('[data-loose-match]').count()).to.equal(0);
    await page.goto(shop('/search?q=zzqxj'));
    expect(await page.locator('[data-zero-results]').textContent()).to.contain('No products found for “zzqxj”');
  });

  it('opens a product page with gallery, variants, price and visually similar products', async () => {
    await page.goto(shop('/search?q=running'));
    await Promise.all([page.waitForURL(/\/products\//), page.locator('#results .card a').first().click()]);
    expect(await page.locator('#product-title').textContent()).to.equal('Canvas Running Shoe');
    expect(await page.locator('#gallery-main').getAttribute('alt')).to.equal('Canvas Running Shoe');
    expect(await page.locator('#product-price').textContent()).to.equal('49.90 EUR');
    await page.getByLabel(/^43/).check();
    expect(await page.locator('#product-price').textContent()).to.equal('52.00 EUR');
    const similar = await page.locator('#similar-products .card .title').allTextContents();
    expect(similar.length).to.be.greaterThan(0);
    expect(similar).to.not.include('Canvas Running Shoe');
    await shot('product');
  });

  it('searches by photo: an uploaded product photo finds that product first', async () => {
    await page.goto(shop('/photo'));
    const file = path.join(ARTIFACTS, 'upload-purple-ring.png');
    fs.writeFileSync(file, served.get('/purple-ring.png')!);
    await Promise.all([page.waitForURL(/\/photo$/), page.getByLabel(/Choose a photo/).setInputFiles(file)]);
    await page.locator('#photo-results').waitFor();
    const titles = await page.locator('#photo-results .card .title').allTextContents();
    expect(titles[0]).to.equal('Leather Backpack');
    await shot('photo-search');
  });

  it('turns zero-result and weak-result queries into synonyms in the console, and the storefront then finds them', async () => {
    // A shopper's search that finds nothing is recorded, and one where only some words match (a weak result).
    await page.goto(shop('/search?q=plimsoll'));
    await page.locator('[data-zero-results]').waitFor();
    await page.goto(shop('/search?q=leather%20unicorn'));
    expect(await resultTitles()).to.include('Leather Backpack');

    await page.goto(`${server.baseUrl}/console`);
    await page.getByLabel('E-mail', { exact: true }).fill(m.owner.email);
    await page.getByLabel('Password', { exact: true }).fill(GOOD_PASSWORD);
    await Promise.all([page.waitForURL(/zero-results/), page.getByRole('button', { name: 'Sign in' }).click()]);
    const zero = page.locator('[data-list="zero"]');
    const weak = page.locator('[data-list="weak"]');
    expect(await zero.getByRole('heading').textContent()).to.equal('No results');
    expect(await weak.getByRole('heading').textContent()).to.equal('Weak results');
    const row = zero.locator('tr[data-query="plimsoll"]');
    expect(await row.locator('[data-answered]').textContent()).to.contain('Still no results');
    expect(await zero.locator('tr[data-query="leather unicorn"]').count()).to.equal(0);
    const weakRow = weak.locator('tr[data-query="leather unicorn"]');
    expect(await weakRow.locator('[data-answered]').textContent()).to.contain('Only loosely related results');
    expect(await weakRow.getByRole('link', { name: 'leather unicorn' }).getAttribute('href')).to.equal(
      `/shop/${m.storeId}/search?q=leather%20unicorn`,
    );
    expect(await weak.locator('tr[data-query="plimsoll"]').count()).to.equal(0);
    await row.getByLabel(/should also find/).fill('running shoe');
    await Promise.all([page.waitForURL(/flash=/), row.getByRole('button', { name: 'Add synonym' }).click()]);
    expect(await page.locator('.flash').textContent()).to.contain('“plimsoll” now also finds “running shoe”');
    await weak
      .locator('tr[data-query="leather unicorn"]')
      .getByLabel(/should also find/)
      .fill('backpack');
    await Promise.all([
      page.waitForURL(/flash=/),
      weak.locator('tr[data-query="leather unicorn"]').getByRole('button', { name: 'Add synonym' }).click(),
    ]);
    expect(await page.locator('.flash').textContent()).to.contain('“leather unicorn” now also finds “backpack”');
    // The indexer applies the store's synonyms (the indexer role does this in npm start).
    await settle();
    await page.reload();
    expect(await zero.locator('tr[data-query="plimsoll"] [data-answered]').textContent()).to.contain('Answered by a synonym');
    expect(await weak.locator('tr[data-query="leather unicorn"] [data-answered]').textContent()).to.contain('Answered by a synonym');
    // Answered now: no synonym form left to fill.
    expect(await weak.locator('tr[data-query="leather unicorn"] form').count()).to.equal(0);
    await shot('console-zero-results');

    await page.goto(`${server.baseUrl}/console/stores/${m.storeId}/synonyms`);
    expect(await page.locator('.rules li').first().textContent())
      .to.contain('plimsoll')
      .and.contain('running shoe');
    // Create, edit and delete a rule.
    await page.getByLabel('Equivalent words', { exact: true }).check();
    await page.getByLabel('Equivalent words (comma-separated)').fill('rucksack, backpack');
    await Promise.all([page.waitForURL(/flash=/), page.getByRole('button', { name: 'Add rule' }).click()]);
    const rule = page.locator('.rules li', { hasText: 'rucksack = backpack' });
    expect(await rule.count()).to.equal(1);
    await rule.getByText('Edit').click();
    await rule.getByLabel('Equivalent words').fill('rucksack, backpack, knapsack');
    await rule.getByLabel('Active').selectOption('false');
    await Promise.all([page.waitForURL(/flash=Synonym\+rule\+saved/), rule.getByRole('button', { name: 'Save' }).click()]);
    const edited = page.locator('.rules li', { hasText: 'rucksack = backpack = knapsack' });
    expect(await edited.textContent()).to.contain('inactive');
    await Promise.all([page.waitForURL(/flash=Synonym\+rule\+deleted/), edited.getByRole('button', { name: 'Delete' }).click()]);
    expect(await page.locator('.rules li', { hasText: 'rucksack' }).count()).to.equal(0);
    // The two rules added from the zero-results page stay.
    expect(await page.locator('.rules li').count()).to.equal(2);

    await page.goto(shop('/search?q=plimsoll'));
    expect(await resultTitles()).to.include('Canvas Running Shoe');
  });

  it('lists bulk edits in the console and reverts one', async () => {
    await api('POST', '/catalog/products/bulk/update-price', { storeId: m.storeId, productIds: [ids.cap], mode: 'SET', value: 9 });
    await page.goto(`${server.baseUrl}/console/stores/${m.storeId}/bulk-edits`);
    const row = page.locator('tr[data-edit]').first();
    expect(await row.textContent()).to.contain('UPDATE_PRICE');
    await Promise.all([page.waitForURL(/flash=/), row.getByRole('button', { name: 'Revert' }).click()]);
    expect(await page.locator('.flash').textContent()).to.contain('Reverted: 1 products restored');
    const cap = await call(server, 'GET', `/api/v1/catalog/public/stores/${m.storeId}/products/${slugs.cap}`);
    expect(cap.json.price).to.equal(15);

    await page.goto(`${server.baseUrl}/console/stores/${m.storeId}/visual`);
    expect(await page.locator('[data-indexed]').textContent()).to.equal('6');
    await Promise.all([page.waitForURL(/flash=/), page.getByRole('button', { name: 'Re-index' }).click()]);
    expect(await page.locator('.flash').textContent()).to.match(/\d+ products queued/);
  });

  it('leaves every price out where the store hides them', async () => {
    await api('PATCH', `/organization/stores/${m.storeId}`, { priceVisibility: 'HIDDEN' });
    await settle();
    try {
      await page.goto(shop(`/products/${slugs.trail}`));
      expect(await page.locator('[data-price-hidden]').textContent()).to.equal('Ask us for a price.');
      expect(await page.locator('#product-price').count()).to.equal(0);
      await page.goto(shop('/search'));
      expect(await page.locator('#results .card').count()).to.equal(6);
      expect(await page.locator('#results [data-price]').count()).to.equal(0);
      expect(await page.locator('fieldset[data-facet="price"]').count()).to.equal(0);
    } finally {
      await api('PATCH', `/organization/stores/${m.storeId}`, { priceVisibility: 'EVERYONE' });
      await settle();
    }
  });

  it('leaves out a section over its render budget while the page renders', async () => {
    server.runtime.config.renderBudgets.overrides = { 'featured-products': { ops: 5 } };
    try {
      const res = await page.goto(shop());
      expect(res?.status()).to.equal(200);
      expect(await page.locator('[data-section="featured-products"]').count()).to.equal(0);
      expect(await page.content()).to.contain('<!-- section featured-products omitted: over its ops budget -->');
      expect(await page.locator('[data-section="hero"]').count()).to.equal(1);
      expect(await page.locator('[data-section="collection-list"]').count()).to.equal(1);
    } finally {
      server.runtime.config.renderBudgets.overrides = savedBudgets.overrides;
    }
  });
});
