/**
 * The console's theme editor (web/theme-editor.ts, docs/themes.md "The theme editor") in a real
 * browser (Debian's chromium through playwright-core, as web.test.ts): the owner signs in, opens the
 * editor, picks a section of the store's published test package (its schema has a colour, a product
 * and a page picker, a repeater of blocks and rich text), changes each, adds and moves a block, types
 * bold rich text (and slips a script into it), saves, and the preview and the storefront show it all,
 * the script gone. Staff see no Publish button and a post of it is answered 403; the owner publishes
 * from the console. Without JavaScript the form still saves (blocks kept, dropped, added and ordered
 * by their checkboxes and positions), the API’s refusals are shown next to the field, the preview is
 * framable only by the console and sandboxed, and the built-in theme’s sections are edited the same way.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { GOOD_PASSWORD, addMember, startIsolatedServer } from '../helpers/accounts';
import { merchant, product, uniqueSlug, type Merchant } from '../helpers/fixtures';
import { web } from '../helpers/web-page';
import { themeTarGz } from '../api/themes-archives';
import { PROJECT_ROOT } from '../../lib/config';

const ARTIFACTS = path.join(PROJECT_ROOT, 'test-artifacts');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const API = '/api/v1';

/** A package whose one section uses every kind of setting the editor offers. */
function editorTheme(marker: string): Record<string, string> {
  return {
    'theme.json': JSON.stringify({ name: `Editor ${marker}`, version: '1.0.0' }),
    'layout/theme.liquid': `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{ page_title }}</title></head><body data-theme="${marker}">{{ sections_header }}<main id="main">{{ content_for_layout }}</main>{{ sections_footer }}</body></html>`,
    'templates/index.json': JSON.stringify({ sections: [{ type: 'promo', settings: { blocks: [{ title: 'Free shipping' }] } }] }),
    'sections/promo.liquid': `<section class="promo" data-colour="{{ section.settings.colour }}" style="--promo-colour: {{ section.settings.colour }}">
<h2 class="promo-heading">{{ section.settings.heading }}</h2>
<div class="promo-text">{{ section.settings.text }}</div>
{% if section.settings.product %}<a class="promo-product" href="{{ shop.base }}/products/{{ section.settings.product }}">Featured product</a>{% endif %}
{% if section.settings.page %}<a class="promo-page" href="{{ shop.base }}/pages/{{ section.settings.page }}">Read more</a>{% endif %}
<ol>{% for b in section.settings.blocks %}<li class="promo-block">{{ b.title }}{% if b.wide %} (wide){% endif %}</li>{% endfor %}</ol>
</section>
{% schema %}
{ "name": "Promo", "settings": [
  { "id": "heading", "type": "text", "label": "Heading", "default": "Spring" },
  { "id": "colour", "type": "color", "label": "Accent colour", "default": "#112233" },
  { "id": "product", "type": "product", "label": "Featured product" },
  { "id": "page", "type": "page", "label": "Linked page" },
  { "id": "text", "type": "richtext", "label": "Promo text", "default": "<p>Welcome</p>" },
  { "id": "blocks", "type": "repeater", "label": "Blocks", "max": 5, "fields": [
    { "id": "title", "type": "text", "label": "Block title" },
    { "id": "wide", "type": "checkbox", "label": "Wide" } ] } ] }
{% endschema %}`,
  };
}

describe('web: the console’s theme editor in a browser', function () {
  this.timeout(90_000);
  let server: TestServer;
  // A rate limiter of the file's own: its console sign-ins count per client.
  const suite = apiSuite((started) => (server = started), { start: () => startIsolatedServer() });
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let m: Merchant;
  let productSlug: string;
  let pageSlug: string;
  let firstPackage: string;

  const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  const shopHtml = async (): Promise<string> => (await fetch(`${server.baseUrl}/shop/${m.storeId}`)).text();
  const editorUrl = () => `${server.baseUrl}/console/stores/${m.storeId}/theme`;

  async function upload(marker: string): Promise<string> {
    const res = await call(server, 'POST', `${API}/themes/packages?storeId=${m.storeId}`, {
      headers: m.headers,
      rawBody: await themeTarGz(editorTheme(marker)),
      contentType: 'application/gzip',
    });
    expect(res.status, res.text).to.equal(201);
    return res.json.id;
  }

  async function consoleSignIn(email: string): Promise<void> {
    await page.goto(`${server.baseUrl}/console`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(GOOD_PASSWORD);
    await Promise.all([page.waitForLoadState(), page.getByRole('button', { name: 'Sign in' }).click()]);
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  }

  async function consoleCookies(): Promise<Record<string, string>> {
    return Object.fromEntries((await context.cookies()).filter((c) => c.name.startsWith('console_')).map((c) => [c.name, c.value]));
  }

  before(async () => {
    if (!fs.existsSync(CHROMIUM))
      throw new Error(
        `No browser at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium; scripts/test does it as root) or set CHROMIUM_PATH.`,
      );
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    m = suite.addMerchant(await merchant(server));
    productSlug = uniqueSlug('red-shoe');
    await product(server, m, { title: 'Red shoe', slug: productSlug, status: 'PUBLISHED' });
    await product(server, m, { title: 'Blue hat', slug: uniqueSlug('blue-hat'), status: 'DRAFT' });
    const content = await call(server, 'POST', `${API}/content/pages`, {
      headers: m.headers,
      body: { storeId: m.storeId, title: 'Our story', bodyHtml: '<p>Since 1999.</p>', status: 'PUBLISHED' },
    });
    expect(content.status, content.text).to.equal(201);
    pageSlug = content.json.slug;
    firstPackage = await upload('first');
    const published = await call(server, 'POST', `${API}/themes/packages/${firstPackage}/publish`, { headers: m.headers });
    expect(published.status, published.text).to.equal(200);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  });

  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
  });

  afterEach(async () => {
    await context?.close();
  });

  after(async () => {
    await browser?.close();
  });

  it('edits a section’s colour, product, page, blocks and rich text; the preview and the storefront show them', async () => {
    await consoleSignIn(m.owner.email);
    await Promise.all([page.waitForLoadState(), page.getByRole('link', { name: 'Theme editor' }).click()]);
    await page.getByRole('heading', { name: 'Theme editor' }).waitFor();
    expect(await page.locator('[data-active-theme]').textContent()).to.equal('Editor first');
    await Promise.all([page.waitForLoadState(), page.getByRole('link', { name: 'Promo' }).click()]);
    await page.getByRole('heading', { name: /^Promo/ }).waitFor();

    // The form shows the values the shop uses now: schema defaults and the template's block.
    expect(await page.getByLabel('Accent colour').inputValue()).to.equal('#112233');
    expect(await page.getByLabel('Heading').inputValue()).to.equal('Spring');
    const pickable = await page.getByLabel('Featured product').locator('option').allTextContents();
    expect(pickable[0]).to.equal('— none —');
    expect(pickable.slice(1).sort()).to.deep.equal(['Blue hat (draft)', 'Red shoe (published)']);
    expect(await page.getByLabel('Linked page').locator('option').allTextContents()).to.deep.equal(['— none —', 'Our story']);
    const blocks = page.locator('[data-repeater="blocks"] > [data-block]');
    expect(await blocks.count()).to.equal(1);
    expect(await blocks.first().getByLabel('Block title').inputValue()).to.equal('Free shipping');

    await page.getByLabel('Accent colour').fill('#cc2200');
    await page.getByLabel('Featured product').selectOption(productSlug);
    await page.getByLabel('Linked page').selectOption(pageSlug);

    // A new block, made wide and moved above the template's one.
    await page.getByRole('button', { name: 'Add a block to Blocks' }).click();
    expect(await blocks.count()).to.equal(2);
    const added = blocks.nth(1);
    await added.getByLabel('Block title').fill('Gift wrap');
    await added.getByLabel('Wide').check();
    await added.getByRole('button', { name: 'Move up' }).click();
    expect(await blocks.first().getByLabel('Block title').inputValue()).to.equal('Gift wrap');

    // Rich text: typed in the editor, one word bold; a script slipped into its HTML.
    const text = page.getByRole('textbox', { name: 'Promo text' });
    await text.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Big sale today');
    // "sale" selected, then made bold with the toolbar's button.
    await page.evaluate(`(() => {
      const range = document.createRange();
      const walker = document.createTreeWalker(document.querySelector('[data-wysiwyg="s.text"]'), NodeFilter.SHOW_TEXT);
      let node = walker.nextNode();
      while (node && !node.data.includes('sale')) node = walker.nextNode();
      range.setStart(node, node.data.indexOf('sale'));
      range.setEnd(node, node.data.indexOf('sale') + 4);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
    })()`);
    await page.getByRole('button', { name: 'Bold' }).click();
    await page.evaluate(
      `document.querySelector('[data-wysiwyg="s.text"]').insertAdjacentHTML('beforeend', '<script>window.stolen = document.cookie</script>')`,
    );
    await shot('console-theme-editor');

    await Promise.all([page.waitForLoadState(), page.getByRole('button', { name: 'Save section' }).click()]);
    await page.getByText('Saved “Promo”; the preview shows it.').waitFor();

    // The preview (the storefront page, framed) shows the saved settings.
    const preview = page.frameLocator('[data-preview]');
    await preview.locator('.promo-block').first().waitFor();
    expect(await preview.locator('.promo-block').allTextContents()).to.deep.equal(['Gift wrap (wide)', 'Free shipping']);
    expect(await preview.locator('.promo-text b').textContent()).to.equal('sale');
    await shot('console-theme-editor-saved');

    // The storefront itself.
    const html = await shopHtml();
    expect(html).to.contain('data-theme="first"');
    expect(html).to.contain('data-colour="#cc2200"');
    expect(html).to.contain(`href="/shop/${m.storeId}/products/${productSlug}"`);
    expect(html).to.contain(`href="/shop/${m.storeId}/pages/${pageSlug}"`);
    expect(html).to.match(/<li class="promo-block">Gift wrap \(wide\)<\/li><li class="promo-block">Free shipping<\/li>/);
    expect(html).to.match(/<div class="promo-text">(<p>)?Big <b>sale<\/b> today(<\/p>)?<\/div>/);
    expect(html).to.not.contain('<script').and.not.contain('stolen');
    const saved = await call(server, 'GET', `${API}/themes/section-settings?storeId=${m.storeId}`, { headers: m.headers });
    expect(saved.json.items).to.have.length(1);
    expect(saved.json.items[0]).to.deep.include({ template: 'index', sectionId: 'promo' });
    expect(saved.json.items[0].settings).to.deep.include({
      colour: '#cc2200',
      product: productSlug,
      page: pageSlug,
      blocks: [
        { title: 'Gift wrap', wide: true },
        { title: 'Free shipping', wide: false },
      ],
    });
    expect(saved.json.items[0].settings.text).to.match(/^(<p>)?Big <b>sale<\/b> today(<\/p>)?$/);

    // Reopened, the form shows what was saved; removing a block and saving drops it.
    await page.goto(`${editorUrl()}?template=index&section=promo`);
    expect(await page.getByLabel('Accent colour').inputValue()).to.equal('#cc2200');
    expect(await page.getByRole('textbox', { name: 'Promo text' }).innerHTML()).to.equal(saved.json.items[0].settings.text);
    await blocks.nth(1).getByRole('button', { name: 'Remove block' }).click();
    await Promise.all([page.waitForLoadState(), page.getByRole('button', { name: 'Save section' }).click()]);
    await page.getByText('Saved “Promo”; the preview shows it.').waitFor();
    expect(await shopHtml()).to.contain('<ol><li class="promo-block">Gift wrap (wide)</li></ol>');
  });

  it('shows staff no Publish button and answers their publish post 403; the owner publishes from the console', async () => {
    const second = await upload('second');
    const staff = await addMember(server, m.owner, 'staff');
    await consoleSignIn(staff.email);
    await page.goto(editorUrl());
    await page.getByRole('heading', { name: 'Theme packages' }).waitFor();
    expect(await page.locator(`[data-package="${second}"]`).textContent()).to.contain('Editor second');
    expect(await page.getByRole('button', { name: /^Publish/ }).count()).to.equal(0);
    await page.getByText('Only owners and admins publish.').waitFor();
    // Staff may still edit the section settings (the API lets every member save them).
    await Promise.all([page.waitForLoadState(), page.getByRole('link', { name: 'Promo' }).click()]);
    await page.getByLabel('Heading').fill('Staff sale');
    await Promise.all([page.waitForLoadState(), page.getByRole('button', { name: 'Save section' }).click()]);
    await page.getByText('Saved “Promo”; the preview shows it.').waitFor();
    expect(await shopHtml()).to.contain('<h2 class="promo-heading">Staff sale</h2>');

    const refused = await web(server, 'POST', `/console/stores/${m.storeId}/theme/packages/${second}/publish`, {
      form: {},
      cookies: await consoleCookies(),
      headers: { Origin: server.baseUrl, 'Sec-Fetch-Site': 'same-origin' },
    });
    expect(refused.status).to.equal(403);
    expect(refused.text).to.contain('Only owners and admins of the store’s organization publish themes.');
    expect(await shopHtml()).to.contain('data-theme="first"');

    await context.clearCookies();
    await consoleSignIn(m.owner.email);
    await page.goto(editorUrl());
    await Promise.all([page.waitForLoadState(), page.getByRole('button', { name: 'Publish Editor second 1.0.0' }).click()]);
    await page.getByText('Published Editor second 1.0.0: the shop shows it now.').waitFor();
    expect(await page.locator('[data-active-theme]').textContent()).to.equal('Editor second');
    expect(await shopHtml()).to.contain('data-theme="second"');
    // Rolling back is publishing the first again.
    await Promise.all([page.waitForLoadState(), page.getByRole('button', { name: 'Publish again Editor first 1.0.0' }).click()]);
    expect(await shopHtml())
      .to.contain('data-theme="first"')
      .and.contain('Staff sale');
  });

  it('saves without JavaScript (blocks by checkboxes and positions) and shows the API’s refusals next to the field', async () => {
    await consoleSignIn(m.owner.email);
    const cookies = await consoleCookies();
    const post = (form: Record<string, string>) =>
      web(server, 'POST', `/console/stores/${m.storeId}/theme/sections`, {
        form: { template: 'index', section: 'promo', ...form },
        cookies,
        headers: { Origin: server.baseUrl, 'Sec-Fetch-Site': 'same-origin' },
      });
    const saved = await post({
      's.heading': 'No script',
      's.colour': '#00aa00',
      's.product': '',
      's.page': '',
      's.text': '<p>Plain <em>HTML</em><img src=x onerror="alert(1)"></p>',
      'r.blocks.0.title': 'Dropped',
      'r.blocks.0._pos': '1',
      'r.blocks.1.title': 'Second',
      'r.blocks.1._keep': '1',
      'r.blocks.1._pos': '2',
      'r.blocks.2.title': 'Added first',
      'r.blocks.2.wide': 'true',
      'r.blocks.2._keep': '1',
      'r.blocks.2._pos': '1',
    });
    expect(saved.status, saved.text).to.equal(302);
    expect(saved.location).to.match(/\/theme\?template=index&section=promo&flash=/);
    const html = await shopHtml();
    expect(html).to.contain('<ol><li class="promo-block">Added first (wide)</li><li class="promo-block">Second</li></ol>');
    expect(html).to.contain('data-colour="#00aa00"').and.not.contain('promo-product').and.not.contain('onerror');
    expect(html).to.contain('<div class="promo-text"><p>Plain <em>HTML</em>');

    // A colour the API refuses: the form again, with the reason next to the field; nothing saved.
    const refused = await post({ 's.heading': 'Broken', 's.colour': 'red' });
    expect(refused.status).to.equal(400);
    expect(refused.text).to.match(/data-field-error="s\.colour">[^<]*must be a colour/);
    expect(refused.text).to.contain('value="Broken"');
    expect(await shopHtml()).to.contain('No script');

    // The preview: the storefront page, framable only by this server's pages and sandboxed; other paths 404.
    const preview = await web(server, 'GET', `/console/stores/${m.storeId}/theme/preview?path=`, { cookies });
    expect(preview.status).to.equal(200);
    expect(preview.text).to.contain('No script');
    const csp = preview.headers.get('content-security-policy') ?? '';
    expect(csp)
      .to.contain("frame-ancestors 'self'")
      .and.match(/; sandbox$/)
      .and.not.contain('unsafe-inline');
    for (const bad of ['//evil.test', '/../../api/v1/auth/account', '/products/../x', 'x'])
      expect(
        (await web(server, 'GET', `/console/stores/${m.storeId}/theme/preview?path=${encodeURIComponent(bad)}`, { cookies })).status,
      ).to.equal(404);
    const editorPage = await web(server, 'GET', `/console/stores/${m.storeId}/theme?template=index&section=promo`, { cookies });
    expect(editorPage.headers.get('content-security-policy')).to.contain("frame-ancestors 'none'");
    expect(editorPage.text).to.not.match(/<script(?![^>]*\ssrc=)[^>]*>/i);

    // A section the theme does not have: 404 with the list to pick from.
    const missing = await post({ section: 'nope' });
    expect(missing.status).to.equal(404);
    expect(missing.text).to.contain('The active theme has no such section');
  });
  it('edits the built-in theme’s sections too', async () => {
    const fresh = suite.addMerchant(await merchant(server));
    const login = await web(server, 'POST', '/console/login', { form: { email: fresh.owner.email, password: GOOD_PASSWORD } });
    expect(login.status, login.text).to.equal(302);
    const cookies = login.cookies;
    const form = await web(server, 'GET', `/console/stores/${fresh.storeId}/theme?template=index&section=hero`, { cookies });
    expect(form.status).to.equal(200);
    expect(form.text).to.contain('the built-in theme').and.contain('<label for="setting-style">Background</label>');
    expect(form.text).to.match(/<textarea id="setting-text" name="s\.text"[^>]*data-richtext/);
    const saved = await web(server, 'POST', `/console/stores/${fresh.storeId}/theme/sections`, {
      form: {
        template: 'index',
        section: 'hero',
        's.heading': 'Built-in, edited',
        's.text': '<p>Rich <strong>text</strong></p>',
        's.style': 'plain',
      },
      cookies,
      headers: { Origin: server.baseUrl, 'Sec-Fetch-Site': 'same-origin' },
    });
    expect(saved.status, saved.text).to.equal(302);
    const html = await (await fetch(`${server.baseUrl}/shop/${fresh.storeId}`)).text();
    expect(html).to.contain('Built-in, edited').and.contain('<p>Rich <strong>text</strong></p>');
  });
});
