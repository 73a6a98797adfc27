/**
 * Test fixtures: the merchants, stores and catalog rows a test needs, made one way.
 *
 * Every fixture takes the test server first and, for rows of a store, the merchant second:
 *
 *   const m = await merchant(server);                       // Merchant: owner, headers, storeId
 *   const storeId = await store(server, m);                 // another store of the same tenant: its id
 *   const productId = await product(server, m, { price: '20', status: 'PUBLISHED' });
 *   const shoes = await category(server, m, { name: 'Shoes' });
 *   const key = await apiKey(server, m, ['catalog:read']);  // headers: { 'X-API-Key': ... }
 *
 * Return shapes: `merchant` answers a `Merchant`; `apiKey` answers request headers; `createProduct`
 * answers the product as the API answered it; every other fixture answers the id of what it made.
 *
 * Accounts and stores go through the real operations (sign-up, POST /organization/stores), so a
 * merchant is exactly what a real one is. Catalog rows (`product`, `variant`, `category`, ...) are
 * written straight into their tables, so a test of one area does not depend on the operations of
 * another; `columns` override any column (snake_case, as in the table), including `store_id` for a
 * row of another store of the merchant. Such rows write no outbox or audit rows: a test that needs
 * those goes through the operation (e.g. `createProduct`, or the calls of the area under test).
 *
 * Account helpers (sign-in, members, e-mailed tokens, problem answers) are in ./accounts.
 */
import { expect } from 'chai';
import { uuidv7 } from '../../storage/ids';
import { call, type TestServer } from './harness';
import { bearer, signUp, type SignedUp } from './accounts';

export type Headers = Record<string, string>;
type Columns = Record<string, unknown>;

/** A merchant: a newly signed-up owner (a tenant of its own) and the first store of that tenant. */
export interface Merchant {
  /** The owner's account (ids, credentials, tokens). */
  owner: SignedUp;
  /** The owner's Authorization header. */
  headers: Headers;
  /** The store made with the merchant. */
  storeId: string;
}

/** A slug nobody has used: `label-` and 12 hex digits (the label made slug-safe). */
export function uniqueSlug(label = 'shop'): string {
  const base =
    label
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'x';
  return `${base}-${uuidv7().replace(/-/g, '').slice(-12)}`;
}

/**
 * Signs up a new merchant and creates its first store through POST /organization/stores; `storeBody`
 * adds to or replaces { name: 'Shop', slug: a unique one } (e.g. `{ currency: 'USD' }`; the currency
 * otherwise is the tenant's default, EUR).
 */
export async function merchant(server: TestServer, storeBody: Columns = {}): Promise<Merchant> {
  const owner = await signUp(server);
  const headers = bearer(owner.accessToken);
  return { owner, headers, storeId: await store(server, { headers }, storeBody) };
}

/**
 * Creates a store through POST /organization/stores (expects 201) as `as` (a merchant, or any
 * `{ headers }`, e.g. a member); `body` adds to or replaces { name: 'Shop', slug: a unique one }.
 * Answers the store id.
 */
export async function store(server: TestServer, as: { headers: Headers }, body: Columns = {}): Promise<string> {
  const res = await call(server, 'POST', '/api/v1/organization/stores', {
    headers: as.headers,
    body: { name: 'Shop', slug: uniqueSlug('shop'), ...body },
  });
  expect(res.status, res.text).to.equal(201);
  return res.json.id;
}

/** Creates an API key with `scopes` bound to `storeId` (the merchant's store unless given), expects 201; answers its request header. */
export async function apiKey(
  server: TestServer,
  m: { headers: Headers; storeId: string },
  scopes: string[],
  storeId = m.storeId,
): Promise<Headers> {
  const res = await call(server, 'POST', '/api/v1/api-keys', { headers: m.headers, body: { storeId, name: 'integration', scopes } });
  expect(res.status, res.text).to.equal(201);
  return { 'X-API-Key': res.json.key };
}

/** Inserts `row` into `table` as given; answers `row.id`. */
async function insertRow(server: TestServer, table: string, row: Columns): Promise<string> {
  const columns = Object.keys(row);
  await server.runtime.dataSource.query(
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
    Object.values(row),
  );
  return row.id as string;
}

/** The columns every row of the merchant's store starts with. */
const storeRow = (m: Merchant): Columns => ({ id: uuidv7(), tenant_id: m.owner.tenantId, store_id: m.storeId });

/**
 * A product row: a DRAFT PHYSICAL product 'A product' at 10 EUR with a unique slug and no variant,
 * category, brand or image; `columns` override any column. Answers its id.
 */
export function product(server: TestServer, m: Merchant, columns: Columns = {}): Promise<string> {
  return insertRow(server, 'products', {
    ...storeRow(m),
    title: 'A product',
    slug: uniqueSlug('product'),
    type: 'PHYSICAL',
    price: '10',
    currency: 'EUR',
    ...columns,
  });
}

/** A variant row of `productId` with 5 in stock, no SKU, no options and the product's price; `columns` override any column. Answers its id. */
export function variant(server: TestServer, m: Merchant, productId: string, columns: Columns = {}): Promise<string> {
  return insertRow(server, 'product_variants', { ...storeRow(m), product_id: productId, stock: 5, ...columns });
}

/** A category row: an active root category named 'Category' (slug from the name, made unique); `columns` override any column (e.g. `parent_id`). Answers its id. */
export function category(server: TestServer, m: Merchant, columns: Columns = {}): Promise<string> {
  const name = (columns.name as string | undefined) ?? 'Category';
  return insertRow(server, 'categories', { ...storeRow(m), name, slug: uniqueSlug(name), ...columns });
}

/**
 * An attribute row of category `categoryId`: `columns` give at least `name` and `type` ('text',
 * 'number', 'boolean' or 'enum' with `values`); optional, not filterable, position 0 unless given.
 * Answers its id.
 */
export function attribute(
  server: TestServer,
  m: Merchant,
  categoryId: string,
  columns: Columns & { name: string; type: string },
): Promise<string> {
  return insertRow(server, 'category_attributes', { ...storeRow(m), category_id: categoryId, ...columns });
}

/** A brand row: an active brand named 'Acme' (slug from the name, made unique); `columns` override any column. Answers its id. */
export function brand(server: TestServer, m: Merchant, columns: Columns = {}): Promise<string> {
  const name = (columns.name as string | undefined) ?? 'Acme';
  return insertRow(server, 'brands', { ...storeRow(m), name, slug: uniqueSlug(name), ...columns });
}

/** A product tag row named 'Sale' (slug from the name, made unique); `columns` override any column. Answers its id. */
export function tag(server: TestServer, m: Merchant, columns: Columns = {}): Promise<string> {
  const name = (columns.name as string | undefined) ?? 'Sale';
  return insertRow(server, 'product_tags', { ...storeRow(m), name, slug: uniqueSlug(name), ...columns });
}

/**
 * A collection row: an active collection named 'Picks' (slug from the name, made unique) holding
 * `productIds` in that order; `columns` override any column. Answers its id.
 */
export async function collection(server: TestServer, m: Merchant, productIds: string[] = [], columns: Columns = {}): Promise<string> {
  const name = (columns.name as string | undefined) ?? 'Picks';
  const id = await insertRow(server, 'collections', { ...storeRow(m), name, slug: uniqueSlug(name), is_active: true, ...columns });
  for (const [position, productId] of productIds.entries()) {
    await server.runtime.dataSource.query('INSERT INTO collection_items (collection_id, product_id, position) VALUES ($1, $2, $3)', [
      id,
      productId,
      position,
    ]);
  }
  return id;
}

/** Puts product `productId` in category `categoryId`. */
export async function assignCategory(server: TestServer, productId: string, categoryId: string): Promise<void> {
  await server.runtime.dataSource.query('INSERT INTO product_categories (product_id, category_id) VALUES ($1, $2)', [
    productId,
    categoryId,
  ]);
}

/** A customer row with a unique e-mail address; `columns` override any column (e.g. `tags`, `name`). Answers its id. */
export function customer(server: TestServer, m: Merchant, columns: Columns = {}): Promise<string> {
  const row = storeRow(m);
  return insertRow(server, 'customers', { ...row, email: `customer-${String(row.id).slice(-12)}@example.com`, ...columns });
}

/**
 * A product made through POST /catalog/products (the real operation: its outbox and audit rows
 * included), expecting 201; `body` adds to or replaces { storeId: the merchant's, title: 'Blue
 * Shirt', type: 'PHYSICAL', price: 10 }. Answers the product as the API answered it.
 */
export async function createProduct(server: TestServer, m: Merchant, body: Columns = {}): Promise<Record<string, any>> {
  const res = await call(server, 'POST', '/api/v1/catalog/products', {
    headers: m.headers,
    body: { storeId: m.storeId, title: 'Blue Shirt', type: 'PHYSICAL', price: 10, ...body },
  });
  expect(res.status, res.text).to.equal(201);
  return res.json;
}
