/**
 * Product bulk edits: the eight POST /catalog/products/bulk/* operations (every success path and
 * every bound of their DTOs), the price modes and their rounding, per-product failures, the history
 * (list, store overview, one edit with previous values), revert of each action (a hard delete comes
 * back with its ids, variants, images and links), revert refused after a later change, tenant
 * isolation, outbox rows per changed product, and the asynchronous path above the threshold run by
 * the jobs worker's handler (progress, resume after a crash mid-way).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type BeeQueue from 'bee-queue';
import { expect } from 'chai';
import { createApp } from '../../app/http-app';
import { createJobsHandler, jobsConsumers } from '../../app/roles/jobs';
import { processBatch, runQueuedBulkEdit } from '../../api/product-bulk-edits/product-bulk-edits.engine';
import { changedPrice } from '../../api/product-bulk-edits/product-bulk-edits.operations';
import { minorUnit } from '../../domain/money';
import { uuidv7 } from '../../storage/ids';
import { DeliveryReleased, jobIdFor, outboxConsumer, type OutboxJobData } from '../../storage/outbox';
import { startConsumers } from '../../storage/consumers';
import { QueueRegistry } from '../../storage/queues';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { call, testRuntime, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { apiKey, attribute, category, createProduct, merchant, product, store, tag, type Merchant } from '../helpers/fixtures';
import { expectProblem } from '../helpers/accounts';
import { RETRY, silentLogger } from '../helpers/indexing';
import { eventually } from '../helpers/wait';

type Json = Record<string, any>;

describe('product bulk edits', () => {
  let server: TestServer;
  apiSuite((started) => (server = started));

  const q = <T = any>(sql: string, params: unknown[] = []): Promise<T[]> => server.runtime.dataSource.query(sql, params);

  const bulk = (m: Merchant, op: string, body: Json, headers = m.headers, srv = server): Promise<TestResponse> =>
    call(srv, 'POST', `/api/v1/catalog/products/bulk/${op}`, { headers, body: { storeId: m.storeId, ...body } });

  async function ok(res: TestResponse): Promise<Json> {
    expect(res.status, res.text).to.equal(200);
    return res.json;
  }

  const getProduct = async (m: Merchant, id: string): Promise<TestResponse> =>
    call(server, 'GET', `/api/v1/catalog/products/${id}`, { headers: m.headers });
  const current = async (m: Merchant, id: string): Promise<Json> => {
    const res = await getProduct(m, id);
    expect(res.status, res.text).to.equal(200);
    return res.json;
  };

  /** A category named `name` whose attributes are `attributes`, in that order; answers its id. */
  async function categoryWith(m: Merchant, name: string, attributes: Array<{ name: string; type: string } & Json>): Promise<string> {
    const id = await category(server, m, { name });
    for (const [position, a] of attributes.entries()) await attribute(server, m, id, { ...a, position });
    return id;
  }

  const revert = (m: Merchant, id: string, headers = m.headers, srv = server): Promise<TestResponse> =>
    call(srv, 'POST', `/api/v1/product-bulk-edits/${id}/revert`, { headers });
  const edit = async (m: Merchant, id: string, headers = m.headers): Promise<Json> =>
    ok(await call(server, 'GET', `/api/v1/product-bulk-edits/${id}`, { headers }));

  const item = (e: Json, productId: string): Json => e.items.find((i: Json) => i.productId === productId);

  async function outboxFor(productId: string): Promise<string[]> {
    const rows = await q<{ topic: string }>(
      "SELECT topic FROM outbox WHERE queue = 'index' AND aggregate_type = 'product' AND aggregate_id = $1 ORDER BY id",
      [productId],
    );
    return rows.map((r) => r.topic);
  }

  async function auditFor(resourceId: string): Promise<Array<{ action: string; actor_type: string; before: any; after: any }>> {
    return q('SELECT action, actor_type, before, after FROM audit_log WHERE resource_id = $1 ORDER BY id', [resourceId]);
  }

  const editCount = async (storeId: string): Promise<number> =>
    (await q<{ n: number }>('SELECT count(*)::int AS n FROM product_bulk_edits WHERE store_id = $1', [storeId]))[0]!.n;

  // ------------------------------------------------------------------------------------------ DTOs

  describe('validation', () => {
    let m: Merchant;
    let p: Json;
    before(async () => {
      m = await merchant(server);
      p = await createProduct(server, m);
    });

    const bad = async (op: string, body: Json, path?: string): Promise<void> => {
      const res = await call(server, 'POST', `/api/v1/catalog/products/bulk/${op}`, { headers: m.headers, body });
      expect(res.status, res.text).to.equal(400);
      if (path) expect(res.json.errors.map((e: Json) => e.path).join(' '), res.text).to.contain(path);
    };

    it('ProductIdsBodyDto: storeId and 1 to 10000 distinct UUIDs, nothing else', async () => {
      for (const op of ['publish', 'archive', 'hard-delete']) {
        await bad(op, { productIds: [p.id] }, 'storeId');
        await bad(op, { storeId: 'nope', productIds: [p.id] }, 'storeId');
        await bad(op, { storeId: m.storeId }, 'productIds');
        await bad(op, { storeId: m.storeId, productIds: [] }, 'productIds');
        await bad(op, { storeId: m.storeId, productIds: [p.id, p.id] }, 'productIds');
        await bad(op, { storeId: m.storeId, productIds: [p.id, p.id.toUpperCase()] }, 'productIds');
        await bad(op, { storeId: m.storeId, productIds: ['not-a-uuid'] }, 'productIds');
        await bad(op, { storeId: m.storeId, productIds: [p.id], extra: 1 }, 'extra');
      }
      await bad('publish', { storeId: m.storeId, productIds: Array.from({ length: 10_001 }, () => uuidv7()) }, 'productIds');
      // 10 000 is within the bound: refused only because they are not products of the store.
      const many = await bulk(m, 'publish', { productIds: Array.from({ length: 10_000 }, () => uuidv7()) });
      expectProblem(many, 400, 'invalid_product');
      expect(many.json.errors).to.have.length(100);
      expect(await editCount(m.storeId)).to.equal(0);
    });

    it('BulkSetCategoryDto: categoryId is required, a UUID or null', async () => {
      await bad('set-category', { storeId: m.storeId, productIds: [p.id] }, 'categoryId');
      await bad('set-category', { storeId: m.storeId, productIds: [p.id], categoryId: 'x' }, 'categoryId');
      await bad('set-category', { storeId: m.storeId, productIds: [p.id], categoryId: 5 }, 'categoryId');
    });

    it('BulkSetProductStatusDto: status is DRAFT, PUBLISHED or ARCHIVED', async () => {
      await bad('set-status', { storeId: m.storeId, productIds: [p.id] }, 'status');
      await bad('set-status', { storeId: m.storeId, productIds: [p.id], status: 'DELETED' }, 'status');
      await bad('set-status', { storeId: m.storeId, productIds: [p.id], status: 'draft' }, 'status');
    });

    it('BulkUpdatePriceDto: mode and the bounds of value per mode, at most 4 decimals', async () => {
      const base = { storeId: m.storeId, productIds: [p.id] };
      await bad('update-price', { ...base, value: 1 }, 'mode');
      await bad('update-price', { ...base, mode: 'MULTIPLY', value: 1 }, 'mode');
      for (const mode of ['SET', 'ADD', 'PERCENT']) await bad('update-price', { ...base, mode }, 'value');
      await bad('update-price', { ...base, mode: 'SET', value: -0.01 }, 'value');
      await bad('update-price', { ...base, mode: 'SET', value: 1_000_000_000.01 }, 'value');
      await bad('update-price', { ...base, mode: 'SET', value: 1.00001 }, 'value');
      await bad('update-price', { ...base, mode: 'SET', value: 'twelve' }, 'value');
      await bad('update-price', { ...base, mode: 'ADD', value: 0 }, 'value');
      await bad('update-price', { ...base, mode: 'ADD', value: -1_000_000_000.01 }, 'value');
      await bad('update-price', { ...base, mode: 'ADD', value: 1_000_000_000.01 }, 'value');
      await bad('update-price', { ...base, mode: 'PERCENT', value: 0 }, 'value');
      await bad('update-price', { ...base, mode: 'PERCENT', value: -100.01 }, 'value');
      await bad('update-price', { ...base, mode: 'PERCENT', value: 1000.01 }, 'value');
      await bad('update-price', { ...base, mode: 'PERCENT', value: 1.23456 }, 'value');
      // The bounds themselves are accepted.
      for (const [mode, value] of [
        ['SET', 0],
        ['SET', 1_000_000_000],
        ['PERCENT', 1000],
        ['PERCENT', -100],
        ['ADD', 0.0001],
        ['ADD', -1_000_000_000],
      ] as const) {
        const res = await bulk(m, 'update-price', { productIds: [p.id], mode, value });
        expect(res.status, `${mode} ${value}: ${res.text}`).to.equal(200);
      }
    });

    it('BulkProductTagsDto: 1 to 50 distinct tag UUIDs', async () => {
      for (const op of ['add-tags', 'remove-tags']) {
        await bad(op, { storeId: m.storeId, productIds: [p.id] }, 'tagIds');
        await bad(op, { storeId: m.storeId, productIds: [p.id], tagIds: [] }, 'tagIds');
        await bad(op, { storeId: m.storeId, productIds: [p.id], tagIds: Array.from({ length: 51 }, () => uuidv7()) }, 'tagIds');
        const t = uuidv7();
        await bad(op, { storeId: m.storeId, productIds: [p.id], tagIds: [t, t] }, 'tagIds');
      }
      // 50 is within the bound (refused only as tags of no store).
      expectProblem(
        await bulk(m, 'add-tags', { productIds: [p.id], tagIds: Array.from({ length: 50 }, () => uuidv7()) }),
        400,
        'invalid_tag',
      );
    });

    it('list and store-overview query bounds', async () => {
      const list = (query: string) => call(server, 'GET', `/api/v1/product-bulk-edits?${query}`, { headers: m.headers });
      for (const query of [
        '',
        'storeId=x',
        `storeId=${m.storeId}&limit=0`,
        `storeId=${m.storeId}&limit=101`,
        `storeId=${m.storeId}&limit=1.5`,
        `storeId=${m.storeId}&action=PUBLISH`,
        `storeId=${m.storeId}&status=DONE`,
        `storeId=${m.storeId}&cursor=abc`,
        `storeId=${m.storeId}&other=1`,
      ]) {
        expect((await list(query)).status, query).to.equal(400);
      }
      for (const query of [
        `storeId=${m.storeId}&limit=1`,
        `storeId=${m.storeId}&limit=100`,
        `storeId=${m.storeId}&action=DELETE&status=FAILED&cursor=${uuidv7()}`,
      ]) {
        expect((await list(query)).status, query).to.equal(200);
      }
      const overview = (query: string) => call(server, 'GET', `/api/v1/product-bulk-edits/store-overview?${query}`, { headers: m.headers });
      for (const query of [
        '',
        `storeId=${m.storeId}&sinceDays=0`,
        `storeId=${m.storeId}&sinceDays=366`,
        `storeId=${m.storeId}&sinceDays=x`,
      ])
        expect((await overview(query)).status, query).to.equal(400);
      for (const query of [`storeId=${m.storeId}&sinceDays=1`, `storeId=${m.storeId}&sinceDays=365`, `storeId=${m.storeId}`])
        expect((await overview(query)).status, query).to.equal(200);
      expect((await call(server, 'GET', '/api/v1/product-bulk-edits/not-a-uuid', { headers: m.headers })).status).to.equal(400);
    });
  });

  // --------------------------------------------------------------------------- bad input, tenancy

  describe('bad input and tenant isolation', () => {
    it('a product of another store or tenant, or an unknown id, fails the whole request with 400 and changes nothing', async () => {
      const m = await merchant(server);
      const mine = await createProduct(server, m);
      const otherStore = await store(server, m, { name: 'Second' });
      const inOtherStore = await product(server, m, { store_id: otherStore });
      const stranger = await merchant(server);
      const theirs = await createProduct(server, stranger);
      for (const foreign of [inOtherStore, theirs.id, uuidv7()]) {
        const res = await bulk(m, 'archive', { productIds: [mine.id, foreign] });
        expectProblem(res, 400, 'invalid_product');
        expect(res.json.errors).to.deep.equal([{ path: 'body.productIds[1]', message: 'not a product of the store' }]);
      }
      expect((await current(m, mine.id)).status).to.equal('DRAFT');
      expect((await current(stranger, theirs.id)).status).to.equal('DRAFT');
      expect(await editCount(m.storeId)).to.equal(0);
      expect(await outboxFor(mine.id)).to.deep.equal(['product.created']);
    });

    it('a category or tag of another store is 400 and changes nothing', async () => {
      const m = await merchant(server);
      const p = await createProduct(server, m);
      const stranger = await merchant(server);
      const res = await bulk(m, 'set-category', { productIds: [p.id], categoryId: await category(server, stranger) });
      expectProblem(res, 400, 'invalid_category');
      expect(res.json.errors[0].path).to.equal('body.categoryId');
      expectProblem(await bulk(m, 'add-tags', { productIds: [p.id], tagIds: [await tag(server, stranger)] }), 400, 'invalid_tag');
      expectProblem(await bulk(m, 'remove-tags', { productIds: [p.id], tagIds: [uuidv7()] }), 400, 'invalid_tag');
      expect(await editCount(m.storeId)).to.equal(0);
    });

    it("another tenant's store, bulk edit and revert answer 404; an API key stays on its store", async () => {
      const m = await merchant(server);
      const p = await createProduct(server, m);
      const e = await ok(await bulk(m, 'archive', { productIds: [p.id] }));
      const stranger = await merchant(server);
      expectProblem(
        await call(server, 'POST', '/api/v1/catalog/products/bulk/archive', {
          headers: stranger.headers,
          body: { storeId: m.storeId, productIds: [p.id] },
        }),
        404,
        'store_not_found',
      );
      expectProblem(
        await call(server, 'GET', `/api/v1/product-bulk-edits/${e.id}`, { headers: stranger.headers }),
        404,
        'bulk_edit_not_found',
      );
      expectProblem(await revert(m, e.id, stranger.headers), 404, 'bulk_edit_not_found');
      expectProblem(
        await call(server, 'GET', `/api/v1/product-bulk-edits?storeId=${m.storeId}`, { headers: stranger.headers }),
        404,
        'store_not_found',
      );
      expectProblem(
        await call(server, 'GET', `/api/v1/product-bulk-edits/store-overview?storeId=${m.storeId}`, { headers: stranger.headers }),
        404,
        'store_not_found',
      );
      expect((await current(m, p.id)).status).to.equal('ARCHIVED');

      const otherStore = await store(server, m, { name: 'Second' });
      const key = await apiKey(server, m, ['catalog:write', 'product-bulk-edits:read', 'product-bulk-edits:write'], otherStore);
      expectProblem(await call(server, 'GET', `/api/v1/product-bulk-edits/${e.id}`, { headers: key }), 404, 'bulk_edit_not_found');
      expectProblem(await revert(m, e.id, key), 404, 'bulk_edit_not_found');
      expectProblem(await bulk(m, 'publish', { productIds: [p.id] }, key), 404, 'store_not_found');
      const ownKey = await apiKey(server, m, ['catalog:write', 'product-bulk-edits:read']);
      const byKey = await ok(await bulk(m, 'set-status', { productIds: [p.id], status: 'DRAFT' }, ownKey));
      expect(byKey.actor.type).to.equal('api_key');
      expect((await edit(m, byKey.id, ownKey)).status).to.equal('COMPLETED');
    });
  });

  // ------------------------------------------------------------------------------- status changes

  describe('publish, archive and set-status', () => {
    it('publishes drafts, leaves published ones UNCHANGED and fails a product missing a required attribute; revert restores each status', async () => {
      const m = await merchant(server);
      const needsColour = await categoryWith(m, 'Paint', [{ name: 'colour', type: 'text', required: true }]);
      const a = await createProduct(server, m);
      const b = await createProduct(server, m);
      const published = await createProduct(server, m, { status: 'PUBLISHED' });
      const incomplete = await createProduct(server, m, { categoryIds: [needsColour] });
      const e = await ok(await bulk(m, 'publish', { productIds: [a.id, b.id, published.id, incomplete.id] }));
      expect(e).to.include({
        action: 'UPDATE_STATUS',
        operation: 'publish',
        status: 'COMPLETED',
        productCount: 4,
        processedCount: 4,
        okCount: 2,
        unchangedCount: 1,
        failedCount: 1,
        revertOf: null,
        revertedBy: null,
      });
      expect(e.params).to.deep.equal({ status: 'PUBLISHED' });
      expect(e.actor).to.deep.equal({ type: 'user', id: m.owner.userId });
      expect(e.finishedAt).to.be.a('string');
      expect(e.items.map((i: Json) => i.productId)).to.deep.equal([a.id, b.id, published.id, incomplete.id]);
      expect(item(e, a.id)).to.deep.equal({
        productId: a.id,
        status: 'OK',
        errorCode: null,
        errorMessage: null,
        previous: { status: 'DRAFT', publishedAt: null },
      });
      expect(item(e, published.id)).to.include({ status: 'UNCHANGED', previous: null });
      expect(item(e, incomplete.id)).to.include({ status: 'FAILED', errorCode: 'missing_required_attributes' });
      expect(item(e, incomplete.id).errorMessage).to.contain('colour');
      expect((await current(m, a.id)).status).to.equal('PUBLISHED');
      expect((await current(m, a.id)).publishedAt).to.be.a('string');
      expect((await current(m, incomplete.id)).status).to.equal('DRAFT');
      // One outbox row and one audit entry per changed product; none for the others.
      expect(await outboxFor(a.id)).to.deep.equal(['product.created', 'product.published']);
      expect(await outboxFor(published.id)).to.deep.equal(['product.created']);
      expect(await outboxFor(incomplete.id)).to.deep.equal(['product.created']);
      expect((await auditFor(a.id)).map((r) => r.action)).to.deep.equal(['product.create', 'product.publish']);
      expect((await auditFor(e.id)).map((r) => r.action)).to.deep.equal(['product_bulk_edit.create']);

      const r = await ok(await revert(m, e.id));
      expect(r).to.include({
        action: 'UPDATE_STATUS',
        operation: 'revert',
        status: 'COMPLETED',
        revertOf: e.id,
        productCount: 2,
        okCount: 2,
      });
      expect(r.params).to.deep.equal({ revertOf: e.id });
      expect(item(r, a.id).previous).to.include({ status: 'PUBLISHED' });
      for (const id of [a.id, b.id]) {
        const now = await current(m, id);
        expect(now.status).to.equal('DRAFT');
        expect(now.publishedAt).to.equal(null);
      }
      expect((await current(m, published.id)).status).to.equal('PUBLISHED');
      expect((await edit(m, e.id)).revertedBy).to.equal(r.id);
      expect(await outboxFor(a.id)).to.deep.equal(['product.created', 'product.published', 'product.updated']);
      expect((await auditFor(r.id)).map((x) => x.action)).to.deep.equal(['product_bulk_edit.revert']);
      expectProblem(await revert(m, e.id), 409, 'already_reverted');
      expectProblem(await revert(m, r.id), 409, 'not_revertible');
    });

    it('archives (action ARCHIVE) and reverts to the previous status, publishedAt kept', async () => {
      const m = await merchant(server);
      const live = await createProduct(server, m, { status: 'PUBLISHED' });
      const draft = await createProduct(server, m);
      const e = await ok(await bulk(m, 'archive', { productIds: [live.id, draft.id] }));
      expect(e).to.include({ action: 'ARCHIVE', operation: 'archive', okCount: 2 });
      expect(item(e, live.id).previous).to.deep.equal({ status: 'PUBLISHED', publishedAt: live.publishedAt });
      expect((await current(m, live.id)).status).to.equal('ARCHIVED');
      expect(await outboxFor(live.id)).to.deep.equal(['product.created', 'product.archived']);
      await ok(await revert(m, e.id));
      expect(await current(m, live.id)).to.include({ status: 'PUBLISHED', publishedAt: live.publishedAt });
      expect((await current(m, draft.id)).status).to.equal('DRAFT');
    });

    it('set-status moves to any status (UPDATE_STATUS) and reverts', async () => {
      const m = await merchant(server);
      const a = await createProduct(server, m, { status: 'PUBLISHED' });
      const b = await createProduct(server, m, { status: 'ARCHIVED' });
      const e = await ok(await bulk(m, 'set-status', { productIds: [a.id, b.id], status: 'DRAFT' }));
      expect(e).to.include({ action: 'UPDATE_STATUS', operation: 'set-status', okCount: 2 });
      expect(e.params).to.deep.equal({ status: 'DRAFT' });
      expect((await current(m, a.id)).status).to.equal('DRAFT');
      expect(await outboxFor(b.id)).to.deep.equal(['product.created', 'product.updated']);
      await ok(await revert(m, e.id));
      expect((await current(m, a.id)).status).to.equal('PUBLISHED');
      expect((await current(m, b.id)).status).to.equal('ARCHIVED');
      const all = await ok(await bulk(m, 'set-status', { productIds: [a.id], status: 'PUBLISHED' }));
      expect(all).to.include({ status: 'COMPLETED', unchangedCount: 1 });
      expectProblem(await revert(m, all.id), 409, 'nothing_to_revert');
    });

    it('an edit where every product fails is FAILED', async () => {
      const m = await merchant(server);
      const needs = await categoryWith(m, 'Paint', [{ name: 'colour', type: 'text', required: true }]);
      const p = await createProduct(server, m, { categoryIds: [needs] });
      const e = await ok(await bulk(m, 'publish', { productIds: [p.id] }));
      expect(e).to.include({ status: 'FAILED', failedCount: 1, okCount: 0 });
      expectProblem(await revert(m, e.id), 409, 'nothing_to_revert');
    });
  });

  // -------------------------------------------------------------------------------------- category

  describe('set-category', () => {
    it('makes the category the only one, checks attributes, null removes all; revert restores the list', async () => {
      const m = await merchant(server);
      const c1 = await category(server, m, { name: 'One' });
      const c2 = await category(server, m, { name: 'Two' });
      const target = await category(server, m, { name: 'Target' });
      const strict = await categoryWith(m, 'Strict', [{ name: 'size', type: 'enum', values: ['S', 'M'], required: true }]);
      const a = await createProduct(server, m, { categoryIds: [c1, c2] });
      const b = await createProduct(server, m);
      const already = await createProduct(server, m, { categoryIds: [target] });
      const liveWithout = await createProduct(server, m, { status: 'PUBLISHED' });
      const e = await ok(await bulk(m, 'set-category', { productIds: [a.id, b.id, already.id], categoryId: target }));
      expect(e).to.include({ action: 'UPDATE_CATEGORY', operation: 'set-category', okCount: 2, unchangedCount: 1 });
      expect(item(e, a.id).previous).to.deep.equal({ categoryIds: [c1, c2] });
      expect(item(e, b.id).previous).to.deep.equal({ categoryIds: [] });
      expect((await current(m, a.id)).categoryIds).to.deep.equal([target]);
      expect(await outboxFor(a.id)).to.deep.equal(['product.created', 'product.updated']);

      // A published product lacking a required attribute of the new category fails; a draft may.
      const s = await ok(await bulk(m, 'set-category', { productIds: [liveWithout.id, b.id], categoryId: strict }));
      expect(item(s, liveWithout.id)).to.include({ status: 'FAILED', errorCode: 'missing_required_attributes' });
      expect(item(s, b.id).status).to.equal('OK');
      // An attribute the new category does not define fails the product (as a replace would).
      const attributed = await createProduct(server, m, { categoryIds: [strict], attributes: { size: 'M' } });
      const u = await ok(await bulk(m, 'set-category', { productIds: [attributed.id], categoryId: target }));
      expect(item(u, attributed.id)).to.include({ status: 'FAILED', errorCode: 'unknown_attribute' });

      const none = await ok(await bulk(m, 'set-category', { productIds: [already.id], categoryId: null }));
      expect((await current(m, already.id)).categoryIds).to.deep.equal([]);
      expect(none.params).to.deep.equal({ categoryId: null });

      await ok(await revert(m, none.id));
      expect((await current(m, already.id)).categoryIds).to.deep.equal([target]);
      // b changed again after e: e cannot be reverted (b is listed), a is untouched by the refusal.
      const refused = await revert(m, e.id);
      expectProblem(refused, 409, 'bulk_edit_conflict');
      expect(refused.json.productIds).to.deep.equal([b.id]);
      expect((await current(m, a.id)).categoryIds).to.deep.equal([target]);
      const rs = await ok(await revert(m, s.id));
      expect(item(rs, b.id).previous).to.deep.equal({ categoryIds: [strict] });
      expect((await current(m, b.id)).categoryIds).to.deep.equal([target]);
      // A revert is a change too: b's updated_at moved again, so e stays refused.
      expect((await revert(m, e.id)).json.productIds).to.deep.equal([b.id]);
      // Without b in the way, an edit of a alone reverts.
      const solo = await ok(await bulk(m, 'set-category', { productIds: [a.id], categoryId: c2 }));
      await ok(await revert(m, solo.id));
      expect((await current(m, a.id)).categoryIds).to.deep.equal([target]);
    });
  });

  // ------------------------------------------------------------------------------------------ tags

  describe('add-tags and remove-tags', () => {
    it('adds and removes tags (UPDATE_TAGS), refuses more than 50 tags per product, and reverts', async () => {
      const m = await merchant(server);
      const t1 = await tag(server, m, { name: 'One' });
      const t2 = await tag(server, m, { name: 'Two' });
      const a = await createProduct(server, m, { tagIds: [t1] });
      const b = await createProduct(server, m);
      const add = await ok(await bulk(m, 'add-tags', { productIds: [a.id, b.id], tagIds: [t1, t2] }));
      expect(add).to.include({ action: 'UPDATE_TAGS', operation: 'add-tags', okCount: 2 });
      expect(item(add, a.id).previous).to.deep.equal({ tagIds: [t1] });
      expect([...(await current(m, a.id)).tagIds].sort()).to.deep.equal([t1, t2].sort());
      expect((await current(m, b.id)).tagIds.sort()).to.deep.equal([t1, t2].sort());
      const again = await ok(await bulk(m, 'add-tags', { productIds: [a.id], tagIds: [t2] }));
      expect(again.unchangedCount).to.equal(1);

      const remove = await ok(await bulk(m, 'remove-tags', { productIds: [a.id, b.id], tagIds: [t1] }));
      expect(remove).to.include({ action: 'UPDATE_TAGS', operation: 'remove-tags', okCount: 2 });
      expect((await current(m, a.id)).tagIds).to.deep.equal([t2]);
      expect(await outboxFor(a.id)).to.deep.equal(['product.created', 'product.updated', 'product.updated']);
      await ok(await revert(m, remove.id));
      expect((await current(m, a.id)).tagIds.sort()).to.deep.equal([t1, t2].sort());
      // add-tags cannot be reverted now (remove-tags and its revert changed the products since).
      expectProblem(await revert(m, add.id), 409, 'bulk_edit_conflict');

      const fresh = await ok(await bulk(m, 'remove-tags', { productIds: [b.id], tagIds: [t1, t2] }));
      expect((await current(m, b.id)).tagIds).to.deep.equal([]);
      await ok(await revert(m, fresh.id));
      expect((await current(m, b.id)).tagIds.sort()).to.deep.equal([t1, t2].sort());

      const many: string[] = [];
      for (let i = 0; i < 49; i += 1) many.push(await tag(server, m, { name: `T${i}` }));
      const full = await createProduct(server, m, { tagIds: many.slice(0, 49) });
      const over = await ok(await bulk(m, 'add-tags', { productIds: [full.id], tagIds: [t1, t2] }));
      expect(item(over, full.id)).to.include({ status: 'FAILED', errorCode: 'too_many_tags' });
      expect((await current(m, full.id)).tagIds).to.have.length(49);
      const fits = await ok(await bulk(m, 'add-tags', { productIds: [full.id], tagIds: [t1] }));
      expect(item(fits, full.id).status).to.equal('OK');
      expect((await current(m, full.id)).tagIds).to.have.length(50);
    });
  });

  // ----------------------------------------------------------------------------------------- price

  describe('update-price', () => {
    it('rounds half away from zero to the minor unit of the currency, in exact decimals', () => {
      expect(minorUnit('EUR')).to.equal(2);
      expect(minorUnit('JPY')).to.equal(0);
      expect(minorUnit('KWD')).to.equal(3);
      expect(changedPrice('10', 'PERCENT', 12.345, 2)).to.equal('11.23');
      expect(changedPrice('19.99', 'PERCENT', -15, 2)).to.equal('16.99'); // 16.9915
      expect(changedPrice('0.25', 'PERCENT', -50, 2)).to.equal('0.13'); // 0.125 → up
      expect(changedPrice('0.1', 'PERCENT', 5, 2)).to.equal('0.11'); // 0.105 exactly (no float error)
      expect(changedPrice('1.005', 'ADD', 0, 2)).to.equal('1.01');
      expect(changedPrice('1000', 'PERCENT', 0.05, 0)).to.equal('1001'); // 1000.5
      expect(changedPrice('1.001', 'PERCENT', 50, 3)).to.equal('1.502'); // 1.5015
      expect(changedPrice('3', 'SET', 9.995, 2)).to.equal('10');
      expect(changedPrice('3', 'ADD', -3, 2)).to.equal('0');
      expect(changedPrice('3', 'PERCENT', -100, 2)).to.equal('0');
      expect(() => changedPrice('3', 'ADD', -3.0001, 2)).to.throw(/below 0/);
      expect(() => changedPrice('999999999', 'PERCENT', 1000, 2)).to.throw(/above/);
    });

    it('SET, ADD and PERCENT change product and variant prices; a negative result fails the product; revert restores them', async () => {
      const m = await merchant(server);
      const a = await createProduct(server, m, {
        price: 19.99,
        variants: [
          { sku: `A-${uuidv7().slice(-8)}`, price: 25, stock: 1 },
          { sku: null, stock: 2 },
        ],
      });
      const b = await createProduct(server, m, { price: 3 });
      const yen = await createProduct(server, m, { price: 1000, currency: 'JPY' });
      const pct = await ok(await bulk(m, 'update-price', { productIds: [a.id, b.id, yen.id], mode: 'PERCENT', value: -15.05 }));
      expect(pct).to.include({ action: 'UPDATE_PRICE', operation: 'update-price', okCount: 3 });
      expect(pct.params).to.deep.equal({ mode: 'PERCENT', value: -15.05 });
      const aNow = await current(m, a.id);
      expect(aNow.price).to.equal(16.98); // 19.99 × 0.8495 = 16.981505
      expect(aNow.variants[0].price).to.equal(21.24); // 25 × 0.8495 = 21.2375
      expect(aNow.variants[1].price).to.equal(null);
      expect((await current(m, b.id)).price).to.equal(2.55); // 2.5485
      expect((await current(m, yen.id)).price).to.equal(850); // 849.5 → 850
      expect(item(pct, a.id).previous).to.deep.equal({ price: '19.99', variants: [{ id: a.variants[0].id, price: '25' }] });
      expect(await outboxFor(a.id)).to.deep.equal(['product.created', 'product.updated']);
      const audit = (await auditFor(a.id)).pop()!;
      expect(audit.action).to.equal('product.update');
      expect(audit.before.price).to.equal('19.99');
      expect(audit.after.price).to.equal('16.98');

      const add = await ok(await bulk(m, 'update-price', { productIds: [a.id, b.id], mode: 'ADD', value: -5 }));
      expect(item(add, a.id).status).to.equal('OK');
      expect(item(add, b.id)).to.include({ status: 'FAILED', errorCode: 'negative_price' });
      expect(item(add, b.id).errorMessage).to.match(/below 0/);
      expect((await current(m, b.id)).price).to.equal(2.55);
      expect((await current(m, a.id)).price).to.equal(11.98);

      await ok(await revert(m, add.id));
      expect((await current(m, a.id)).price).to.equal(16.98);
      expect((await current(m, a.id)).variants[0].price).to.equal(21.24);
      // pct's a changed since (add and its revert); b and yen did not, but nothing is reverted.
      const refused = await revert(m, pct.id);
      expectProblem(refused, 409, 'bulk_edit_conflict');
      expect(refused.json.productIds).to.deep.equal([a.id]);
      expect(refused.json.errors).to.deep.equal([{ path: `products.${a.id}`, message: 'changed (or deleted) after the bulk edit' }]);
      expect((await current(m, yen.id)).price).to.equal(850);

      const set = await ok(await bulk(m, 'update-price', { productIds: [b.id, yen.id], mode: 'SET', value: 9.995 }));
      expect((await current(m, b.id)).price).to.equal(10);
      expect((await current(m, yen.id)).price).to.equal(10);
      await ok(await revert(m, set.id));
      expect((await current(m, b.id)).price).to.equal(2.55);
      expect((await current(m, yen.id)).price).to.equal(850);
      expect(await ok(await bulk(m, 'update-price', { productIds: [b.id], mode: 'SET', value: 2.55 }))).to.include({ unchangedCount: 1 });
    });

    it('a price above the compare-at price fails that product', async () => {
      const m = await merchant(server);
      const p = await createProduct(server, m, { price: 10, compareAtPrice: 12 });
      const v = await createProduct(server, m, { price: 10, variants: [{ stock: 1, compareAtPrice: 11 }] });
      const e = await ok(await bulk(m, 'update-price', { productIds: [p.id, v.id], mode: 'PERCENT', value: 25 }));
      expect(item(e, p.id)).to.include({ status: 'FAILED', errorCode: 'compare_at_below_price' });
      expect(item(e, v.id)).to.include({ status: 'FAILED', errorCode: 'compare_at_below_price' });
      expect(e.status).to.equal('FAILED');
      const fine = await ok(await bulk(m, 'update-price', { productIds: [p.id, v.id], mode: 'PERCENT', value: 10 }));
      expect(fine.okCount).to.equal(2);
      expect((await current(m, p.id)).price).to.equal(11);
    });
  });

  // ----------------------------------------------------------------------------------- hard delete

  describe('hard-delete', () => {
    it('deletes the products, keeps them whole in the history, and revert recreates them with the same ids and links', async () => {
      const m = await merchant(server);
      const cat = await category(server, m, { name: 'Kept' });
      const t = await tag(server, m, { name: 'Kept' });
      const keeper = await createProduct(server, m, { title: 'Keeper' });
      const a = await createProduct(server, m, {
        title: 'Alpha',
        status: 'PUBLISHED',
        categoryIds: [cat],
        tagIds: [t],
        variants: [{ sku: `SKU-${uuidv7().slice(-8)}`, barcode: '123', options: { size: 'M' }, price: 12, stock: 3 }, { stock: 0 }],
        images: [{ url: 'https://img.example.org/a.jpg', alt: 'front' }, { url: 'https://img.example.org/b.jpg' }],
      });
      const b = await createProduct(server, m, { title: 'Beta' });
      const relate = async (from: string, to: string) => {
        const res = await call(server, 'POST', `/api/v1/catalog/products/${from}/relations`, {
          headers: m.headers,
          body: { relatedProductId: to, kind: 'RELATED' },
        });
        expect(res.status, res.text).to.be.oneOf([200, 201]);
      };
      await relate(a.id, b.id);
      await relate(b.id, a.id);
      await relate(keeper.id, a.id);
      await relate(a.id, keeper.id);
      const relations = async () =>
        q<{ product_id: string; related_product_id: string; id: string }>(
          'SELECT id, product_id, related_product_id FROM product_relations WHERE store_id = $1 ORDER BY id',
          [m.storeId],
        );
      const relationsBefore = await relations();
      expect(relationsBefore).to.have.length(4);
      const before = await current(m, a.id);

      const e = await ok(await bulk(m, 'hard-delete', { productIds: [a.id, b.id] }));
      expect(e).to.include({ action: 'DELETE', operation: 'hard-delete', okCount: 2, status: 'COMPLETED' });
      expect((await getProduct(m, a.id)).status).to.equal(404);
      expect((await getProduct(m, b.id)).status).to.equal(404);
      expect(await relations()).to.have.length(0);
      const snap = item(e, a.id).previous;
      expect(snap.product).to.include({ id: a.id, title: 'Alpha', status: 'PUBLISHED' });
      expect(snap.links.product_variants.map((v: Json) => v.id).sort()).to.deep.equal(a.variants.map((v: Json) => v.id).sort());
      expect(snap.links.product_images).to.have.length(2);
      expect(snap.links.product_categories).to.have.length(1);
      expect(snap.links.product_tag_assignments).to.have.length(1);
      expect(await outboxFor(a.id)).to.deep.equal(['product.created', 'product.updated', 'product.updated', 'product.deleted']);
      expect((await auditFor(a.id)).map((r) => r.action).pop()).to.equal('product.delete');

      const r = await ok(await revert(m, e.id));
      expect(r).to.include({ action: 'DELETE', operation: 'revert', okCount: 2, status: 'COMPLETED' });
      const after = await current(m, a.id);
      const { updatedAt: _u1, ...restBefore } = before;
      const { updatedAt: _u2, ...restAfter } = after;
      expect(restAfter).to.deep.equal(restBefore);
      expect(after.variants.map((v: Json) => v.id)).to.deep.equal(a.variants.map((v: Json) => v.id));
      expect(after.images.map((i: Json) => i.id)).to.deep.equal(a.images.map((i: Json) => i.id));
      expect((await current(m, b.id)).title).to.equal('Beta');
      expect(await relations()).to.deep.equal(relationsBefore);
      expect(await outboxFor(a.id)).to.include('product.created');
      expect((await outboxFor(a.id)).pop()).to.equal('product.created');
      expect((await auditFor(a.id)).map((x) => x.action).pop()).to.equal('product.create');
    });

    it('refuses to revert a delete once the slug or a SKU is taken again (409 with the ids), and reverts nothing', async () => {
      const m = await merchant(server);
      const sku = `SKU-${uuidv7().slice(-8)}`;
      const a = await createProduct(server, m, { title: 'Gone', variants: [{ sku, stock: 1 }] });
      const b = await createProduct(server, m, { title: 'Also gone' });
      const e = await ok(await bulk(m, 'hard-delete', { productIds: [a.id, b.id] }));
      const squatter = await createProduct(server, m, { title: 'Squatter', variants: [{ sku, stock: 1 }] });
      const refused = await revert(m, e.id);
      expectProblem(refused, 409, 'bulk_edit_conflict');
      expect(refused.json.productIds).to.deep.equal([a.id]);
      expect(refused.json.errors[0].message).to.match(/SKU/);
      expect((await getProduct(m, b.id)).status).to.equal(404);
      await call(server, 'DELETE', `/api/v1/catalog/products/${squatter.id}`, { headers: m.headers });
      await ok(await revert(m, e.id));
      expect((await current(m, a.id)).variants[0].sku).to.equal(sku);
      expect((await current(m, b.id)).title).to.equal('Also gone');
    });
  });

  // --------------------------------------------------------------------------------------- history

  describe('history', () => {
    it('lists newest first with action and status filters and a cursor; the overview counts per action and status', async () => {
      const m = await merchant(server);
      const needs = await categoryWith(m, 'Paint', [{ name: 'colour', type: 'text', required: true }]);
      const p = await createProduct(server, m);
      const bad = await createProduct(server, m, { categoryIds: [needs] });
      const e1 = await ok(await bulk(m, 'archive', { productIds: [p.id] }));
      const e2 = await ok(await bulk(m, 'publish', { productIds: [bad.id] })); // FAILED
      const e3 = await ok(await bulk(m, 'update-price', { productIds: [p.id], mode: 'ADD', value: 1 }));
      const e4 = await ok(await revert(m, e3.id));
      const list = async (query: string) =>
        ok(await call(server, 'GET', `/api/v1/product-bulk-edits?storeId=${m.storeId}${query}`, { headers: m.headers }));
      const all = await list('');
      expect(all.items.map((i: Json) => i.id)).to.deep.equal([e4.id, e3.id, e2.id, e1.id]);
      expect(all.nextCursor).to.equal(null);
      expect(all.items[0]).to.not.have.property('items');
      expect(all.items[1].revertedBy).to.equal(e4.id);
      const page1 = await list('&limit=3');
      expect(page1.items).to.have.length(3);
      expect(page1.nextCursor).to.equal(e2.id);
      const page2 = await list(`&limit=3&cursor=${page1.nextCursor}`);
      expect(page2.items.map((i: Json) => i.id)).to.deep.equal([e1.id]);
      expect(page2.nextCursor).to.equal(null);
      expect((await list('&action=UPDATE_PRICE')).items.map((i: Json) => i.id)).to.deep.equal([e4.id, e3.id]);
      expect((await list('&status=FAILED')).items.map((i: Json) => i.id)).to.deep.equal([e2.id]);
      expect((await list('&action=ARCHIVE&status=COMPLETED')).items.map((i: Json) => i.id)).to.deep.equal([e1.id]);

      const overview = await ok(
        await call(server, 'GET', `/api/v1/product-bulk-edits/store-overview?storeId=${m.storeId}&sinceDays=7`, { headers: m.headers }),
      );
      expect(overview).to.include({ storeId: m.storeId, sinceDays: 7, total: 4 });
      expect(overview.byAction).to.deep.equal({
        UPDATE_PRICE: 2,
        UPDATE_STATUS: 1,
        UPDATE_TAGS: 0,
        UPDATE_CATEGORY: 0,
        ARCHIVE: 1,
        DELETE: 0,
      });
      expect(overview.byStatus).to.deep.equal({ RUNNING: 0, COMPLETED: 3, FAILED: 1 });
      expect(overview.counts).to.deep.equal([
        { action: 'ARCHIVE', status: 'COMPLETED', count: 1 },
        { action: 'UPDATE_PRICE', status: 'COMPLETED', count: 2 },
        { action: 'UPDATE_STATUS', status: 'FAILED', count: 1 },
      ]);
      // An edit older than sinceDays is not counted.
      await q("UPDATE product_bulk_edits SET created_at = now() - interval '3 days' WHERE id = $1", [e1.id]);
      const recent = await ok(
        await call(server, 'GET', `/api/v1/product-bulk-edits/store-overview?storeId=${m.storeId}&sinceDays=1`, { headers: m.headers }),
      );
      expect(recent.total).to.equal(3);
      expect(recent.byAction.ARCHIVE).to.equal(0);
      const one = await edit(m, e2.id);
      expect(one.items).to.deep.equal([
        {
          productId: bad.id,
          status: 'FAILED',
          errorCode: 'missing_required_attributes',
          errorMessage: one.items[0].errorMessage,
          previous: null,
        },
      ]);
    });
  });

  // ----------------------------------------------------------------------------------------- async

  describe('above the threshold (jobs worker)', () => {
    // A server of its own: its process services carry another bulk-edit setting (syncMax 2), which
    // startTestServer's config does not reach.
    let small: TestServer;
    before(async () => {
      const runtime = await testRuntime();
      const services = { ...runtime.services, config: { ...runtime.services.config, bulkEdits: { syncMax: 2 } } };
      const app = createApp({ ...runtime, services });
      const srv = http.createServer(app.callback());
      await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', () => resolve()));
      small = {
        baseUrl: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
        runtime,
        close: () => new Promise<void>((resolve) => srv.close(() => resolve())),
      };
    });
    after(() => small.close());

    /** Delivers the tenant's pending `jobs` outbox rows through the jobs worker's handler, as the relay's jobs reach it. */
    async function runJobs(tenantId: string): Promise<number> {
      const rows = await q<{ aggregate_type: string; aggregate_id: string }>(
        `WITH c AS (UPDATE outbox SET status = 'in_flight', claimed_at = now(), attempts = attempts + 1
                     WHERE tenant_id = $1 AND queue = 'jobs' AND status = 'pending' RETURNING aggregate_type, aggregate_id)
         SELECT DISTINCT aggregate_type, aggregate_id FROM c`,
        [tenantId],
      );
      const consume = outboxConsumer(
        server.runtime.dataSource,
        'jobs',
        RETRY,
        createJobsHandler({ dataSource: server.runtime.dataSource, logger: silentLogger, services: server.runtime.services }),
      );
      for (const row of rows) {
        const job = {
          id: jobIdFor(row.aggregate_type, row.aggregate_id),
          data: { aggregateType: row.aggregate_type, aggregateId: row.aggregate_id, tenantId },
        };
        await consume(job as BeeQueue.Job<OutboxJobData>);
      }
      return rows.length;
    }

    const jobRows = (id: string) =>
      q<{ status: string; topic: string }>("SELECT status, topic FROM outbox WHERE queue = 'jobs' AND aggregate_id = $1", [id]);

    it('answers at once with the edit RUNNING; the worker completes it, one index outbox row per changed product', async () => {
      const m = await merchant(server);
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) ids.push((await createProduct(server, m, { price: 10 + i })).id);
      const e = await ok(await bulk(m, 'update-price', { productIds: ids, mode: 'PERCENT', value: 10 }, m.headers, small));
      expect(e).to.include({ status: 'RUNNING', productCount: 5, processedCount: 0, okCount: 0, finishedAt: null });
      expect(e.items.map((i: Json) => i.status)).to.deep.equal(['PENDING', 'PENDING', 'PENDING', 'PENDING', 'PENDING']);
      expect((await current(m, ids[0]!)).price).to.equal(10);
      expect(await jobRows(e.id)).to.deep.equal([{ status: 'pending', topic: 'product_bulk_edit.run' }]);
      const running = await ok(
        await call(server, 'GET', `/api/v1/product-bulk-edits?storeId=${m.storeId}&status=RUNNING`, { headers: m.headers }),
      );
      expect(running.items.map((i: Json) => i.id)).to.deep.equal([e.id]);
      expectProblem(await revert(m, e.id), 409, 'bulk_edit_running');

      expect(await runJobs(m.owner.tenantId)).to.equal(1);
      const done = await edit(m, e.id);
      expect(done).to.include({ status: 'COMPLETED', processedCount: 5, okCount: 5 });
      expect(done.finishedAt).to.be.a('string');
      expect((await current(m, ids[0]!)).price).to.equal(11);
      expect((await current(m, ids[4]!)).price).to.equal(15.4);
      for (const id of ids) expect(await outboxFor(id)).to.deep.equal(['product.created', 'product.updated']);
      expect(await jobRows(e.id)).to.deep.equal([{ status: 'done', topic: 'product_bulk_edit.run' }]);
      // The worker acts as the merchant who made the edit.
      const audit = (await auditFor(ids[0]!)).pop()!;
      expect(audit.action).to.equal('product.update');
      expect(audit.actor_type).to.equal('user');

      // A revert of more than the threshold runs on the worker too.
      const r = await ok(await revert(m, e.id, m.headers, small));
      expect(r).to.include({ status: 'RUNNING', operation: 'revert', productCount: 5 });
      await runJobs(m.owner.tenantId);
      expect(await edit(m, r.id)).to.include({ status: 'COMPLETED', okCount: 5 });
      expect((await current(m, ids[4]!)).price).to.equal(14);
    });

    it("the jobs role's consumer takes the edit from the jobs queue in Redis and completes it", async () => {
      const m = await merchant(server);
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) ids.push((await createProduct(server, m)).id);
      const e = await ok(await bulk(m, 'archive', { productIds: ids }, m.headers, small));
      expect(e.status).to.equal('RUNNING');
      // Its own queue prefix, so no other worker takes the job; the job is made the way the relay makes it.
      const prefix = `bulk-${uuidv7().slice(-12)}`;
      const { redisUrl } = server.runtime.config;
      const producers = new QueueRegistry({ redisUrl, isWorker: false, logger: silentLogger, prefix });
      const consumers = startConsumers(
        { dataSource: server.runtime.dataSource, redisUrl, logger: silentLogger, outbox: RETRY, prefix },
        jobsConsumers(server.runtime),
      );
      try {
        expect(consumers.queues).to.include('jobs');
        await q(
          "UPDATE outbox SET status = 'in_flight', claimed_at = now(), attempts = attempts + 1 WHERE queue = 'jobs' AND aggregate_id = $1",
          [e.id],
        );
        await producers
          .get('jobs')
          .createJob({ aggregateType: 'product_bulk_edit', aggregateId: e.id, tenantId: m.owner.tenantId })
          .setId(jobIdFor('product_bulk_edit', e.id))
          .save();
        await eventually(async () => (await jobRows(e.id))[0]!.status === 'done', 'the jobs worker to run the bulk edit', 20_000);
        expect(await jobRows(e.id)).to.deep.equal([{ status: 'done', topic: 'product_bulk_edit.run' }]);
      } finally {
        await consumers.stop(2_000);
        await producers.close(1_000);
      }
      expect(await edit(m, e.id)).to.include({ status: 'COMPLETED', processedCount: 3, okCount: 3 });
      for (const id of ids) expect((await current(m, id)).status).to.equal('ARCHIVED');
    });

    it('resumes after a crash mid-way without applying anything twice', async () => {
      const m = await merchant(server);
      const t = await tag(server, m);
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) ids.push((await createProduct(server, m)).id);
      const e = await ok(await bulk(m, 'add-tags', { productIds: ids, tagIds: [t] }, m.headers, small));
      // A worker processed one batch of two and died before the rest (its outbox row left in flight).
      await q("UPDATE outbox SET status = 'in_flight', claimed_at = now() WHERE queue = 'jobs' AND aggregate_id = $1", [e.id]);
      const ctx: RequestContext = {
        requestId: 'test',
        tenantId: m.owner.tenantId,
        actor: { type: 'user', id: m.owner.userId },
        dataSource: server.runtime.dataSource,
        manager: server.runtime.dataSource.manager,
        inTransaction: false,
        services: server.runtime.services,
      };
      expect(await inTransaction(ctx, (tx) => processBatch(tx, e.id, 2))).to.equal(false);
      const mid = await edit(m, e.id);
      expect(mid).to.include({ status: 'RUNNING', processedCount: 2, okCount: 2 });
      expect(mid.items.map((i: Json) => i.status)).to.deep.equal(['OK', 'OK', 'PENDING', 'PENDING', 'PENDING']);
      // The outbox reclaims the row; the job runs again from the start and skips what is done.
      await q("UPDATE outbox SET status = 'pending', claimed_at = NULL WHERE queue = 'jobs' AND aggregate_id = $1", [e.id]);
      await runJobs(m.owner.tenantId);
      const done = await edit(m, e.id);
      expect(done).to.include({ status: 'COMPLETED', processedCount: 5, okCount: 5, unchangedCount: 0 });
      for (const id of ids) {
        expect(await outboxFor(id)).to.deep.equal(['product.created', 'product.updated']);
        expect((await current(m, id)).tagIds).to.deep.equal([t]);
      }
      // Delivered again (a duplicate job): nothing more happens.
      await q("UPDATE outbox SET status = 'pending' WHERE queue = 'jobs' AND aggregate_id = $1", [e.id]);
      await runJobs(m.owner.tenantId);
      expect(await edit(m, e.id)).to.include({ processedCount: 5, okCount: 5 });
      expect(await outboxFor(ids[0]!)).to.have.length(2);
    });

    it('stops between batches when its worker shuts down (DeliveryReleased) and the next run finishes the PENDING items', async () => {
      const m = await merchant(server);
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) ids.push((await createProduct(server, m)).id);
      const e = await ok(await bulk(m, 'archive', { productIds: ids }, m.headers, small));
      const ctx: RequestContext = {
        requestId: 'test',
        tenantId: m.owner.tenantId,
        actor: { type: 'user', id: m.owner.userId },
        dataSource: server.runtime.dataSource,
        manager: server.runtime.dataSource.manager,
        inTransaction: false,
        services: server.runtime.services,
      };
      const stopping = new AbortController();
      stopping.abort();
      let released: unknown;
      await runQueuedBulkEdit(ctx, e.id, stopping.signal).catch((error: unknown) => (released = error));
      expect(released).to.be.instanceOf(DeliveryReleased);
      expect(await edit(m, e.id)).to.include({ status: 'RUNNING', processedCount: 0 });
      await runJobs(m.owner.tenantId);
      expect(await edit(m, e.id)).to.include({ status: 'COMPLETED', processedCount: 3, okCount: 3 });
    });

    it('a hard delete above the threshold is reverted by the worker with relations between deleted products', async () => {
      const m = await merchant(server);
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) ids.push((await createProduct(server, m, { title: `P${i}`, variants: [{ stock: i }] })).id);
      const rel = await call(server, 'POST', `/api/v1/catalog/products/${ids[2]}/relations`, {
        headers: m.headers,
        body: { relatedProductId: ids[0], kind: 'UPSELL' },
      });
      expect(rel.status, rel.text).to.be.oneOf([200, 201]);
      const e = await ok(await bulk(m, 'hard-delete', { productIds: ids }, m.headers, small));
      await runJobs(m.owner.tenantId);
      expect(await edit(m, e.id)).to.include({ status: 'COMPLETED', okCount: 3 });
      for (const id of ids) expect((await getProduct(m, id)).status).to.equal(404);
      const r = await ok(await revert(m, e.id, m.headers, small));
      await runJobs(m.owner.tenantId);
      expect(await edit(m, r.id)).to.include({ status: 'COMPLETED', okCount: 3 });
      for (const id of ids) expect((await current(m, id)).variants).to.have.length(1);
      const rels = await q('SELECT product_id, related_product_id, kind FROM product_relations WHERE store_id = $1', [m.storeId]);
      expect(rels).to.deep.equal([{ product_id: ids[2], related_product_id: ids[0], kind: 'UPSELL' }]);
    });
  });
});
