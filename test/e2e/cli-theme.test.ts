/**
 * `svc-theme` as a theme developer runs it: the built binary (child_process) against a test server.
 * init → validate → push (draft) → deploy (published and active) → the storefront serves the theme;
 * pull gives back what was pushed; validate finds each class of problem with exit code 1 and JSON;
 * usage errors exit 2; environments (svc env) choose the instance and store.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestServer, call, type TestServer } from '../helpers/harness';
import { category, merchant, type Merchant } from '../helpers/fixtures';
import { eventually } from '../helpers/wait';

const CLI = path.join(__dirname, '..', '..', 'cli');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(tool: 'svc' | 'svc-theme', args: string[], env: NodeJS.ProcessEnv, cwd = os.tmpdir()): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(CLI, `${tool}.js`), ...args], {
      cwd,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, CHROMIUM_PATH: process.env.CHROMIUM_PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

function readFolder(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files.set(path.relative(root, full).split(path.sep).join('/'), fs.readFileSync(full, 'utf8'));
    }
  };
  walk(root);
  return files;
}

describe('svc-theme command line', function () {
  this.timeout(120_000);
  let server: TestServer;
  let m: Merchant;
  let work: string;
  let env: NodeJS.ProcessEnv;
  const theme = (): string => path.join(work, 'aurora');

  before(async () => {
    server = await startTestServer();
    m = await merchant(server);
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-theme-'));
    env = { SVC_CONFIG_DIR: path.join(work, 'config') };
  });

  after(async () => {
    await server?.close();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('init writes a skeleton that validates with no findings', async () => {
    const init = await run('svc-theme', ['init', theme(), '--name', 'Aurora'], env);
    expect(init.code, init.stderr).to.equal(0);
    for (const file of [
      'theme.json',
      'layout/theme.liquid',
      'templates/index.json',
      'sections/hero.liquid',
      'snippets/product-card.liquid',
      'assets/theme.css',
    ])
      expect(fs.existsSync(path.join(theme(), file)), file).to.equal(true);
    const validate = await run('svc-theme', ['validate', theme(), '--json'], env);
    expect(validate.code, validate.stdout + validate.stderr).to.equal(0);
    expect(JSON.parse(validate.stdout)).to.deep.equal({ ok: true, errors: 0, warnings: 0, findings: [] });
    const again = await run('svc-theme', ['init', theme()], env);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.match(/exists and is not empty/);
  });

  it('validate finds each class of problem, with exit code 1, file, line and column', async () => {
    const broken = path.join(work, 'broken');
    await run('svc-theme', ['init', broken], env);
    const hero = path.join(broken, 'sections', 'hero.liquid');
    fs.writeFileSync(
      hero,
      fs
        .readFileSync(hero, 'utf8')
        .replace(
          '<h1 id="hero-title">{{ section.settings.heading }}</h1>',
          '<h1 id="hero-title">{{ section.settings.heading | raw }}</h1>\n{% if x %}',
        )
        .replace('"default": "#1d4ed8"', '"default": "blue"'),
    );
    fs.writeFileSync(path.join(broken, 'snippets', 'tracker.liquid'), '<script src="https://tracker.example.net/t.js"></script>');
    fs.rmSync(path.join(broken, 'templates', 'index.json'));
    fs.writeFileSync(path.join(broken, 'templates', 'page.json'), '{ "sections": [ { "type": "../../secrets" } ] }');

    const res = await run('svc-theme', ['validate', broken, '--json'], env);
    expect(res.code).to.equal(1);
    const report = JSON.parse(res.stdout) as { ok: boolean; errors: number; findings: Array<Record<string, unknown>> };
    expect(report.ok).to.equal(false);
    const find = (rule: string) => report.findings.find((f) => f.rule === rule);
    expect(find('structure.missing-file')).to.include({ severity: 'error', file: 'templates/index.json' });
    expect(find('security.unescaped-setting')).to.include({ file: 'sections/hero.liquid', line: 2 });
    expect(find('security.external-script')).to.include({ file: 'snippets/tracker.liquid', line: 1, column: 1 });
    expect(find('security.path-traversal')).to.include({ file: 'templates/page.json' });
    expect(find('schema.setting-default')).to.include({ file: 'sections/hero.liquid' });
    expect(find('liquid.syntax')).to.include({ file: 'sections/hero.liquid', line: 3, column: 1 });
    expect(report.errors).to.equal(report.findings.filter((f) => f.severity === 'error').length);

    const allowed = await run('svc-theme', ['validate', broken, '--json', '--allow-script-host', 'tracker.example.net'], env);
    expect(JSON.parse(allowed.stdout).findings.map((f: { rule: string }) => f.rule)).not.to.include('security.external-script');

    const text = await run('svc-theme', ['validate', broken], env);
    expect(text.code).to.equal(1);
    expect(text.stdout).to.match(/error\s+sections\/hero\.liquid:3:1\s+liquid\.syntax/);
  });

  it('exits 2 on usage errors and 0 on --help of every command', async () => {
    expect((await run('svc-theme', ['frobnicate'], env)).code).to.equal(2);
    expect((await run('svc-theme', ['deploy'], env)).code).to.equal(2);
    expect((await run('svc-theme', ['validate', '--bogus'], env)).code).to.equal(2);
    for (const command of ['init', 'dev', 'validate', 'audit', 'push', 'deploy', 'pull']) {
      const help = await run('svc-theme', [command, '--help'], env);
      expect(help.code, command).to.equal(0);
      expect(help.stdout).to.include(`Usage: svc-theme ${command}`).and.include('--env <name>');
    }
    const deploy = await run('svc-theme', ['deploy', 'not-a-uuid'], { ...env, SVC_CONFIG_DIR: path.join(work, 'empty') });
    expect(deploy.code).to.equal(1);
    expect(deploy.stderr).to.match(/No environment yet/);
  });

  it('push uploads a draft, deploy publishes it, the storefront serves it, and pull gives back the same files', async () => {
    const token = m.owner.accessToken;
    const added = await run('svc', ['env', 'add', 'local', '--url', server.baseUrl, '--token', token, '--store', m.storeId, '--use'], env);
    expect(added.code, added.stderr).to.equal(0);
    const stat = fs.statSync(path.join(env.SVC_CONFIG_DIR!, 'config.json'));
    expect(stat.mode & 0o777).to.equal(0o600);
    expect(fs.statSync(env.SVC_CONFIG_DIR!).mode & 0o777).to.equal(0o700);

    // A distinctive heading, to find on the storefront.
    const index = path.join(theme(), 'templates', 'index.json');
    fs.writeFileSync(
      index,
      JSON.stringify({
        sections: [
          { type: 'header' },
          { type: 'hero', settings: { heading: 'Aurora is live' } },
          { type: 'featured-products' },
          { type: 'footer' },
        ],
      }),
    );

    const push = await run('svc-theme', ['push', theme()], env);
    expect(push.code, push.stderr).to.equal(0);
    const packageId = push.stdout.trim();
    expect(packageId).to.match(/^[0-9a-f-]{36}$/);
    expect(push.stderr).to.match(/Aurora 1\.0\.0 .*draft/);

    const draft = await call(server, 'GET', `/api/v1/themes/packages/${packageId}`, { headers: m.headers });
    expect(draft.status).to.equal(200);
    expect(draft.json).to.include({ status: 'DRAFT', active: false, name: 'Aurora', version: '1.0.0', storeId: m.storeId });
    const before = await call(server, 'GET', `/shop/${m.storeId}`);
    expect(before.text).not.to.include('Aurora is live');

    const deploy = await run('svc-theme', ['deploy', packageId, '--json'], env);
    expect(deploy.code, deploy.stderr).to.equal(0);
    expect(JSON.parse(deploy.stdout)).to.include({ id: packageId, status: 'PUBLISHED', active: true });

    const shop = await call(server, 'GET', `/shop/${m.storeId}`);
    expect(shop.status).to.equal(200);
    expect(shop.text).to.include('Aurora is live');

    const out = path.join(work, 'pulled');
    const pull = await run('svc-theme', ['pull', packageId, '--out', out], env);
    expect(pull.code, pull.stderr).to.equal(0);
    expect(pull.stdout).to.match(/Aurora 1\.0\.0/);
    expect(readFolder(out)).to.deep.equal(readFolder(theme()));
    expect(JSON.parse(fs.readFileSync(path.join(out, '.svc-theme.json'), 'utf8'))).to.include({ id: packageId, status: 'PUBLISHED' });
  });

  it('push refuses a theme with errors before uploading, and environments switch the target', async () => {
    const bad = path.join(work, 'bad');
    await run('svc-theme', ['init', bad], env);
    fs.writeFileSync(path.join(bad, 'snippets', 'x.liquid'), '{{ oops');
    const push = await run('svc-theme', ['push', bad], env);
    expect(push.code).to.equal(1);
    expect(push.stderr)
      .to.match(/liquid\.syntax/)
      .and.match(/nothing was uploaded/);

    // Another environment pointing at an instance that is not there: --env picks it for one command.
    const nowhere = await run(
      'svc',
      ['env', 'add', 'nowhere', '--url', 'http://127.0.0.1:9', '--token', 'x'.repeat(20), '--store', m.storeId],
      env,
    );
    expect(nowhere.code).to.equal(0);
    const failed = await run('svc-theme', ['push', theme(), '--env', 'nowhere'], env);
    expect(failed.code).to.equal(1);
    expect(failed.stderr).to.match(/Cannot reach http:\/\/127\.0\.0\.1:9/);
    const list = await run('svc', ['env', 'list', '--json'], env);
    expect(JSON.parse(list.stdout).map((e: { name: string; current: boolean }) => [e.name, e.current])).to.deep.equal([
      ['local', true],
      ['nowhere', false],
    ]);
    expect(list.stdout).not.to.include(m.owner.accessToken);
    expect((await run('svc', ['env', 'use', 'nowhere'], env)).code).to.equal(0);
    expect((await run('svc-theme', ['push', theme()], env)).stderr).to.match(/Cannot reach/);
    expect((await run('svc', ['env', 'use', 'local'], env)).code).to.equal(0);
    const pushed = await run('svc-theme', ['push', theme()], env);
    expect(pushed.code, pushed.stderr).to.equal(0);
  });

  it('dev previews the folder on a real store through --api and reloads the page when a file changes', async () => {
    await category(server, m, { name: 'Lanterns From The Real Store' });
    const dev = spawn(
      process.execPath,
      [path.join(CLI, 'svc-theme.js'), 'dev', theme(), '--port', '0', '--api', server.baseUrl, '--store', m.storeId],
      {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      },
    );
    let stdout = '';
    let stderr = '';
    dev.stdout.on('data', (d) => (stdout += d));
    dev.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => dev.on('exit', (code) => resolve(code)));
    const events = new AbortController();
    try {
      const shop = await eventually(
        () => /(http:\/\/127\.0\.0\.1:\d+\/shop\/[0-9a-f-]+)/.exec(stdout)?.[1],
        () => `the preview URL (${stderr})`,
        20_000,
      );
      const origin = new URL(shop).origin;
      const first = await fetch(shop);
      expect(first.status).to.equal(200);
      const html = await first.text();
      expect(html).to.include('Lanterns From The Real Store').and.include('/__svc/reload.js');

      // Listen for the reload, then change the hero's heading in the folder.
      const stream = await fetch(`${origin}/__svc/events`, { signal: events.signal });
      const reader = stream.body!.getReader();
      let received = '';
      const reloaded = (async () => {
        while (!received.includes('event: reload')) {
          const { value, done } = await reader.read();
          if (done) break;
          received += Buffer.from(value).toString('utf8');
        }
      })();
      const index = path.join(theme(), 'templates', 'index.json');
      const saved = fs.readFileSync(index, 'utf8');
      fs.writeFileSync(index, saved.replace('Aurora is live', 'Edited while previewing'));
      await reloaded;
      expect(received).to.include('templates/index.json');
      expect(await (await fetch(shop)).text()).to.include('Edited while previewing');

      // A Liquid error shows on the page, with its line and column.
      const hero = path.join(theme(), 'sections', 'hero.liquid');
      const heroSource = fs.readFileSync(hero, 'utf8');
      fs.writeFileSync(hero, heroSource.replace('{{ section.settings.heading }}', '{{ section.settings.heading | shout }}'));
      await eventually(async () => (await (await fetch(shop)).text()).includes('undefined filter: shout'), 'the error panel', 10_000);
      fs.writeFileSync(hero, heroSource);
      fs.writeFileSync(index, saved);
    } finally {
      events.abort();
      dev.kill('SIGTERM');
    }
    expect(await exited).to.equal(0);
  });

  it('audit walks every template in Chromium and reports coverage, budgets and accessibility', async () => {
    const res = await run('svc-theme', ['audit', theme(), '--json'], env);
    expect(res.code, res.stderr).to.equal(0);
    const report = JSON.parse(res.stdout);
    expect(report.ok).to.equal(true);
    expect(report.pages.map((p: { template: string }) => p.template)).to.have.members([
      'index',
      'search',
      'category',
      'brand',
      'collection',
      'product',
      'page',
      '404',
    ]);
    const index = report.pages.find((p: { template: string }) => p.template === 'index');
    const hero = index.sections.find((s: { type: string }) => s.type === 'hero');
    expect(hero.ops).to.be.greaterThan(0);
    expect(hero.bytes).to.be.greaterThan(0);
    expect(hero.budget).to.have.keys(['ms', 'ops', 'bytes']);
    expect(report.coverage['main-product']).to.deep.equal(['product']);
    expect(report.coverage.header).to.have.length(8);

    // An inaccessible image and a section over its operations budget fail the audit.
    const heavy = path.join(work, 'heavy');
    await run('svc-theme', ['init', heavy], env);
    const heroFile = path.join(heavy, 'sections', 'hero.liquid');
    fs.writeFileSync(heroFile, fs.readFileSync(heroFile, 'utf8').replace('<h1', '<img src="/x.png"><h1'));
    const failing = await run('svc-theme', ['audit', heavy, '--json'], { ...env, RENDER_BUDGET_OPS: '30' });
    expect(failing.code).to.equal(1);
    const failed = JSON.parse(failing.stdout);
    const failedIndex = failed.pages.find((p: { template: string }) => p.template === 'index');
    expect(failedIndex.violations.map((v: { id: string }) => v.id)).to.include('image-alt');
    expect(failedIndex.sections.find((s: { type: string }) => s.type === 'featured-products').omitted).to.equal('budget:ops');
  });
});
