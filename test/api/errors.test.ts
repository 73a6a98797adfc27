/**
 * Error answers as a client sees them: RFC 9457 problem+json with a stable code and a field list,
 * for bad input (unknown fields and parameters, out-of-bound values), unknown paths and methods,
 * oversized and mistyped bodies, and operations not built yet.
 */
import { expect } from 'chai';
import { call, startTestServer, type TestResponse, type TestServer } from '../helpers/harness';
import { defineRoutes } from '../../api/http/route';
import { int } from '../../api/http/schema-types';
import { apiSuite } from '../helpers/api-suite';
import { bearer, platformStaff, signUp } from '../helpers/accounts';

const STORE = '0190a5f0-8b7c-7def-8123-456789abcdef';
const V4 = '3b241101-e2bb-4255-8caf-4136c566a962';

function expectProblem(response: TestResponse, status: number, code: string): void {
  expect(response.status, response.text).to.equal(status);
  expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
  expect(response.json).to.include({ status, code, type: `urn:problem-type:${code}` });
  expect(response.json.title).to.be.a('string').and.not.empty;
  expect(response.json.detail).to.be.a('string').and.not.empty;
  expect(response.json.errors).to.be.an('array');
  expect(response.json.requestId).to.equal(response.headers.get('x-request-id'));
  expect(response.text).not.to.match(/\bat [A-Za-z.]+ \(|node_modules|\.ts:\d+/);
}

function fieldPaths(response: TestResponse): string[] {
  return (response.json.errors as Array<{ path: string }>).map((e) => e.path);
}

describe('error responses', () => {
  let server: TestServer;
  /** A signed-in merchant: built operations check the token before they read their input. */
  let h: Record<string, string>;
  apiSuite((started) => (server = started), { config: { bodyLimitJsonBytes: 2048 } });
  before(async () => {
    h = bearer((await signUp(server)).accessToken);
  });

  describe('400 validation', () => {
    it('rejects an unknown query parameter', async () => {
      const res = await call(server, 'GET', `/api/v1/product-bulk-edits?storeId=${STORE}&colour=red`, { headers: h });
      expectProblem(res, 400, 'validation_failed');
      expect(res.json.errors).to.deep.include({ path: 'query.colour', message: 'colour is not a known query parameter' });
    });

    it('rejects a missing storeId and a storeId that is not a UUID', async () => {
      expect(fieldPaths(await call(server, 'GET', '/api/v1/product-bulk-edits', { headers: h }))).to.deep.equal(['query.storeId']);
      const res = await call(server, 'GET', '/api/v1/product-bulk-edits?storeId=42', { headers: h });
      expectProblem(res, 400, 'validation_failed');
      expect(res.json.errors[0].message).to.match(/must be a UUID/);
    });

    it('enforces the listed bounds of product-bulk-edits: limit 1..100, sinceDays 1..365, action and status enums', async () => {
      for (const bad of ['limit=0', 'limit=101', 'limit=2.5', 'limit=abc', 'action=RENAME', 'status=DONE', 'cursor=nope']) {
        const res = await call(server, 'GET', `/api/v1/product-bulk-edits?storeId=${STORE}&${bad}`, { headers: h });
        expectProblem(res, 400, 'validation_failed');
        expect(fieldPaths(res), bad).to.deep.equal([`query.${bad.split('=')[0]}`]);
      }
      for (const bad of ['sinceDays=0', 'sinceDays=366']) {
        const res = await call(server, 'GET', `/api/v1/product-bulk-edits/store-overview?storeId=${STORE}&${bad}`, { headers: h });
        expectProblem(res, 400, 'validation_failed');
      }
    });

    it('enforces the public search bounds and reports every invalid parameter at once', async () => {
      const res = await call(
        server,
        'GET',
        `/api/v1/catalog/public/search?storeId=${STORE}&page=101&perPage=61&priceMin=-1&minRating=5.5&sort=cheapest&locale=EN`,
      );
      expectProblem(res, 400, 'validation_failed');
      expect(fieldPaths(res)).to.have.members([
        'query.page',
        'query.perPage',
        'query.priceMin',
        'query.minRating',
        'query.sort',
        'query.locale',
      ]);
      const longQ = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${STORE}&q=${'a'.repeat(201)}`);
      expect(fieldPaths(longQ)).to.deep.equal(['query.q']);
      const tooMany = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${STORE}&ids=${Array(61).fill(V4).join(',')}`);
      expect(fieldPaths(tooMany)).to.deep.equal(['query.ids']);
      const shortOption = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${STORE}&options=ab`);
      expect(fieldPaths(shortOption)).to.deep.equal(['query.options[0]']);
    });

    it('enforces the suggest bounds: q required, 1..200 characters; limit 1..12', async () => {
      expect(fieldPaths(await call(server, 'GET', `/api/v1/catalog/public/suggest?storeId=${STORE}`))).to.deep.equal(['query.q']);
      expect(fieldPaths(await call(server, 'GET', `/api/v1/catalog/public/suggest?storeId=${STORE}&q=ab&limit=13`))).to.deep.equal([
        'query.limit',
      ]);
      expect(fieldPaths(await call(server, 'GET', `/api/v1/catalog/public/suggest?storeId=${STORE}&q=ab&limit=0`))).to.deep.equal([
        'query.limit',
      ]);
    });

    it('rejects a path id that is not a UUID', async () => {
      const res = await call(server, 'GET', '/api/v1/product-bulk-edits/not-a-uuid', { headers: h });
      expectProblem(res, 400, 'validation_failed');
      expect(fieldPaths(res)).to.deep.equal(['params.id']);
    });

    it('rejects unknown body fields and invalid values, naming each', async () => {
      const res = await call(server, 'POST', '/api/v1/orders', {
        headers: h,
        body: {
          customerId: V4,
          items: [{ variantId: V4, quantity: 0 }],
          shippingAddress: { city: 'Izmir', district: 'Konak' },
          coupon: 'FREE',
        },
      });
      expectProblem(res, 400, 'validation_failed');
      expect(fieldPaths(res)).to.have.members(['body.items[0].quantity', 'body.coupon']);
    });

    it('rejects a missing body where one is required', async () => {
      const res = await call(server, 'POST', '/api/v1/webhooks/test', { headers: h });
      expectProblem(res, 400, 'validation_failed');
      expect(fieldPaths(res)).to.deep.equal(['body']);
    });

    it('rejects a webhook test for a topic outside the 33 topics', async () => {
      const res = await call(server, 'POST', '/api/v1/webhooks/test', {
        headers: h,
        body: { topic: 'order.shipped', endpoint: 'https://example.org/hook' },
      });
      expect(fieldPaths(res)).to.deep.equal(['body.topic']);
    });

    it('rejects malformed JSON', async () => {
      const res = await call(server, 'POST', '/api/v1/orders', { headers: h, rawBody: '{"customerId":', contentType: 'application/json' });
      expectProblem(res, 400, 'invalid_json');
    });

    it('rejects a body sent to an operation that takes none', async () => {
      const res = await call(server, 'POST', `/api/v1/product-bulk-edits/${V4}/revert`, { headers: h, body: { force: true } });
      expectProblem(res, 400, 'unexpected_body');
    });
  });

  it('404: an unknown path is a problem+json', async () => {
    expectProblem(await call(server, 'GET', '/api/v1/no-such-thing'), 404, 'route_not_found');
    expectProblem(await call(server, 'GET', '/nowhere'), 404, 'route_not_found');
  });

  it('405: a known path with another method says which methods are allowed', async () => {
    const res = await call(server, 'PATCH', '/api/v1/product-bulk-edits', { headers: h });
    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).to.equal('GET, HEAD');
    const del = await call(server, 'DELETE', '/api/v1/orders');
    expectProblem(del, 405, 'method_not_allowed');
    expect(del.headers.get('allow')).to.equal('GET, HEAD, POST');
  });

  it('413: a body over the size limit is refused', async () => {
    const big = { customerId: V4, items: [{ variantId: V4, quantity: 1 }], shippingAddress: { city: 'x'.repeat(3000), district: 'y' } };
    expectProblem(await call(server, 'POST', '/api/v1/orders', { headers: h, body: big }), 413, 'payload_too_large');
  });

  it('413: a streamed body without Content-Length is cut off at the limit', async () => {
    const chunks = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`{"pad":"${'z'.repeat(4096)}"}`));
        controller.close();
      },
    });
    const response = await fetch(`${server.baseUrl}/api/v1/orders`, {
      method: 'POST',
      headers: { ...h, 'Content-Type': 'application/json' },
      body: chunks,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).to.equal(413);
  });

  it('415: a JSON operation refuses another content type, and a CSV one refuses JSON', async () => {
    const res = await call(server, 'POST', '/api/v1/orders', {
      headers: h,
      rawBody: 'customerId=1',
      contentType: 'application/x-www-form-urlencoded',
    });
    expectProblem(res, 415, 'unsupported_media_type');
    const csv = await call(server, 'POST', `/api/v1/bulk-import/products?storeId=${STORE}`, { headers: h, body: { rows: [] } });
    expectProblem(csv, 415, 'unsupported_media_type');
  });

  describe('501 for operations not built yet', () => {
    // Every operation of the specification is built; a row without a handler (how a new operation
    // starts) still validates its input and then answers 501.
    const unbuilt = defineRoutes({ tag: 'client-errors', auth: 'platform' }, [
      {
        operationId: 'example.unbuilt',
        method: 'GET',
        path: '/example/unbuilt',
        summary: 'A specified operation that is not built yet',
        query: { hours: int(1, 720).default(24) },
        status: 200,
      },
    ]);
    it('answers 501 not_implemented after validating the input', async () => {
      const own = await startTestServer({ routes: unbuilt });
      try {
        expectProblem(await call(own, 'GET', '/api/v1/example/unbuilt?hours=721'), 400, 'validation_failed');
        const res = await call(own, 'GET', '/api/v1/example/unbuilt?hours=24');
        expectProblem(res, 501, 'not_implemented');
        expect(res.json.detail).to.equal('GET /example/unbuilt is part of the specification but is not built yet.');
      } finally {
        await own.close();
      }
    });
  });

  it('serves static paths before parameter paths', async () => {
    // GET /crm/leads/follow-up-stats, not GET /crm/leads/{id} with id "follow-up-stats" (which would be a 400).
    const rep = await platformStaff(server, 'sales_rep');
    const res = await call(server, 'GET', '/api/v1/crm/leads/follow-up-stats', { headers: rep.headers });
    expect(res.status, res.text).to.equal(200);
    expectProblem(await call(server, 'GET', '/api/v1/crm/leads/follow-up', { headers: rep.headers }), 400, 'validation_failed');
  });

  it('echoes a well-formed X-Request-Id and replaces a malformed one', async () => {
    const kept = await call(server, 'GET', '/healthz', { headers: { 'X-Request-Id': 'trace-123' } });
    expect(kept.headers.get('x-request-id')).to.equal('trace-123');
    const replaced = await call(server, 'GET', '/healthz', { headers: { 'X-Request-Id': 'bad id with spaces' } });
    expect(replaced.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });
});
