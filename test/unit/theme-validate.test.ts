/**
 * The theme package validator (domain/theme-package/validate.ts): the built-in theme passes, and each
 * rule family (structure, security, schema and templates, Liquid syntax) finds what it should, with
 * the file, line and column.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { validateThemePackage, type ThemeFinding } from '../../domain/theme-package/validate';
import { PROJECT_ROOT } from '../../lib/config';

const HERO = `<section><h1>{{ section.settings.heading }}</h1></section>
{% schema %}
{ "name": "Hero", "settings": [ { "id": "heading", "type": "text", "label": "Heading", "default": "Hi" } ] }
{% endschema %}
`;

/** A minimal valid theme; `changes` replace files (a null value removes one). */
function theme(changes: Record<string, string | Buffer | null> = {}): Map<string, Buffer> {
  const files: Record<string, string | Buffer | null> = {
    'theme.json': '{ "name": "Tiny", "version": "1.0.0" }',
    'layout/theme.liquid':
      '<!doctype html><html><head><title>{{ page_title }}</title></head><body>{{ content_for_layout | raw }}</body></html>',
    'templates/index.json': '{ "sections": [ { "type": "hero" } ] }',
    'sections/hero.liquid': HERO,
    'snippets/card.liquid': '<li>{{ product.title }}</li>',
    'assets/theme.css': 'body { margin: 0 }',
    ...changes,
  };
  const map = new Map<string, Buffer>();
  for (const [file, content] of Object.entries(files))
    if (content !== null) map.set(file, Buffer.isBuffer(content) ? content : Buffer.from(content));
  return map;
}

const errors = (findings: ThemeFinding[]): ThemeFinding[] => findings.filter((f) => f.severity === 'error');
const rules = (findings: ThemeFinding[]): string[] => errors(findings).map((f) => f.rule);

function readFolder(root: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files.set(path.relative(root, full).split(path.sep).join('/'), fs.readFileSync(full));
    }
  };
  walk(root);
  return files;
}

describe('theme package validator', () => {
  it('passes the minimal theme and the built-in storefront theme with no errors', () => {
    expect(validateThemePackage(theme())).to.deep.equal([]);
    const builtIn = readFolder(path.join(PROJECT_ROOT, 'web', 'theme'));
    for (const file of [...builtIn.keys()]) if (file.startsWith('console/') || file === 'landing.liquid') builtIn.delete(file);
    expect(errors(validateThemePackage(builtIn))).to.deep.equal([]);
  });

  describe('structure', () => {
    it('requires the layout and the index template', () => {
      const found = validateThemePackage(theme({ 'layout/theme.liquid': null, 'templates/index.json': null }));
      expect(found.filter((f) => f.rule === 'structure.missing-file').map((f) => f.file)).to.have.members([
        'layout/theme.liquid',
        'templates/index.json',
      ]);
    });

    it('refuses files outside the theme folders, wrong types, bad names and bad encodings', () => {
      const found = validateThemePackage(
        theme({
          'server.js': 'x',
          'sections/deep/hero.liquid': HERO,
          'templates/index.liquid': 'x',
          'assets/run.exe': 'x',
          'snippets/.hidden.liquid': 'x',
          'snippets/latin1.liquid': Buffer.from([0x63, 0x61, 0x66, 0xe9]),
        }),
      );
      expect(found.map((f) => `${f.rule} ${f.file}`)).to.include.members([
        'structure.unexpected-file server.js',
        'structure.unexpected-file sections/deep/hero.liquid',
        'structure.file-type templates/index.liquid',
        'structure.file-type assets/run.exe',
        'structure.file-name snippets/.hidden.liquid',
        'structure.encoding snippets/latin1.liquid',
      ]);
    });

    it('checks theme.json: an object with a name and a semantic version', () => {
      expect(rules(validateThemePackage(theme({ 'theme.json': '{ "name": "", "version": "one" }' })))).to.deep.equal([
        'structure.theme-json',
        'structure.theme-json',
      ]);
      const broken = validateThemePackage(theme({ 'theme.json': '{\n  "name": "x",\n}' }));
      expect(broken[0]).to.include({ rule: 'structure.theme-json', line: 3, column: 1 });
    });
  });

  describe('security', () => {
    it('refuses path traversal in file names, render tags, asset references and template section types', () => {
      const found = validateThemePackage(
        theme({
          '../outside.liquid': 'x',
          '/etc/passwd': 'x',
          'snippets\\win.liquid': 'x',
          'sections/hero.liquid': HERO.replace('</section>', "{% render '../../etc/passwd' %}{{ '../secret.txt' | asset_url }}</section>"),
          'templates/page.json': '{ "sections": [ { "type": "../hero" } ] }',
        }),
      );
      const traversal = found.filter((f) => f.rule === 'security.path-traversal');
      expect(traversal.map((f) => f.file)).to.have.members([
        '../outside.liquid',
        '/etc/passwd',
        'snippets\\win.liquid',
        'sections/hero.liquid',
        'sections/hero.liquid',
        'templates/page.json',
      ]);
      expect(traversal.find((f) => f.file === 'sections/hero.liquid')).to.include({ line: 1 });
    });

    it('refuses a setting output with raw, directly or through assign and capture', () => {
      for (const body of [
        '{{ section.settings.heading | raw }}',
        '{% assign h = section.settings.heading | upcase %}\n{{ h | raw }}',
        '{% capture h %}<b>{{ section.settings.heading }}</b>{% endcapture %}{{ h | raw }}',
      ]) {
        const found = validateThemePackage(theme({ 'sections/hero.liquid': HERO.replace('{{ section.settings.heading }}', body) }));
        expect(rules(found), body).to.deep.equal(['security.unescaped-setting']);
      }
      // Escaped (the default) is fine, and raw output of the engine's own HTML is too.
      expect(rules(validateThemePackage(theme()))).to.deep.equal([]);
    });

    it('refuses a setting written into a script or an event handler without json', () => {
      const script = validateThemePackage(
        theme({
          'sections/hero.liquid': HERO.replace(
            '</section>',
            '<script src="/x.js"></script><script>var h = "{{ section.settings.heading }}";</script></section>',
          ),
        }),
      );
      expect(rules(script)).to.deep.equal(['security.setting-in-script']);
      expect(script.find((f) => f.rule === 'security.setting-in-script')).to.include({ line: 1 });
      const handler = validateThemePackage(
        theme({ 'sections/hero.liquid': HERO.replace('<section>', '<section onclick="go(\'{{ section.settings.heading }}\')">') }),
      );
      expect(rules(handler)).to.deep.equal(['security.setting-in-script']);
      const withJson = validateThemePackage(
        theme({
          'sections/hero.liquid': HERO.replace(
            '</section>',
            '<script type="application/json">{{ section.settings.heading | json }}</script></section>',
          ),
        }),
      );
      expect(rules(withJson)).to.deep.equal([]);
      expect(withJson.map((f) => f.rule)).to.deep.equal(['security.inline-script']);
    });

    it('refuses scripts from hosts that are not allowed, and scripts chosen by a setting', () => {
      const layout = (src: string) => ({
        'layout/theme.liquid': `<html><head><script src="${src}" defer></script></head><body>{{ content_for_layout | raw }}</body></html>`,
      });
      const external = validateThemePackage(theme(layout('https://evil.example.com/x.js')));
      expect(external[0]).to.include({ rule: 'security.external-script', file: 'layout/theme.liquid', line: 1, column: 13 });
      expect(rules(validateThemePackage(theme(layout('//evil.example.com/x.js'))))).to.deep.equal(['security.external-script']);
      expect(
        validateThemePackage(theme(layout('https://cdn.example.com/x.js')), { allowedScriptHosts: ['cdn.example.com'] }),
      ).to.deep.equal([]);
      expect(validateThemePackage(theme(layout('/assets/theme/x.js')))).to.deep.equal([]);
      expect(rules(validateThemePackage(theme(layout('{{ settings.script_url }}'))))).to.deep.equal(['security.external-script']);
    });

    it('refuses scripts in SVG assets', () => {
      const found = validateThemePackage(
        theme({ 'assets/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg">\n<script>alert(1)</script></svg>' }),
      );
      expect(found[0]).to.include({ rule: 'security.svg-script', line: 2, column: 1 });
    });
  });

  describe('section schemas and templates', () => {
    const withSettings = (settings: string) =>
      theme({ 'sections/hero.liquid': `<p>x</p>\n{% schema %}\n{ "name": "Hero", "settings": [ ${settings} ] }\n{% endschema %}\n` });

    it('requires one schema per section, valid JSON, with its position', () => {
      expect(rules(validateThemePackage(theme({ 'sections/hero.liquid': '<p>x</p>' })))).to.deep.equal(['schema.missing']);
      const broken = validateThemePackage(
        theme({ 'sections/hero.liquid': '<p>x</p>\n{% schema %}\n{ "name": "Hero",\n  "settings": [ }\n{% endschema %}' }),
      );
      expect(broken[0]).to.include({ rule: 'schema.json', file: 'sections/hero.liquid', line: 4 });
    });

    it('checks setting ids, types and defaults', () => {
      expect(rules(validateThemePackage(withSettings('{ "id": "Bad Id", "type": "text", "label": "x" }')))).to.deep.equal([
        'schema.setting-id',
      ]);
      expect(rules(validateThemePackage(withSettings('{ "id": "a", "type": "script", "label": "x" }')))).to.deep.equal([
        'schema.setting-type',
      ]);
      expect(
        rules(
          validateThemePackage(withSettings('{ "id": "a", "type": "text", "label": "x" }, { "id": "a", "type": "text", "label": "y" }')),
        ),
      ).to.deep.equal(['schema.duplicate-id']);
      for (const bad of [
        '{ "id": "a", "type": "color", "label": "x", "default": "red" }',
        '{ "id": "a", "type": "range", "label": "x", "min": 1, "max": 10, "default": 20 }',
        '{ "id": "a", "type": "checkbox", "label": "x", "default": "yes" }',
        '{ "id": "a", "type": "select", "label": "x", "options": ["a", "b"], "default": "c" }',
        '{ "id": "a", "type": "url", "label": "x", "default": "javascript:alert(1)" }',
        '{ "id": "a", "type": "product", "label": "x", "default": "Not A Slug" }',
        '{ "id": "a", "type": "repeater", "label": "x", "fields": [ { "id": "t", "type": "text", "label": "T" } ], "default": [ { "u": "x" } ] }',
      ])
        expect(rules(validateThemePackage(withSettings(bad))), bad).to.deep.equal(['schema.setting-default']);
      const good = validateThemePackage(
        withSettings(
          '{ "id": "c", "type": "color", "label": "C", "default": "#112233" }, { "id": "body", "type": "richtext", "label": "B", "default": "<p>x</p>" }, ' +
            '{ "id": "p", "type": "page", "label": "P", "default": "about-us" }, ' +
            '{ "id": "links", "type": "repeater", "label": "L", "max": 5, "fields": [ { "id": "label", "type": "text", "label": "T" }, { "id": "href", "type": "url", "label": "U" } ], "default": [ { "label": "Home", "href": "/" } ] }',
        ),
      );
      expect(good).to.deep.equal([]);
      expect(rules(validateThemePackage(withSettings('{ "id": "r", "type": "repeater", "label": "x" }')))).to.deep.equal([
        'schema.repeater',
      ]);
    });

    it('checks templates: JSON, known sections, declared settings of the right type', () => {
      const broken = validateThemePackage(
        theme({ 'templates/index.json': '{ "sections": [\n  { "type": "hero" }\n  { "type": "x" } ] }' }),
      );
      expect(broken[0]).to.include({ rule: 'template.json', line: 3, column: 3 });
      expect(rules(validateThemePackage(theme({ 'templates/index.json': '{ "sections": [ { "type": "nope" } ] }' })))).to.include(
        'template.unknown-section',
      );
      expect(
        rules(
          validateThemePackage(
            theme({ 'templates/index.json': '{ "sections": [ { "type": "hero", "settings": { "colour": "#fff" } } ] }' }),
          ),
        ),
      ).to.deep.equal(['template.unknown-setting']);
      expect(
        rules(
          validateThemePackage(theme({ 'templates/index.json': '{ "sections": [ { "type": "hero", "settings": { "heading": 5 } } ] }' })),
        ),
      ).to.deep.equal(['template.setting-value']);
      expect(rules(validateThemePackage(theme({ 'templates/index.json': '[]' })))).to.deep.equal(['template.structure']);
    });
  });

  describe('Liquid syntax', () => {
    it('reports syntax errors, unknown tags and unknown filters with line and column', () => {
      const unclosed = validateThemePackage(theme({ 'snippets/card.liquid': '<li>\n  {% if product %}\n{{ product.title }}</li>' }));
      expect(unclosed).to.deep.equal([
        {
          severity: 'error',
          rule: 'liquid.syntax',
          file: 'snippets/card.liquid',
          line: 2,
          column: 3,
          message: 'tag {% if product %} not closed',
        },
      ]);
      const filter = validateThemePackage(theme({ 'snippets/card.liquid': '<li>\n\n    {{ product.title | shout }}</li>' }));
      expect(filter[0]).to.include({ rule: 'liquid.syntax', line: 3, column: 5, message: 'undefined filter: shout' });
      const tag = validateThemePackage(theme({ 'snippets/card.liquid': '{% javascript %}' }));
      expect(tag[0]).to.include({ rule: 'liquid.syntax', line: 1, column: 1 });
      const output = validateThemePackage(theme({ 'layout/theme.liquid': '<html>\n<body>{{ content_for_layout </body></html>' }));
      expect(output[0]).to.include({ rule: 'liquid.syntax', file: 'layout/theme.liquid', line: 2, column: 7 });
    });

    it('reports render tags naming snippets that do not exist, and assets that do not exist', () => {
      const found = validateThemePackage(
        theme({ 'sections/hero.liquid': HERO.replace('</section>', "{% render 'missing' %}{{ 'app.js' | asset_url }}</section>") }),
      );
      expect(rules(found)).to.deep.equal(['liquid.missing-snippet', 'structure.missing-asset']);
    });
  });
});
