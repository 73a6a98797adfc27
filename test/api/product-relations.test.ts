/**
 * Product relations: list (kind order, then position), upsert (create or reposition), reorder and
 * delete — with bounds, unknown ids, tenant isolation (another tenant's product or relation is 404),
 * API keys kept on their store, refused related products (itself, another store) and exactly one audit
 * entry and one outbox row (product.updated of the owning product) per write, none for a no-op.
 */
import { expect } from 'chai';
import { uuidv7 } from '../../storage/ids';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem } from '../helpers/accounts';
import { apiKey, merchant, product, store, uniqueSlug, type Merchant } from '../helpers/fixtures';

describe('product relations', () => {
  let server: TestServer;
  apiSuite((started) => (server = started));

  const SCOPES = ['catalog:read', 'catalog:write'];

  const upsert = (m: Merchant, productId: string, body: Record<string, unknown>, headers = m.headers): Promise<TestResponse> =>
    call(server, 'POST', `/api/v1/catalog/products/${productId}/relations`, { headers, body });
  const list = (m: Merchant, productId: string, headers = m.headers): Promise<TestResponse> =>
    call(server, 'GET', `/api/v1/catalog/products/${productId}/relations`, { headers });
  const reorder = (m: Merchant, productId: string, body: Record<string, unknown>, headers = m.headers): Promise<TestResponse> =>
    call(server, 'POST', `/api/v1/catalog/products/${productId}/relations/reorder`, { headers, body });
  const remove = (m: Merchant, id: string, headers = m.headers): Promise<TestResponse> =>
    call(server, 'DELETE', `/api/v1/catalog/products/relations/${id}`, { headers });

  async function relationOf(
    m: Merchant,
    productId: string,
    relatedProductId: string,
    kind = 'RELATED',
    position?: number,
  ): Promise<Record<string, any>> {
    const res = await upsert(m, productId, { relatedProductId, kind, ...(position === undefined ? {} : { position }) });
    expect(res.status, res.text).to.equal(201);
    return res.json;
  }

  const outboxOf = async (productId: string): Promise<string[]> =>
    (
      await server.runtime.dataSource.query('SELECT aggregate_type, topic FROM outbox WHERE aggregate_id = $1 ORDER BY id', [productId])
    ).map((r: { aggregate_type: string; topic: string }) => `${r.aggregate_type}:${r.topic}`);
  const auditOf = async (resourceId: string): Promise<string[]> =>
    (await server.runtime.dataSource.query('SELECT action FROM audit_log WHERE resource_id = $1 ORDER BY id', [resourceId])).map(
      (r: { action: string }) => r.action,
    );

  describe('POST /catalog/products/{productId}/relations', () => {
    it('creates a relation after the last of its kind, one audit entry and one product.updated row', async () => {
      const m = await merchant(server);
      const [p, a, b] = [
        await product(server, m),
        await product(server, m, { title: 'Alpha', slug: uniqueSlug('alpha') }),
        await product(server, m),
      ];
      const res = await upsert(m, p, { relatedProductId: a, kind: 'UPSELL' });
      expect(res.status, res.text).to.equal(201);
      expect(res.json).to.deep.include({ relatedProductId: a, kind: 'UPSELL', position: 0 });
      expect(res.json.relatedProduct).to.deep.include({ id: a, title: 'Alpha', status: 'DRAFT' });
      expect(await outboxOf(p)).to.deep.equal(['product:product.updated']);
      expect(await auditOf(res.json.id)).to.deep.equal(['product_relation.create']);
      expect((await relationOf(m, p, b, 'UPSELL')).position).to.equal(1);
      // Another kind with the same related product is another relation.
      expect((await relationOf(m, p, a, 'RELATED')).position).to.equal(0);
      expect(await outboxOf(p)).to.have.length(3);
      expect(await outboxOf(a)).to.have.length(0);
    });

    it('updates the position of an existing relation; the same values again write nothing', async () => {
      const m = await merchant(server);
      const [p, a] = [await product(server, m), await product(server, m)];
      const first = await relationOf(m, p, a, 'CROSS_SELL');
      const moved = await relationOf(m, p, a, 'CROSS_SELL', 7);
      expect(moved).to.deep.include({ id: first.id, position: 7 });
      expect(await auditOf(first.id)).to.deep.equal(['product_relation.create', 'product_relation.update']);
      expect(await relationOf(m, p, a, 'CROSS_SELL', 7)).to.deep.include({ id: first.id, position: 7 });
      expect(await relationOf(m, p, a, 'CROSS_SELL')).to.deep.include({ id: first.id, position: 7 });
      expect(await outboxOf(p)).to.have.length(2);
      expect((await list(m, p)).json.items).to.have.length(1);
    });

    it('refuses the product itself and products of another store or tenant (400 invalid_related_product)', async () => {
      const m = await merchant(server);
      const stranger = await merchant(server);
      const p = await product(server, m);
      const otherStore = await product(server, m, { store_id: await store(server, m) });
      for (const related of [p, otherStore, await product(server, stranger), uuidv7()]) {
        const res = await upsert(m, p, { relatedProductId: related, kind: 'RELATED' });
        expectProblem(res, 400, 'invalid_related_product');
        expect(res.json.errors[0].path).to.equal('body.relatedProductId');
      }
      expect(await outboxOf(p)).to.have.length(0);
    });

    it('validates the body and answers 404 for unknown or foreign products', async () => {
      const m = await merchant(server);
      const [p, a] = [await product(server, m), await product(server, m)];
      for (const [body, path] of [
        [{ relatedProductId: a, kind: 'SIMILAR' }, 'body.kind'],
        [{ relatedProductId: a }, 'body.kind'],
        [{ kind: 'RELATED' }, 'body.relatedProductId'],
        [{ relatedProductId: 'x', kind: 'RELATED' }, 'body.relatedProductId'],
        [{ relatedProductId: a, kind: 'RELATED', position: -1 }, 'body.position'],
        [{ relatedProductId: a, kind: 'RELATED', position: 10001 }, 'body.position'],
        [{ relatedProductId: a, kind: 'RELATED', position: 1.5 }, 'body.position'],
        [{ relatedProductId: a, kind: 'RELATED', extra: true }, 'body.extra'],
      ] as Array<[Record<string, unknown>, string]>) {
        const res = await upsert(m, p, body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(
          res.json.errors.map((e: { path: string }) => e.path),
          JSON.stringify(body),
        ).to.include(path);
      }
      expect((await relationOf(m, p, a, 'RELATED', 10000)).position).to.equal(10000);
      expectProblem(await upsert(m, uuidv7(), { relatedProductId: a, kind: 'RELATED' }), 404, 'product_not_found');
      const stranger = await merchant(server);
      expectProblem(await upsert(stranger, p, { relatedProductId: a, kind: 'UPSELL' }), 404, 'product_not_found');
      const otherStoreKey = await apiKey(server, m, SCOPES, await store(server, m));
      expectProblem(await upsert(m, p, { relatedProductId: a, kind: 'UPSELL' }, otherStoreKey), 404, 'product_not_found');
      const ownKey = await apiKey(server, m, SCOPES);
      expect((await upsert(m, p, { relatedProductId: a, kind: 'UPSELL' }, ownKey)).status).to.equal(201);
    });
  });

  describe('GET /catalog/products/{productId}/relations', () => {
    it('lists by kind (RELATED, UPSELL, CROSS_SELL), then position', async () => {
      const m = await merchant(server);
      const p = await product(server, m);
      const [a, b, c] = [await product(server, m), await product(server, m), await product(server, m, { status: 'ARCHIVED' })];
      await relationOf(m, p, a, 'CROSS_SELL');
      await relationOf(m, p, b, 'UPSELL', 5);
      await relationOf(m, p, c, 'UPSELL', 1);
      await relationOf(m, p, c, 'RELATED');
      const res = await list(m, p);
      expect(res.status, res.text).to.equal(200);
      expect(res.json.items.map((r: { kind: string; relatedProductId: string }) => `${r.kind}:${r.relatedProductId}`)).to.deep.equal([
        `RELATED:${c}`,
        `UPSELL:${c}`,
        `UPSELL:${b}`,
        `CROSS_SELL:${a}`,
      ]);
      expect(res.json.items[0].relatedProduct).to.have.all.keys('id', 'title', 'slug', 'status');
      expect(res.json.items[0].relatedProduct.status).to.equal('ARCHIVED');
      expect((await list(m, a)).json).to.deep.equal({ items: [] });
    });

    it('answers 404 for unknown and foreign products, 400 for a malformed id', async () => {
      const m = await merchant(server);
      const p = await product(server, m);
      expectProblem(await list(m, uuidv7()), 404, 'product_not_found');
      const stranger = await merchant(server);
      expectProblem(await list(m, p, stranger.headers), 404, 'product_not_found');
      expect((await list(m, 'nope')).status).to.equal(400);
    });
  });

  describe('POST /catalog/products/{productId}/relations/reorder', () => {
    it('sets the order of one kind: one audit entry and one outbox row; the same order again writes nothing', async () => {
      const m = await merchant(server);
      const p = await product(server, m);
      const rels = [];
      for (let i = 0; i < 3; i += 1) rels.push(await relationOf(m, p, await product(server, m), 'UPSELL'));
      const other = await relationOf(m, p, rels[0]!.relatedProductId, 'RELATED');
      const before = (await outboxOf(p)).length;
      const ids = [rels[2]!.id, rels[0]!.id, rels[1]!.id];
      expect((await reorder(m, p, { kind: 'UPSELL', ids })).status).to.equal(204);
      const listed = (await list(m, p)).json.items;
      expect(listed.map((r: { id: string }) => r.id)).to.deep.equal([other.id, ...ids]);
      expect(listed.filter((r: { kind: string }) => r.kind === 'UPSELL').map((r: { position: number }) => r.position)).to.deep.equal([
        0, 1, 2,
      ]);
      expect(await outboxOf(p)).to.have.length(before + 1);
      expect(await auditOf(p)).to.deep.equal(['product_relation.reorder']);
      expect((await reorder(m, p, { kind: 'UPSELL', ids })).status).to.equal(204);
      expect(await outboxOf(p)).to.have.length(before + 1);
    });

    it('answers 400 reorder_mismatch unless the ids are exactly that kind, and validates the body', async () => {
      const m = await merchant(server);
      const p = await product(server, m);
      const [r1, r2] = [
        await relationOf(m, p, await product(server, m), 'UPSELL'),
        await relationOf(m, p, await product(server, m), 'UPSELL'),
      ];
      const related = await relationOf(m, p, await product(server, m), 'RELATED');
      for (const ids of [[r1.id], [r1.id, r2.id, related.id], [r1.id, related.id], [r1.id, uuidv7()]]) {
        expectProblem(await reorder(m, p, { kind: 'UPSELL', ids }), 400, 'reorder_mismatch');
      }
      expectProblem(await reorder(m, p, { kind: 'CROSS_SELL', ids: [r1.id] }), 400, 'reorder_mismatch');
      for (const body of [
        { kind: 'UPSELL', ids: [] },
        { kind: 'UPSELL', ids: [r1.id, r1.id] },
        { kind: 'NOPE', ids: [r1.id] },
        { ids: [r1.id] },
        { kind: 'UPSELL', ids: ['x'] },
      ]) {
        expect((await reorder(m, p, body)).status, JSON.stringify(body)).to.equal(400);
      }
      expectProblem(await reorder(m, uuidv7(), { kind: 'UPSELL', ids: [r1.id] }), 404, 'product_not_found');
      const stranger = await merchant(server);
      expectProblem(await reorder(m, p, { kind: 'UPSELL', ids: [r2.id, r1.id] }, stranger.headers), 404, 'product_not_found');
      expect(await auditOf(p)).to.deep.equal([]);
    });
  });

  describe('DELETE /catalog/products/relations/{id}', () => {
    it('deletes a relation: one audit entry and one product.updated row', async () => {
      const m = await merchant(server);
      const p = await product(server, m);
      const rel = await relationOf(m, p, await product(server, m), 'RELATED');
      expect((await remove(m, rel.id)).status).to.equal(204);
      expect(await auditOf(rel.id)).to.deep.equal(['product_relation.create', 'product_relation.delete']);
      expect(await outboxOf(p)).to.deep.equal(['product:product.updated', 'product:product.updated']);
      expect((await list(m, p)).json.items).to.deep.equal([]);
      expectProblem(await remove(m, rel.id), 404, 'product_relation_not_found');
    });

    it('answers 404 for unknown and foreign relations and keeps API keys on their store', async () => {
      const m = await merchant(server);
      const p = await product(server, m);
      const rel = await relationOf(m, p, await product(server, m), 'RELATED');
      expectProblem(await remove(m, uuidv7()), 404, 'product_relation_not_found');
      expect((await remove(m, 'bad')).status).to.equal(400);
      const stranger = await merchant(server);
      expectProblem(await remove(m, rel.id, stranger.headers), 404, 'product_relation_not_found');
      const otherStoreKey = await apiKey(server, m, SCOPES, await store(server, m));
      expectProblem(await remove(m, rel.id, otherStoreKey), 404, 'product_relation_not_found');
      expect((await list(m, p)).json.items).to.have.length(1);
      expect((await remove(m, rel.id, await apiKey(server, m, SCOPES))).status).to.equal(204);
    });
  });
});
