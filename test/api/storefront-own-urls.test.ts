/**
 * A shop opened through another host name than PUBLIC_BASE_URL's (a proxy, another machine): the
 * service's own images are in the page as paths, so they load from wherever the page came from.
 */
import http from 'node:http';
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { uniqueEmail } from '../helpers/accounts';

function getThroughHost(server: TestServer, path: string, host: string): Promise<{ status: number; body: string }> {
  const url = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname: url.hostname, port: url.port, path, headers: { Host: host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('storefront pages opened through another host', () => {
  let server: TestServer;
  const tenants: string[] = [];
  const suite = apiSuite((started) => (server = started));
  after(() => server.runtime.dataSource.query('DELETE FROM tenants WHERE id = ANY($1::uuid[])', [tenants]));

  it("shows the sandbox's seed images as paths on the home, search and product pages", async () => {
    const created = await call(server, 'POST', '/api/v1/sandbox', { body: { email: uniqueEmail('own-urls') } });
    expect(created.status, created.text).to.equal(201);
    const { storeId, tenantId } = created.json;
    tenants.push(tenantId);
    suite.addTenant(tenantId);
    suite.addIndexedStore(storeId);
    const [product] = await server.runtime.dataSource.query(
      `SELECT p.slug, i.url FROM products p JOIN product_images i ON i.product_id = p.id
        WHERE p.store_id = $1 AND p.status = 'PUBLISHED' ORDER BY p.id LIMIT 1`,
      [storeId],
    );
    // Stored absolute (API clients fetch it), under this test server's PUBLIC_BASE_URL.
    expect(product.url).to.match(/^https?:\/\/[^/]+\/api\/v1\/sandbox\/images\/\d+$/);
    const path = new URL(product.url).pathname;
    for (const page of [`/shop/${storeId}`, `/shop/${storeId}/search?q=a`, `/shop/${storeId}/products/${product.slug}`]) {
      const res = await getThroughHost(server, page, 'shop.other-machine.test:8080');
      expect(res.status, page).to.equal(200);
      expect(res.body, page).not.to.include(new URL(product.url).origin);
      expect(res.body, page).to.match(/src="\/api\/v1\/sandbox\/images\/\d+"/);
    }
    const productPage = await getThroughHost(server, `/shop/${storeId}/products/${product.slug}`, 'shop.other-machine.test:8080');
    expect(productPage.body).to.include(`src="${path}"`);
  });
});
