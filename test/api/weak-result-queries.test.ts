/**
 * Weak-result queries and the readiness rule: a public search with words whose answer came only from
 * a looser pass (looseMatch) is counted once per search, cached or not, beside the zero-result
 * queries, and listed by GET /search-synonyms/weak-result-queries with the same labels, roles and
 * tenancy; a search of a store without an index, or whose first indexing is not finished, is counted
 * as neither.
 */
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem } from '../helpers/accounts';
import { apiKey, merchant, type Merchant } from '../helpers/fixtures';
import { deliverIndexRows, pendingIndexRows } from '../helpers/indexing';
import { eventually, sleep } from '../helpers/wait';
import { uuidv7 } from '../../storage/ids';
import { recordZeroResult, ZeroResultRecorder, type ZeroResultQueryView } from '../../api/search-synonyms/zero-result-queries.service';
import type { SearchEngineOptions, SearchOutcome } from '../../search/public-search';

describe('weak-result queries', function () {
  this.timeout(60_000);
  let server: TestServer;

  const suite = apiSuite((started) => (server = started));
  const newMerchant = async (): Promise<Merchant> => suite.addMerchant(await merchant(server), { indexed: true });
  const db = <T>(sql: string, params: unknown[]): Promise<T> => server.runtime.dataSource.query(sql, params);

  const drain = async (m: Merchant): Promise<void> => {
    expect(await deliverIndexRows(server, m.owner.tenantId)).to.deep.equal([]);
    expect(await pendingIndexRows(server, m.owner.tenantId)).to.equal(0);
  };
  async function product(m: Merchant, title: string, publish = true): Promise<string> {
    const created = await call(server, 'POST', '/api/v1/catalog/products', {
      headers: m.headers,
      body: { storeId: m.storeId, title, type: 'PHYSICAL', price: 120 },
    });
    expect(created.status, created.text).to.equal(201);
    if (publish) {
      const published = await call(server, 'POST', `/api/v1/catalog/products/${created.json.id}/publish`, { headers: m.headers });
      expect(published.status, published.text).to.equal(201);
    }
    return created.json.id;
  }
  const search = async (m: Merchant, q: string): Promise<{ total: number; looseMatch: boolean }> => {
    const res = await call(server, 'GET', `/api/v1/catalog/public/search?storeId=${m.storeId}&q=${encodeURIComponent(q)}`);
    expect(res.status, res.text).to.equal(200);
    return res.json;
  };
  const list = (kind: 'weak' | 'zero', m: Merchant, headers = m.headers, storeId = m.storeId) =>
    call(server, 'GET', `/api/v1/search-synonyms/${kind}-result-queries?storeId=${storeId}`, { headers });
  const items = async (kind: 'weak' | 'zero', m: Merchant): Promise<ZeroResultQueryView[]> => {
    const res = await list(kind, m);
    expect(res.status, res.text).to.equal(200);
    return res.json.items;
  };
  const counted = async (table: string, storeId: string): Promise<Array<[string, number]>> =>
    (
      await db<Array<{ query: string; count: number }>>(
        `SELECT query, count::int AS count FROM ${table} WHERE store_id = $1 ORDER BY query`,
        [storeId],
      )
    ).map((r) => [r.query, r.count]);

  /** Calls `fn` while the search engine hands every counted search to `seen` as well as to its recorder. */
  async function watchingOutcomes<T>(seen: Array<[string, string, SearchOutcome]>, fn: () => Promise<T>): Promise<T> {
    const engine = server.runtime.services.search!;
    // The engine's options are private; the test reads the recorder's hook to put it back afterwards.
    const original = (engine as unknown as { options: SearchEngineOptions }).options.recordQueryOutcome;
    engine.setOptions({
      recordQueryOutcome: async (storeId, q, outcome) => {
        seen.push([storeId, q, outcome]);
        await original?.(storeId, q, outcome);
      },
    });
    try {
      return await fn();
    } finally {
      engine.setOptions({ recordQueryOutcome: original });
    }
  }

  describe('counting', () => {
    it('counts a search answered only loosely as weak, once per search, cached or not; strict and zero answers are not weak', async () => {
      const m = await newMerchant();
      await product(m, 'Yoga Block');
      await drain(m);
      const seen: Array<[string, string, SearchOutcome]> = [];
      await watchingOutcomes(seen, async () => {
        const loose = await search(m, 'Yoga  Mat');
        expect(loose.total).to.be.greaterThan(0);
        expect(loose.looseMatch).to.equal(true);
        // The same search again comes from the cache, and is counted again.
        expect((await search(m, 'yoga mat')).looseMatch).to.equal(true);
        expect((await search(m, 'yoga')).looseMatch).to.equal(false);
        expect((await search(m, 'zorblax')).total).to.equal(0);
      });
      expect(seen).to.deep.equal([
        [m.storeId, 'Yoga  Mat', 'weak'],
        [m.storeId, 'yoga mat', 'weak'],
        [m.storeId, 'zorblax', 'zero'],
      ]);
      await eventually(async () => (await counted('weak_result_queries', m.storeId)).length === 1, 'the weak query to be written');
      await eventually(async () => (await counted('weak_result_queries', m.storeId))[0]?.[1] === 2, 'both searches to be counted');
      expect(await counted('weak_result_queries', m.storeId)).to.deep.equal([['yoga mat', 2]]);
      await eventually(async () => (await counted('zero_result_queries', m.storeId)).length === 1, 'the zero-result query to be written');
      expect(await counted('zero_result_queries', m.storeId)).to.deep.equal([['zorblax', 1]]);
    });

    it('keeps weak and zero counts of one query apart, normalised the same way, within the same per-store cap', async () => {
      const m = await newMerchant();
      const recorder = new ZeroResultRecorder(
        server.runtime.dataSource,
        (e) => expect.fail(String(e)),
        60_000,
        5_000,
        undefined,
        () => 2,
      );
      recorder.add(m.storeId, '  Red   LAMP ', undefined, 'weak');
      recorder.add(m.storeId, 'red lamp', undefined, 'weak');
      recorder.add(m.storeId, 'red lamp');
      await recorder.flush();
      expect(await counted('weak_result_queries', m.storeId)).to.deep.equal([['red lamp', 2]]);
      expect(await counted('zero_result_queries', m.storeId)).to.deep.equal([['red lamp', 1]]);
      for (const q of ['blue lamp', 'green lamp']) recorder.add(m.storeId, q, undefined, 'weak');
      await recorder.close();
      // A cap of two weak queries: the least recently seen one went; the zero-result list is its own.
      expect((await counted('weak_result_queries', m.storeId)).map(([q]) => q)).to.deep.equal(['blue lamp', 'green lamp']);
      expect(await counted('zero_result_queries', m.storeId)).to.deep.equal([['red lamp', 1]]);
    });
  });

  describe('readiness', () => {
    it('counts nothing while the store has no index', async () => {
      const m = await newMerchant();
      const seen: Array<[string, string, SearchOutcome]> = [];
      await watchingOutcomes(seen, async () => {
        expect((await search(m, 'anything at all')).total).to.equal(0);
        expect((await search(m, 'anything at all')).total).to.equal(0);
      });
      expect(seen).to.deep.equal([]);
    });

    it('counts nothing until the store’s first indexing is finished, then keeps counting', async () => {
      const m = await newMerchant();
      // A product waits for the indexer: the first indexing is not finished.
      await product(m, 'Walnut Shelf');
      await recordZeroResult(server.runtime.dataSource, m.storeId, 'oak table');
      await recordZeroResult(server.runtime.dataSource, m.storeId, 'oak table', undefined, 'weak');
      expect(await counted('zero_result_queries', m.storeId)).to.deep.equal([]);
      expect(await counted('weak_result_queries', m.storeId)).to.deep.equal([]);
      const readyAt = async (): Promise<Date | null> =>
        (await db<Array<{ at: Date | null }>>('SELECT search_ready_at AS at FROM stores WHERE id = $1', [m.storeId]))[0]!.at;
      expect(await readyAt()).to.equal(null);
      // An import of the store queued or running holds it back as well.
      await db(
        `INSERT INTO transfer_jobs (id, tenant_id, store_id, kind, state, actor_type) VALUES ($1, $2, $3, 'PRODUCT_IMPORT', 'RUNNING', 'user')`,
        [uuidv7(), m.owner.tenantId, m.storeId],
      );
      await drain(m);
      await recordZeroResult(server.runtime.dataSource, m.storeId, 'oak table');
      expect(await counted('zero_result_queries', m.storeId)).to.deep.equal([]);
      await db(`UPDATE transfer_jobs SET state = 'COMPLETED' WHERE store_id = $1`, [m.storeId]);
      await recordZeroResult(server.runtime.dataSource, m.storeId, 'oak table');
      expect(await counted('zero_result_queries', m.storeId)).to.deep.equal([['oak table', 1]]);
      expect(await readyAt()).to.be.instanceOf(Date);
      // Ready once is ready: later changes waiting for the indexer do not stop the counting.
      await product(m, 'Birch Stool');
      expect(await pendingIndexRows(server, m.owner.tenantId)).to.be.greaterThan(0);
      await recordZeroResult(server.runtime.dataSource, m.storeId, 'oak table', undefined, 'weak');
      expect(await counted('weak_result_queries', m.storeId)).to.deep.equal([['oak table', 1]]);
    });

    it('counts a public search of a store whose index exists only once its pending products are indexed', async () => {
      const fresh = await newMerchant();
      await product(fresh, 'Linen Shirt');
      await drain(fresh);
      await product(fresh, 'Linen Trousers');
      // The index exists (the shirt), the trousers wait for the indexer: not counted.
      expect((await search(fresh, 'zorblax')).total).to.equal(0);
      // Writes happen after the answer: time passes to show that nothing is written.
      await sleep(400);
      expect(await counted('zero_result_queries', fresh.storeId)).to.deep.equal([]);
      await drain(fresh);
      expect((await search(fresh, 'zorblax')).total).to.equal(0);
      await eventually(async () => (await counted('zero_result_queries', fresh.storeId)).length === 1, 'the search to be counted');
      expect(await counted('zero_result_queries', fresh.storeId)).to.deep.equal([['zorblax', 1]]);
    });
  });

  describe('GET /search-synonyms/weak-result-queries', () => {
    it('lists weak queries most frequent first with their labels, apart from the zero-result ones', async () => {
      const m = await newMerchant();
      await product(m, 'Yoga Block');
      await product(m, 'Camping Stove');
      await drain(m);
      const rule = await call(server, 'POST', '/api/v1/search-synonyms', {
        headers: m.headers,
        body: { storeId: m.storeId, type: 'ONE_WAY', input: 'cooker', synonyms: ['stove'] },
      });
      expect(rule.status, rule.text).to.equal(201);
      await drain(m);
      for (const q of ['yoga mat', 'Yoga Mat', 'camping cooker', 'stove unicorn'])
        await recordZeroResult(server.runtime.dataSource, m.storeId, q, undefined, 'weak');
      const got = await items('weak', m);
      expect(got.map((i) => [i.query, i.sample, i.count, i.answeredNow, i.answeredBy, i.answeredLoosely])).to.deep.equal([
        ['yoga mat', 'Yoga Mat', 2, false, null, true],
        ['stove unicorn', 'stove unicorn', 1, false, null, true],
        // Answered strictly now, through the rule only.
        ['camping cooker', 'camping cooker', 1, true, 'SYNONYM', false],
      ]);
      for (const item of got)
        expect(item).to.have.all.keys(
          'query',
          'sample',
          'count',
          'firstSeenAt',
          'lastSeenAt',
          'answeredNow',
          'answeredBy',
          'answeredLoosely',
        );
      expect(await items('zero', m)).to.deep.equal([]);
    });

    it('labels a query the way the public search answers it now: strictly (answered), only loosely, or not at all', async () => {
      const m = await newMerchant();
      await product(m, 'Yoga Block');
      await product(m, 'Material Bag');
      await drain(m);
      const queries = ['yoga', 'yoga blocks', 'yoga mat', 'mat', 'block zorblax', 'zorblax'];
      for (const q of queries) await recordZeroResult(server.runtime.dataSource, m.storeId, q, undefined, 'weak');
      const labels = new Map((await items('weak', m)).map((i) => [i.query, [i.answeredNow, i.answeredLoosely]]));
      for (const q of queries) {
        const answer = await search(m, q);
        const strict = answer.total > 0 && !answer.looseMatch;
        expect(labels.get(q), q).to.deep.equal([strict, answer.looseMatch]);
      }
      // "mat" is matched whole by the public search, never as the start of "Material".
      expect(labels.get('mat')).to.deep.equal([false, false]);
      expect(labels.get('yoga mat')).to.deep.equal([false, true]);
    });

    it('answers readers of the tenant and keys with search-synonyms:read; 404 for another tenant, 400, 401', async () => {
      const m = await newMerchant();
      const stranger = await newMerchant();
      await recordZeroResult(server.runtime.dataSource, m.storeId, 'secret query', undefined, 'weak');
      const reader = await apiKey(server, m, ['search-synonyms:read']);
      const res = await list('weak', m, reader);
      expect(res.status, res.text).to.equal(200);
      expect(res.json.items.map((i: ZeroResultQueryView) => i.query)).to.deep.equal(['secret query']);
      const otherScope = await list('weak', m, await apiKey(server, m, ['catalog:read']));
      expect(otherScope.status, otherScope.text).to.equal(403);
      expectProblem(await list('weak', stranger, stranger.headers, m.storeId), 404, 'store_not_found');
      expectProblem(await list('weak', m, m.headers, uuidv7()), 404, 'store_not_found');
      expectProblem(await list('weak', m, m.headers, 'not-a-uuid'), 400, 'validation_failed');
      expectProblem(
        await call(server, 'GET', `/api/v1/search-synonyms/weak-result-queries?storeId=${m.storeId}&limit=5`, { headers: m.headers }),
        400,
        'validation_failed',
      );
      expect((await call(server, 'GET', `/api/v1/search-synonyms/weak-result-queries?storeId=${m.storeId}`)).status).to.equal(401);
      expect(await items('weak', stranger)).to.deep.equal([]);
    });
  });
});
