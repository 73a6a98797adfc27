/**
 * Catalog test helpers: a merchant with a store, more stores, store-bound API keys, and product rows
 * written straight into the table (so catalog tests do not depend on the product operations).
 */
import { expect } from 'chai';
import { uuidv7 } from '../../storage/ids';
import { call, type TestServer } from './harness';
import { bearer, signUp, type SignedUp } from './accounts';

export type Headers = Record<string, string>;

export interface StoreMerchant {
  owner: SignedUp;
  h: Headers;
  storeId: string;
}

/** A slug nobody has used, `label-` and 12 hex digits. */
export const uniqueSlug = (label = 'shop'): string => `${label}-${uuidv7().replace(/-/g, '').slice(-12)}`;

/** Creates a store through POST /organization/stores (expects 201); `body` adds to or replaces { name: 'Shop' }. */
export async function createStore(server: TestServer, headers: Headers, body: Record<string, unknown> = {}): Promise<string> {
  const res = await call(server, 'POST', '/api/v1/organization/stores', { headers, body: { name: 'Shop', ...body } });
  expect(res.status, res.text).to.equal(201);
  return res.json.id;
}

/** Signs up a new merchant and creates its first store. */
export async function storeMerchant(server: TestServer, storeBody: Record<string, unknown> = {}): Promise<StoreMerchant> {
  const owner = await signUp(server);
  const h = bearer(owner.accessToken);
  return { owner, h, storeId: await createStore(server, h, storeBody) };
}

/** Creates an API key bound to `storeId` with `scopes` (expects 201) and returns its header. */
export async function storeApiKey(server: TestServer, headers: Headers, storeId: string, scopes: string[]): Promise<Headers> {
  const res = await call(server, 'POST', '/api/v1/api-keys', { headers, body: { storeId, name: 'integration', scopes } });
  expect(res.status, res.text).to.equal(201);
  return { 'X-API-Key': res.json.key };
}

/** A product row written directly; `overrides` replaces any column. Returns its id. */
export async function insertProduct(server: TestServer, tenantId: string, storeId: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const row = { id: uuidv7(), tenant_id: tenantId, store_id: storeId, title: 'A product', slug: uniqueSlug('product'), type: 'PHYSICAL', price: '10', currency: 'EUR', ...overrides };
  const columns = Object.keys(row);
  await server.runtime.dataSource.query(`INSERT INTO products (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`, Object.values(row));
  return row.id as string;
}

/** A variant row written directly (size M, SKU from the product id); `overrides` replaces any column. Returns its id. */
export async function insertVariant(server: TestServer, tenantId: string, storeId: string, productId: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const row = { id: uuidv7(), tenant_id: tenantId, store_id: storeId, product_id: productId, sku: `SKU-${productId.slice(-8)}`, options: JSON.stringify({ size: 'M' }), ...overrides };
  const columns = Object.keys(row);
  await server.runtime.dataSource.query(`INSERT INTO product_variants (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`, Object.values(row));
  return row.id as string;
}
