/**
 * Shared by the pricing and flash-sale tests: the calls that write rules and campaigns, and the
 * index rows a re-pricing queues. (Catalog rows come from ../helpers/fixtures.)
 */
import { expect } from 'chai';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import type { Merchant } from '../helpers/fixtures';

/** Index rows `product.repriced` of the merchant's tenant (all statuses), for `productId` only when given. */
export async function repriced(
  server: TestServer,
  m: Merchant,
  productId?: string,
): Promise<Array<{ aggregate_id: string; payload: any }>> {
  return server.runtime.dataSource.query(
    `SELECT aggregate_id, payload FROM outbox WHERE tenant_id = $1 AND queue = 'index' AND topic = 'product.repriced' ${productId ? 'AND aggregate_id = $2' : ''} ORDER BY id`,
    productId ? [m.owner.tenantId, productId] : [m.owner.tenantId],
  );
}

/**
 * The writes of a merchant resource at `path`: `create` POSTs `{ storeId, ...defaults(), ...body }`,
 * `created` does so expecting 201 and returns the body, `patch` PATCHes `${path}/${id}`. `server` is
 * read at each call (the suite starts it in `before`).
 */
export function writeCalls(server: () => TestServer, path: string, defaults: () => Record<string, unknown>) {
  const create = (m: Merchant, body: Record<string, unknown>, headers = m.headers): Promise<TestResponse> =>
    call(server(), 'POST', path, { headers, body: { storeId: m.storeId, ...defaults(), ...body } });
  return {
    create,
    async created(m: Merchant, body: Record<string, unknown>): Promise<Record<string, any>> {
      const res = await create(m, body);
      expect(res.status, res.text).to.equal(201);
      return res.json;
    },
    patch: (m: Merchant, id: string, body: Record<string, unknown>, headers = m.headers): Promise<TestResponse> =>
      call(server(), 'PATCH', `${path}/${id}`, { headers, body }),
  };
}
