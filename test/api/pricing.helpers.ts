/** Fixtures of the pricing and flash-sale tests: catalog rows written straight into the tables, and the calls that write rules and campaigns. */
import { expect } from 'chai';
import { uuidv7 } from '../../storage/ids';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { insertProduct, uniqueSlug, type StoreMerchant } from '../helpers/catalog';

/** `server` is read at each call (the suite starts it in `before`). */
export function fixtures(server: () => TestServer) {
  const db = (sql: string, params: unknown[] = []): Promise<any[]> => server().runtime.dataSource.query(sql, params);
  return {
    db,
    product: (m: StoreMerchant, overrides: Record<string, unknown> = {}): Promise<string> => insertProduct(server(), m.owner.tenantId, m.storeId, { status: 'PUBLISHED', ...overrides }),
    async category(m: StoreMerchant, name: string, parentId: string | null = null): Promise<string> {
      const id = uuidv7();
      await db('INSERT INTO categories (id, tenant_id, store_id, parent_id, name, slug) VALUES ($1, $2, $3, $4, $5, $6)', [id, m.owner.tenantId, m.storeId, parentId, name, uniqueSlug('cat')]);
      return id;
    },
    async brand(m: StoreMerchant, name: string): Promise<string> {
      const id = uuidv7();
      await db('INSERT INTO brands (id, tenant_id, store_id, name, slug) VALUES ($1, $2, $3, $4, $5)', [id, m.owner.tenantId, m.storeId, name, uniqueSlug('brand')]);
      return id;
    },
    async collection(m: StoreMerchant, productIds: string[]): Promise<string> {
      const id = uuidv7();
      await db('INSERT INTO collections (id, tenant_id, store_id, name, slug, is_active) VALUES ($1, $2, $3, $4, $5, true)', [id, m.owner.tenantId, m.storeId, 'Picks', uniqueSlug('col')]);
      for (const [position, productId] of productIds.entries()) await db('INSERT INTO collection_items (collection_id, product_id, position) VALUES ($1, $2, $3)', [id, productId, position]);
      return id;
    },
    async assign(productId: string, categoryId: string): Promise<void> {
      await db('INSERT INTO product_categories (product_id, category_id) VALUES ($1, $2)', [productId, categoryId]);
    },
    async variant(m: StoreMerchant, productId: string, price: string | null): Promise<string> {
      const id = uuidv7();
      await db('INSERT INTO product_variants (id, tenant_id, store_id, product_id, price, stock) VALUES ($1, $2, $3, $4, $5, 5)', [id, m.owner.tenantId, m.storeId, productId, price]);
      return id;
    },
    async customer(m: StoreMerchant, tags: string[]): Promise<string> {
      const id = uuidv7();
      await db('INSERT INTO customers (id, tenant_id, store_id, email, tags) VALUES ($1, $2, $3, $4, $5)', [id, m.owner.tenantId, m.storeId, `${id}@example.com`, tags]);
      return id;
    },
    /** Index rows `product.repriced` of the tenant for `productId` (all statuses). */
    async repriced(m: StoreMerchant, productId?: string): Promise<Array<{ aggregate_id: string; payload: any }>> {
      return db(
        `SELECT aggregate_id, payload FROM outbox WHERE tenant_id = $1 AND queue = 'index' AND topic = 'product.repriced' ${productId ? 'AND aggregate_id = $2' : ''} ORDER BY id`,
        productId ? [m.owner.tenantId, productId] : [m.owner.tenantId],
      );
    },
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `date` has passed (plus a margin). */
export async function waitUntil(date: Date, marginMs = 150): Promise<void> {
  const wait = date.getTime() - Date.now() + marginMs;
  if (wait > 0) await sleep(wait);
}

/**
 * The writes of a merchant resource at `path`: `create` POSTs `{ storeId, ...defaults(), ...body }`,
 * `created` does so expecting 201 and returns the body, `patch` PATCHes `${path}/${id}`. `server` is
 * read at each call (the suite starts it in `before`).
 */
export function writeCalls(server: () => TestServer, path: string, defaults: () => Record<string, unknown>) {
  const create = (m: StoreMerchant, body: Record<string, unknown>, headers = m.h): Promise<TestResponse> => call(server(), 'POST', path, { headers, body: { storeId: m.storeId, ...defaults(), ...body } });
  return {
    create,
    async created(m: StoreMerchant, body: Record<string, unknown>): Promise<Record<string, any>> {
      const res = await create(m, body);
      expect(res.status, res.text).to.equal(201);
      return res.json;
    },
    patch: (m: StoreMerchant, id: string, body: Record<string, unknown>, headers = m.h): Promise<TestResponse> => call(server(), 'PATCH', `${path}/${id}`, { headers, body }),
  };
}
