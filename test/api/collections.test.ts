/**
 * Collections: list, create, get, update, delete, reorder, add and remove items, bulk set-active, CSV
 * export and import — validation bounds, slugs (derived, unique per store: 409), tenant isolation
 * (another tenant's store or collection is 404, an API key stays on its store), products of the store
 * only, and exactly one audit entry and one outbox row per collection changed (none for a write that
 * changes nothing or is refused). Products are inserted with SQL (the product operations are built
 * elsewhere). CSV: round trip into a second store with the same product slugs, all-or-nothing imports.
 */
import { expect } from 'chai';
import { uuidv7 } from '../../storage/ids';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { addMember, expectProblem } from '../helpers/accounts';
import { apiKey, merchant, product, store, type Headers, type Merchant } from '../helpers/fixtures';

describe('collections', () => {
  let server: TestServer;
  apiSuite((started) => (server = started));

  const base = '/api/v1/catalog/collections';
  const create = (h: Headers, body: Record<string, unknown>) => call(server, 'POST', base, { headers: h, body });
  const list = (h: Headers, storeId: string) => call(server, 'GET', `${base}?storeId=${storeId}`, { headers: h });
  const get = (h: Headers, id: string) => call(server, 'GET', `${base}/${id}`, { headers: h });
  const patch = (h: Headers, id: string, body: Record<string, unknown>) => call(server, 'PATCH', `${base}/${id}`, { headers: h, body });
  const remove = (h: Headers, id: string) => call(server, 'DELETE', `${base}/${id}`, { headers: h });
  const reorder = (h: Headers, body: Record<string, unknown>) => call(server, 'POST', `${base}/reorder`, { headers: h, body });
  const addItems = (h: Headers, id: string, body: Record<string, unknown>) =>
    call(server, 'POST', `${base}/${id}/items`, { headers: h, body });
  const removeItems = (h: Headers, id: string, body: Record<string, unknown>) =>
    call(server, 'DELETE', `${base}/${id}/items`, { headers: h, body });
  const bulk = (h: Headers, body: Record<string, unknown>) => call(server, 'POST', `${base}/bulk/set-active`, { headers: h, body });
  const exportCsv = (h: Headers, storeId: string) => call(server, 'GET', `${base}/export?storeId=${storeId}`, { headers: h });
  const importCsv = (h: Headers, storeId: string, csv: string) =>
    call(server, 'POST', `${base}/import`, { headers: h, body: { storeId, csv } });

  async function collection(m: Merchant, body: Record<string, unknown> = {}, storeId = m.storeId): Promise<Record<string, any>> {
    const res = await create(m.headers, { storeId, name: `Collection ${uuidv7().slice(-6)}`, ...body });
    expect(res.status, res.text).to.equal(201);
    return res.json;
  }

  /** Outbox rows and audit entries written for a resource. */
  async function writes(id: string): Promise<{
    outbox: Array<{ topic: string; queue: string; aggregate_type: string }>;
    audit: Array<{ action: string; before: any; after: any }>;
  }> {
    const outbox = await server.runtime.dataSource.query(
      'SELECT topic, queue, aggregate_type FROM outbox WHERE aggregate_id = $1 ORDER BY id',
      [id],
    );
    const audit = await server.runtime.dataSource.query('SELECT action, before, after FROM audit_log WHERE resource_id = $1 ORDER BY id', [
      id,
    ]);
    return { outbox, audit };
  }

  async function tenantWrites(tenantId: string): Promise<{ outbox: number; audit: number }> {
    const [o] = await server.runtime.dataSource.query('SELECT count(*)::int AS n FROM outbox WHERE tenant_id = $1', [tenantId]);
    const [a] = await server.runtime.dataSource.query('SELECT count(*)::int AS n FROM audit_log WHERE tenant_id = $1', [tenantId]);
    return { outbox: o.n, audit: a.n };
  }

  async function collectionCount(storeId: string): Promise<number> {
    const [row] = await server.runtime.dataSource.query('SELECT count(*)::int AS n FROM collections WHERE store_id = $1', [storeId]);
    return row.n;
  }

  const itemIds = async (h: Headers, id: string): Promise<string[]> => (await get(h, id)).json.items.map((i: any) => i.productId);

  function expectFieldErrors(res: TestResponse, paths: string[]): void {
    expectProblem(res, 400, 'validation_failed');
    const got = (res.json.errors as Array<{ path: string }>).map((e) => e.path);
    for (const path of paths) expect(got, res.text).to.include(path);
  }

  const FIELDS = ['id', 'name', 'slug', 'description', 'imageUrl', 'isActive', 'position', 'productCount', 'createdAt', 'updatedAt'];

  describe('POST and GET /catalog/collections', () => {
    it('creates collections (201) last in the order, with one audit entry and one outbox row, and lists them by position', async () => {
      const m = await merchant(server);
      const res = await create(m.headers, {
        storeId: m.storeId,
        name: 'Summer Sale',
        slug: 'summer',
        description: 'Hot deals.',
        imageUrl: 'https://cdn.example.test/s.png',
      });
      expect(res.status, res.text).to.equal(201);
      expect(Object.keys(res.json)).to.have.members(FIELDS);
      expect(res.json).to.include({
        name: 'Summer Sale',
        slug: 'summer',
        description: 'Hot deals.',
        imageUrl: 'https://cdn.example.test/s.png',
        isActive: true,
        position: 0,
        productCount: 0,
      });
      const b = await collection(m, { name: 'alpha', isActive: false });
      expect(b).to.include({ slug: 'alpha', position: 1, isActive: false, description: null, imageUrl: null });
      const c = await collection(m, { name: 'Mid' });
      expect(c.position).to.equal(2);

      const listed = await list(m.headers, m.storeId);
      expect(listed.status, listed.text).to.equal(200);
      expect(Object.keys(listed.json)).to.deep.equal(['items']);
      expect(listed.json.items.map((x: any) => x.name)).to.deep.equal(['Summer Sale', 'alpha', 'Mid']);
      expect(listed.json.items[0]).to.deep.equal(res.json);

      const w = await writes(res.json.id);
      expect(w.outbox).to.deep.equal([{ topic: 'collection.created', queue: 'index', aggregate_type: 'collection' }]);
      expect(w.audit).to.have.length(1);
      expect(w.audit[0]).to.deep.include({ action: 'collection.create', before: null });
      expect(w.audit[0]!.after).to.include({ storeId: m.storeId, name: 'Summer Sale', slug: 'summer', position: 0 });
    });

    it('derives the slug from the name (-2, -3… until free) and refuses a taken slug (409 slug_taken)', async () => {
      const m = await merchant(server);
      expect((await collection(m, { name: 'Été  Spécial!' })).slug).to.equal('ete-special');
      expect((await collection(m, { name: 'Ete Special' })).slug).to.equal('ete-special-2');
      expect((await collection(m, { name: '***' })).slug).to.equal('collection');
      const res = await create(m.headers, { storeId: m.storeId, name: 'Again', slug: 'ete-special' });
      expectProblem(res, 409, 'slug_taken');
      expect(res.json.errors).to.deep.equal([{ path: 'body.slug', message: 'slug is already taken in the store' }]);
      await server.runtime.dataSource.query("UPDATE collections SET slug = 'COLLECTION' WHERE store_id = $1 AND slug = 'collection'", [
        m.storeId,
      ]);
      expectProblem(await create(m.headers, { storeId: m.storeId, name: 'x', slug: 'collection' }), 409, 'slug_taken');
      expect(await collectionCount(m.storeId)).to.equal(3);
      // Another store has slugs of its own.
      const other = await store(server, m);
      expect((await create(m.headers, { storeId: other, name: 'Ete Special' })).json.slug).to.equal('ete-special');
    });

    it('validates the bounds of every field (400 with field paths)', async () => {
      const m = await merchant(server);
      const ok = { storeId: m.storeId, name: 'Ok' };
      expectFieldErrors(await create(m.headers, { ...ok, name: '' }), ['body.name']);
      expectFieldErrors(await create(m.headers, { ...ok, name: '  ' }), ['body.name']);
      expectFieldErrors(await create(m.headers, { ...ok, name: 'x'.repeat(121) }), ['body.name']);
      expect((await create(m.headers, { ...ok, name: 'x'.repeat(120) })).status).to.equal(201);
      for (const slug of ['Bad', 'a b', 'a--b', '-a', '', 'a'.repeat(121)])
        expectFieldErrors(await create(m.headers, { ...ok, slug }), ['body.slug']);
      expect((await create(m.headers, { ...ok, slug: 'a'.repeat(120) })).status).to.equal(201);
      expectFieldErrors(await create(m.headers, { ...ok, description: 'd'.repeat(5001) }), ['body.description']);
      expect((await create(m.headers, { ...ok, description: 'd'.repeat(5000) })).status).to.equal(201);
      expectFieldErrors(await create(m.headers, { ...ok, imageUrl: 'javascript:alert(1)' }), ['body.imageUrl']);
      expectFieldErrors(await create(m.headers, { ...ok, isActive: 'maybe', position: 3 }), ['body.isActive', 'body.position']);
      expectFieldErrors(await create(m.headers, { name: 'No store' }), ['body.storeId']);
      expectFieldErrors(await list(m.headers, 'nope'), ['query.storeId']);
      expectFieldErrors(await get(m.headers, 'nope'), ['params.id']);
    });

    it("answers 404 for another tenant's store or collection and keeps API keys on their store", async () => {
      const m = await merchant(server);
      const stranger = await merchant(server);
      const mine = await collection(m, { name: 'Private' });
      for (const storeId of [m.storeId, uuidv7()]) {
        expectProblem(await list(stranger.headers, storeId), 404, 'store_not_found');
        expectProblem(await create(stranger.headers, { storeId, name: 'Intruder' }), 404, 'store_not_found');
      }
      expectProblem(await get(stranger.headers, mine.id), 404, 'collection_not_found');
      expectProblem(await get(m.headers, uuidv7()), 404, 'collection_not_found');
      expect(await collectionCount(m.storeId)).to.equal(1);

      const staff = await addMember(server, m.owner, 'staff');
      expect((await create(staff.headers, { storeId: m.storeId, name: 'By staff' })).status).to.equal(201);
      const key = await apiKey(server, m, ['collections:write', 'collections:read']);
      expect((await create(key, { storeId: m.storeId, name: 'By key' })).status).to.equal(201);
      const sibling = await store(server, m);
      const siblings = await collection(m, {}, sibling);
      expectProblem(await create(key, { storeId: sibling, name: 'Elsewhere' }), 404, 'store_not_found');
      expectProblem(await get(key, siblings.id), 404, 'collection_not_found');
      expectProblem(await patch(key, siblings.id, { name: 'Hijack' }), 404, 'collection_not_found');
      const reader = await apiKey(server, m, ['collections:read']);
      expectProblem(await create(reader, { storeId: m.storeId, name: 'No scope' }), 403, 'insufficient_scope');
    });
  });

  it('refuses every change to an archived store (409 store_archived) but still reads it', async () => {
    const m = await merchant(server);
    const second = await store(server, m);
    const p = await product(server, m, { slug: 'arch', store_id: second });
    const c = await collection(m, {}, second);
    await server.runtime.dataSource.query("UPDATE stores SET status = 'archived', is_default = false WHERE id = $1", [second]);
    expectProblem(await create(m.headers, { storeId: second, name: 'New' }), 409, 'store_archived');
    expectProblem(await patch(m.headers, c.id, { name: 'Renamed' }), 409, 'store_archived');
    expectProblem(await addItems(m.headers, c.id, { productIds: [p] }), 409, 'store_archived');
    expectProblem(await reorder(m.headers, { storeId: second, ids: [c.id] }), 409, 'store_archived');
    expectProblem(await remove(m.headers, c.id), 409, 'store_archived');
    expect((await get(m.headers, c.id)).status).to.equal(200);
    expect((await list(m.headers, second)).json.items).to.have.length(1);
  });

  describe('GET, PATCH and DELETE /catalog/collections/{id}', () => {
    it('returns the collection with its products in order', async () => {
      const m = await merchant(server);
      const p1 = await product(server, m, { slug: 'one', title: 'Product one', price: '12.5' });
      const p2 = await product(server, m, { slug: 'two', title: 'Product two', price: '9.5' });
      const c = await collection(m, { name: 'Picks' });
      expect((await addItems(m.headers, c.id, { productIds: [p2, p1] })).status).to.equal(201);
      const res = await get(m.headers, c.id);
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.include({ id: c.id, name: 'Picks', productCount: 2 });
      expect(res.json.items).to.deep.equal([
        { productId: p2, position: 0, product: { id: p2, title: 'Product two', slug: 'two', status: 'DRAFT', price: 9.5 } },
        { productId: p1, position: 1, product: { id: p1, title: 'Product one', slug: 'one', status: 'DRAFT', price: 12.5 } },
      ]);
      expect((await list(m.headers, m.storeId)).json.items[0].productCount).to.equal(2);
    });

    it('changes the given fields, clears with null, writes once; a no-op PATCH writes nothing', async () => {
      const m = await merchant(server);
      const c = await collection(m, { name: 'Old', slug: 'old', description: 'text', imageUrl: 'https://example.test/i.png' });
      await collection(m, { slug: 'taken' });
      const res = await patch(m.headers, c.id, { name: 'New', slug: 'new', description: null, isActive: false });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.include({
        id: c.id,
        name: 'New',
        slug: 'new',
        description: null,
        imageUrl: 'https://example.test/i.png',
        isActive: false,
        position: 0,
        createdAt: c.createdAt,
      });
      const same = await patch(m.headers, c.id, { name: 'New', imageUrl: 'https://example.test/i.png' });
      expect(same.status).to.equal(200);
      expect(same.json).to.deep.equal(res.json);
      const w = await writes(c.id);
      expect(w.outbox.map((o) => o.topic)).to.deep.equal(['collection.created', 'collection.updated']);
      expect(w.audit.map((a) => a.action)).to.deep.equal(['collection.create', 'collection.update']);
      expect(w.audit[1]!.before).to.deep.equal({ name: 'Old', slug: 'old', description: 'text', isActive: true });
      expect(w.audit[1]!.after).to.deep.equal({ name: 'New', slug: 'new', description: null, isActive: false });

      expectFieldErrors(await patch(m.headers, c.id, {}), ['body']);
      expectFieldErrors(await patch(m.headers, c.id, { storeId: m.storeId }), ['body.storeId']);
      expectFieldErrors(await patch(m.headers, c.id, { name: 'x'.repeat(121), slug: 'No', imageUrl: 'ftp://x.test/a' }), [
        'body.name',
        'body.slug',
        'body.imageUrl',
      ]);
      expectProblem(await patch(m.headers, c.id, { slug: 'taken' }), 409, 'slug_taken');
      expectProblem(await patch(m.headers, uuidv7(), { name: 'Ghost' }), 404, 'collection_not_found');
      const stranger = await merchant(server);
      expectProblem(await patch(stranger.headers, c.id, { name: 'Stolen' }), 404, 'collection_not_found');
      expect((await writes(c.id)).audit).to.have.length(2);
    });

    it('deletes a collection and its items (204), one audit entry and outbox row; the products stay', async () => {
      const m = await merchant(server);
      const p = await product(server, m, { slug: 'stays' });
      const c = await collection(m, { name: 'Gone', slug: 'gone' });
      await addItems(m.headers, c.id, { productIds: [p] });
      const stranger = await merchant(server);
      expectProblem(await remove(stranger.headers, c.id), 404, 'collection_not_found');
      const res = await remove(m.headers, c.id);
      expect(res.status, res.text).to.equal(204);
      expectProblem(await get(m.headers, c.id), 404, 'collection_not_found');
      expectProblem(await remove(m.headers, c.id), 404, 'collection_not_found');
      const [left] = await server.runtime.dataSource.query(
        'SELECT (SELECT count(*)::int FROM collection_items WHERE collection_id = $1) AS items, (SELECT count(*)::int FROM products WHERE id = $2) AS products',
        [c.id, p],
      );
      expect(left).to.deep.equal({ items: 0, products: 1 });
      const w = await writes(c.id);
      expect(w.outbox.map((o) => o.topic)).to.deep.equal(['collection.created', 'collection.updated', 'collection.deleted']);
      expect(w.audit.map((a) => a.action)).to.deep.equal(['collection.create', 'collection.add_items', 'collection.delete']);
      expect(w.audit[2]!.before).to.include({ storeId: m.storeId, slug: 'gone' });
      expect(w.audit[2]!.before.productIds).to.deep.equal([p]);
    });
  });

  describe('POST /catalog/collections/reorder', () => {
    it('sets the order; only collections whose position changes are written', async () => {
      const m = await merchant(server);
      const [a, b, c] = [await collection(m, { name: 'A' }), await collection(m, { name: 'B' }), await collection(m, { name: 'C' })];
      const res = await reorder(m.headers, { storeId: m.storeId, ids: [c.id, b.id, a.id] });
      expect(res.status, res.text).to.equal(204);
      expect((await list(m.headers, m.storeId)).json.items.map((x: any) => [x.name, x.position])).to.deep.equal([
        ['C', 0],
        ['B', 1],
        ['A', 2],
      ]);
      expect((await writes(b.id)).audit).to.have.length(1);
      for (const moved of [a, c]) {
        const w = await writes(moved.id);
        expect(w.outbox.map((o) => o.topic)).to.deep.equal(['collection.created', 'collection.updated']);
        expect(w.audit.map((x) => x.action)).to.deep.equal(['collection.create', 'collection.reorder']);
      }
      // A new collection still comes last.
      expect((await collection(m, { name: 'D' })).position).to.equal(3);
    });

    it("refuses ids that are not exactly the store's collections (400 reorder_mismatch), bad bodies (400) and foreign stores (404)", async () => {
      const m = await merchant(server);
      const a = await collection(m);
      const b = await collection(m);
      const stranger = await merchant(server);
      const foreign = await collection(stranger);
      const before = await tenantWrites(m.owner.tenantId);
      expectProblem(await reorder(m.headers, { storeId: m.storeId, ids: [b.id] }), 400, 'reorder_mismatch');
      const res = await reorder(m.headers, { storeId: m.storeId, ids: [b.id, a.id, foreign.id] });
      expectProblem(res, 400, 'reorder_mismatch');
      expect(res.json.errors.map((e: any) => e.path)).to.include('body.ids[2]');
      expectFieldErrors(await reorder(m.headers, { storeId: m.storeId, ids: [] }), ['body.ids']);
      expectFieldErrors(await reorder(m.headers, { storeId: m.storeId, ids: [a.id, a.id] }), ['body.ids[1]']);
      expectFieldErrors(await reorder(m.headers, { storeId: m.storeId, ids: Array.from({ length: 1001 }, () => uuidv7()) }), ['body.ids']);
      expectFieldErrors(await reorder(m.headers, { ids: [a.id] }), ['body.storeId']);
      expectProblem(await reorder(stranger.headers, { storeId: m.storeId, ids: [b.id, a.id] }), 404, 'store_not_found');
      expect(await tenantWrites(m.owner.tenantId)).to.deep.equal(before);
    });
  });

  describe('POST and DELETE /catalog/collections/{id}/items', () => {
    it('appends in the given order, inserts at a position, skips products already there; one write per request', async () => {
      const m = await merchant(server);
      const [p1, p2, p3, p4, p5] = [
        await product(server, m, { slug: 'p1' }),
        await product(server, m, { slug: 'p2' }),
        await product(server, m, { slug: 'p3' }),
        await product(server, m, { slug: 'p4' }),
        await product(server, m, { slug: 'p5' }),
      ];
      const c = await collection(m);
      const first = await addItems(m.headers, c.id, { productIds: [p2, p1] });
      expect(first.status, first.text).to.equal(201);
      expect(first.json).to.deep.equal({ added: 2, skipped: [] });
      const second = await addItems(m.headers, c.id, { productIds: [p3, p1] });
      expect(second.json).to.deep.equal({ added: 1, skipped: [p1] });
      expect(await itemIds(m.headers, c.id)).to.deep.equal([p2, p1, p3]);
      expect((await addItems(m.headers, c.id, { productIds: [p4, p5], position: 1 })).json).to.deep.equal({ added: 2, skipped: [] });
      expect(await itemIds(m.headers, c.id)).to.deep.equal([p2, p4, p5, p1, p3]);
      expect((await get(m.headers, c.id)).json.items.map((i: any) => i.position)).to.deep.equal([0, 1, 2, 3, 4]);
      const [p6, p7] = [await product(server, m, { slug: 'p6' }), await product(server, m, { slug: 'p7' })];
      expect((await addItems(m.headers, c.id, { productIds: [p6], position: 0 })).json.added).to.equal(1);
      expect((await addItems(m.headers, c.id, { productIds: [p7], position: 99 })).json.added).to.equal(1);
      expect(await itemIds(m.headers, c.id)).to.deep.equal([p6, p2, p4, p5, p1, p3, p7]);
      expect((await get(m.headers, c.id)).json.items.map((i: any) => i.position)).to.deep.equal([0, 1, 2, 3, 4, 5, 6]);
      // Everything already there: nothing is written.
      expect((await addItems(m.headers, c.id, { productIds: [p1] })).json).to.deep.equal({ added: 0, skipped: [p1] });
      const w = await writes(c.id);
      expect(w.outbox.map((o) => o.topic)).to.deep.equal(['collection.created', ...Array(5).fill('collection.updated')]);
      expect(w.audit.map((a) => a.action)).to.deep.equal(['collection.create', ...Array(5).fill('collection.add_items')]);
      expect(w.audit[2]).to.deep.include({ before: { productIds: [p2, p1] }, after: { productIds: [p2, p1, p3] } });
    });

    it('refuses products of another store or tenant (400 invalid_product listing them) and writes nothing', async () => {
      const m = await merchant(server);
      const mine = await product(server, m, { slug: 'mine' });
      const sibling = await store(server, m);
      const other = await product(server, m, { slug: 'other', store_id: sibling });
      const stranger = await merchant(server);
      const foreign = await product(server, stranger, { slug: 'foreign' });
      const c = await collection(m);
      const res = await addItems(m.headers, c.id, { productIds: [mine, other, foreign, uuidv7()] });
      expectProblem(res, 400, 'invalid_product');
      expect(res.json.errors.map((e: any) => e.path)).to.deep.equal(['body.productIds[1]', 'body.productIds[2]', 'body.productIds[3]']);
      expect(await itemIds(m.headers, c.id)).to.deep.equal([]);
      expect((await writes(c.id)).audit).to.have.length(1);
      expectFieldErrors(await addItems(m.headers, c.id, { productIds: [] }), ['body.productIds']);
      expectFieldErrors(await addItems(m.headers, c.id, { productIds: [mine, mine] }), ['body.productIds[1]']);
      expectFieldErrors(await addItems(m.headers, c.id, { productIds: Array.from({ length: 501 }, () => uuidv7()) }), ['body.productIds']);
      expectFieldErrors(await addItems(m.headers, c.id, { productIds: [mine], position: -1 }), ['body.position']);
      expectProblem(await addItems(m.headers, uuidv7(), { productIds: [mine] }), 404, 'collection_not_found');
      expectProblem(await addItems(stranger.headers, c.id, { productIds: [foreign] }), 404, 'collection_not_found');
    });

    it('removes products (200 { removed, notFound }), closing up the positions', async () => {
      const m = await merchant(server);
      const [p1, p2, p3] = [
        await product(server, m, { slug: 'r1' }),
        await product(server, m, { slug: 'r2' }),
        await product(server, m, { slug: 'r3' }),
      ];
      const c = await collection(m);
      await addItems(m.headers, c.id, { productIds: [p1, p2, p3] });
      const unknown = uuidv7();
      const res = await removeItems(m.headers, c.id, { productIds: [p2, unknown] });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.deep.equal({ removed: 1, notFound: [unknown] });
      expect((await get(m.headers, c.id)).json.items.map((i: any) => [i.productId, i.position])).to.deep.equal([
        [p1, 0],
        [p3, 1],
      ]);
      expect((await removeItems(m.headers, c.id, { productIds: [p2] })).json).to.deep.equal({ removed: 0, notFound: [p2] });
      const w = await writes(c.id);
      expect(w.audit.map((a) => a.action)).to.deep.equal(['collection.create', 'collection.add_items', 'collection.remove_items']);
      expect(w.outbox).to.have.length(3);
      expectFieldErrors(await removeItems(m.headers, c.id, {}), ['body.productIds']);
      const stranger = await merchant(server);
      expectProblem(await removeItems(stranger.headers, c.id, { productIds: [p1] }), 404, 'collection_not_found');
      expect(await itemIds(m.headers, c.id)).to.deep.equal([p1, p3]);
    });
  });

  describe('POST /catalog/collections/bulk/set-active', () => {
    it("changes only what needs changing and reports other stores' and tenants' ids as not found", async () => {
      const m = await merchant(server);
      const a = await collection(m, { isActive: true });
      const b = await collection(m, { isActive: false });
      const sibling = await store(server, m);
      const siblings = await collection(m, {}, sibling);
      const stranger = await merchant(server);
      const foreign = await collection(stranger);
      const unknown = uuidv7();
      const res = await bulk(m.headers, { storeId: m.storeId, ids: [a.id, siblings.id, b.id, foreign.id, unknown], isActive: false });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.deep.equal({ updated: 1, unchanged: 1, notFound: [siblings.id, foreign.id, unknown] });
      const w = await writes(a.id);
      expect(w.outbox.map((o) => o.topic)).to.deep.equal(['collection.created', 'collection.updated']);
      expect(w.audit[1]).to.deep.include({ action: 'collection.update', before: { isActive: true }, after: { isActive: false } });
      for (const untouched of [b, siblings, foreign]) expect((await writes(untouched.id)).outbox).to.have.length(1);

      expectFieldErrors(await bulk(m.headers, { storeId: m.storeId, ids: [], isActive: true }), ['body.ids']);
      expectFieldErrors(await bulk(m.headers, { storeId: m.storeId, ids: Array.from({ length: 501 }, () => uuidv7()), isActive: true }), [
        'body.ids',
      ]);
      expectFieldErrors(await bulk(m.headers, { storeId: m.storeId, ids: [a.id] }), ['body.isActive']);
      expectProblem(await bulk(stranger.headers, { storeId: m.storeId, ids: [a.id], isActive: true }), 404, 'store_not_found');
    });
  });

  describe('CSV export and import', () => {
    it('exports the documented layout and round-trips into a second store with the same products', async () => {
      const m = await merchant(server);
      const second = await store(server, m);
      for (const slug of ['shoe', 'hat', 'sock']) {
        await product(server, m, { slug });
        await product(server, m, { slug, store_id: second });
      }
      const ids = Object.fromEntries(
        (await server.runtime.dataSource.query('SELECT id, slug FROM products WHERE store_id = $1', [m.storeId])).map((r: any) => [
          r.slug,
          r.id,
        ]),
      );
      const a = await collection(m, {
        name: '=HYPERLINK("http://evil.test")',
        slug: 'evil',
        description: '+1 "quoted", with comma\nand a new line',
        isActive: false,
      });
      const b = await collection(m, { name: 'Plain', slug: 'plain', imageUrl: 'https://example.test/p.png' });
      await collection(m, { name: 'Empty', slug: 'empty' });
      await addItems(m.headers, b.id, { productIds: [ids.sock, ids.shoe] });
      await addItems(m.headers, a.id, { productIds: [ids.hat] });
      await reorder(m.headers, { storeId: m.storeId, ids: [(await list(m.headers, m.storeId)).json.items[2].id, b.id, a.id] });

      const res = await exportCsv(m.headers, m.storeId);
      expect(res.status, res.text).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/csv/);
      expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="collections-${m.storeId}.csv"`);
      const lines = res.text.split('\r\n');
      expect(lines[0]).to.equal('slug,name,isActive,position,description,imageUrl,productSlugs');
      expect(lines[1]).to.equal('empty,Empty,true,0,,,');
      expect(lines[2]).to.equal('plain,Plain,true,1,,https://example.test/p.png,sock shoe');
      expect(res.text).to.include(`evil,"'=HYPERLINK(""http://evil.test"")",false,2,"'+1 ""quoted"", with comma\nand a new line",,hat`);

      const imported = await importCsv(m.headers, second, res.text);
      expect(imported.status, imported.text).to.equal(200);
      expect(imported.json).to.deep.equal({ created: 3, updated: 0, unchanged: 0 });
      const strip = (items: any[]) => items.map(({ id: _i, createdAt: _c, updatedAt: _u, ...rest }) => rest);
      expect(strip((await list(m.headers, second)).json.items)).to.deep.equal(strip((await list(m.headers, m.storeId)).json.items));
      expect((await exportCsv(m.headers, second)).text).to.equal(res.text);
      const copied = (await list(m.headers, second)).json.items.find((x: any) => x.slug === 'plain');
      expect((await get(m.headers, copied.id)).json.items.map((i: any) => i.product.slug)).to.deep.equal(['sock', 'shoe']);

      // Importing the export into the store it came from changes nothing and writes nothing.
      const before = await tenantWrites(m.owner.tenantId);
      expect((await importCsv(m.headers, m.storeId, res.text)).json).to.deep.equal({ created: 0, updated: 0, unchanged: 3 });
      expect(await tenantWrites(m.owner.tenantId)).to.deep.equal(before);
    });

    it('creates and updates by slug (fields and products), one audit entry and outbox row per collection changed', async () => {
      const m = await merchant(server);
      const p1 = await product(server, m, { slug: 'alpha' });
      const p2 = await product(server, m, { slug: 'beta' });
      const kept = await collection(m, { name: 'Kept', slug: 'kept' });
      const changed = await collection(m, { name: 'Changed', slug: 'changed', description: 'cleared' });
      await addItems(m.headers, changed.id, { productIds: [p1] });
      const csv = [
        'name,slug,isActive,position,description,productSlugs',
        'Kept,kept,true,,,',
        'Changed,CHANGED,true,,,BETA alpha',
        'Brand New,brand-new,false,,Fresh,beta',
      ].join('\n');
      const res = await importCsv(m.headers, m.storeId, csv);
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.deep.equal({ created: 1, updated: 1, unchanged: 1 });
      expect(await itemIds(m.headers, changed.id)).to.deep.equal([p2, p1]);
      const items = (await list(m.headers, m.storeId)).json.items;
      expect(items.map((x: any) => [x.slug, x.position, x.description, x.productCount])).to.deep.equal([
        ['kept', 0, null, 0],
        ['changed', 1, null, 2],
        ['brand-new', 2, 'Fresh', 1],
      ]);
      expect((await writes(kept.id)).audit).to.have.length(1);
      const w = await writes(changed.id);
      expect(w.outbox.map((o) => o.topic)).to.deep.equal(['collection.created', 'collection.updated', 'collection.updated']);
      expect(w.audit.map((a) => a.action)).to.deep.equal(['collection.create', 'collection.add_items', 'collection.update']);
      expect(w.audit[2]!.after).to.deep.equal({ description: null, productIds: [p2, p1] });
      const created = await writes(items[2].id);
      expect(created.outbox.map((o) => o.topic)).to.deep.equal(['collection.created']);
      expect(created.audit.map((a) => a.action)).to.deep.equal(['collection.create']);
    });

    it('refuses the whole import when any row is bad (400 listing rows and columns) and writes nothing', async () => {
      const m = await merchant(server);
      await product(server, m, { slug: 'real' });
      const sibling = await store(server, m);
      await product(server, m, { slug: 'elsewhere', store_id: sibling });
      await collection(m, { name: 'Existing', slug: 'existing' });
      const before = await tenantWrites(m.owner.tenantId);
      const csv = [
        'slug,name,isActive,position,description,imageUrl,productSlugs',
        'good-one,Good,true,,,,real',
        'existing,Renamed,true,,,,',
        'Bad Slug,Bad,maybe,-1,,ftp://x.test/a.png,',
        'missing,Missing,true,,,,real elsewhere',
        'dups,Dups,true,,,,real real',
      ].join('\n');
      const res = await importCsv(m.headers, m.storeId, csv);
      expectProblem(res, 400, 'validation_failed');
      const paths = res.json.errors.map((e: any) => e.path);
      expect(paths).to.include.members([
        'rows[3].slug',
        'rows[3].isActive',
        'rows[3].position',
        'rows[3].imageUrl',
        'rows[5].productSlugs',
      ]);
      // Unknown product slugs are reported once the rows are well-formed.
      const unknown = await importCsv(m.headers, m.storeId, 'slug,name,productSlugs\ngood-one,Good,real\nmissing,Missing,real elsewhere\n');
      expectProblem(unknown, 400, 'validation_failed');
      expect(unknown.json.errors).to.deep.equal([{ path: 'rows[2].productSlugs', message: 'not products of the store: elsewhere' }]);
      const dup = await importCsv(m.headers, m.storeId, 'slug,name\nsame,One\nSAME,Two\n');
      expect(dup.json.errors).to.deep.equal([{ path: 'rows[2].slug', message: 'slug "same" already appears in row 1' }]);
      expect((await list(m.headers, m.storeId)).json.items.map((x: any) => x.name)).to.deep.equal(['Existing']);
      expect(await tenantWrites(m.owner.tenantId)).to.deep.equal(before);

      const stranger = await merchant(server);
      expectProblem(await exportCsv(stranger.headers, m.storeId), 404, 'store_not_found');
      expectProblem(await importCsv(stranger.headers, m.storeId, 'slug,name\na,A\n'), 404, 'store_not_found');
      const big = await importCsv(m.headers, m.storeId, ['slug,name', ...Array.from({ length: 5001 }, (_, i) => `c${i},C${i}`)].join('\n'));
      expect(big.status).to.equal(413);
      expect(await collectionCount(m.storeId)).to.equal(1);
    });
  });
});
