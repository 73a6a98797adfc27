/**
 * Several Meilisearch nodes: two private nodes started for this file (scripts/services with
 * MEILI_NODES_LOCAL=2, PostgreSQL and Redis the suite's own), an app whose MEILI_NODES lists them,
 * stores placed on both, and a store moved from one to the other while a writer changes its
 * products, the indexer keeps up and a reader searches it without pause.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { createApp } from '../../app/http-app';
import { createRuntime, type Runtime } from '../../app/runtime';
import { PROJECT_ROOT } from '../../lib/config';
import { ensureSearchKey } from '../../search/meili';
import { storeIndexUid } from '../../search/index-names';
import type { ProductDocument } from '../../search/product-document';
import { DependencyProbes } from '../../storage/dependency-probes';
import { moveStore, MoveRefusedError } from '../../indexer/move-store';
import { withIndexRebuildLock } from '../../indexer/reindex';
import { call, testConfig, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { merchant, type Merchant } from '../helpers/fixtures';
import { deliverIndexRows, indexHandler, pendingIndexRows, silentLogger } from '../helpers/indexing';
import { freePort } from '../helpers/ports';
import { eventually } from '../helpers/wait';
import { parseSamples, sumOf } from '../helpers/prometheus-text';
import { renderMetrics } from '../../lib/metrics';

const run = promisify(execFile);

describe('several Meilisearch nodes: placement and moving a store', function () {
  this.timeout(180_000);
  let server: TestServer;
  let runtime: Runtime;
  let dataDir: string;
  let servicesEnv: NodeJS.ProcessEnv;
  let nodeUrls: { a: string; b: string };

  const services = (command: 'start' | 'stop') =>
    run('bash', [path.join(PROJECT_ROOT, 'scripts', 'services'), command], { env: servicesEnv, timeout: 60_000 });

  const start = async (): Promise<TestServer> => {
    const base = testConfig();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'commerce-nodes-'));
    const port = await freePort();
    // Two ports in a row: the second node listens one above the first.
    if (!(await portFree(port + 1))) throw new Error(`port ${port + 1} is taken; run the file again`);
    servicesEnv = {
      ...process.env,
      SERVICES_DATA_DIR: dataDir,
      DATABASE_URL: base.databaseUrl,
      REDIS_URL: base.redisUrl,
      MEILI_PORT: String(port),
      MEILI_NODES_LOCAL: '2',
      MEILI_MASTER_KEY: base.meiliMasterKey,
    };
    await services('start');
    nodeUrls = { a: `http://127.0.0.1:${port}`, b: `http://127.0.0.1:${port + 1}` };
    // The reader searches without pause from one address: the per-client search limit must not be what it meets.
    runtime = await createRuntime(
      testConfig({ MEILI_NODES: `a=${nodeUrls.a},b=${nodeUrls.b}`, SEARCH_PUBLIC_REQUESTS_PER_MINUTE: '100000000' }),
      'commerce-test-nodes',
    );
    for (const node of runtime.searchNodes.nodes.all) await ensureSearchKey(node.admin, node.masterKey);
    const app = createApp({ ...runtime });
    const httpServer = http.createServer(app.callback());
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', () => resolve()));
    return {
      baseUrl: `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`,
      runtime,
      close: async () => {
        await new Promise<void>((resolve) => httpServer.close(() => resolve()));
        // The file's placements name nodes only this file knows.
        await runtime.dataSource.query('DELETE FROM search_placements WHERE node IN ($1, $2)', ['a', 'b']);
        await runtime.close();
        await services('stop');
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  };
  const suite = apiSuite((started) => (server = started), { start });

  const node = (name: 'a' | 'b') => runtime.searchNodes.nodes.get(name)!;
  const newMerchant = async (): Promise<Merchant> => suite.addMerchant(await merchant(server), { indexed: true });
  const handler = () => indexHandler(server, runtime.searchNodes);
  const drain = async (m: Merchant): Promise<void> => {
    const failures = await deliverIndexRows(server, m.owner.tenantId, handler(), { includeDelayed: true });
    expect(failures.map(String)).to.deep.equal([]);
  };

  async function publish(m: Merchant, title: string, price: number): Promise<string> {
    const created = await call(server, 'POST', '/api/v1/catalog/products', {
      headers: m.headers,
      body: { storeId: m.storeId, title, type: 'PHYSICAL', price },
    });
    expect(created.status, created.text).to.equal(201);
    const published = await call(server, 'POST', `/api/v1/catalog/products/${created.json.id}/publish`, { headers: m.headers });
    expect(published.status, published.text).to.equal(201);
    return created.json.id as string;
  }

  const documentsOn = async (name: 'a' | 'b', storeId: string): Promise<ProductDocument[] | undefined> => {
    try {
      const page = await node(name).admin.index<ProductDocument>(storeIndexUid(storeId)).getDocuments({ limit: 1_000 });
      return page.results;
    } catch {
      return undefined;
    }
  };

  const placedOn = (storeId: string) => runtime.searchNodes.placedOn(storeId);

  it('places a new store on the node holding the fewest documents, and reads and writes go there', async () => {
    const first = await newMerchant();
    for (let i = 0; i < 6; i += 1) await publish(first, `Oak table ${i}`, 100 + i);
    await drain(first);
    // Both nodes were empty: the first listed.
    expect(await placedOn(first.storeId)).to.equal('a');
    expect(await documentsOn('a', first.storeId)).to.have.length(6);
    expect(await documentsOn('b', first.storeId)).to.equal(undefined);

    const second = await newMerchant();
    await publish(second, 'Linen shirt', 40);
    await drain(second);
    expect(await placedOn(second.storeId)).to.equal('b');
    expect(await documentsOn('b', second.storeId)).to.have.length(1);
    expect(await documentsOn('a', second.storeId)).to.equal(undefined);

    // The public search of each store reads its own node.
    const tables = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${first.storeId}&q=oak`);
    expect(tables.status, tables.text).to.equal(200);
    expect(tables.json.total).to.equal(6);
    const shirts = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${second.storeId}&q=linen`);
    expect(shirts.status, shirts.text).to.equal(200);
    expect(shirts.json.total).to.equal(1);
    // /metrics times each node's requests apart.
    const samples = parseSamples((await renderMetrics()).body);
    for (const name of ['a', 'b'])
      expect(
        sumOf(samples, 'commerce_meili_request_duration_seconds_count', { node: name, outcome: 'ok' }),
        `node ${name}`,
      ).to.be.greaterThan(0);
  });

  it('moves a store to the other node while it is written and searched: no failed search, the index equals PostgreSQL', async () => {
    const m = await newMerchant();
    const ids: string[] = [];
    for (let i = 0; i < 40; i += 1) ids.push(await publish(m, `Walnut chair ${i}`, 50 + i));
    await drain(m);
    const from = (await placedOn(m.storeId)) as 'a' | 'b';
    const to = from === 'a' ? 'b' : 'a';

    let moving = true;
    const searches = { ok: 0, failed: [] as string[], empty: 0 };
    const reader = (async () => {
      let i = 0;
      while (moving) {
        // A different page each time, so most answers come from Meilisearch, not the answer cache.
        const res = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${m.storeId}&q=walnut&perPage=1&page=${(i % 30) + 1}`);
        i += 1;
        if (res.status !== 200) searches.failed.push(`${res.status} ${res.text}`);
        else if (res.json.total === 0) searches.empty += 1;
        else searches.ok += 1;
      }
    })();
    let writes = 0;
    const writer = (async () => {
      let i = 0;
      while (moving) {
        const id = ids[i % ids.length]!;
        if (i % 7 === 3) {
          // Some products leave the storefront, some arrive.
          const archived = await call(server, 'POST', `/api/v1/catalog/products/${id}/archive`, { headers: m.headers });
          expect(archived.status, archived.text).to.be.oneOf([200, 201, 409]);
          ids.push(await publish(m, `Walnut stool ${i}`, 20 + i));
        } else {
          const updated = await call(server, 'PUT', `/api/v1/catalog/products/${id}`, {
            headers: m.headers,
            body: { type: 'PHYSICAL', title: `Walnut chair ${i} rev`, price: 60 + i },
          });
          expect(updated.status, updated.text).to.equal(200);
        }
        writes += 1;
        i += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    // The indexer: the tenant's rows, delivered as they come (to the node the placement names then).
    const indexer = (async () => {
      while (moving) {
        await deliverIndexRows(server, m.owner.tenantId, handler());
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();

    const steps: string[] = [];
    let result;
    try {
      result = await moveStore(
        { dataSource: runtime.dataSource, placements: runtime.searchNodes, announce: runtime.publishStoreChanges, logger: silentLogger },
        m.storeId,
        to,
        { onStep: (step) => steps.push(step), graceMs: 6_000 },
      );
    } finally {
      moving = false;
      await Promise.all([reader, writer, indexer]);
    }
    expect(result.from).to.equal(from);
    expect(result.to).to.equal(to);
    expect(steps[0]).to.match(/^building the index/);
    expect(writes).to.be.greaterThan(10);
    expect(searches.failed).to.deep.equal([]);
    expect(searches.empty).to.equal(0);
    expect(searches.ok).to.be.greaterThan(10);
    expect(await placedOn(m.storeId)).to.equal(to);

    // The writes' last rows reach the new node; then it holds exactly the published products, as they are now.
    await drain(m);
    expect(await pendingIndexRows(server, m.owner.tenantId)).to.equal(0);
    const published: Array<{ id: string; title: string; price: string }> = await runtime.dataSource.query(
      "SELECT id, title, price::text FROM products WHERE store_id = $1 AND status = 'PUBLISHED' ORDER BY id",
      [m.storeId],
    );
    const docs = (await documentsOn(to, m.storeId))!;
    expect(docs.map((d) => ({ id: d.id, title: d.title, price: d.price })).sort((x, y) => x.id.localeCompare(y.id))).to.deep.equal(
      published.map((p) => ({ id: p.id, title: p.title, price: Number(p.price) })),
    );
    // The old node's index is gone; searches answer from the new one.
    expect(await documentsOn(from, m.storeId)).to.equal(undefined);
    const res = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${m.storeId}&q=walnut&perPage=60`);
    expect(res.status, res.text).to.equal(200);
    expect(res.json.total).to.equal(published.length);
  });

  it('refuses a move to an unknown node, to the node the store is on, and of an unknown store; nothing changes', async () => {
    const m = await newMerchant();
    await publish(m, 'Brass lamp', 30);
    await drain(m);
    const on = (await placedOn(m.storeId))!;
    const deps = {
      dataSource: runtime.dataSource,
      placements: runtime.searchNodes,
      announce: runtime.publishStoreChanges,
      logger: silentLogger,
    };
    for (const [store, to, message] of [
      [m.storeId, 'nowhere', /unknown node nowhere/],
      [m.storeId, on, /already on/],
      ['0190f0e4-0000-7000-8000-000000000000', on === 'a' ? 'b' : 'a', /does not exist/],
      ['not-a-store', 'a', /not a store id/],
    ] as const) {
      const error = await moveStore(deps, store, to).catch((e: Error) => e);
      expect(error).to.be.instanceOf(MoveRefusedError);
      expect((error as Error).message).to.match(message);
    }
    // While another process rebuilds or moves the store's index, a move is refused.
    const held = await withIndexRebuildLock(runtime.dataSource, m.storeId, () =>
      moveStore(deps, m.storeId, on === 'a' ? 'b' : 'a').catch((e: Error) => e),
    );
    expect(held.locked).to.equal(true);
    const refused = (held as { result: unknown }).result;
    expect(refused).to.be.instanceOf(MoveRefusedError);
    expect(String(refused)).to.match(/being rebuilt or moved by another process/);
    expect(await placedOn(m.storeId)).to.equal(on);
    expect(await documentsOn(on as 'a' | 'b', m.storeId)).to.have.length(1);
  });

  it('is ready only when every node answers, and says which one does not', async () => {
    const probesOf = (nodes: Array<{ name: string; url: string }>) =>
      new DependencyProbes({
        databaseUrl: runtime.config.databaseUrl,
        redisUrl: runtime.config.redisUrl,
        meiliUrl: nodeUrls.a,
        meiliNodes: nodes,
      });
    const probes = probesOf([
      { name: 'a', url: nodeUrls.a },
      { name: 'b', url: nodeUrls.b },
    ]);
    await probes.probe('meilisearch', 2_000);
    const down = probesOf([
      { name: 'a', url: nodeUrls.a },
      { name: 'gone', url: 'http://127.0.0.1:1' },
    ]);
    const error = await down.probe('meilisearch', 2_000).catch((e: Error) => e);
    expect(String(error)).to.match(/node gone:/);
    expect(String(error)).not.to.match(/node a:/);
    await Promise.all([probes.close(), down.close()]);
    const ready = await eventually(async () => {
      const res = await call(server, 'GET', '/readyz');
      return res.status === 200 && res;
    }, '/readyz 200 with both nodes up');
    expect(ready.json.checks.meilisearch.status).to.equal('up');
  });
});

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = http.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}
