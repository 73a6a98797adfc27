/**
 * The storefront rendering a store's theme package (docs/themes.md): upload → publish → the shop's
 * HTML comes from the package, its assets at content-hashed immutable URLs; publishing another
 * switches, publishing the first again rolls back; saved section settings show; pages the package
 * has no template for use the built-in theme. And the sandbox of a package's Liquid, on the engine
 * itself (the validator would refuse such a package): no file reads, endless loops left out.
 */
import { Writable } from 'node:stream';
import { expect } from 'chai';
import pino from 'pino';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { merchant, type Merchant } from '../helpers/fixtures';
import { ApiClient } from '../../web/api-client';
import { ThemeEngine, type PageContext } from '../../web/theme-engine';
import { minimalTheme, themeTarGz } from './themes-archives';

const API = '/api/v1';

describe('Theme packages on the storefront', function () {
  this.timeout(60_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  let m: Merchant;

  before(async () => {
    m = suite.addMerchant(await merchant(server));
  });

  const uploadAndPublish = async (marker: string, publish = true): Promise<string> => {
    const res = await call(server, 'POST', `${API}/themes/packages?storeId=${m.storeId}`, {
      headers: m.headers,
      rawBody: await themeTarGz(minimalTheme(marker)),
      contentType: 'application/gzip',
    });
    expect(res.status, res.text).to.equal(201);
    if (publish)
      expect((await call(server, 'POST', `${API}/themes/packages/${res.json.id}/publish`, { headers: m.headers })).status).to.equal(200);
    return res.json.id;
  };
  const home = async () => {
    const res = await fetch(`${server.baseUrl}/shop/${m.storeId}`);
    return { status: res.status, html: await res.text() };
  };

  it('renders the built-in theme until a package is published, then the package; switches and rolls back', async () => {
    const before = await home();
    expect(before.status).to.equal(200);
    expect(before.html).to.contain('/assets/theme/theme.css').and.not.contain('data-theme=');

    const draft = await uploadAndPublish('draft-theme', false);
    expect((await home()).html).to.not.contain('draft-theme');

    const one = await uploadAndPublish('first-theme');
    let page = await home();
    expect(page.status).to.equal(200);
    expect(page.html).to.contain('data-theme="first-theme"').and.contain('first-theme: Welcome').and.contain('first-theme note');
    expect(page.html).to.contain('<p>Hello</p>'); // rich text default, as HTML
    const assetUrl = /href="(\/shop\/[^"]+\/theme-assets\/[0-9a-f]{64}\/theme\.css)"/.exec(page.html)?.[1];
    expect(assetUrl, 'a content-hashed asset URL').to.be.a('string');
    const asset = await fetch(`${server.baseUrl}${assetUrl}`);
    expect(asset.status).to.equal(200);
    expect(asset.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).to.match(/^text\/css/);
    expect(await asset.text()).to.contain('first-theme');
    expect((await fetch(`${server.baseUrl}/shop/${m.storeId}/theme-assets/${'0'.repeat(64)}/theme.css`)).status).to.equal(404);

    // A page the package has no template for: the built-in theme.
    const search = await fetch(`${server.baseUrl}/shop/${m.storeId}/search`);
    expect(search.status).to.equal(200);
    expect(await search.text()).to.contain('/assets/theme/theme.css');

    await uploadAndPublish('second-theme');
    page = await home();
    expect(page.html).to.contain('data-theme="second-theme"').and.not.contain('first-theme');

    expect((await call(server, 'POST', `${API}/themes/packages/${one}/publish`, { headers: m.headers })).json.active).to.equal(true);
    expect((await home()).html).to.contain('data-theme="first-theme"');
    expect(draft).to.be.a('string');
  });

  it('shows the store’s saved section settings over the schema defaults, rich text sanitised', async () => {
    await uploadAndPublish('settings-theme');
    const saved = await call(server, 'PUT', `${API}/themes/section-settings`, {
      headers: m.headers,
      body: {
        storeId: m.storeId,
        template: 'index',
        sectionId: 'banner',
        settings: {
          heading: 'Summer <sale>',
          color: '#00aa00',
          text: '<p><strong>Big</strong><img src=x onerror=alert(1)></p>',
          items: [{ label: 'First' }, { label: 'Second' }],
          product: 'red-shoe',
        },
      },
    });
    expect(saved.status, saved.text).to.equal(200);
    const { html } = await home();
    expect(html).to.contain('settings-theme: Summer &lt;sale&gt;');
    expect(html).to.contain('color: #00aa00');
    expect(html).to.contain('<strong>Big</strong>').and.not.contain('onerror');
    expect(html).to.contain('<li class="item">First</li><li class="item">Second</li>');
    expect(html).to.contain('<p class="product">red-shoe</p>');
  });

  describe('the sandbox of a package’s Liquid', () => {
    const logger = pino({ level: 'silent' }, new Writable({ write: (_c, _e, done) => done() }));
    const builtIn = new ThemeEngine({ defaults: { ms: 500, ops: 5_000, bytes: 100_000 }, overrides: {} }, logger, {});
    const api = new ApiClient('http://127.0.0.1:1/api/v1');
    const page: PageContext = {
      storeId: 's',
      shopBase: '/shop/s',
      publicBaseUrl: 'http://localhost',
      path: '/shop/s',
      query: {},
      page: {},
    };
    const section = (body: string) => `${body}{% schema %}{"name":"S","settings":[]}{% endschema %}`;
    const engine = builtIn.forPackage({
      id: 'sandboxed',
      assetUrl: () => undefined,
      files: new Map([
        ['layout/theme.liquid', '<html><body>{{ content_for_layout }}</body></html>'],
        ['sections/fine.liquid', section('<p>fine section</p>')],
        ['sections/passwd.liquid', section("{% include '/etc/passwd' %}")],
        ['sections/traversal.liquid', section("{% render '../../x' %}")],
        ['sections/relative.liquid', section("{% render './fine' %}")],
        ['sections/loop.liquid', section('{% for i in (1..100000000) %}{{ i }}{% endfor %}')],
        ['sections/nested.liquid', section('{% for i in (1..100000) %}{% for j in (1..100000) %}x{% endfor %}{% endfor %}')],
        ['sections/recursive.liquid', section("{% render 'self' %}")],
        ['snippets/self.liquid', "{% render 'self' %}"],
        ['sections/proto.liquid', section('[{{ section.constructor }}{{ shop.__proto__ }}]')],
      ]),
    });

    it('reads no file outside the package and leaves out a section that runs past its budget; the page still renders', async () => {
      const types = ['fine', 'passwd', 'traversal', 'relative', 'loop', 'nested', 'recursive'];
      const { html, results } = await engine.renderPage(
        'theme',
        types.map((type) => ({ type })),
        page,
        api,
        'Home',
      );
      expect(html).to.contain('<p>fine section</p>');
      expect(html).to.not.contain('root:');
      const omitted = Object.fromEntries(results.map((r) => [r.type, r.omitted ?? 'rendered']));
      expect(omitted).to.deep.include({ fine: 'rendered', passwd: 'error', traversal: 'error', relative: 'error' });
      // An endless loop trips the operations or the time budget, whichever comes first.
      for (const type of ['loop', 'nested']) expect(omitted[type]).to.match(/^budget:(ops|ms)$/);
      expect(omitted.recursive).to.match(/^(error|budget:(ops|ms))$/);
      // Rendered alone: the loops above hold the event loop, which counts against every section's time.
      expect((await engine.renderSection({ type: 'proto' }, page, api)).html).to.contain('[]');
      expect(html).to.match(/<!-- section loop omitted: over its (ops|ms) budget -->/);
    });
  });
});
