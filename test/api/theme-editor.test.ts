/**
 * The theme editor's read, GET /themes/editor (an extension; docs/themes.md "The theme editor"): the
 * built-in theme's templates and sections with their schemas and values, then a published package's,
 * with the template's and the saved settings over the schema's defaults; members and API keys with
 * themes:read; tenants and an API key's other stores apart; bad store ids refused.
 */
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { addMember, expectProblem } from '../helpers/accounts';
import { apiKey, merchant, store, type Merchant } from '../helpers/fixtures';
import { minimalTheme, themeTarGz } from './themes-archives';

const API = '/api/v1';

describe('Theme editor read', function () {
  this.timeout(60_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  let m: Merchant;

  before(async () => {
    m = suite.addMerchant(await merchant(server));
  });

  const editor = (headers: Record<string, string> = m.headers, storeId: string = m.storeId) =>
    call(server, 'GET', `${API}/themes/editor?storeId=${encodeURIComponent(storeId)}`, { headers });

  it('lists the built-in theme’s templates and sections with their schemas and defaults', async () => {
    const res = await editor();
    expect(res.status, res.text).to.equal(200);
    expect(res.json.theme).to.equal('default');
    expect(res.json.package).to.equal(null);
    const names = res.json.templates.map((t: { name: string }) => t.name);
    expect(names).to.include.members(['index', 'product', 'page', 'search', 'cart']);
    expect(names).to.deep.equal([...names].sort());
    const index = res.json.templates.find((t: { name: string }) => t.name === 'index');
    expect(index.sections.map((s: { id: string }) => s.id)).to.deep.equal([
      'header',
      'hero',
      'featured-products',
      'collection-list',
      'category-list',
      'footer',
    ]);
    const hero = index.sections.find((s: { id: string }) => s.id === 'hero');
    expect(hero).to.deep.include({ type: 'hero', name: 'Hero', editable: true, saved: false });
    expect(hero.settings).to.deep.include({
      id: 'style',
      type: 'select',
      label: 'Background',
      default: 'soft',
      options: [
        { value: 'soft', label: 'soft' },
        { value: 'plain', label: 'plain' },
      ],
    });
    expect(hero.values).to.deep.equal({
      heading: 'Find what you are looking for',
      text: 'Search the whole shop, filter by what matters to you, or show us a photo.',
      style: 'soft',
    });

    // Saved settings show as the values, and the section as saved.
    const saved = await call(server, 'PUT', `${API}/themes/section-settings`, {
      headers: m.headers,
      body: { storeId: m.storeId, template: 'index', sectionId: 'hero', settings: { heading: 'Hello', style: 'plain' } },
    });
    expect(saved.status, saved.text).to.equal(200);
    const after = (await editor()).json.templates.find((t: { name: string }) => t.name === 'index');
    const edited = after.sections.find((s: { id: string }) => s.id === 'hero');
    expect(edited.saved).to.equal(true);
    expect(edited.values).to.deep.include({ heading: 'Hello', style: 'plain' });
  });

  it('reads the active package: repeater fields, template settings over defaults, saved settings over both', async () => {
    const own = suite.addMerchant(await merchant(server));
    const files = minimalTheme('editor-read', {
      'templates/index.json': JSON.stringify({
        sections: [{ type: 'banner', settings: { heading: 'From the template' } }, { type: 'banner' }],
      }),
      'templates/product.json': JSON.stringify({ sections: [{ type: 'banner' }] }),
    });
    const uploaded = await call(server, 'POST', `${API}/themes/packages?storeId=${own.storeId}`, {
      headers: own.headers,
      rawBody: await themeTarGz(files),
      contentType: 'application/gzip',
    });
    expect(uploaded.status, uploaded.text).to.equal(201);
    expect((await editor(own.headers, own.storeId)).json.theme).to.equal('default'); // a draft is not the active theme
    expect((await call(server, 'POST', `${API}/themes/packages/${uploaded.json.id}/publish`, { headers: own.headers })).status).to.equal(
      200,
    );
    await call(server, 'PUT', `${API}/themes/section-settings`, {
      headers: own.headers,
      body: { storeId: own.storeId, template: 'index', sectionId: 'banner-2', settings: { items: [{ label: 'One' }] } },
    });

    const res = await editor(own.headers, own.storeId);
    expect(res.status, res.text).to.equal(200);
    expect(res.json).to.deep.include({
      theme: uploaded.json.id,
      package: { id: uploaded.json.id, name: 'Theme editor-read', version: '1.2.3' },
    });
    expect(res.json.templates.map((t: { name: string }) => t.name)).to.deep.equal(['index', 'product']);
    const [first, second] = res.json.templates[0].sections;
    expect(first).to.deep.include({ id: 'banner', type: 'banner', name: 'Banner', saved: false });
    expect(first.values).to.deep.equal({ heading: 'From the template', color: '#111111', text: '<p>Hello</p>' });
    expect(second).to.deep.include({ id: 'banner-2', saved: true });
    expect(second.values).to.deep.equal({ heading: 'Welcome', color: '#111111', text: '<p>Hello</p>', items: [{ label: 'One' }] });
    expect(first.settings.map((s: { id: string; type: string }) => `${s.id}:${s.type}`)).to.deep.equal([
      'heading:text',
      'color:color',
      'text:richtext',
      'product:product',
      'items:repeater',
    ]);
    expect(first.settings[4]).to.deep.equal({
      id: 'items',
      type: 'repeater',
      label: 'Items',
      maxItems: 50,
      fields: [{ id: 'label', type: 'text', label: 'Label' }],
    });
  });

  it('answers members and API keys with themes:read; keeps tenants and other stores apart; refuses bad ids', async () => {
    const staff = await addMember(server, m.owner, 'staff');
    expect((await editor(staff.headers)).status).to.equal(200);
    expect((await editor(await apiKey(server, m, ['themes:read']))).status).to.equal(200);
    expectProblem(await editor(await apiKey(server, m, ['catalog:read'])), 403, 'insufficient_scope');

    const other = suite.addMerchant(await merchant(server));
    expectProblem(await editor(other.headers), 404, 'store_not_found');
    const secondStore = await store(server, m);
    expectProblem(await editor(await apiKey(server, m, ['themes:read']), secondStore), 404, 'store_not_found');

    expectProblem(await editor(m.headers, 'not-a-uuid'), 400, 'validation_failed');
    expectProblem(await call(server, 'GET', `${API}/themes/editor`, { headers: m.headers }), 400, 'validation_failed');
    expectProblem(await editor({}), 401, 'unauthorized');
  });
});
