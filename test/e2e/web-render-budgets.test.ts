/**
 * Render budgets of the storefront theme engine (docs/storefront.md, "Render budgets"): a section
 * over its time, operations or output-bytes budget is left out and logged, the other sections and
 * the page render; budgets come from RENDER_BUDGET_* (lib/config.ts). No browser and no services needed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import pino from 'pino';
import { ConfigError, loadConfig, type RenderBudgetConfig } from '../../lib/config';
import { ApiClient } from '../../web/api-client';
import { ThemeEngine, formatMoney, type PageContext, type SectionLoader } from '../../web/theme-engine';

function tinyTheme(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'theme-'));
  for (const folder of ['layout', 'sections', 'snippets', 'templates']) fs.mkdirSync(path.join(dir, folder));
  const schema = (name: string) =>
    `{% schema %}{ "name": "${name}", "settings": [ { "id": "word", "type": "text", "label": "Word", "default": "hello" } ] }{% endschema %}`;
  fs.writeFileSync(
    path.join(dir, 'layout', 'theme.liquid'),
    '<body>{{ sections_header | raw }}<main>{{ content_for_layout | raw }}</main>{{ sections_footer | raw }}</body>',
  );
  fs.writeFileSync(path.join(dir, 'sections', 'fine.liquid'), `<p>{{ section.settings.word }} {{ name }}</p>${schema('Fine')}`);
  fs.writeFileSync(
    path.join(dir, 'sections', 'loop.liquid'),
    `{% for i in (1..5000) %}{{ i }}{% if i > 0 %},{% endif %}{% endfor %}${schema('Loop')}`,
  );
  fs.writeFileSync(
    path.join(dir, 'sections', 'big.liquid'),
    `{% for i in (1..300) %}<p>{{ section.settings.word }} and a long enough line of text</p>{% endfor %}${schema('Big')}`,
  );
  fs.writeFileSync(path.join(dir, 'sections', 'slow.liquid'), `<p>{{ late }}</p>${schema('Slow')}`);
  fs.writeFileSync(path.join(dir, 'sections', 'chatty.liquid'), `<p>{{ calls }}</p>${schema('Chatty')}`);
  fs.writeFileSync(path.join(dir, 'sections', 'header.liquid'), `<header>top</header>${schema('Header')}`);
  return dir;
}

describe('web: render budgets per section', () => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: 'warn' },
    new Writable({
      write: (chunk, _enc, done) => {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  );
  const budgets: RenderBudgetConfig = { defaults: { ms: 400, ops: 2_000, bytes: 4_000 }, overrides: { chatty: { ops: 3 } } };
  // A client whose calls never leave the process: the loaders below only count them.
  const api = new ApiClient('http://127.0.0.1:1/api/v1');
  const loaders: Record<string, SectionLoader> = {
    fine: async () => ({ name: 'world' }),
    slow: () => new Promise((resolve) => setTimeout(() => resolve({ late: 'too late' }), 1_000)),
    chatty: async (client) => {
      for (let i = 0; i < 5; i += 1) await client.request('GET', '/healthz').catch(() => undefined);
      return { calls: 5 };
    },
  };
  const engine = new ThemeEngine(budgets, logger, loaders, tinyTheme());
  const page: PageContext = { storeId: 's', shopBase: '/shop/s', publicBaseUrl: 'http://localhost', path: '/shop/s', query: {}, page: {} };

  beforeEach(() => {
    lines.length = 0;
  });

  it('renders a section within its budgets with its schema defaults and the loader data', async () => {
    const result = await engine.renderSection({ type: 'fine' }, page, api);
    expect(result).to.deep.equal({ type: 'fine', html: '<p>hello world</p>' });
    expect(engine.schema('fine')).to.deep.equal({
      name: 'Fine',
      settings: [{ id: 'word', type: 'text', label: 'Word', default: 'hello' }],
    });
    expect((await engine.renderSection({ type: 'fine', settings: { word: 'hi' } }, page, api)).html).to.equal('<p>hi world</p>');
    expect(lines).to.deep.equal([]);
  });

  it('leaves out a section over its operations budget (Liquid steps of every loop pass) and logs it', async () => {
    const result = await engine.renderSection({ type: 'loop' }, page, api);
    expect(result.omitted).to.equal('budget:ops');
    expect(result.html).to.equal('<!-- section loop omitted: over its ops budget -->');
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include({
      section: 'loop',
      budget: 'ops',
      limit: 2_000,
      msg: 'storefront section omitted: over its render budget',
      path: '/shop/s',
    });
    expect(lines[0]!.used as number).to.be.within(2_001, 2_010);
  });

  it('counts data calls as operations (a per-section override)', async () => {
    const result = await engine.renderSection({ type: 'chatty' }, page, api);
    expect(result.omitted).to.equal('budget:ops');
    expect(lines[0]).to.include({ section: 'chatty', budget: 'ops', limit: 3 });
  });

  it('leaves out a section over its output bytes budget', async () => {
    const result = await engine.renderSection({ type: 'big' }, page, api);
    expect(result.omitted).to.equal('budget:bytes');
    expect(lines[0]).to.include({ section: 'big', budget: 'bytes', limit: 4_000 });
    expect(lines[0]!.used as number).to.be.above(4_000);
  });

  it('leaves out a section whose data does not come within its time budget', async () => {
    const started = Date.now();
    const result = await engine.renderSection({ type: 'slow' }, page, api);
    expect(result.omitted).to.equal('budget:ms');
    expect(Date.now() - started).to.be.below(1_000);
    expect(lines[0]).to.include({ section: 'slow', budget: 'ms', limit: 400 });
  });

  it('renders the page around the sections that are left out', async () => {
    const { html, results } = await engine.renderPage(
      'theme',
      [{ type: 'header' }, { type: 'fine' }, { type: 'loop' }, { type: 'big' }],
      page,
      api,
      'Home',
    );
    expect(results.map((r) => r.omitted ?? 'ok')).to.deep.equal(['ok', 'ok', 'budget:ops', 'budget:bytes']);
    expect(html).to.equal(
      '<body><div class="section section-header" data-section="header"><header>top</header></div><main><div class="section section-fine" data-section="fine"><p>hello world</p></div>\n<!-- section loop omitted: over its ops budget -->\n<!-- section big omitted: over its bytes budget --></main></body>',
    );
    expect(lines.map((l) => l.section)).to.have.members(['loop', 'big']);
  });

  it('reads the budgets from RENDER_BUDGET_* and refuses malformed overrides', () => {
    const config = loadConfig({
      NODE_ENV: 'test',
      APP_SECRET: 'x'.repeat(40),
      MEILI_MASTER_KEY: 'k'.repeat(20),
      RENDER_BUDGET_MS: '250',
      RENDER_BUDGET_OPS: '900',
      RENDER_BUDGET_BYTES: '64kb',
      RENDER_BUDGET_OVERRIDES: 'featured-products:bytes=2000,ms=50;main-search:ops=500',
    });
    expect(config.renderBudgets).to.deep.equal({
      defaults: { ms: 250, ops: 900, bytes: 65_536 },
      overrides: { 'featured-products': { bytes: 2_000, ms: 50 }, 'main-search': { ops: 500 } },
    });
    const defaults = loadConfig({ NODE_ENV: 'test', APP_SECRET: 'x'.repeat(40), MEILI_MASTER_KEY: 'k'.repeat(20) });
    expect(defaults.renderBudgets).to.deep.equal({ defaults: { ms: 1_500, ops: 50_000, bytes: 262_144 }, overrides: {} });
    for (const bad of ['featured-products', 'x:size=1', 'x:ms=', 'X:ms=1']) {
      expect(() =>
        loadConfig({ NODE_ENV: 'test', APP_SECRET: 'x'.repeat(40), MEILI_MASTER_KEY: 'k'.repeat(20), RENDER_BUDGET_OVERRIDES: bad }),
      ).to.throw(ConfigError, /RENDER_BUDGET_OVERRIDES/);
    }
    expect(() =>
      loadConfig({ NODE_ENV: 'test', APP_SECRET: 'x'.repeat(40), MEILI_MASTER_KEY: 'k'.repeat(20), RENDER_BUDGET_MS: '0' }),
    ).to.throw(ConfigError, /RENDER_BUDGET_MS/);
  });

  it('formats decimal amounts without floating-point arithmetic', () => {
    expect(formatMoney(49.9, 'EUR')).to.equal('49.90 EUR');
    expect(formatMoney(1234567.5, 'TRY')).to.equal('1,234,567.50 TRY');
    expect(formatMoney(0.125, 'KWD')).to.equal('0.125 KWD');
    expect(formatMoney(undefined, 'EUR')).to.equal('');
  });
});
