/** Shared set-up of the product API tests: a merchant with a store, and taxonomy rows written directly. */
import { expect } from 'chai';
import { uuidv7 } from '../../storage/ids';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { bearer, signUp, type SignedUp } from '../helpers/accounts';

export interface Merchant {
  owner: SignedUp;
  headers: Record<string, string>;
  storeId: string;
}

export async function merchant(server: TestServer, currency = 'EUR'): Promise<Merchant> {
  const owner = await signUp(server);
  const headers = bearer(owner.accessToken);
  const res = await call(server, 'POST', '/api/v1/organization/stores', { headers, body: { name: 'Shop', slug: `shop-${uuidv7().replace(/-/g, '').slice(-12)}`, currency } });
  expect(res.status, res.text).to.equal(201);
  return { owner, headers, storeId: res.json.id };
}

export async function insertCategory(server: TestServer, m: Merchant, name: string): Promise<string> {
  const id = uuidv7();
  await server.runtime.dataSource.query('INSERT INTO categories (id, tenant_id, store_id, name, slug) VALUES ($1, $2, $3, $4, $5)', [id, m.owner.tenantId, m.storeId, name, `${name.toLowerCase()}-${id.slice(-8)}`]);
  return id;
}

export async function insertAttribute(server: TestServer, m: Merchant, categoryId: string, name: string, type: string, options: { values?: string[]; required?: boolean } = {}): Promise<void> {
  await server.runtime.dataSource.query('INSERT INTO category_attributes (id, tenant_id, store_id, category_id, name, type, values, required) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
    uuidv7(),
    m.owner.tenantId,
    m.storeId,
    categoryId,
    name,
    type,
    options.values ?? [],
    options.required ?? false,
  ]);
}

export async function insertBrand(server: TestServer, m: Merchant, name = 'Acme'): Promise<string> {
  const id = uuidv7();
  await server.runtime.dataSource.query('INSERT INTO brands (id, tenant_id, store_id, name, slug) VALUES ($1, $2, $3, $4, $5)', [id, m.owner.tenantId, m.storeId, name, `brand-${id.slice(-12)}`]);
  return id;
}

export async function insertTag(server: TestServer, m: Merchant, name = 'Sale'): Promise<string> {
  const id = uuidv7();
  await server.runtime.dataSource.query('INSERT INTO product_tags (id, tenant_id, store_id, name, slug) VALUES ($1, $2, $3, $4, $5)', [id, m.owner.tenantId, m.storeId, name, `tag-${id.slice(-12)}`]);
  return id;
}

export function postProduct(server: TestServer, m: Merchant, body: Record<string, unknown> = {}): Promise<TestResponse> {
  return call(server, 'POST', '/api/v1/catalog/products', { headers: m.headers, body: { storeId: m.storeId, title: 'Blue Shirt', type: 'PHYSICAL', price: 10, ...body } });
}

export async function product(server: TestServer, m: Merchant, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const res = await postProduct(server, m, body);
  expect(res.status, res.text).to.equal(201);
  return res.json;
}

/** The outbox topics and audit actions recorded for a resource id. */
export async function writesFor(server: TestServer, id: string): Promise<{ topics: string[]; actions: string[] }> {
  const outbox: Array<{ topic: string; queue: string; aggregate_type: string }> = await server.runtime.dataSource.query('SELECT topic, queue, aggregate_type FROM outbox WHERE aggregate_id = $1 ORDER BY id', [id]);
  for (const row of outbox) expect(row).to.include({ queue: 'index', aggregate_type: 'product' });
  const audit: Array<{ action: string }> = await server.runtime.dataSource.query("SELECT action FROM audit_log WHERE resource_id = $1 AND resource_type = 'product' ORDER BY id", [id]);
  return { topics: outbox.map((row) => row.topic), actions: audit.map((row) => row.action) };
}
