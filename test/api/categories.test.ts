/**
 * Categories: list (depth-first with depth, path, child counts), create, replace, delete, reorder, CSV
 * export and import — with validation bounds, tenant isolation (another tenant's store or category is
 * 404), API keys bound to their store, slug conflicts, cycles, and exactly one audit entry and one
 * outbox row per changed category (none for a refused or empty write).
 */
import { expect } from 'chai';
import { uuidv7 } from '../../storage/ids';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem } from '../helpers/accounts';
import { apiKey, merchant, store, type Merchant } from '../helpers/fixtures';

describe('categories', () => {
  let server: TestServer;
  apiSuite((started) => (server = started));

  const create = (m: Merchant, body: Record<string, unknown>, headers = m.headers): Promise<TestResponse> =>
    call(server, 'POST', '/api/v1/catalog/categories', { headers, body: { storeId: m.storeId, ...body } });

  async function category(m: Merchant, body: Record<string, unknown>): Promise<Record<string, any>> {
    const res = await create(m, body);
    expect(res.status, res.text).to.equal(201);
    return res.json;
  }

  const list = async (m: Merchant, storeId = m.storeId): Promise<Array<Record<string, any>>> => {
    const res = await call(server, 'GET', `/api/v1/catalog/categories?storeId=${storeId}`, { headers: m.headers });
    expect(res.status, res.text).to.equal(200);
    return res.json.items;
  };

  const put = (m: Merchant, id: string, body: Record<string, unknown>, headers = m.headers): Promise<TestResponse> =>
    call(server, 'PUT', `/api/v1/catalog/categories/${id}`, { headers, body });

  async function writes(id: string): Promise<{ audit: string[]; outbox: string[] }> {
    const audit = (await server.runtime.dataSource.query('SELECT action FROM audit_log WHERE resource_id = $1 ORDER BY id', [
      id,
    ])) as Array<{ action: string }>;
    const outbox = (await server.runtime.dataSource.query(
      "SELECT topic FROM outbox WHERE aggregate_type = 'category' AND aggregate_id = $1 ORDER BY id",
      [id],
    )) as Array<{ topic: string }>;
    return { audit: audit.map((r) => r.action), outbox: outbox.map((r) => r.topic) };
  }

  async function storeWrites(storeId: string): Promise<{ audit: number; outbox: number }> {
    const [{ audit }] = await server.runtime.dataSource.query(
      "SELECT count(*)::int AS audit FROM audit_log WHERE resource_type = 'category' AND resource_id IN (SELECT id::text FROM categories WHERE store_id = $1)",
      [storeId],
    );
    const [{ outbox }] = await server.runtime.dataSource.query(
      "SELECT count(*)::int AS outbox FROM outbox WHERE aggregate_type = 'category' AND aggregate_id IN (SELECT id::text FROM categories WHERE store_id = $1)",
      [storeId],
    );
    return { audit, outbox };
  }

  describe('POST /catalog/categories', () => {
    it('creates a root category with defaults and derives the slug from the name', async () => {
      const m = await merchant(server);
      const res = await create(m, { name: 'Summer Shoes & Sandals' });
      expect(res.status, res.text).to.equal(201);
      expect(res.json).to.include({
        storeId: m.storeId,
        parentId: null,
        name: 'Summer Shoes & Sandals',
        slug: 'summer-shoes-sandals',
        description: null,
        imageUrl: null,
        position: 0,
        isActive: true,
        depth: 0,
        childCount: 0,
      });
      expect(res.json.path).to.deep.equal(['summer-shoes-sandals']);
      expect(res.json.createdAt).to.match(/^\d{4}-\d\d-\d\dT/);
      expect(await writes(res.json.id)).to.deep.equal({ audit: ['category.create'], outbox: ['category.created'] });
      // The same name again gets -2, then -3.
      expect((await category(m, { name: 'Summer shoes sandals' })).slug).to.equal('summer-shoes-sandals-2');
      expect((await category(m, { name: 'Summer shoes sandals' })).slug).to.equal('summer-shoes-sandals-3');
      expect((await category(m, { name: '!!!' })).slug).to.equal('category');
    });

    it('places a child under its parent, after the last sibling, with depth and path', async () => {
      const m = await merchant(server);
      const root = await category(m, {
        name: 'Clothing',
        slug: 'clothing',
        description: 'All of it',
        imageUrl: 'https://cdn.example.test/c.png',
        isActive: false,
      });
      expect(root).to.include({ description: 'All of it', imageUrl: 'https://cdn.example.test/c.png', isActive: false });
      const a = await category(m, { name: 'Shirts', parentId: root.id });
      const b = await category(m, { name: 'Trousers', parentId: root.id });
      const c = await category(m, { name: 'Polo', parentId: a.id, position: 7 });
      expect(a).to.include({ parentId: root.id, position: 0, depth: 1 });
      expect(b.position).to.equal(1);
      expect(c).to.include({ position: 7, depth: 2 });
      expect(c.path).to.deep.equal(['clothing', 'shirts', 'polo']);
      const items = await list(m);
      expect(items.map((i) => i.slug)).to.deep.equal(['clothing', 'shirts', 'polo', 'trousers']);
      expect(items[0]).to.include({ childCount: 2, depth: 0 });
    });

    it('refuses a taken slug (case-insensitively) with 409 and writes nothing', async () => {
      const m = await merchant(server);
      await category(m, { name: 'Shoes', slug: 'shoes' });
      const res = await create(m, { name: 'Other', slug: 'shoes' });
      expectProblem(res, 409, 'slug_taken');
      expect(res.json.errors[0].path).to.equal('body.slug');
      expect(await list(m)).to.have.length(1);
      // Another store of the same tenant may use the slug.
      const other = { ...m, storeId: await store(server, m) };
      expect((await create(other, { name: 'Shoes', slug: 'shoes' })).status).to.equal(201);
    });

    it('refuses a parent of another store with 400 invalid_parent', async () => {
      const m = await merchant(server);
      const other = { ...m, storeId: await store(server, m) };
      const foreign = await category(other, { name: 'Elsewhere' });
      expectProblem(await create(m, { name: 'Child', parentId: foreign.id }), 400, 'invalid_parent');
      expectProblem(await create(m, { name: 'Child', parentId: uuidv7() }), 400, 'invalid_parent');
      expect(await list(m)).to.have.length(0);
    });

    it('validates the bounds', async () => {
      const m = await merchant(server);
      const cases: Array<[Record<string, unknown>, string]> = [
        [{}, 'body.name'],
        [{ name: '' }, 'body.name'],
        [{ name: 'x'.repeat(121) }, 'body.name'],
        [{ name: 'ok', slug: 'Upper' }, 'body.slug'],
        [{ name: 'ok', slug: 'double--hyphen' }, 'body.slug'],
        [{ name: 'ok', slug: 'x'.repeat(121) }, 'body.slug'],
        [{ name: 'ok', parentId: 'nope' }, 'body.parentId'],
        [{ name: 'ok', description: 'x'.repeat(5001) }, 'body.description'],
        [{ name: 'ok', imageUrl: 'ftp://example.test/a.png' }, 'body.imageUrl'],
        [{ name: 'ok', imageUrl: 'javascript:alert(1)' }, 'body.imageUrl'],
        [{ name: 'ok', position: -1 }, 'body.position'],
        [{ name: 'ok', position: 1.5 }, 'body.position'],
        [{ name: 'ok', isActive: 'maybe' }, 'body.isActive'],
        [{ name: 'ok', extra: 1 }, 'body.extra'],
      ];
      for (const [body, path] of cases) {
        const res = await create(m, body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(
          res.json.errors.map((e: { path: string }) => e.path),
          JSON.stringify(body),
        ).to.include(path);
      }
      const missingStore = await call(server, 'POST', '/api/v1/catalog/categories', { headers: m.headers, body: { name: 'x' } });
      expect(missingStore.status).to.equal(400);
      expect(await list(m)).to.have.length(0);
      expect((await create(m, { name: 'x'.repeat(120), slug: 'a', description: 'd'.repeat(5000) })).status).to.equal(201);
    });

    it("answers 404 for another tenant's store and 401 without a token", async () => {
      const m = await merchant(server);
      const stranger = await merchant(server);
      expectProblem(await create(m, { name: 'Mine' }, stranger.headers), 404, 'store_not_found');
      expectProblem(await create({ ...m, storeId: uuidv7() }, { name: 'x' }), 404, 'store_not_found');
      expect((await call(server, 'POST', '/api/v1/catalog/categories', { body: { storeId: m.storeId, name: 'x' } })).status).to.equal(401);
      expect(await list(m)).to.have.length(0);
    });

    it('lets an API key write to its own store only', async () => {
      const m = await merchant(server);
      const second = await store(server, m);
      const key = await apiKey(server, m, ['catalog:write']);
      expect((await create(m, { name: 'By key' }, key)).status).to.equal(201);
      expectProblem(await create({ ...m, storeId: second }, { name: 'By key' }, key), 404, 'store_not_found');
      const readOnly = await apiKey(server, m, ['catalog:read']);
      expect((await create(m, { name: 'Read only' }, readOnly)).status).to.equal(403);
    });
  });

  describe('GET /catalog/categories', () => {
    it('lists depth-first by position, then name, with child counts', async () => {
      const m = await merchant(server);
      const b = await category(m, { name: 'B', slug: 'b', position: 1 });
      const a = await category(m, { name: 'A', slug: 'a', position: 1 });
      await category(m, { name: 'Z', slug: 'z', position: 0 });
      await category(m, { name: 'A2', slug: 'a2', parentId: a.id });
      await category(m, { name: 'B1', slug: 'b1', parentId: b.id, position: 0 });
      const items = await list(m);
      expect(items.map((i) => i.slug)).to.deep.equal(['z', 'a', 'a2', 'b', 'b1']);
      expect(items.map((i) => i.depth)).to.deep.equal([0, 0, 1, 0, 1]);
      expect(items.find((i) => i.slug === 'b1')!.path).to.deep.equal(['b', 'b1']);
      expect(items.find((i) => i.slug === 'a')!.childCount).to.equal(1);
      expect(Object.keys(items[0]!).sort()).to.deep.equal(
        [
          'childCount',
          'createdAt',
          'depth',
          'description',
          'id',
          'imageUrl',
          'isActive',
          'name',
          'parentId',
          'path',
          'position',
          'slug',
          'storeId',
          'updatedAt',
        ].sort(),
      );
    });

    it("answers 404 for another tenant's store and 400 without storeId", async () => {
      const m = await merchant(server);
      const stranger = await merchant(server);
      expectProblem(
        await call(server, 'GET', `/api/v1/catalog/categories?storeId=${m.storeId}`, { headers: stranger.headers }),
        404,
        'store_not_found',
      );
      expect((await call(server, 'GET', '/api/v1/catalog/categories', { headers: m.headers })).status).to.equal(400);
      expect((await call(server, 'GET', '/api/v1/catalog/categories?storeId=nope', { headers: m.headers })).status).to.equal(400);
    });
  });

  describe('PUT /catalog/categories/{id}', () => {
    it('replaces the editable fields, resetting omitted ones, and records the change once', async () => {
      const m = await merchant(server);
      const root = await category(m, { name: 'Root', slug: 'root' });
      const cat = await category(m, {
        name: 'Cat',
        slug: 'cat',
        description: 'd',
        imageUrl: 'https://x.test/i.png',
        isActive: false,
        position: 4,
        parentId: root.id,
      });
      const res = await put(m, cat.id, { name: 'Renamed' });
      expect(res.status, res.text).to.equal(200);
      // slug kept; parent reset to root level (so position goes after the last root); description, image cleared; active again.
      expect(res.json).to.include({
        name: 'Renamed',
        slug: 'cat',
        parentId: null,
        description: null,
        imageUrl: null,
        isActive: true,
        position: 1,
        depth: 0,
      });
      expect(await writes(cat.id)).to.deep.equal({
        audit: ['category.create', 'category.update'],
        outbox: ['category.created', 'category.updated'],
      });
      const [entry] = await server.runtime.dataSource.query(
        "SELECT before, after FROM audit_log WHERE resource_id = $1 AND action = 'category.update'",
        [cat.id],
      );
      expect(entry.after).to.include({ name: 'Renamed', parentId: null, isActive: true });
      expect(entry.before).to.include({ name: 'Cat', parentId: root.id, isActive: false });
      // The same body again changes nothing and records nothing.
      const again = await put(m, cat.id, { name: 'Renamed', position: 1 });
      expect(again.status).to.equal(200);
      expect((await writes(cat.id)).audit).to.have.length(2);
      // A full replacement with a new slug and parent.
      const full = await put(m, cat.id, {
        name: 'Full',
        slug: 'full',
        parentId: root.id,
        description: 'x',
        imageUrl: 'http://x.test/a',
        position: 2,
        isActive: false,
      });
      expect(full.json).to.include({ slug: 'full', parentId: root.id, position: 2, depth: 1, description: 'x', isActive: false });
      expect(full.json.path).to.deep.equal(['root', 'full']);
    });

    it('keeps the position when the parent stays', async () => {
      const m = await merchant(server);
      await category(m, { name: 'A', slug: 'a' });
      const b = await category(m, { name: 'B', slug: 'b' });
      expect((await put(m, b.id, { name: 'B!', slug: 'b' })).json.position).to.equal(1);
    });

    it('refuses moves under itself or a descendant with 400 category_cycle', async () => {
      const m = await merchant(server);
      const a = await category(m, { name: 'A' });
      const b = await category(m, { name: 'B', parentId: a.id });
      const c = await category(m, { name: 'C', parentId: b.id });
      expectProblem(await put(m, a.id, { name: 'A', parentId: a.id }), 400, 'category_cycle');
      expectProblem(await put(m, a.id, { name: 'A', parentId: c.id }), 400, 'category_cycle');
      expectProblem(await put(m, a.id, { name: 'A', parentId: uuidv7() }), 400, 'invalid_parent');
      expect((await writes(a.id)).audit).to.deep.equal(['category.create']);
      // Moving a leaf up is fine.
      expect((await put(m, c.id, { name: 'C', parentId: a.id })).json).to.include({ parentId: a.id, depth: 1 });
    });

    it('answers 409 for a slug another category has, 404 for unknown or foreign ids, 400 for bad bodies', async () => {
      const m = await merchant(server);
      await category(m, { name: 'One', slug: 'one' });
      const two = await category(m, { name: 'Two', slug: 'two' });
      expectProblem(await put(m, two.id, { name: 'Two', slug: 'one' }), 409, 'slug_taken');
      expectProblem(await put(m, uuidv7(), { name: 'X' }), 404, 'category_not_found');
      const stranger = await merchant(server);
      expectProblem(await put(m, two.id, { name: 'Hacked' }, stranger.headers), 404, 'category_not_found');
      expect((await put(m, two.id, {})).status).to.equal(400);
      expect((await put(m, two.id, { name: 'x', storeId: m.storeId })).status).to.equal(400);
      expect((await call(server, 'PUT', '/api/v1/catalog/categories/nope', { headers: m.headers, body: { name: 'x' } })).status).to.equal(
        400,
      );
      expect((await list(m)).find((c) => c.id === two.id)).to.include({ name: 'Two', slug: 'two' });
    });

    it('keeps an API key to the categories of its store', async () => {
      const m = await merchant(server);
      const second = { ...m, storeId: await store(server, m) };
      const elsewhere = await category(second, { name: 'Elsewhere' });
      const key = await apiKey(server, m, ['catalog:write']);
      expectProblem(await put(m, elsewhere.id, { name: 'Nope' }, key), 404, 'store_not_found');
    });
  });

  describe('DELETE /catalog/categories/{id}', () => {
    it('deletes a leaf with its attributes, once audited; refuses a parent with 409', async () => {
      const m = await merchant(server);
      const parent = await category(m, { name: 'Parent' });
      const child = await category(m, { name: 'Child', parentId: parent.id });
      const attrs = await call(server, 'PUT', `/api/v1/categories/${child.id}/attributes`, {
        headers: m.headers,
        body: { attributes: [{ name: 'Size', type: 'text' }] },
      });
      expect(attrs.status, attrs.text).to.equal(200);
      expectProblem(
        await call(server, 'DELETE', `/api/v1/catalog/categories/${parent.id}`, { headers: m.headers }),
        409,
        'category_has_children',
      );
      expect((await writes(parent.id)).audit).to.deep.equal(['category.create']);
      const res = await call(server, 'DELETE', `/api/v1/catalog/categories/${child.id}`, { headers: m.headers });
      expect(res.status, res.text).to.equal(204);
      expect((await writes(child.id)).outbox).to.deep.equal(['category.created', 'category.updated', 'category.deleted']);
      expect((await writes(child.id)).audit).to.deep.equal(['category.create', 'category.set_attributes', 'category.delete']);
      const [{ n }] = await server.runtime.dataSource.query('SELECT count(*)::int AS n FROM category_attributes WHERE category_id = $1', [
        child.id,
      ]);
      expect(n).to.equal(0);
      expect((await call(server, 'DELETE', `/api/v1/catalog/categories/${parent.id}`, { headers: m.headers })).status).to.equal(204);
      expect(await list(m)).to.have.length(0);
    });

    it('answers 404 for unknown and foreign ids', async () => {
      const m = await merchant(server);
      const cat = await category(m, { name: 'Mine' });
      const stranger = await merchant(server);
      expectProblem(
        await call(server, 'DELETE', `/api/v1/catalog/categories/${cat.id}`, { headers: stranger.headers }),
        404,
        'category_not_found',
      );
      expectProblem(
        await call(server, 'DELETE', `/api/v1/catalog/categories/${uuidv7()}`, { headers: m.headers }),
        404,
        'category_not_found',
      );
      expect(await list(m)).to.have.length(1);
    });
  });

  describe('POST /catalog/categories/reorder', () => {
    const reorder = (m: Merchant, body: Record<string, unknown>, headers = m.headers) =>
      call(server, 'POST', '/api/v1/catalog/categories/reorder', { headers, body: { storeId: m.storeId, ...body } });

    it('sets positions 0..n-1, recording only the categories that moved', async () => {
      const m = await merchant(server);
      const parent = await category(m, { name: 'P' });
      const a = await category(m, { name: 'A', parentId: parent.id });
      const b = await category(m, { name: 'B', parentId: parent.id });
      const c = await category(m, { name: 'C', parentId: parent.id });
      const res = await reorder(m, { parentId: parent.id, ids: [a.id, c.id, b.id] });
      expect(res.status, res.text).to.equal(204);
      expect((await list(m)).map((i) => i.name)).to.deep.equal(['P', 'A', 'C', 'B']);
      expect((await writes(a.id)).audit).to.deep.equal(['category.create']);
      expect(await writes(b.id)).to.deep.equal({
        audit: ['category.create', 'category.reorder'],
        outbox: ['category.created', 'category.updated'],
      });
      expect((await writes(c.id)).outbox).to.have.length(2);
      // Roots too (parentId null).
      const other = await category(m, { name: 'Other' });
      expect((await reorder(m, { parentId: null, ids: [other.id, parent.id] })).status).to.equal(204);
      expect((await list(m))[0]!.name).to.equal('Other');
    });

    it('refuses a wrong set with 400 reorder_mismatch and changes nothing', async () => {
      const m = await merchant(server);
      const a = await category(m, { name: 'A' });
      const b = await category(m, { name: 'B' });
      const child = await category(m, { name: 'Kid', parentId: a.id });
      const before = await storeWrites(m.storeId);
      expectProblem(await reorder(m, { parentId: null, ids: [b.id] }), 400, 'reorder_mismatch');
      expectProblem(await reorder(m, { parentId: null, ids: [b.id, a.id, child.id] }), 400, 'reorder_mismatch');
      expectProblem(await reorder(m, { parentId: null, ids: [b.id, uuidv7()] }), 400, 'reorder_mismatch');
      expectProblem(await reorder(m, { parentId: uuidv7(), ids: [b.id] }), 400, 'invalid_parent');
      expect((await reorder(m, { parentId: null, ids: [b.id, b.id] })).status).to.equal(400);
      expect((await reorder(m, { parentId: null, ids: [] })).status).to.equal(400);
      expect((await reorder(m, { ids: [a.id] })).status).to.equal(400);
      expect((await reorder(m, { parentId: null, ids: Array.from({ length: 1001 }, () => uuidv7()) })).status).to.equal(400);
      expect(await storeWrites(m.storeId)).to.deep.equal(before);
      const stranger = await merchant(server);
      expectProblem(await reorder(m, { parentId: null, ids: [b.id, a.id] }, stranger.headers), 404, 'store_not_found');
    });
  });

  describe('CSV export and import', () => {
    const exportCsv = (m: Merchant, storeId = m.storeId) =>
      call(server, 'GET', `/api/v1/catalog/categories/export?storeId=${storeId}`, { headers: m.headers });
    const importCsv = (m: Merchant, csv: string, storeId = m.storeId, headers = m.headers) =>
      call(server, 'POST', '/api/v1/catalog/categories/import', { headers, body: { storeId, csv } });
    const comparable = (items: Array<Record<string, any>>) =>
      items.map(({ slug, name, position, isActive, description, imageUrl, path, depth }) => ({
        slug,
        name,
        position,
        isActive,
        description,
        imageUrl,
        path,
        depth,
      }));

    it('exports parents before children with neutralised formulas, and round-trips into a fresh store', async () => {
      const m = await merchant(server);
      const root = await category(m, { name: '=HYPERLINK("x")', slug: 'root', description: 'Line one,\n"quoted"', position: 3 });
      await category(m, { name: 'Kid', slug: 'kid', parentId: root.id, imageUrl: 'https://cdn.example.test/k.png', isActive: false });
      await category(m, { name: 'Alone', slug: 'alone', position: 0 });
      const res = await exportCsv(m);
      expect(res.status, res.text).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/csv/);
      expect(res.headers.get('content-disposition')).to.match(/^attachment; filename="categories-.*\.csv"$/);
      const lines = res.text.split('\r\n');
      expect(lines[0]).to.equal('slug,name,parentSlug,position,isActive,description,imageUrl');
      expect(lines[1]).to.match(/^alone,Alone,,0,true,,$/);
      expect(lines[2]).to.match(/^root,"'=HYPERLINK\(""x""\)",,3,true,/);
      expect(res.text).to.include('kid,Kid,root,0,false,,https://cdn.example.test/k.png');

      const fresh = { ...m, storeId: await store(server, m) };
      const imported = await importCsv(fresh, res.text);
      expect(imported.status, imported.text).to.equal(200);
      expect(imported.json).to.deep.equal({ created: 3, updated: 0, unchanged: 0 });
      expect(comparable(await list(fresh))).to.deep.equal(comparable(await list(m)));
      expect((await list(fresh)).find((c) => c.slug === 'root')!.name).to.equal('=HYPERLINK("x")');
      const { audit, outbox } = await storeWrites(fresh.storeId);
      expect({ audit, outbox }).to.deep.equal({ audit: 3, outbox: 3 });
      // Importing the same file again changes nothing and records nothing.
      expect((await importCsv(fresh, res.text)).json).to.deep.equal({ created: 0, updated: 0, unchanged: 3 });
      expect(await storeWrites(fresh.storeId)).to.deep.equal({ audit: 3, outbox: 3 });
    });

    it('creates and updates by slug, resolving parents in any order within the file', async () => {
      const m = await merchant(server);
      const shoes = await category(m, { name: 'Shoes', slug: 'shoes', description: 'old' });
      const csv = [
        'slug,name,parentSlug,position,isActive',
        'boots,Boots,outdoor,,false',
        'outdoor,Outdoor,shoes,,',
        'SHOES,Footwear,,,',
      ].join('\n');
      const res = await importCsv(m, csv);
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.deep.equal({ created: 2, updated: 1, unchanged: 0 });
      const items = await list(m);
      expect(items.map((i) => i.path.join('/'))).to.deep.equal(['shoes', 'shoes/outdoor', 'shoes/outdoor/boots']);
      expect(items[0]).to.include({ id: shoes.id, name: 'Footwear', description: null });
      expect(items[2]).to.include({ isActive: false });
      expect(await writes(shoes.id)).to.deep.equal({
        audit: ['category.create', 'category.update'],
        outbox: ['category.created', 'category.updated'],
      });
    });

    it('refuses the whole file when one row is bad, listing the rows, and writes nothing', async () => {
      const m = await merchant(server);
      await category(m, { name: 'Existing', slug: 'existing' });
      const before = await storeWrites(m.storeId);
      const cases: Array<[string, string[]]> = [
        ['slug,name\ngood,Good\nBad Slug,Bad\n', ['rows[2].slug']],
        ['slug,name,position\ngood,Good,-1\n', ['rows[1].position']],
        ['slug,name,isActive\ngood,Good,maybe\n', ['rows[1].isActive']],
        ['slug,name,imageUrl\ngood,Good,ftp://x\n', ['rows[1].imageUrl']],
        ['slug,name\ngood,\n', ['rows[1].name']],
        ['slug,name\ngood,Good\nGOOD,Again\n', ['rows[2].slug']],
        ['slug,name,parentSlug\ngood,Good,existing\nkid,Kid,nowhere\n', ['rows[2].parentSlug']],
      ];
      for (const [csv, paths] of cases) {
        const res = await importCsv(m, csv);
        expect(res.status, csv).to.equal(400);
        expect(
          res.json.errors.map((e: { path: string }) => e.path),
          csv,
        ).to.deep.equal(paths);
      }
      const cycle = await importCsv(m, 'slug,name,parentSlug\na,A,b\nb,B,a\nc,C,c\n');
      expectProblem(cycle, 400, 'category_cycle');
      expect(cycle.json.errors.map((e: { path: string }) => e.path)).to.deep.equal([
        'rows[1].parentSlug',
        'rows[2].parentSlug',
        'rows[3].parentSlug',
      ]);
      // A cycle through a category already in the store.
      const existingId = (await list(m))[0]!.id;
      const parent = await category(m, { name: 'Under', slug: 'under', parentId: existingId });
      expectProblem(await importCsv(m, 'slug,name,parentSlug\nexisting,Existing,under\n'), 400, 'category_cycle');
      expect((await list(m)).map((c) => c.slug)).to.deep.equal(['existing', 'under']);
      expect((await writes(parent.id)).audit).to.deep.equal(['category.create']);
      expect((await storeWrites(m.storeId)).audit).to.equal(before.audit + 1);
      expect((await importCsv(m, 'slug,name,colour\na,A,red\n')).status).to.equal(400);
      expect((await importCsv(m, 'name\nA\n')).status).to.equal(400);
    });

    it("answers 404 for another tenant's store on export and import, and 413 above the row limit", async () => {
      const m = await merchant(server);
      const stranger = await merchant(server);
      expectProblem(
        await call(server, 'GET', `/api/v1/catalog/categories/export?storeId=${m.storeId}`, { headers: stranger.headers }),
        404,
        'store_not_found',
      );
      expectProblem(await importCsv(m, 'slug,name\na,A\n', m.storeId, stranger.headers), 404, 'store_not_found');
      const big = ['slug,name', ...Array.from({ length: 5001 }, (_, i) => `c${i},C`)].join('\n');
      expect((await importCsv(m, big)).status).to.equal(413);
      expect(await list(m)).to.have.length(0);
    });
  });
});
