/**
 * Backup and restore end to end, with the commands an operator runs (`npm run backup`, `npm run
 * restore`, as built scripts in child processes): a platform on a database of its own gets a
 * merchant, published products, a webhook endpoint, orders and their audit trail through the API;
 * the backup is restored into a second, empty database and a new, empty Meilisearch (the indexes are
 * rebuilt, never backed up; a private Meilisearch also keeps the same store ids from meeting the
 * original's indexes); a platform started on the restored database answers the catalog, public
 * search, BI and audit log exactly as the original did, accepts the original's access token, and can
 * open the webhook secret. The restore's refusals (a non-empty database, a different app secret)
 * are shown to change nothing.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { Client } from 'pg';
import { createApp } from '../../app/http-app';
import { createRuntime } from '../../app/runtime';
import { PROJECT_ROOT } from '../../lib/config';
import { openSecret } from '../../api/webhooks/secrets';
import { storeIndexUid } from '../../search/index-names';
import { uuidv7 } from '../../storage/ids';
import { call, testConfig, type TestServer } from '../helpers/harness';
import { createProduct, customer, merchant, type Merchant } from '../helpers/fixtures';
import { deliverIndexRows } from '../helpers/indexing';
import { freePort } from '../helpers/ports';
import { eventually } from '../helpers/wait';

const execFileAsync = promisify(execFile);
/** The built scripts beside this built test (dist/ or another build folder alike). */
const SCRIPTS = path.join(__dirname, '..', '..', 'scripts');

interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A built script run as `npm run <script>` runs it, with `env` over this process's environment. */
async function runScript(script: 'backup' | 'restore', args: string[], env: NodeJS.ProcessEnv): Promise<CommandResult> {
  const merged: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete merged[key];
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [path.join(SCRIPTS, `${script}.js`), ...args], {
      cwd: PROJECT_ROOT,
      env: merged,
      timeout: 240_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** The app on a runtime of its own (its own database and Meilisearch), served on an ephemeral port. */
async function serverOn(overrides: Record<string, string>): Promise<TestServer & { stop(): Promise<void> }> {
  const runtime = await createRuntime(testConfig(overrides), 'commerce-backup-test');
  const server = http.createServer(createApp(runtime).callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    runtime,
    close,
    async stop() {
      await close();
      await runtime.close();
    },
  };
}

/** scripts/services managing only a Meilisearch (PostgreSQL and Redis are given as URLs) under `dir`. */
async function privateMeili(dir: string, command: 'start' | 'stop', port: number): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env, SERVICES_DATA_DIR: dir, MEILI_PORT: String(port), SERVICES_TIMEOUT: '60' };
  env.DATABASE_URL = 'postgres://postgres@127.0.0.1:1/unused';
  env.REDIS_URL = 'redis://127.0.0.1:1';
  delete env.MEILI_URL;
  delete env.MEILI_MASTER_KEY;
  await execFileAsync('bash', [path.join(PROJECT_ROOT, 'scripts', 'services'), command], { cwd: PROJECT_ROOT, env, timeout: 120_000 });
}

describe('backup and restore', function () {
  this.timeout(300_000);
  const tag = randomBytes(4).toString('hex');
  const base = new URL(testConfig().databaseUrl);
  const urlOf = (db: string) => Object.assign(new URL(base.toString()), { pathname: `/${db}` }).toString();
  const sourceDb = `backup_source_${tag}`;
  const targetDb = `backup_target_${tag}`;
  const secondTargetDb = `backup_target2_${tag}`;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'backup-restore-test-'));
  const archive = path.join(work, 'out', 'platform.tar');
  const restoredDataDir = path.join(work, 'restored-data');
  const meiliDir = path.join(work, 'meili-services');
  let meiliPort = 0;
  let meiliKey = '';
  let admin: Client;
  let source: (TestServer & { stop(): Promise<void> }) | undefined;
  let restored: (TestServer & { stop(): Promise<void> }) | undefined;
  let m: Merchant;
  let webhookSecret = '';
  let originalAppSecret = '';
  const originals = new Map<string, unknown>();

  /** The answers compared: the catalog, public searches (hits in order), BI and the audit log. */
  const READS: Array<[label: string, path: () => string, auth: boolean]> = [
    ['products', () => `/api/v1/catalog/products?storeId=${m.storeId}`, true],
    ['search wool', () => `/api/v1/catalog/public/search?storeId=${m.storeId}&q=wool`, false],
    ['search all', () => `/api/v1/catalog/public/search?storeId=${m.storeId}&sort=price_asc`, false],
    ['search typo', () => `/api/v1/catalog/public/search?storeId=${m.storeId}&q=scraf`, false],
    ['kpis', () => `/api/v1/bi/kpis?storeId=${m.storeId}&days=30`, true],
    ['top products', () => `/api/v1/bi/top-products?storeId=${m.storeId}&days=30`, true],
    ['audit log', () => `/api/v1/audit-log?limit=100`, true],
    ['webhook endpoints', () => `/api/v1/webhooks/endpoints`, true],
  ];

  /** What is compared of an answer: search hits and totals without timings; everything else whole. */
  function comparable(label: string, json: any): unknown {
    if (!label.startsWith('search')) return json;
    return { items: json.items, total: json.total ?? json.totalHits ?? json.estimatedTotalHits };
  }

  async function read(server: TestServer, label: string, url: string, auth: boolean): Promise<unknown> {
    const res = await call(server, 'GET', url, { headers: auth ? m.headers : {} });
    expect(res.status, `${label}: ${res.text}`).to.equal(200);
    return comparable(label, res.json);
  }

  before(async () => {
    admin = new Client({ connectionString: urlOf('postgres') });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${sourceDb}`);
    await admin.query(`CREATE DATABASE ${targetDb}`);
    originalAppSecret = fs.readFileSync(path.join(PROJECT_ROOT, '.data', 'app-secret'), 'utf8').trim();
    source = await serverOn({ DATABASE_URL: urlOf(sourceDb) });

    m = await merchant(source);
    const catalog: Array<[string, number]> = [
      ['Red wool scarf', 30],
      ['Blue wool hat', 25],
      ['Green cotton shirt', 40],
      ['Grey wool socks', 12],
      ['Black leather belt', 55],
    ];
    const productIds: string[] = [];
    for (const [title, price] of catalog) productIds.push((await createProduct(source, m, { title, price, status: 'PUBLISHED' })).id);
    expect(await deliverIndexRows(source, m.owner.tenantId)).to.deep.equal([]);

    const hook = await call(source, 'POST', '/api/v1/webhooks/endpoints', {
      headers: m.headers,
      body: { url: 'https://hooks.example.com/erp', topics: ['order.placed'] },
    });
    expect(hook.status, hook.text).to.equal(201);
    webhookSecret = hook.json.secret;

    // Orders for the reports, written as the storefront would leave them (the insight triggers keep the summaries).
    const db = source.runtime.dataSource;
    for (let i = 0; i < 6; i += 1) {
      const customerId = await customer(source, m, { email: `buyer${i}-${tag}@example.com` });
      const orderId = uuidv7();
      const quantity = 1 + (i % 3);
      const unit = catalog[i % catalog.length]![1];
      await db.query(
        `INSERT INTO orders (id, tenant_id, store_id, customer_id, status, currency, subtotal, total, item_count, shipping_city, shipping_district, created_at, updated_at)
         VALUES ($1, $2, $3, $4, 'PLACED', 'EUR', $5, $6, $7, 'Istanbul', 'Kadikoy', now() - make_interval(days => $8), now())`,
        [orderId, m.owner.tenantId, m.storeId, customerId, unit * quantity, unit * quantity + 5, quantity, i],
      );
      await db.query(
        `INSERT INTO order_items (id, tenant_id, order_id, product_id, title, quantity, unit_price, line_total, position)
         VALUES ($1, $2, $3, $4, 'line', $5, $6, $7, 0)`,
        [uuidv7(), m.owner.tenantId, orderId, productIds[i % productIds.length], quantity, unit, unit * quantity],
      );
    }

    await eventually(async () => {
      const res = await call(source!, 'GET', `/api/v1/catalog/public/search?storeId=${m.storeId}&q=wool`);
      return res.status === 200 && res.json.items.length === 3;
    }, 'the original index to answer');
    for (const [label, url, auth] of READS) originals.set(label, await read(source, label, url(), auth));
    // What is compared is not trivially empty.
    const items = (label: string) => (originals.get(label) as { items: unknown[] }).items.length;
    expect([items('products'), items('search wool'), items('search all'), items('search typo')]).to.deep.equal([5, 3, 5, 1]);
    expect((originals.get('kpis') as { orders: number }).orders).to.equal(6);
    expect(items('top products')).to.equal(5);
    expect(items('audit log')).to.be.greaterThan(6);
    expect(items('webhook endpoints')).to.equal(1);

    meiliPort = await freePort();
    await privateMeili(meiliDir, 'start', meiliPort);
    meiliKey = fs.readFileSync(path.join(meiliDir, 'meili-master-key'), 'utf8').trim();
  });

  after(async () => {
    await restored?.stop().catch(() => undefined);
    if (source) {
      await source.runtime.meiliAdmin
        .deleteIndex(storeIndexUid(m.storeId))
        .waitTask({ timeout: 10_000 })
        .catch(() => undefined);
      await source.stop().catch(() => undefined);
    }
    if (meiliPort) await privateMeili(meiliDir, 'stop', meiliPort).catch(() => undefined);
    for (const db of [sourceDb, targetDb, secondTargetDb])
      await admin?.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`).catch(() => undefined);
    await admin?.end();
    fs.rmSync(work, { recursive: true, force: true });
  });

  const restoreEnv = (): NodeJS.ProcessEnv => ({
    NODE_ENV: 'test',
    MEILI_URL: `http://127.0.0.1:${meiliPort}`,
    MEILI_MASTER_KEY: meiliKey,
    APP_SECRET: undefined,
    DATABASE_URL: undefined,
  });

  it('backup writes one mode-0600 archive (dump, secrets, manifest) and prints its path; it never overwrites a file', async () => {
    const result = await runScript('backup', ['--out', archive], { DATABASE_URL: urlOf(sourceDb), APP_SECRET: undefined });
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout.trim().split('\n').pop()).to.equal(archive);
    expect(fs.statSync(archive).mode & 0o777).to.equal(0o600);
    expect(fs.readdirSync(path.dirname(archive))).to.deep.equal(['platform.tar']);

    const again = await runScript('backup', ['--out', archive], { DATABASE_URL: urlOf(sourceDb), APP_SECRET: undefined });
    expect(again.code).to.equal(1);
    expect(again.stderr).to.match(/exists; choose another --out/);
    expect(fs.readdirSync(path.dirname(archive))).to.deep.equal(['platform.tar']);
  });

  it('a backup that fails leaves no file and exits 1', async () => {
    const out = path.join(work, 'failed', 'nothing.tar');
    const result = await runScript('backup', ['--out', out], { DATABASE_URL: urlOf(`missing_${tag}`), APP_SECRET: undefined });
    expect(result.code).to.equal(1);
    expect(result.stderr).to.match(/cannot connect to database missing_/);
    expect(fs.existsSync(out)).to.equal(false);
    expect(fs.existsSync(path.dirname(out)) ? fs.readdirSync(path.dirname(out)) : []).to.deep.equal([]);
  });

  it('restore refuses a database that is not empty, and a data folder holding another app secret, changing nothing', async () => {
    const intoSource = await runScript(
      'restore',
      [archive, '--database-url', urlOf(sourceDb), '--data-dir', restoredDataDir],
      restoreEnv(),
    );
    expect(intoSource.code).to.equal(1);
    expect(intoSource.stderr).to.match(new RegExp(`database ${sourceDb} is not empty`));

    const otherDir = path.join(work, 'other-data');
    fs.mkdirSync(otherDir);
    fs.writeFileSync(path.join(otherDir, 'app-secret'), `${'x'.repeat(40)}\n`, { mode: 0o600 });
    const conflict = await runScript('restore', [archive, '--database-url', urlOf(targetDb), '--data-dir', otherDir], restoreEnv());
    expect(conflict.code).to.equal(1);
    expect(conflict.stderr).to.match(/holds a different app secret than the backup; pass --force-secrets/);
    expect(fs.readFileSync(path.join(otherDir, 'app-secret'), 'utf8').trim()).to.equal('x'.repeat(40));
    const target = new Client({ connectionString: urlOf(targetDb) });
    await target.connect();
    try {
      expect((await target.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'")).rows[0].n).to.equal(0);
    } finally {
      await target.end();
    }
    expect(fs.existsSync(restoredDataDir)).to.equal(false);
  });

  it('restore into an empty database and a new Meilisearch gives back the same catalog, search, BI, audit log and secrets', async () => {
    const result = await runScript('restore', [archive, '--database-url', urlOf(targetDb), '--data-dir', restoredDataDir], restoreEnv());
    expect(result.code, result.stderr + result.stdout).to.equal(0);
    expect(result.stdout).to.match(/\(as the manifest says\)/);
    expect(result.stdout).to.match(/search indexes rebuilt in .*: 1 stores, 5 documents/);
    const secretFile = path.join(restoredDataDir, 'app-secret');
    expect(fs.statSync(secretFile).mode & 0o777).to.equal(0o600);
    const restoredSecret = fs.readFileSync(secretFile, 'utf8').trim();
    expect(restoredSecret).to.equal(originalAppSecret);

    restored = await serverOn({
      DATABASE_URL: urlOf(targetDb),
      MEILI_URL: `http://127.0.0.1:${meiliPort}`,
      MEILI_MASTER_KEY: meiliKey,
      APP_SECRET: restoredSecret,
    });
    // The new Meilisearch's search-only key is provisioned in the background at start.
    await eventually(async () => (await call(restored!, 'GET', READS[1]![1]())).status === 200, 'the restored search to answer');
    // The original's access token (signed with the app secret, its session in the database) works as it did.
    for (const [label, url, auth] of READS) expect(await read(restored, label, url(), auth), label).to.deep.equal(originals.get(label));

    // The webhook endpoint's secret, encrypted at rest with a key derived from the app secret, opens.
    const rows: Array<{ secret_enc: string }> = await restored.runtime.dataSource.query(
      'SELECT secret_enc FROM webhook_endpoints WHERE tenant_id = $1',
      [m.owner.tenantId],
    );
    expect(rows).to.have.length(1);
    expect(openSecret(restoredSecret, rows[0]!.secret_enc)).to.equal(webhookSecret);

    // The summaries came back as dumped: a rebuild from the restored orders changes no answer.
    await restored.runtime.dataSource.query('SELECT insight_rebuild($1)', [m.storeId]);
    for (const label of ['kpis', 'top products'])
      expect(await read(restored, label, READS.find(([l]) => l === label)![1](), true), label).to.deep.equal(originals.get(label));

    // The restored platform keeps working: a new product is found by the rebuilt index.
    await createProduct(restored, m, { title: 'Purple wool gloves', price: 18, status: 'PUBLISHED' });
    expect(await deliverIndexRows(restored, m.owner.tenantId)).to.deep.equal([]);
    await eventually(async () => {
      const res = await call(restored!, 'GET', READS[1]![1]());
      return res.status === 200 && res.json.items.length === 4;
    }, 'the new product to be found');
  });

  it('restore --force-secrets replaces a different app secret, keeping the old one beside it', async () => {
    const forcedDir = path.join(work, 'forced-data');
    fs.mkdirSync(forcedDir);
    fs.writeFileSync(path.join(forcedDir, 'app-secret'), `${'y'.repeat(40)}\n`, { mode: 0o600 });
    await admin.query(`CREATE DATABASE ${secondTargetDb}`);
    const result = await runScript(
      'restore',
      [archive, '--database-url', urlOf(secondTargetDb), '--data-dir', forcedDir, '--force-secrets'],
      restoreEnv(),
    );
    expect(result.code, result.stderr + result.stdout).to.equal(0);
    expect(result.stdout).to.match(/replaced with the backup's app secret \(the previous one is in .*app-secret\.replaced-/);
    expect(fs.readFileSync(path.join(forcedDir, 'app-secret'), 'utf8').trim()).to.equal(originalAppSecret);
    const kept = fs.readdirSync(forcedDir).filter((name) => name.startsWith('app-secret.replaced-'));
    expect(kept).to.have.length(1);
    expect(fs.readFileSync(path.join(forcedDir, kept[0]!), 'utf8').trim()).to.equal('y'.repeat(40));
    expect(fs.statSync(path.join(forcedDir, 'app-secret')).mode & 0o777).to.equal(0o600);
  });

  it('restore refuses the same database a second time (the migrations table is there)', async () => {
    const again = await runScript('restore', [archive, '--database-url', urlOf(targetDb), '--data-dir', restoredDataDir], restoreEnv());
    expect(again.code).to.equal(1);
    expect(again.stderr).to.match(/not empty: it has the schema_migrations table/);
  });
});
