/**
 * Product tags: list (paging, productId filter), create, update, delete, assign and unassign — with
 * bounds, unknown ids, tenant isolation (another tenant's store, tag or product is 404), API keys kept
 * on their store, duplicate slugs (409) and exactly one audit entry and one outbox row per resource a
 * write changes (none for a refused or empty write).
 */
import { expect } from 'chai';
import { uuidv7 } from '../../storage/ids';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem } from '../helpers/accounts';
import { apiKey, merchant, product, store, type Merchant } from '../helpers/fixtures';

describe('product tags', () => {
  let server: TestServer;
  apiSuite((started) => (server = started));

  const SCOPES = ['catalog:read', 'catalog:write'];

  const create = (m: Merchant, body: Record<string, unknown>, headers = m.headers): Promise<TestResponse> =>
    call(server, 'POST', '/api/v1/catalog/product-tags', { headers, body: { storeId: m.storeId, ...body } });

  async function tagOf(m: Merchant, name: string, slug?: string): Promise<Record<string, any>> {
    const res = await create(m, slug ? { name, slug } : { name });
    expect(res.status, res.text).to.equal(201);
    return res.json;
  }

  const list = (m: Merchant, query: string, headers = m.headers): Promise<TestResponse> =>
    call(server, 'GET', `/api/v1/catalog/product-tags?storeId=${m.storeId}${query}`, { headers });
  const assign = (m: Merchant, tagId: string, productIds: string[], headers = m.headers): Promise<TestResponse> =>
    call(server, 'POST', `/api/v1/catalog/product-tags/${tagId}/assign`, { headers, body: { productIds } });
  const unassign = (m: Merchant, tagId: string, productId: string, headers = m.headers): Promise<TestResponse> =>
    call(server, 'DELETE', `/api/v1/catalog/product-tags/${tagId}/assign/${productId}`, { headers });

  async function counts(resourceId: string): Promise<{ outbox: number; audit: number; topics: string[]; actions: string[] }> {
    const outbox: Array<{ topic: string; aggregate_type: string }> = await server.runtime.dataSource.query(
      'SELECT topic, aggregate_type FROM outbox WHERE aggregate_id = $1 ORDER BY id',
      [resourceId],
    );
    const audit: Array<{ action: string }> = await server.runtime.dataSource.query(
      'SELECT action FROM audit_log WHERE resource_id = $1 ORDER BY id',
      [resourceId],
    );
    return {
      outbox: outbox.length,
      audit: audit.length,
      topics: outbox.map((r) => `${r.aggregate_type}:${r.topic}`),
      actions: audit.map((r) => r.action),
    };
  }

  describe('POST /catalog/product-tags', () => {
    it('creates a tag with a derived slug, writing one audit entry and one outbox row', async () => {
      const m = await merchant(server);
      const res = await create(m, { name: '  Summer Sale  ' });
      expect(res.status, res.text).to.equal(201);
      expect(res.json).to.include({ name: 'Summer Sale', slug: 'summer-sale', productCount: 0 });
      expect(res.json.createdAt).to.match(/^\d{4}-\d\d-\d\dT/);
      expect(await counts(res.json.id)).to.deep.equal({
        outbox: 1,
        audit: 1,
        topics: ['product_tag:product_tag.created'],
        actions: ['product_tag.create'],
      });
      // A second tag of the same name gets the next free slug.
      expect((await tagOf(m, 'Summer sale')).slug).to.equal('summer-sale-2');
      expect((await tagOf(m, '!!!')).slug).to.equal('tag');
    });

    it('answers 409 slug_taken for a slug of the store (case-insensitively), but the same slug is free in another store', async () => {
      const m = await merchant(server);
      await tagOf(m, 'New', 'new-in');
      expectProblem(await create(m, { name: 'Other', slug: 'new-in' }), 409, 'slug_taken');
      const other = { ...m, storeId: await store(server, m) };
      expect((await tagOf(other, 'New', 'new-in')).slug).to.equal('new-in');
      const rows = await server.runtime.dataSource.query('SELECT count(*)::int AS n FROM product_tags WHERE store_id = $1', [m.storeId]);
      expect(rows[0].n).to.equal(1);
    });

    it('validates the body (400 with field paths)', async () => {
      const m = await merchant(server);
      for (const [body, path] of [
        [{ name: '' }, 'body.name'],
        [{ name: 'x'.repeat(61) }, 'body.name'],
        [{ name: 'ok', slug: 'Not A Slug' }, 'body.slug'],
        [{ name: 'ok', slug: 'x'.repeat(121) }, 'body.slug'],
        [{ name: 'ok', extra: 1 }, 'body.extra'],
        [{}, 'body.name'],
      ] as Array<[Record<string, unknown>, string]>) {
        const res = await create(m, body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(
          res.json.errors.map((e: { path: string }) => e.path),
          JSON.stringify(body),
        ).to.include(path);
      }
      expect((await tagOf(m, 'x'.repeat(60))).name).to.have.length(60);
    });

    it("answers 404 for another tenant's store and keeps API keys on their store", async () => {
      const m = await merchant(server);
      const stranger = await merchant(server);
      expectProblem(await create(stranger, { storeId: m.storeId, name: 'Nope' }), 404, 'store_not_found');
      const otherStore = await store(server, m);
      const key = await apiKey(server, m, SCOPES, otherStore);
      expectProblem(await create(m, { name: 'Nope' }, key), 404, 'store_not_found');
      expect((await create({ ...m, storeId: otherStore }, { name: 'Yes' }, key)).status).to.equal(201);
      const readOnly = await apiKey(server, m, ['catalog:read']);
      expect((await create(m, { name: 'Nope' }, readOnly)).status).to.equal(403);
    });
  });

  it('refuses writes in an archived store (409 store_archived) but still lists', async () => {
    const m = await merchant(server);
    const tag = await tagOf(m, 'Before');
    const p = await product(server, m);
    await server.runtime.dataSource.query("UPDATE stores SET status = 'archived' WHERE id = $1", [m.storeId]);
    expectProblem(await create(m, { name: 'After' }), 409, 'store_archived');
    expectProblem(await assign(m, tag.id, [p]), 409, 'store_archived');
    expectProblem(await call(server, 'DELETE', `/api/v1/catalog/product-tags/${tag.id}`, { headers: m.headers }), 409, 'store_archived');
    expect((await list(m, '')).json.items).to.have.length(1);
    expect((await counts(p)).outbox).to.equal(0);
  });

  describe('PATCH /catalog/product-tags/{tagId}', () => {
    it('updates name and slug, one audit entry and one outbox row; an unchanged request writes none', async () => {
      const m = await merchant(server);
      const tag = await tagOf(m, 'Old', 'old');
      const res = await call(server, 'PATCH', `/api/v1/catalog/product-tags/${tag.id}`, {
        headers: m.headers,
        body: { name: 'New', slug: 'new' },
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.include({ id: tag.id, name: 'New', slug: 'new', productCount: 0 });
      expect(await counts(tag.id)).to.deep.include({ outbox: 2, audit: 2, actions: ['product_tag.create', 'product_tag.update'] });
      const same = await call(server, 'PATCH', `/api/v1/catalog/product-tags/${tag.id}`, { headers: m.headers, body: { name: 'New' } });
      expect(same.status).to.equal(200);
      expect((await counts(tag.id)).outbox).to.equal(2);
    });

    it('answers 409 for a slug of another tag, 400 for an empty body, 404 for unknown and foreign tags', async () => {
      const m = await merchant(server);
      await tagOf(m, 'Taken', 'taken');
      const tag = await tagOf(m, 'Mine', 'mine');
      const patch = (id: string, body: unknown, headers = m.headers): Promise<TestResponse> =>
        call(server, 'PATCH', `/api/v1/catalog/product-tags/${id}`, { headers, body });
      expectProblem(await patch(tag.id, { slug: 'TAKEN'.toLowerCase() }), 409, 'slug_taken');
      expect((await patch(tag.id, {})).status).to.equal(400);
      expect((await patch(tag.id, { name: 'x'.repeat(61) })).status).to.equal(400);
      expect((await patch('not-a-uuid', { name: 'x' })).status).to.equal(400);
      expectProblem(await patch(uuidv7(), { name: 'x' }), 404, 'product_tag_not_found');
      const stranger = await merchant(server);
      expectProblem(await patch(tag.id, { name: 'stolen' }, stranger.headers), 404, 'product_tag_not_found');
      const otherStoreKey = await apiKey(server, m, SCOPES, await store(server, m));
      expectProblem(await patch(tag.id, { name: 'x' }, otherStoreKey), 404, 'product_tag_not_found');
      expect((await counts(tag.id)).outbox).to.equal(1);
    });
  });

  describe('assign and unassign', () => {
    it('assigns a tag to products, skipping those that have it, one product.updated row per product newly tagged', async () => {
      const m = await merchant(server);
      const tag = await tagOf(m, 'Featured');
      const [p1, p2, p3] = [await product(server, m), await product(server, m), await product(server, m)];
      expect((await assign(m, tag.id, [p1!, p2!])).status).to.equal(204);
      expect((await assign(m, tag.id, [p2!, p3!])).status).to.equal(204);
      for (const p of [p1!, p2!, p3!]) {
        expect(await counts(p), p).to.deep.equal({ outbox: 1, audit: 1, topics: ['product:product.updated'], actions: ['product.tag'] });
      }
      // Everything already assigned: nothing written.
      expect((await assign(m, tag.id, [p1!])).status).to.equal(204);
      expect((await counts(p1!)).outbox).to.equal(1);
      expect((await counts(tag.id)).outbox).to.equal(1);
      const listed = await list(m, '');
      expect(listed.json.items[0]).to.include({ id: tag.id, productCount: 3 });
    });

    it('refuses products of another store or tenant with 400 invalid_product listing them, assigning nothing', async () => {
      const m = await merchant(server);
      const stranger = await merchant(server);
      const tag = await tagOf(m, 'Featured');
      const mine = await product(server, m);
      const otherStore = await product(server, m, { store_id: await store(server, m) });
      const foreign = await product(server, stranger);
      const unknown = uuidv7();
      const res = await assign(m, tag.id, [mine, otherStore, foreign, unknown]);
      expectProblem(res, 400, 'invalid_product');
      expect(res.json.errors.map((e: { path: string }) => e.path)).to.deep.equal([
        'body.productIds[1]',
        'body.productIds[2]',
        'body.productIds[3]',
      ]);
      expect((await counts(mine)).outbox).to.equal(0);
      const rows = await server.runtime.dataSource.query('SELECT count(*)::int AS n FROM product_tag_assignments WHERE tag_id = $1', [
        tag.id,
      ]);
      expect(rows[0].n).to.equal(0);
    });

    it('validates the product list and answers 404 for an unknown or foreign tag', async () => {
      const m = await merchant(server);
      const tag = await tagOf(m, 'Featured');
      const p = await product(server, m);
      expect((await assign(m, tag.id, [])).status).to.equal(400);
      expect((await assign(m, tag.id, [p, p])).status).to.equal(400);
      expect((await assign(m, tag.id, ['nope'])).status).to.equal(400);
      expect(
        (
          await assign(
            m,
            tag.id,
            Array.from({ length: 501 }, () => uuidv7()),
          )
        ).status,
      ).to.equal(400);
      expectProblem(await assign(m, uuidv7(), [p]), 404, 'product_tag_not_found');
      const stranger = await merchant(server);
      const strangerProduct = await product(server, stranger);
      expectProblem(await assign(stranger, tag.id, [strangerProduct]), 404, 'product_tag_not_found');
      // 500 distinct ids is within bounds (they are simply not products of the store).
      expectProblem(
        await assign(
          m,
          tag.id,
          Array.from({ length: 500 }, () => uuidv7()),
        ),
        400,
        'invalid_product',
      );
    });

    it('unassigns a tag from one product (one audit entry and one outbox row); not assigned → 404', async () => {
      const m = await merchant(server);
      const tag = await tagOf(m, 'Featured');
      const p = await product(server, m);
      const untagged = await product(server, m);
      await assign(m, tag.id, [p]);
      expect((await unassign(m, tag.id, p)).status).to.equal(204);
      expect(await counts(p)).to.deep.equal({
        outbox: 2,
        audit: 2,
        topics: ['product:product.updated', 'product:product.updated'],
        actions: ['product.tag', 'product.untag'],
      });
      expectProblem(await unassign(m, tag.id, p), 404, 'assignment_not_found');
      expectProblem(await unassign(m, tag.id, untagged), 404, 'assignment_not_found');
      expectProblem(await unassign(m, uuidv7(), p), 404, 'product_tag_not_found');
      await assign(m, tag.id, [p]);
      const stranger = await merchant(server);
      expectProblem(await unassign(stranger, tag.id, p), 404, 'product_tag_not_found');
      expect((await unassign(m, tag.id, 'bad-id')).status).to.equal(400);
      expect((await counts(p)).outbox).to.equal(3);
    });
  });

  describe('DELETE /catalog/product-tags/{tagId}', () => {
    it('deletes the tag and its assignments: one row for the tag and one product.updated per product that had it', async () => {
      const m = await merchant(server);
      const tag = await tagOf(m, 'Gone');
      const p = await product(server, m);
      await assign(m, tag.id, [p]);
      const res = await call(server, 'DELETE', `/api/v1/catalog/product-tags/${tag.id}`, { headers: m.headers });
      expect(res.status, res.text).to.equal(204);
      expect(await counts(tag.id)).to.deep.equal({
        outbox: 2,
        audit: 2,
        topics: ['product_tag:product_tag.created', 'product_tag:product_tag.deleted'],
        actions: ['product_tag.create', 'product_tag.delete'],
      });
      expect((await counts(p)).actions).to.deep.equal(['product.tag', 'product.untag']);
      const rows = await server.runtime.dataSource.query('SELECT count(*)::int AS n FROM product_tag_assignments WHERE tag_id = $1', [
        tag.id,
      ]);
      expect(rows[0].n).to.equal(0);
      expectProblem(
        await call(server, 'DELETE', `/api/v1/catalog/product-tags/${tag.id}`, { headers: m.headers }),
        404,
        'product_tag_not_found',
      );
    });

    it("answers 404 for another tenant's tag and leaves it", async () => {
      const m = await merchant(server);
      const tag = await tagOf(m, 'Kept');
      const stranger = await merchant(server);
      expectProblem(
        await call(server, 'DELETE', `/api/v1/catalog/product-tags/${tag.id}`, { headers: stranger.headers }),
        404,
        'product_tag_not_found',
      );
      expect((await list(m, '')).json.items.map((t: { id: string }) => t.id)).to.deep.equal([tag.id]);
    });
  });

  describe('GET /catalog/product-tags', () => {
    it('lists by name then id, in pages', async () => {
      const m = await merchant(server);
      for (const name of ['charlie', 'Alpha', 'bravo', 'delta', 'Echo']) await tagOf(m, name);
      const first = await list(m, '&limit=2');
      expect(first.status, first.text).to.equal(200);
      expect(first.json.items.map((t: { name: string }) => t.name)).to.deep.equal(['Alpha', 'bravo']);
      expect(first.json.nextCursor).to.be.a('string');
      const second = await list(m, `&limit=2&cursor=${encodeURIComponent(first.json.nextCursor)}`);
      expect(second.json.items.map((t: { name: string }) => t.name)).to.deep.equal(['charlie', 'delta']);
      const third = await list(m, `&limit=2&cursor=${encodeURIComponent(second.json.nextCursor)}`);
      expect(third.json.items.map((t: { name: string }) => t.name)).to.deep.equal(['Echo']);
      expect(third.json.nextCursor).to.equal(null);
      expect(Object.keys(third.json.items[0]).sort()).to.deep.equal(['createdAt', 'id', 'name', 'productCount', 'slug', 'updatedAt']);
    });

    it("filters by product; another store's product is 404", async () => {
      const m = await merchant(server);
      const [a, b] = [await tagOf(m, 'A'), await tagOf(m, 'B')];
      await tagOf(m, 'C');
      const p = await product(server, m);
      await assign(m, b.id, [p]);
      await assign(m, a.id, [p]);
      const res = await list(m, `&productId=${p}`);
      expect(res.json.items.map((t: { id: string }) => t.id)).to.deep.equal([a.id, b.id]);
      const elsewhere = await product(server, m, { store_id: await store(server, m) });
      expectProblem(await list(m, `&productId=${elsewhere}`), 404, 'product_not_found');
      expectProblem(await list(m, `&productId=${uuidv7()}`), 404, 'product_not_found');
    });

    it("validates the query and answers 404 for another tenant's store", async () => {
      const m = await merchant(server);
      const badId = Buffer.from(JSON.stringify(['a', 'not-a-uuid'])).toString('base64url');
      for (const q of ['&limit=0', '&limit=101', '&productId=nope', '&cursor=bm9wZQ', `&cursor=${badId}`, '&other=1'])
        expect((await list(m, q)).status, q).to.equal(400);
      const readOnly = await apiKey(server, m, ['catalog:read']);
      expect((await list(m, '', readOnly)).status).to.equal(200);
      expect((await call(server, 'GET', '/api/v1/catalog/product-tags', { headers: m.headers })).status).to.equal(400);
      const stranger = await merchant(server);
      expectProblem(await list(m, '', stranger.headers), 404, 'store_not_found');
    });
  });
});
