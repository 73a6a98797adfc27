/**
 * The storefront and console on sandbox data, as a newcomer meets them after `npm start`: the start
 * page creates a sandbox shop, the shop shows the seeded catalog, a suggestion is picked with the
 * keyboard, a seed product's photo finds that product first, and the sandbox token opens the console
 * on its store. Debian's chromium through playwright-core (see web.test.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { call, startTestServer, type TestServer } from '../helpers/harness';
import { uniqueEmail } from '../helpers/accounts';
import { storeIndexUid } from '../../search/index-names';
import { PROJECT_ROOT } from '../../lib/config';

const ARTIFACTS = path.join(PROJECT_ROOT, 'test-artifacts');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

describe('web: the shop and console on sandbox data', function () {
  this.timeout(120_000);
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let storeId: string | undefined;
  let tenantId: string | undefined;

  /** Sandboxes created and photos searched by other test files from this address do not count against this one, nor this one's against them. */
  async function resetClientLimits(): Promise<void> {
    for (const ip of ['127.0.0.1', '::ffff:127.0.0.1', '::1']) {
      await server.runtime.services.rateLimiter.reset(`sandbox:create:ip:${ip}`);
      await server.runtime.services.rateLimiter.reset(`visual-query:${ip}`);
    }
  }

  before(async () => {
    if (!fs.existsSync(CHROMIUM))
      throw new Error(
        `No browser at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium; scripts/test does it as root) or set CHROMIUM_PATH.`,
      );
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    server = await startTestServer();
    await resetClientLimits();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    page.setDefaultTimeout(10_000);
  });

  after(async () => {
    await browser?.close();
    if (!server) return;
    await resetClientLimits();
    if (tenantId) {
      await server.runtime.dataSource.query(
        "UPDATE outbox SET status = 'done', done_at = now() WHERE tenant_id = $1 AND status <> 'done'",
        [tenantId],
      );
      await server.runtime.dataSource.query('DELETE FROM tenants WHERE id = $1', [tenantId]);
    }
    if (storeId)
      await server.runtime.meiliAdmin
        .deleteIndex(storeIndexUid(storeId))
        .waitTask({ timeout: 10_000 })
        .catch(() => undefined);
    await server.close();
  });

  it('creates a sandbox shop from the start page and shops it', async () => {
    await page.goto(`${server.baseUrl}/`);
    await page.getByLabel('E-mail').fill(uniqueEmail('web'));
    await page.getByRole('button', { name: 'Create a sandbox shop' }).click();
    await page.getByRole('heading', { name: 'Your sandbox is ready' }).waitFor({ timeout: 60_000 });
    const token = (await page.locator('code.token').textContent())!;
    expect(token).to.match(/^sk_/);
    await Promise.all([page.waitForURL(/\/shop\/[0-9a-f-]{36}$/), page.getByRole('link', { name: 'Open the shop' }).click()]);
    storeId = page.url().split('/').pop()!;
    const sandbox = await call(server, 'GET', '/api/v1/sandbox', { headers: { Authorization: `Bearer ${token}` } });
    tenantId = sandbox.json.tenantId;
    expect(sandbox.json.storeId).to.equal(storeId);
    expect(await page.locator('[data-section="featured-products"] .card').count()).to.equal(8);
    expect(await page.locator('nav[aria-label="Categories"] a').count()).to.be.greaterThan(0);

    // Pagination through shareable URLs.
    await page.goto(`${server.baseUrl}/shop/${storeId}/search`);
    expect(await page.locator('#result-count').textContent()).to.contain('100 products');
    await Promise.all([
      page.waitForURL(/page=2/),
      page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Next' }).click(),
    ]);
    expect(await page.locator('#results .card').count()).to.equal(24);
    expect(await page.locator('.pagination [aria-current="page"]').textContent()).to.equal('2');
    expect(await page.locator('.pagination p').textContent()).to.equal('Page 2 of 5');

    // A suggestion picked with the keyboard.
    const best = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${storeId}&perPage=1&sort=best_selling`);
    const word = (best.json.items[0].title as string).split(' ')[0]!;
    const box = page.getByRole('combobox', { name: 'Search products' });
    await box.pressSequentially(word.toLowerCase().slice(0, 5), { delay: 20 });
    await page.getByRole('listbox', { name: 'Suggestions' }).waitFor();
    await box.press('ArrowDown');
    const chosen = (await page.locator('#sugg-0').textContent())!;
    await Promise.all([page.waitForURL(/\/products\//), box.press('Enter')]);
    expect(await page.locator('#product-title').textContent()).to.equal(chosen);

    // The photo of a seed product finds that product first.
    const some = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${storeId}&perPage=5&sort=newest`);
    const target = some.json.items[2] as { title: string; imageUrl: string };
    const n = /\/sandbox\/images\/(\d+)$/.exec(target.imageUrl)![1];
    const image = await fetch(`${server.baseUrl}/api/v1/sandbox/images/${n}`);
    const file = path.join(ARTIFACTS, `upload-sandbox-${n}.png`);
    fs.writeFileSync(file, Buffer.from(await image.arrayBuffer()));
    await page.goto(`${server.baseUrl}/shop/${storeId}/photo`);
    await Promise.all([page.waitForURL(/\/photo$/), page.getByLabel(/Choose a photo/).setInputFiles(file)]);
    // Whatever the page answers (results, "nothing similar" or an error), say it when it is not the results.
    await page.locator('#photo-results, #photo-results-title, .photo-search [role="alert"]').first().waitFor({ timeout: 30_000 });
    if ((await page.locator('#photo-results').count()) === 0) {
      const said = await page.locator('.photo-search').innerText();
      throw new Error(`the photo search showed no results: ${said}`);
    }
    // Seed products of one family can share a drawing: the first result carries the very photo uploaded, and the product is among the results.
    expect(await page.locator('#photo-results .card .title').allTextContents()).to.include(target.title);
    const firstSrc = (await page.locator('#photo-results .card img').first().getAttribute('src'))!;
    const first = await fetch(`${server.baseUrl}/api/v1/sandbox/images/${/(\d+)$/.exec(firstSrc)![1]}`);
    expect(Buffer.from(await first.arrayBuffer()).equals(fs.readFileSync(file))).to.equal(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'sandbox-photo-search.png'), fullPage: true });

    // The sandbox token opens the console on the sandbox's store.
    await page.goto(`${server.baseUrl}/console`);
    await page.getByText('Sign in with an API or sandbox token instead').click();
    await page.getByLabel('Token').fill(token);
    await Promise.all([
      page.waitForURL(new RegExp(`/console/stores/${storeId}/zero-results`)),
      page.getByRole('button', { name: 'Use token' }).click(),
    ]);
    expect(await page.locator('main h1').textContent()).to.equal('Zero-result queries');
    await page.getByRole('link', { name: 'Visual search' }).click();
    expect(Number(await page.locator('[data-indexed]').textContent())).to.equal(100);
  });
});
