/**
 * Sponsored listings: merchant CRUD with every bound, tenancy, status transitions, ending by end date,
 * by budget and by hand, the public click tracker (counting, de-duplication, silence about state),
 * cursor paging, audit and outbox rows per write, and sponsoredCandidates() (keyword matching, order).
 */
import { expect } from 'chai';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { auditRows, expectProblem } from '../helpers/accounts';
import { apiKey, merchant, product, store, type Merchant } from '../helpers/fixtures';
import { uuidv7 } from '../../storage/ids';
import { sponsoredCandidates } from '../../api/sponsored-listings/sponsored-candidates';
import { keywordMatches, normaliseSearchText } from '../../domain/sponsored-keywords';
import { deliverIndexRows, indexHandler } from '../helpers/indexing';
import { eventually } from '../helpers/wait';

const BASE = '/api/v1/merchant/sponsored-listings';
const CLICK = '/api/v1/storefront/sponsored-listings/click';

describe('sponsored listings', function () {
  this.timeout(60_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));

  const db = (sql: string, params: unknown[] = []): Promise<any[]> => server.runtime.dataSource.query(sql, params);

  const newMerchant = async (): Promise<Merchant> => suite.addMerchant(await merchant(server));

  const create = (m: Merchant, body: Record<string, unknown>, headers = m.headers): Promise<TestResponse> =>
    call(server, 'POST', BASE, { headers, body: { storeId: m.storeId, costPerClick: 0.5, ...body } });

  async function listing(m: Merchant, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
    const productId = (body.productId as string | undefined) ?? (await product(server, m, { status: 'PUBLISHED' }));
    const res = await create(m, { productId, ...body });
    expect(res.status, res.text).to.equal(201);
    return res.json;
  }

  const patch = (m: Merchant, id: string, body: Record<string, unknown>, headers = m.headers): Promise<TestResponse> =>
    call(server, 'PATCH', `${BASE}/${id}`, { headers, body });
  const list = (m: Merchant, query = '', headers = m.headers): Promise<TestResponse> =>
    call(server, 'GET', `${BASE}?storeId=${m.storeId}${query}`, { headers });
  const click = (body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<TestResponse> =>
    call(server, 'POST', CLICK, { headers, body });
  const get = async (m: Merchant, id: string): Promise<Record<string, any> | undefined> => {
    const res = await list(m, '&limit=200');
    expect(res.status, res.text).to.equal(200);
    return res.json.items.find((i: { id: string }) => i.id === id);
  };

  async function storeEvents(
    m: Merchant,
  ): Promise<Array<{ queue: string; topic: string; aggregate_type: string; aggregate_id: string; payload: any }>> {
    return db(
      "SELECT queue, topic, aggregate_type, aggregate_id, payload FROM outbox WHERE tenant_id = $1 AND topic = 'sponsored_listings.updated' ORDER BY id",
      [m.owner.tenantId],
    );
  }

  describe('merchant operations', () => {
    it('creates, lists, updates and deletes a listing, with one audit entry and one store outbox row per write', async () => {
      const m = await newMerchant();
      const productId = await product(server, m, { status: 'PUBLISHED' });
      const before = Date.now();
      const created = await create(m, {
        productId,
        keywords: [' Red  Shoes ', 'T-Shirt', 'ＴＶ'],
        budget: 100,
        costPerClick: 0.25,
        endsAt: '2099-01-01T00:00:00Z',
      });
      expect(created.status, created.text).to.equal(201);
      expect(created.json).to.deep.include({
        storeId: m.storeId,
        productId,
        status: 'ACTIVE',
        keywords: ['red shoes', 't shirt', 'tv'],
        endsAt: '2099-01-01T00:00:00.000Z',
        budget: 100,
        costPerClick: 0.25,
        spent: 0,
        remainingBudget: 100,
        clicks: 0,
        endedAt: null,
        endedReason: null,
      });
      expect(Date.parse(created.json.startsAt)).to.be.within(before - 1000, Date.now() + 1000);
      const id = created.json.id as string;

      const listed = await list(m);
      expect(listed.status, listed.text).to.equal(200);
      expect(listed.json).to.deep.equal({ items: [created.json], nextCursor: null });

      const paused = await patch(m, id, { status: 'PAUSED', keywords: [], budget: null, costPerClick: 1.2345 });
      expect(paused.status, paused.text).to.equal(200);
      expect(paused.json).to.deep.include({ status: 'PAUSED', keywords: [], budget: null, remainingBudget: null, costPerClick: 1.2345 });
      // A PATCH that changes nothing writes nothing.
      const same = await patch(m, id, { status: 'PAUSED', costPerClick: 1.2345 });
      expect(same.status).to.equal(200);
      expect(same.json).to.deep.equal(paused.json);

      const del = await call(server, 'DELETE', `${BASE}/${id}`, { headers: m.headers });
      expect(del.status, del.text).to.equal(204);
      expect((await list(m)).json.items).to.deep.equal([]);
      expectProblem(await call(server, 'DELETE', `${BASE}/${id}`, { headers: m.headers }), 404, 'sponsored_listing_not_found');

      const audit = (await auditRows(server, m.owner.tenantId)).filter((r) => r.resource_type === 'sponsored_listing');
      expect(audit.map((r) => [r.action, r.resource_id])).to.deep.equal([
        ['sponsored_listing.create', id],
        ['sponsored_listing.update', id],
        ['sponsored_listing.delete', id],
      ]);
      expect(audit[0]!.after).to.deep.include({ storeId: m.storeId, productId, status: 'ACTIVE', budget: '100', costPerClick: '0.25' });
      expect(audit[1]!.before).to.deep.include({ status: 'ACTIVE', budget: '100' });
      expect(audit[1]!.after).to.deep.include({ status: 'PAUSED', budget: null, costPerClick: '1.2345', keywords: [] });
      const events = await storeEvents(m);
      expect(events.map((e) => [e.queue, e.aggregate_type, e.aggregate_id, e.payload.change])).to.deep.equal([
        ['index', 'store', m.storeId, 'created'],
        ['index', 'store', m.storeId, 'updated'],
        ['index', 'store', m.storeId, 'deleted'],
      ]);
    });

    it('validates every bound of the create body', async () => {
      const m = await newMerchant();
      const productId = await product(server, m, { status: 'PUBLISHED' });
      const bad = async (body: Record<string, unknown>, path: string): Promise<void> => {
        const res = await create(m, { productId, ...body });
        expectProblem(res, 400, 'validation_failed');
        expect(
          res.json.errors.map((e: { path: string }) => e.path),
          JSON.stringify(body),
        ).to.include(path);
      };
      await bad({ productId: undefined }, 'body.productId');
      await bad({ productId: 'nope' }, 'body.productId');
      await bad({ storeId: 'nope' }, 'body.storeId');
      await bad({ costPerClick: undefined }, 'body.costPerClick');
      await bad({ costPerClick: -0.01 }, 'body.costPerClick');
      await bad({ costPerClick: 1_000_000_000.01 }, 'body.costPerClick');
      await bad({ costPerClick: 0.00001 }, 'body.costPerClick');
      await bad({ budget: 0 }, 'body.budget');
      await bad({ budget: -1 }, 'body.budget');
      await bad({ budget: 1_000_000_001 }, 'body.budget');
      await bad({ budget: 10.12345 }, 'body.budget');
      await bad({ costPerClick: '1' }, 'body.costPerClick');
      await bad({ status: 'ENDED' }, 'body.status');
      await bad({ status: 'active' }, 'body.status');
      await bad({ keywords: Array.from({ length: 21 }, (_, i) => `k${i}`) }, 'body.keywords');
      await bad({ keywords: ['x'.repeat(61)] }, 'body.keywords[0]');
      await bad({ keywords: ['ok', '!!!'] }, 'body.keywords[1]');
      await bad({ keywords: [''] }, 'body.keywords[0]');
      await bad({ keywords: ['Red Shoe', 'red-shoe'] }, 'body.keywords[1]');
      await bad({ keywords: 'shoe' }, 'body.keywords');
      await bad({ endsAt: '2000-01-01T00:00:00Z' }, 'body.endsAt');
      await bad({ endsAt: 'tomorrow' }, 'body.endsAt');
      await bad({ startsAt: '2098-01-01T00:00:00Z', endsAt: '2097-01-01T00:00:00Z' }, 'body.endsAt');
      await bad({ startsAt: '2098-01-01T00:00:00Z', endsAt: '2098-01-01T00:00:00Z' }, 'body.endsAt');
      await bad({ sponsored: true }, 'body.sponsored');
      expect((await list(m)).json.items).to.deep.equal([]);

      // The edges that are allowed: 20 keywords of 60 characters, cost 0 and 1,000,000,000, 4 decimals, no budget.
      const edge = await create(m, {
        productId,
        keywords: Array.from({ length: 20 }, (_, i) => `${String(i).padStart(2, '0')}${'k'.repeat(58)}`),
        costPerClick: 0,
        budget: 0.0001,
        status: 'PAUSED',
      });
      expect(edge.status, edge.text).to.equal(201);
      expect(edge.json).to.deep.include({ costPerClick: 0, budget: 0.0001, status: 'PAUSED' });
      expect(edge.json.keywords).to.have.length(20);
      expect(edge.json.keywords[0]).to.have.length(60);
      const other = await create(m, {
        productId: await product(server, m, { status: 'PUBLISHED' }),
        costPerClick: 1_000_000_000,
        budget: null,
        startsAt: '2098-01-01T00:00:00Z',
      });
      expect(other.status, other.text).to.equal(201);
      expect(other.json).to.deep.include({
        costPerClick: 1_000_000_000,
        budget: null,
        remainingBudget: null,
        startsAt: '2098-01-01T00:00:00.000Z',
        endsAt: null,
      });
    });

    it('validates the update body and the list query', async () => {
      const m = await newMerchant();
      const l = await listing(m);
      const bad = async (body: Record<string, unknown>, path: string): Promise<void> => {
        const res = await patch(m, l.id, body);
        expectProblem(res, 400, 'validation_failed');
        if (path)
          expect(
            res.json.errors.map((e: { path: string }) => e.path),
            JSON.stringify(body),
          ).to.include(path);
      };
      await bad({}, '');
      await bad({ productId: uuidv7() }, 'body.productId');
      await bad({ status: 'DELETED' }, 'body.status');
      await bad({ budget: 0 }, 'body.budget');
      await bad({ costPerClick: null }, 'body.costPerClick');
      await bad({ endsAt: '2001-01-01T00:00:00Z' }, 'body.endsAt');
      await bad({ startsAt: '2099-06-01T00:00:00Z', endsAt: '2099-01-01T00:00:00Z' }, 'body.endsAt');
      await bad({ keywords: Array.from({ length: 21 }, (_, i) => `k${i}`) }, 'body.keywords');
      expectProblem(await patch(m, 'not-a-uuid', { status: 'PAUSED' }), 400, 'validation_failed');
      // startsAt after the stored endsAt is refused as well.
      await patch(m, l.id, { endsAt: '2099-01-01T00:00:00Z' });
      await bad({ startsAt: '2099-02-01T00:00:00Z' }, 'body.endsAt');

      for (const query of ['&limit=0', '&limit=201', '&limit=1.5', '&cursor=abc', '&status=LIVE', '&unknown=1'])
        expectProblem(await list(m, query), 400, 'validation_failed');
      expectProblem(await call(server, 'GET', BASE, { headers: m.headers }), 400, 'validation_failed');
      expect((await list(m, '&limit=200')).status).to.equal(200);
      expect((await list(m, '&limit=1')).status).to.equal(200);
    });

    it('pages newest first with a cursor and filters by status', async () => {
      const m = await newMerchant();
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) ids.push((await listing(m, { status: i % 2 === 0 ? 'ACTIVE' : 'PAUSED' })).id);
      const newestFirst = [...ids].reverse();
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: TestResponse = await list(m, `&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.status, res.text).to.equal(200);
        expect(res.json.items.length).to.be.at.most(2);
        seen.push(...res.json.items.map((i: { id: string }) => i.id));
        cursor = res.json.nextCursor;
        pages += 1;
      } while (cursor);
      expect(pages).to.equal(3);
      expect(seen).to.deep.equal(newestFirst);
      const defaults = await list(m);
      expect(defaults.json.items.map((i: { id: string }) => i.id)).to.deep.equal(newestFirst);
      expect(defaults.json.nextCursor).to.equal(null);
      const paused = await list(m, '&status=PAUSED');
      expect(paused.json.items.map((i: { id: string }) => i.id)).to.deep.equal([ids[3], ids[1]]);
      expect((await list(m, '&status=ENDED')).json.items).to.deep.equal([]);
      // Exactly `limit` items left: no next page.
      const lastTwo = await list(m, `&limit=2&cursor=${ids[2]}`);
      expect(lastTwo.json).to.deep.include({ nextCursor: null });
      expect(lastTwo.json.items.map((i: { id: string }) => i.id)).to.deep.equal([ids[1], ids[0]]);
    });

    it("answers 404 for another tenant's store, listing and product, and lets a store API key act only on its store", async () => {
      const a = await newMerchant();
      const b = await newMerchant();
      const aListing = await listing(a);
      const bProduct = await product(server, b, { status: 'PUBLISHED' });

      expectProblem(await list(a, '', b.headers), 404, 'store_not_found');
      expectProblem(await create(a, { productId: bProduct }, b.headers), 404, 'store_not_found');
      expectProblem(await create(a, { productId: bProduct }), 404, 'product_not_found');
      expectProblem(await create(a, { productId: uuidv7() }), 404, 'product_not_found');
      expectProblem(await patch(a, aListing.id, { status: 'PAUSED' }, b.headers), 404, 'sponsored_listing_not_found');
      expectProblem(await call(server, 'DELETE', `${BASE}/${aListing.id}`, { headers: b.headers }), 404, 'sponsored_listing_not_found');
      expectProblem(await call(server, 'DELETE', `${BASE}/${uuidv7()}`, { headers: a.headers }), 404, 'sponsored_listing_not_found');
      expect((await get(a, aListing.id))!.status).to.equal('ACTIVE');

      // A product of another store of the same tenant is not this store's product.
      const second = await store(server, a, { name: 'Second' });
      const secondProduct = await product(server, a, { store_id: second });
      expectProblem(await create(a, { productId: secondProduct }), 404, 'product_not_found');

      const key = await apiKey(server, a, ['sponsored-listings:read', 'sponsored-listings:write']);
      expect((await list(a, '', key)).status).to.equal(200);
      const viaKey = await create(a, { productId: await product(server, a, { status: 'PUBLISHED' }) }, key);
      expect(viaKey.status, viaKey.text).to.equal(201);
      expect((await patch(a, viaKey.json.id, { status: 'PAUSED' }, key)).status).to.equal(200);
      const secondStore = { ...a, storeId: second };
      expectProblem(await list(secondStore, '', key), 404, 'store_not_found');
      const inSecond = await listing(secondStore, { productId: secondProduct });
      expectProblem(await patch(secondStore, inSecond.id, { status: 'PAUSED' }, key), 404, 'sponsored_listing_not_found');
      const readOnly = await apiKey(server, a, ['sponsored-listings:read']);
      expect((await create(a, { productId: await product(server, a, { status: 'PUBLISHED' }) }, readOnly)).status).to.equal(403);
    });

    it('allows one listing that is not ENDED per product', async () => {
      const m = await newMerchant();
      const productId = await product(server, m, { status: 'PUBLISHED' });
      const first = await listing(m, { productId, status: 'PAUSED' });
      expectProblem(await create(m, { productId }), 409, 'sponsored_listing_exists');
      expect((await patch(m, first.id, { status: 'ENDED' })).json).to.deep.include({ status: 'ENDED', endedReason: 'MANUAL' });
      const second = await listing(m, { productId });
      // The ENDED one cannot come back while the product has another open listing.
      expectProblem(await patch(m, first.id, { status: 'ACTIVE' }), 409, 'sponsored_listing_exists');
      expect((await call(server, 'DELETE', `${BASE}/${second.id}`, { headers: m.headers })).status).to.equal(204);
      expect((await patch(m, first.id, { status: 'ACTIVE' })).json).to.deep.include({ status: 'ACTIVE', endedAt: null, endedReason: null });

      // Requests racing for one product: exactly one listing, the others 409 with the same code.
      const raced = await product(server, m, { status: 'PUBLISHED' });
      const answers = await Promise.all(Array.from({ length: 6 }, () => create(m, { productId: raced })));
      expect(answers.filter((r) => r.status === 201)).to.have.length(1);
      for (const r of answers.filter((x) => x.status !== 201)) expectProblem(r, 409, 'sponsored_listing_exists');
    });

    it('refuses changes in an archived store', async () => {
      const m = await newMerchant();
      const l = await listing(m);
      await db("UPDATE stores SET status = 'archived', archived_at = now() WHERE id = $1", [m.storeId]);
      expectProblem(await create(m, { productId: await product(server, m, { status: 'PUBLISHED' }) }), 409, 'store_archived');
      expectProblem(await patch(m, l.id, { status: 'PAUSED' }), 409, 'store_archived');
      expectProblem(await click({ listingId: l.id, storeId: m.storeId }), 404, 'store_not_found');
    });
  });

  describe('status transitions and ending', () => {
    it('switches ACTIVE and PAUSED, ends by hand, and reactivates a manually ended listing', async () => {
      const m = await newMerchant();
      const l = await listing(m);
      expect((await patch(m, l.id, { status: 'PAUSED' })).json.status).to.equal('PAUSED');
      expect((await patch(m, l.id, { status: 'ACTIVE' })).json.status).to.equal('ACTIVE');
      const before = Date.now();
      const ended = await patch(m, l.id, { status: 'ENDED' });
      expect(ended.status, ended.text).to.equal(200);
      expect(ended.json).to.deep.include({ status: 'ENDED', endedReason: 'MANUAL' });
      expect(Date.parse(ended.json.endedAt)).to.be.within(before - 1000, Date.now() + 1000);
      // Ending again changes nothing; editing an ENDED listing keeps it ENDED.
      const again = await patch(m, l.id, { status: 'ENDED' });
      expect(again.json).to.deep.equal(ended.json);
      const edited = await patch(m, l.id, { keywords: ['sale'] });
      expect(edited.json).to.deep.include({ status: 'ENDED', endedReason: 'MANUAL', keywords: ['sale'] });
      const back = await patch(m, l.id, { status: 'PAUSED' });
      expect(back.json).to.deep.include({ status: 'PAUSED', endedAt: null, endedReason: null });
      const audit = (await auditRows(server, m.owner.tenantId)).filter((r) => r.action === 'sponsored_listing.update');
      expect(audit.map((r) => r.after.status)).to.deep.equal(['PAUSED', 'ACTIVE', 'ENDED', 'ENDED', 'PAUSED']);
    });

    it('ends a listing whose end date passed, and reactivates it only with a new end date', async () => {
      const m = await newMerchant();
      const l = await listing(m, { endsAt: '2099-01-01T00:00:00Z' });
      const paused = await listing(m, { status: 'PAUSED', endsAt: '2099-01-01T00:00:00Z' });
      const open = await listing(m);
      await db(
        "UPDATE sponsored_listings SET starts_at = now() - interval '2 days', ends_at = now() - interval '1 day' WHERE id = ANY($1::uuid[])",
        [[l.id, paused.id]],
      );
      const eventsBefore = (await storeEvents(m)).length;
      const [row] = await db('SELECT ends_at FROM sponsored_listings WHERE id = $1', [l.id]);

      const res = await list(m);
      const byId = new Map(res.json.items.map((i: { id: string }) => [i.id, i]));
      expect(byId.get(l.id)).to.deep.include({ status: 'ENDED', endedReason: 'END_DATE', endedAt: row.ends_at.toISOString() });
      expect(byId.get(paused.id)).to.deep.include({ status: 'ENDED', endedReason: 'END_DATE' });
      expect(byId.get(open.id)).to.deep.include({ status: 'ACTIVE', endedReason: null });
      // The lazy end wrote one store event for both listings, and no audit entry.
      const events = (await storeEvents(m)).slice(eventsBefore);
      expect(events).to.have.length(1);
      expect(events[0]).to.deep.include({ queue: 'index', aggregate_type: 'store', aggregate_id: m.storeId });
      expect([...events[0]!.payload.ended].sort()).to.deep.equal([l.id, paused.id].sort());
      expect((await list(m, '&status=ENDED')).json.items).to.have.length(2);
      expect(await storeEvents(m)).to.have.length(eventsBefore + 1);

      expectProblem(await patch(m, l.id, { status: 'ACTIVE' }), 409, 'sponsored_listing_ended');
      const revived = await patch(m, l.id, { status: 'ACTIVE', endsAt: '2099-06-01T00:00:00Z' });
      expect(revived.status, revived.text).to.equal(200);
      expect(revived.json).to.deep.include({ status: 'ACTIVE', endsAt: '2099-06-01T00:00:00.000Z', endedAt: null, endedReason: null });
      const unlimited = await patch(m, paused.id, { status: 'PAUSED', endsAt: null });
      expect(unlimited.json).to.deep.include({ status: 'PAUSED', endsAt: null });
    });

    it('counts clicks until the budget is spent, then ends the listing (BUDGET) and counts no more', async () => {
      const m = await newMerchant();
      const l = await listing(m, { budget: 1, costPerClick: 0.4 });
      const eventsBefore = (await storeEvents(m)).length;
      for (let i = 0; i < 2; i += 1) {
        const res = await click({
          listingId: l.id,
          storeId: m.storeId,
          productId: l.productId,
          visitorId: `visitor-${i}`,
          query: 'red shoes',
        });
        expect(res.status, res.text).to.equal(202);
        expect(res.json).to.deep.equal({ accepted: true });
      }
      expect(await get(m, l.id)).to.deep.include({ status: 'ACTIVE', clicks: 2, spent: 0.8, remainingBudget: 0.2 });
      // The third click reaches the budget: charged the 0.2 left, and the listing ends.
      expect((await click({ listingId: l.id, storeId: m.storeId, visitorId: 'visitor-2' })).status).to.equal(202);
      const ended = await get(m, l.id);
      expect(ended).to.deep.include({ status: 'ENDED', endedReason: 'BUDGET', clicks: 3, spent: 1, remainingBudget: 0 });
      expect(ended!.endedAt).to.be.a('string');
      const events = (await storeEvents(m)).slice(eventsBefore);
      expect(events.map((e) => [e.aggregate_type, e.aggregate_id, e.payload.ended])).to.deep.equal([['store', m.storeId, [l.id]]]);
      expect((await click({ listingId: l.id, storeId: m.storeId, visitorId: 'visitor-3' })).status).to.equal(202);
      expect(await get(m, l.id)).to.deep.include({ clicks: 3, spent: 1 });
      expect(
        (await auditRows(server, m.owner.tenantId)).filter((r) => r.resource_type === 'sponsored_listing').map((r) => r.action),
      ).to.deep.equal(['sponsored_listing.create']);

      // Reactivation needs more budget; the budget must stay above what was spent.
      expectProblem(await patch(m, l.id, { status: 'ACTIVE' }), 409, 'sponsored_listing_ended');
      expectProblem(await patch(m, l.id, { budget: 1 }), 409, 'budget_not_above_spent');
      expectProblem(await patch(m, l.id, { budget: 0.5 }), 409, 'budget_not_above_spent');
      const revived = await patch(m, l.id, { status: 'ACTIVE', budget: 2 });
      expect(revived.status, revived.text).to.equal(200);
      expect(revived.json).to.deep.include({ status: 'ACTIVE', budget: 2, spent: 1, remainingBudget: 1, endedReason: null });
      const unlimited = await listing(m, { costPerClick: 0.1 });
      for (let i = 0; i < 3; i += 1) await click({ listingId: unlimited.id, storeId: m.storeId, visitorId: `u-${i}` });
      expect(await get(m, unlimited.id)).to.deep.include({ status: 'ACTIVE', clicks: 3, spent: 0.3, budget: null, remainingBudget: null });
    });

    it('answers 202 but counts nothing for unknown, foreign, paused, scheduled or mismatched clicks, and de-duplicates a visitor', async () => {
      const a = await newMerchant();
      const b = await newMerchant();
      const l = await listing(a, { costPerClick: 1 });
      const paused = await listing(a, { status: 'PAUSED' });
      const scheduled = await listing(a, { startsAt: '2098-01-01T00:00:00Z' });
      const draft = await listing(a, { productId: await product(server, a, { status: 'DRAFT' }) });
      const quiet = async (body: Record<string, unknown>): Promise<void> => {
        const res = await click(body);
        expect(res.status, res.text).to.equal(202);
        expect(res.json).to.deep.equal({ accepted: true });
      };
      await quiet({ listingId: uuidv7(), storeId: a.storeId });
      await quiet({ listingId: l.id, storeId: b.storeId, visitorId: 'v1' });
      await quiet({ listingId: l.id, storeId: a.storeId, productId: uuidv7(), visitorId: 'v2' });
      await quiet({ listingId: paused.id, storeId: a.storeId });
      await quiet({ listingId: scheduled.id, storeId: a.storeId });
      await quiet({ listingId: draft.id, storeId: a.storeId });
      for (const id of [l.id, paused.id, scheduled.id, draft.id]) expect(await get(a, id)).to.deep.include({ clicks: 0, spent: 0 });

      // The same visitor clicking again at once counts once; another visitor counts.
      await quiet({ listingId: l.id, storeId: a.storeId, visitorId: 'same', query: '' });
      await quiet({ listingId: l.id, storeId: a.storeId, visitorId: 'same' });
      expect(await get(a, l.id)).to.deep.include({ clicks: 1, spent: 1 });
      await quiet({ listingId: l.id, storeId: a.storeId, productId: l.productId, visitorId: 'other' });
      expect(await get(a, l.id)).to.deep.include({ clicks: 2, spent: 2 });
      // Without a visitor id the user agent stands in for it.
      await click({ listingId: l.id, storeId: a.storeId }, { 'User-Agent': 'agent-1' });
      await click({ listingId: l.id, storeId: a.storeId }, { 'User-Agent': 'agent-1' });
      expect(await get(a, l.id)).to.deep.include({ clicks: 3 });
      // No audit entry and no outbox row for counted clicks.
      expect(
        (await auditRows(server, a.owner.tenantId)).filter(
          (r) => r.action.startsWith('sponsored_listing.') && r.action !== 'sponsored_listing.create',
        ),
      ).to.deep.equal([]);
      expect((await storeEvents(a)).map((e) => e.payload.change)).to.deep.equal(['created', 'created', 'created', 'created']);
    });

    it('validates the click body and answers 404 for a store that does not exist', async () => {
      const m = await newMerchant();
      const l = await listing(m);
      expectProblem(await click({ listingId: l.id, storeId: uuidv7() }), 404, 'store_not_found');
      for (const body of [
        {},
        { storeId: m.storeId },
        { listingId: l.id },
        { listingId: 'x', storeId: m.storeId },
        { listingId: l.id, storeId: m.storeId, productId: 'x' },
        { listingId: l.id, storeId: m.storeId, query: 'q'.repeat(201) },
        { listingId: l.id, storeId: m.storeId, visitorId: '' },
        { listingId: l.id, storeId: m.storeId, visitorId: 'v'.repeat(101) },
        { listingId: l.id, storeId: m.storeId, price: 1 },
      ]) {
        expectProblem(await click(body), 400, 'validation_failed');
      }
      expect((await click({ listingId: l.id, storeId: m.storeId, query: 'q'.repeat(200), visitorId: 'v'.repeat(100) })).status).to.equal(
        202,
      );
      expect(await get(m, l.id)).to.deep.include({ clicks: 1 });
    });
  });

  describe('sponsoredCandidates', () => {
    it('normalises keywords and queries and matches whole words', () => {
      expect(normaliseSearchText('  Red   SHOES! ')).to.equal('red shoes');
      expect(normaliseSearchText('T-Shirt_XL')).to.equal('t shirt xl');
      expect(normaliseSearchText('ＴＶ ５５"')).to.equal('tv 55');
      expect(normaliseSearchText('Çanta Ünlü')).to.equal('çanta ünlü');
      expect(normaliseSearchText('...')).to.equal('');
      expect(keywordMatches('red shoe', 'cheap red shoe')).to.equal(true);
      expect(keywordMatches('red shoe', 'red shoes')).to.equal(false);
      expect(keywordMatches('red shoe', 'shoe red')).to.equal(false);
      expect(keywordMatches('shoe', 'shoe')).to.equal(true);
      expect(keywordMatches('hoe', 'shoe')).to.equal(false);
    });

    it('returns matching ACTIVE listings, best first, within the limit, and ends due ones first', async () => {
      const m = await newMerchant();
      const other = await newMerchant();
      const ds = server.runtime.dataSource;
      const shoe = await listing(m, { keywords: ['Red Shoe', 'sneaker'], costPerClick: 0.5 });
      const tshirt = await listing(m, { keywords: ['t-shirt'], costPerClick: 2 });
      const anything = await listing(m, { keywords: [], costPerClick: 0.5 });
      const cheap = await listing(m, { keywords: [], costPerClick: 0.1 });
      await listing(m, { keywords: [], costPerClick: 9, status: 'PAUSED' });
      await listing(m, { keywords: [], costPerClick: 9, startsAt: '2098-01-01T00:00:00Z' });
      await listing(m, { keywords: [], costPerClick: 9, productId: await product(server, m, { status: 'DRAFT' }) });
      const expiring = await listing(m, { keywords: [], costPerClick: 8, endsAt: '2099-01-01T00:00:00Z' });
      const spent = await listing(m, { keywords: [], costPerClick: 7, budget: 5 });
      await listing(other, { keywords: [], costPerClick: 50 });
      await db("UPDATE sponsored_listings SET starts_at = now() - interval '2 days', ends_at = now() - interval '1 second' WHERE id = $1", [
        expiring.id,
      ]);
      await db('UPDATE sponsored_listings SET spent = budget WHERE id = $1', [spent.id]);

      const ids = async (query: string, limit = 10): Promise<string[]> =>
        (await sponsoredCandidates(ds, m.storeId, query, limit)).map((c) => c.listingId);
      // Same cost: the older listing first.
      expect(await ids('cheap RED shoe')).to.deep.equal([shoe.id, anything.id, cheap.id]);
      expect(await ids('Blue T-Shirt')).to.deep.equal([tshirt.id, anything.id, cheap.id]);
      expect(await ids('tshirt')).to.deep.equal([anything.id, cheap.id]);
      expect(await ids('red shoes')).to.deep.equal([anything.id, cheap.id]);
      expect(await ids('SNEAKER')).to.deep.equal([shoe.id, anything.id, cheap.id]);
      expect(await ids('')).to.deep.equal([anything.id, cheap.id]);
      expect(await ids('t shirt red shoe', 2)).to.deep.equal([tshirt.id, shoe.id]);
      expect(await ids('t shirt', 0)).to.deep.equal([]);
      expect(await sponsoredCandidates(ds, 'not-a-uuid', 'x', 5)).to.deep.equal([]);
      const candidates = await sponsoredCandidates(ds.manager, m.storeId, 'sneaker', 1);
      expect(candidates).to.deep.equal([{ listingId: shoe.id, productId: shoe.productId }]);

      // The due listings were ended on the way, with one store event.
      const rows = await db('SELECT id, status, ended_reason FROM sponsored_listings WHERE id = ANY($1::uuid[]) ORDER BY id', [
        [expiring.id, spent.id],
      ]);
      expect(rows.map((r) => [r.id, r.status, r.ended_reason])).to.deep.equal([
        [expiring.id, 'ENDED', 'END_DATE'],
        [spent.id, 'ENDED', 'BUDGET'],
      ]);
      const ends = (await storeEvents(m)).filter((e) => e.payload.ended);
      expect(ends).to.have.length(1);
      expect([...ends[0]!.payload.ended].sort()).to.deep.equal([expiring.id, spent.id].sort());
    });
  });

  describe('in the public search', () => {
    it('changes the sponsored slot as soon as the store event of a write or of a spent budget is delivered', async () => {
      const m = await newMerchant();
      suite.addIndexedStore(m.storeId);
      const products: string[] = [];
      for (let i = 1; i <= 9; i += 1)
        products.push(
          await product(server, m, { title: `Desk Lamp ${i}`, price: String(i * 10), published_at: new Date(), status: 'PUBLISHED' }),
        );
      await indexHandler(server).indexer.syncProducts(products);
      const l = await listing(m, { productId: products[8], keywords: ['lamp'], costPerClick: 1, budget: 2 });
      const sponsoredIds = async (): Promise<string[]> => {
        const res = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${m.storeId}&q=desk+lamp&sort=price_asc&perPage=8`);
        expect(res.status, res.text).to.equal(200);
        return (res.json.items as Array<{ id: string; sponsored: boolean }>).filter((i) => i.sponsored).map((i) => i.id);
      };
      /** Delivers the store events, then waits until the search answer reflects them (the cache drop travels over Redis). */
      const settle = async (expected: string[]): Promise<void> => {
        expect(await deliverIndexRows(server, m.owner.tenantId)).to.deep.equal([]);
        let seen: string[] = [];
        await eventually(
          async () => JSON.stringify((seen = await sponsoredIds())) === JSON.stringify(expected),
          () => `sponsored ${JSON.stringify(expected)} in the search answer (last seen: ${JSON.stringify(seen)})`,
          5_000,
        );
      };

      await settle([products[8]!]);
      expect((await patch(m, l.id, { status: 'PAUSED' })).status).to.equal(200);
      await settle([]);
      expect((await patch(m, l.id, { status: 'ACTIVE' })).status).to.equal(200);
      await settle([products[8]!]);
      // Two clicks spend the budget; the click that ends the listing writes the store event.
      for (const visitorId of ['a', 'b']) await click({ listingId: l.id, storeId: m.storeId, productId: products[8], visitorId });
      expect(await get(m, l.id)).to.deep.include({ status: 'ENDED', endedReason: 'BUDGET', spent: 2 });
      await settle([]);
    });
  });
});
