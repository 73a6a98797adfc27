/**
 * Recovery: Meilisearch stops while merchants keep writing; nothing is lost. A private Meilisearch
 * process (same binary as the project's, its own port and database) is started, stopped and started
 * again, so the shared one other tests use is never touched.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Meilisearch } from 'meilisearch';
import { call, startTestServer, type TestServer } from '../helpers/harness';
import { merchant, type Merchant } from '../helpers/fixtures';
import { deliverIndexRows, indexHandler, pendingIndexRows } from '../helpers/indexing';
import { storeIndexUid } from '../../search/index-names';
import { freePort } from '../helpers/ports';
import { eventually } from '../helpers/wait';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const BINARIES = [
  path.join(ROOT, '.data', 'bin', 'meilisearch'),
  path.join(ROOT, 'node_modules', '@gaubee', 'meilisearch-linux-amd64', 'meilisearch'),
];

class PrivateMeili {
  private child?: ChildProcess;
  readonly dir = mkdtempSync(path.join(tmpdir(), 'meili-recovery-'));
  readonly key = randomBytes(24).toString('hex');
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const binary = BINARIES.find((b) => existsSync(b));
    if (!binary) throw new Error('no Meilisearch binary (run npm install)');
    if (!this.port) this.port = await freePort();
    this.child = spawn(
      binary,
      ['--db-path', path.join(this.dir, 'db'), '--http-addr', `127.0.0.1:${this.port}`, '--no-analytics', '--log-level', 'ERROR'],
      {
        cwd: this.dir,
        env: { ...process.env, MEILI_MASTER_KEY: this.key, MEILI_ENV: 'development' },
        stdio: 'ignore',
      },
    );
    await eventually(
      () =>
        fetch(`${this.url}/health`)
          .then((r) => r.ok)
          .catch(() => false),
      'the private Meilisearch to be healthy',
      { timeoutMs: 20_000, intervalMs: 100 },
    );
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }

  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

describe('search recovery: Meilisearch down while the catalog changes', function () {
  this.timeout(120_000);
  let server: TestServer;
  let meili: PrivateMeili;
  let m: Merchant;

  before(async () => {
    server = await startTestServer();
    meili = new PrivateMeili();
    await meili.start();
    m = await merchant(server);
  });

  after(async () => {
    await server.runtime.dataSource.query("UPDATE outbox SET status = 'done', done_at = now() WHERE tenant_id = $1 AND status <> 'done'", [
      m.owner.tenantId,
    ]);
    await meili.destroy();
    await server.close();
  });

  async function publish(title: string): Promise<string> {
    const created = await call(server, 'POST', '/api/v1/catalog/products', {
      headers: m.headers,
      body: { storeId: m.storeId, title, type: 'PHYSICAL', price: 10 },
    });
    expect(created.status, created.text).to.equal(201);
    const published = await call(server, 'POST', `/api/v1/catalog/products/${created.json.id}/publish`, { headers: m.headers });
    expect(published.status, published.text).to.equal(201);
    return created.json.id;
  }

  it('keeps every write in the outbox while Meilisearch is down and makes all of them searchable once it is back', async () => {
    const client = new Meilisearch({ host: meili.url, apiKey: meili.key, timeout: 2_000 });
    const handler = indexHandler(server, client);
    const search = async (q: string): Promise<string[]> =>
      (await client.index(storeIndexUid(m.storeId)).search(q, { filter: 'status = "PUBLISHED"' })).hits
        .map((h) => h.title as string)
        .sort();

    const first = await publish('Walnut Desk');
    const doomed = await publish('Pine Shelf');
    expect(await deliverIndexRows(server, m.owner.tenantId, handler)).to.deep.equal([]);
    expect(await search('walnut')).to.deep.equal(['Walnut Desk']);

    await meili.stop();
    await publish('Oak Chair');
    await publish('Birch Stool');
    const renamed = await call(server, 'PUT', `/api/v1/catalog/products/${first}`, {
      headers: m.headers,
      body: { type: 'PHYSICAL', title: 'Walnut Standing Desk', price: 12 },
    });
    expect(renamed.status, renamed.text).to.equal(200);
    const archived = await call(server, 'POST', `/api/v1/catalog/products/${doomed}/archive`, { headers: m.headers });
    expect(archived.status, archived.text).to.equal(201);

    const failures = await deliverIndexRows(server, m.owner.tenantId, handler);
    expect(failures.length).to.be.greaterThan(0);
    // Nothing acknowledged: every row is back to pending, waiting for its retry.
    expect(await pendingIndexRows(server, m.owner.tenantId)).to.be.greaterThan(0);
    const [waiting]: Array<{ n: number }> = await server.runtime.dataSource.query(
      "SELECT count(*)::int AS n FROM outbox WHERE tenant_id = $1 AND queue = 'index' AND status = 'pending' AND available_at > now() AND last_error IS NOT NULL",
      [m.owner.tenantId],
    );
    expect(waiting!.n).to.equal(await pendingIndexRows(server, m.owner.tenantId));

    await meili.start();
    expect(await deliverIndexRows(server, m.owner.tenantId, handler, { includeDelayed: true })).to.deep.equal([]);
    expect(await pendingIndexRows(server, m.owner.tenantId)).to.equal(0);
    expect(await search('oak')).to.deep.equal(['Oak Chair']);
    expect(await search('birch')).to.deep.equal(['Birch Stool']);
    expect(await search('walnut')).to.deep.equal(['Walnut Standing Desk']);
    expect(await search('pine')).to.deep.equal([]);
  });
});
