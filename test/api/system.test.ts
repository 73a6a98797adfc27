/**
 * The operational endpoints as an orchestrator and a developer use them: liveness, readiness (all
 * four backing services, answered within a second even when one is down or hangs), the OpenAPI
 * document, the self-hosted reference page and its assets, and OPTIONS.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { call, startTestServer, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { extensionOperationIds } from '../../api/routes';
import type { Pool } from 'pg';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { eventually } from '../helpers/wait';

function expectProblem(response: TestResponse, status: number, code: string): void {
  expect(response.status, response.text).to.equal(status);
  expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
  expect(response.json).to.include({ status, code });
  expect(response.json.title).to.be.a('string').and.not.empty;
  expect(response.json.detail).to.be.a('string').and.not.empty;
  expect(response.json.requestId).to.equal(response.headers.get('x-request-id'));
}

async function timedCall(server: TestServer, method: string, path: string): Promise<{ res: TestResponse; ms: number }> {
  const started = Date.now();
  const res = await call(server, method, path);
  return { res, ms: Date.now() - started };
}

/** A request whose path is sent exactly as written (fetch would resolve the dot segments first). */
function rawGet(server: TestServer, path: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(server.baseUrl);
    const req = http.request({ host: url.hostname, port: url.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function countOperations(document: { paths: Record<string, Record<string, unknown>> }): number {
  return Object.values(document.paths).reduce((n, item) => n + Object.keys(item).length, 0);
}

describe('system endpoints', () => {
  let server: TestServer;
  apiSuite((started) => (server = started));

  for (const path of ['/livez', '/healthz']) {
    it(`GET ${path} (liveness) answers 200 {status: ok} and is not cached`, async () => {
      const res = await call(server, 'GET', path);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      expect(res.json.status).to.equal('ok');
      expect(res.json.uptimeSeconds).to.be.a('number').and.at.least(0);
      expect(res.headers.get('cache-control')).to.equal('no-store');
    });
  }

  it('GET /readyz answers 200 with postgres, migrations, redis and meilisearch all up and the api role ready, within a second', async () => {
    const { res, ms } = await timedCall(server, 'GET', '/readyz');
    expect(res.status, res.text).to.equal(200);
    expect(ms).to.be.below(1000);
    expect(res.json.status).to.equal('ready');
    expect(Object.keys(res.json.checks).sort()).to.deep.equal(['meilisearch', 'migrations', 'postgres', 'redis']);
    for (const [name, check] of Object.entries(res.json.checks as Record<string, { status: string; durationMs: number; error?: string }>)) {
      expect(check.status, name).to.equal('up');
      expect(check.durationMs, name).to.be.a('number').and.at.least(0);
      expect(check, name).not.to.have.property('error');
    }
    expect(res.json.roles).to.deep.equal({ api: { ready: true, missing: [] } });
    expect(res.json).not.to.have.property('degraded');
    expect(res.headers.get('cache-control')).to.equal('no-store');
  });

  it('GET /readyz stays quick while every pooled database connection is busy (its probe has a connection of its own)', async () => {
    const pool = server.runtime.config.dbPoolSize;
    const sleepers = Array.from({ length: pool + 2 }, () => server.runtime.dataSource.query('SELECT pg_sleep(1.5)'));
    try {
      const pg = (server.runtime.dataSource.driver as PostgresDriver).master as Pool;
      await eventually(() => pg.totalCount === pool && pg.idleCount === 0 && pg.waitingCount > 0, 'every pooled connection to be busy');
      const { res, ms } = await timedCall(server, 'GET', '/readyz');
      expect(res.status, res.text).to.equal(200);
      expect(ms).to.be.below(1000);
      expect(res.json.checks.postgres.status).to.equal('up');
    } finally {
      await Promise.all(sleepers);
    }
  });

  describe('GET /readyz with a backing service down', () => {
    // Servers of their own, pointed at a Redis and a Meilisearch that do not answer.
    let refused: TestServer;
    let noSearch: TestServer;
    before(async () => {
      refused = await startTestServer({ config: { redisUrl: 'redis://127.0.0.1:1' } });
      noSearch = await startTestServer({ config: { meiliUrl: 'http://127.0.0.1:1' } });
    });
    after(async () => {
      await refused.close();
      await noSearch.close();
    });

    it('stays ready without Redis (writes go to the outbox), naming redis as down and degraded, within a second', async () => {
      const { res, ms } = await timedCall(refused, 'GET', '/readyz');
      expect(res.status, res.text).to.equal(200);
      expect(ms).to.be.below(1000);
      expect(res.json.status).to.equal('ready');
      expect(res.json.degraded).to.deep.equal(['redis']);
      expect(res.json.checks.redis.status).to.equal('down');
      expect(res.json.checks.redis.error).to.be.a('string').and.not.empty;
      for (const name of ['postgres', 'migrations', 'meilisearch']) expect(res.json.checks[name].status, name).to.equal('up');
      expect(res.json.roles.api).to.deep.equal({ ready: true, missing: [] });
    });

    it('answers 503 problem+json not_ready naming meilisearch when search cannot be served, within a second', async () => {
      const { res, ms } = await timedCall(noSearch, 'GET', '/readyz');
      expectProblem(res, 503, 'not_ready');
      expect(ms).to.be.below(1000);
      expect(res.json.detail).to.equal('Not ready: meilisearch unavailable.');
      expect(res.json.checks.meilisearch.status).to.equal('down');
      expect(res.json.checks.meilisearch.error).to.be.a('string').and.not.empty;
      expect(res.json.roles.api).to.deep.equal({ ready: false, missing: ['meilisearch'] });
      expect(res.json.shuttingDown).to.equal(false);
      expect(res.headers.get('retry-after')).to.equal('1');
      expect(res.headers.get('cache-control')).to.equal('no-store');
    });

    // Regression: the code was once overwritten with not_ready while the type stayed
    // urn:problem-type:service_unavailable; every problem's type is urn:problem-type:<code>.
    it('gives the not_ready problem the type that matches its code', async () => {
      const res = await call(noSearch, 'GET', '/readyz');
      expect(res.json.code).to.equal('not_ready');
      expect(res.json.type).to.equal('urn:problem-type:not_ready');
    });

    it('answers within a second when Redis accepts the connection but never replies', async () => {
      const sockets = new Set<net.Socket>();
      const silent = net.createServer((socket) => {
        sockets.add(socket);
        socket.on('error', () => undefined);
      });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
      const { port } = silent.address() as AddressInfo;
      const hanging = await startTestServer({ config: { redisUrl: `redis://127.0.0.1:${port}` } });
      try {
        const { res, ms } = await timedCall(hanging, 'GET', '/readyz');
        expect(res.status, res.text).to.equal(200);
        expect(ms).to.be.below(1000);
        expect(res.json.checks.redis.status).to.equal('down');
        expect(res.json.checks.postgres.status).to.equal('up');
      } finally {
        await hanging.close();
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((resolve) => silent.close(() => resolve()));
      }
    });
  });

  it('GET /api/v1/openapi.json serves the document with all 367 operations of the specification and the extensions', async () => {
    const res = await call(server, 'GET', '/api/v1/openapi.json');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    expect(res.json.openapi).to.equal('3.1.0');
    expect(countOperations(res.json)).to.equal(367 + extensionOperationIds.size);
    expect(res.json.servers[0].url).to.equal('/api/v1');
  });

  it('GET /docs serves the reference page from this server only, no CDN', async () => {
    const res = await call(server, 'GET', '/docs');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expect(res.text).to.include('src="/docs/assets/swagger-ui-bundle.js"');
    expect(res.text).to.include('href="/docs/assets/swagger-ui.css"');
    const foreign = (res.text.match(/https?:\/\/[^\s"'<>)]+/gi) ?? []).filter((u) => new URL(u).host !== new URL(server.baseUrl).host);
    expect(foreign).to.deep.equal([]);
    expect(res.headers.get('content-security-policy')).to.match(/default-src 'self'/);
    // Every asset the page loads is served.
    for (const asset of res.text.match(/\/docs\/assets\/[A-Za-z0-9._-]+/g) ?? []) {
      expect((await call(server, 'GET', asset)).status, asset).to.equal(200);
    }
    const init = await call(server, 'GET', '/docs/assets/init.js');
    expect(init.text).to.include("url: '/api/v1/openapi.json'");
  });

  it('GET /docs/assets/swagger-ui-bundle.js serves the bundled JavaScript', async () => {
    const res = await call(server, 'GET', '/docs/assets/swagger-ui-bundle.js');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/javascript/);
    expect(res.text.length).to.be.greaterThan(100_000);
    expect(res.text).to.include('SwaggerUIBundle');
  });

  it('serves no file outside the known assets: dot segments, encoded slashes and unknown names are 404', async () => {
    const viaFetch = await call(server, 'GET', '/docs/assets/nope.js');
    expectProblem(viaFetch, 404, 'not_found');
    for (const path of [
      '/docs/assets/../package.json',
      '/docs/assets/..%2Fpackage.json',
      '/docs/assets/%2e%2e%2f%2e%2e%2fpackage.json',
      '/docs/assets/..%2F..%2F..%2Fetc%2Fpasswd',
    ]) {
      const res = await rawGet(server, path);
      expect(res.status, path).to.equal(404);
      expect(res.type, path).to.match(/^application\/problem\+json/);
      expect(res.body, path).not.to.include('commerce-search-platform');
      expect(res.body, path).not.to.include('root:');
    }
  });

  it('OPTIONS on a known path answers 204 with the allowed methods', async () => {
    const orders = await call(server, 'OPTIONS', '/api/v1/webhooks/test');
    expect(orders.status).to.equal(204);
    expect(orders.headers.get('allow')).to.equal('OPTIONS, POST');
    expect(orders.text).to.equal('');
    const list = await call(server, 'OPTIONS', '/api/v1/product-bulk-edits');
    expect(list.status).to.equal(204);
    expect(list.headers.get('allow')).to.equal('GET, HEAD, OPTIONS');
    const health = await call(server, 'OPTIONS', '/healthz');
    expect(health.status).to.equal(204);
    expect(health.headers.get('allow')).to.equal('GET, HEAD, OPTIONS');
    expectProblem(await call(server, 'OPTIONS', '/api/v1/no-such-thing'), 404, 'route_not_found');
  });
});
