/**
 * Zero-result queries: normalisation and counting (recordZeroResult), the merchant list (ordering,
 * cap, fields, tenancy), and the labels measured against the store's Meilisearch index: a query is
 * answered once published products match every word (PRODUCT when they do without the synonym rules,
 * SYNONYM when only a rule makes them match), answeredLoosely when only fewer words match; null when
 * Meilisearch is unreachable. Weak-result queries and readiness: weak-result-queries.test.ts.
 */
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem } from '../helpers/accounts';
import { merchant, type Merchant } from '../helpers/fixtures';
import { deliverIndexRows, pendingIndexRows } from '../helpers/indexing';
import { uuidv7 } from '../../storage/ids';
import {
  listZeroResultQueries,
  normaliseQuery,
  recordZeroResult,
  ZeroResultRecorder,
  ZERO_RESULT_STORE_CAP,
  type ZeroResultQueryView,
} from '../../api/search-synonyms/zero-result-queries.service';
import type { RequestContext } from '../../storage/request-context';
import { createSearchTransport } from '../../search/search-transport';
import type { DataSource } from 'typeorm';
import { eventually } from '../helpers/wait';

/** One item of the merchant list, as the API answers it. */
type Item = ZeroResultQueryView;

describe('zero-result queries', function () {
  this.timeout(60_000);
  let server: TestServer;

  const suite = apiSuite((started) => (server = started));

  const newMerchant = async (): Promise<Merchant> => suite.addMerchant(await merchant(server), { indexed: true });

  const list = (m: Merchant, storeId = m.storeId) =>
    call(server, 'GET', `/api/v1/search-synonyms/zero-result-queries?storeId=${storeId}`, { headers: m.headers });
  const items = async (m: Merchant): Promise<Item[]> => {
    const res = await list(m);
    expect(res.status, res.text).to.equal(200);
    return res.json.items;
  };
  const record = (storeId: string, q: string) => recordZeroResult(server.runtime.dataSource, storeId, q);
  const drain = async (m: Merchant): Promise<void> => {
    expect(await deliverIndexRows(server, m.owner.tenantId)).to.deep.equal([]);
    expect(await pendingIndexRows(server, m.owner.tenantId)).to.equal(0);
  };
  async function publish(m: Merchant, title: string): Promise<string> {
    const created = await call(server, 'POST', '/api/v1/catalog/products', {
      headers: m.headers,
      body: { storeId: m.storeId, title, type: 'PHYSICAL', price: 120 },
    });
    expect(created.status, created.text).to.equal(201);
    const published = await call(server, 'POST', `/api/v1/catalog/products/${created.json.id}/publish`, { headers: m.headers });
    expect(published.status, published.text).to.equal(201);
    return created.json.id;
  }

  describe('normaliseQuery', () => {
    it('applies NFKC, lowercases, collapses whitespace, trims and keeps at most 200 characters', () => {
      expect(normaliseQuery('  Blue   SHIRT ')).to.equal('blue shirt');
      expect(normaliseQuery('\tred\n\u00a0 dress\u3000')).to.equal('red dress');
      expect(normaliseQuery('ＢＬＵＥ　ｓｈｉｒｔ')).to.equal('blue shirt');
      expect(normaliseQuery('\ufb01ne Caf\u0065\u0301')).to.equal('fine caf\u00e9');
      expect(normaliseQuery('Straße')).to.equal('straße');
      expect(normaliseQuery('   ')).to.equal('');
      expect(normaliseQuery('')).to.equal('');
      expect(normaliseQuery('a'.repeat(250))).to.have.length(200);
      expect(normaliseQuery(`${'b'.repeat(199)} c`)).to.equal('b'.repeat(199));
      expect(Array.from(normaliseQuery('😀'.repeat(201)))).to.have.length(200);
    });
  });

  describe('recordZeroResult', () => {
    it('counts searches per store and normalised query, keeping the last raw query and first/last seen', async () => {
      const m = await newMerchant();
      const other = await newMerchant();
      await record(m.storeId, '  Blue   SHIRT ');
      await record(m.storeId, 'blue shirt');
      await server.runtime.dataSource.transaction((manager) => recordZeroResult(manager, m.storeId, 'BLUE Shirt'));
      await record(m.storeId, '   ');
      await record(m.storeId, '');
      await record(other.storeId, 'blue shirt');
      await record(uuidv7(), 'nobody home');
      const rows: Array<{ query: string; sample: string; count: string; tenant_id: string; first_seen_at: Date; last_seen_at: Date }> =
        await server.runtime.dataSource.query(
          'SELECT query, sample, count::text, tenant_id, first_seen_at, last_seen_at FROM zero_result_queries WHERE store_id = $1',
          [m.storeId],
        );
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include({ query: 'blue shirt', sample: 'BLUE Shirt', count: '3', tenant_id: m.owner.tenantId });
      expect(rows[0]!.last_seen_at.getTime()).to.be.at.least(rows[0]!.first_seen_at.getTime());
      const [otherRow]: Array<{ count: string }> = await server.runtime.dataSource.query(
        'SELECT count::text FROM zero_result_queries WHERE store_id = $1',
        [other.storeId],
      );
      expect(otherRow!.count).to.equal('1');
      const [orphans]: Array<{ n: number }> = await server.runtime.dataSource.query(
        "SELECT count(*)::int AS n FROM zero_result_queries WHERE query = 'nobody home'",
        [],
      );
      expect(orphans!.n).to.equal(0);
    });
  });

  describe('ZeroResultRecorder (the api process)', () => {
    const rowsOf = (
      storeId: string,
    ): Promise<Array<{ query: string; sample: string; count: string; first_seen_at: Date; last_seen_at: Date }>> =>
      server.runtime.dataSource.query(
        'SELECT query, sample, count::text, first_seen_at, last_seen_at FROM zero_result_queries WHERE store_id = $1 ORDER BY query',
        [storeId],
      );

    it('gathers searches in memory and writes them together, adding to what is stored', async () => {
      const m = await newMerchant();
      await record(m.storeId, 'red dress');
      const errors: unknown[] = [];
      const recorder = new ZeroResultRecorder(server.runtime.dataSource, (e) => errors.push(e), 60_000);
      const early = new Date(Date.now() - 60_000);
      recorder.add(m.storeId, 'Red  Dress', early);
      recorder.add(m.storeId, 'red dress');
      recorder.add(m.storeId, 'GREEN hat');
      recorder.add(m.storeId, '   ');
      recorder.add(uuidv7(), 'nobody home');
      // Nothing is written before the flush.
      expect((await rowsOf(m.storeId)).map((r) => [r.query, r.count])).to.deep.equal([['red dress', '1']]);
      await recorder.close();
      const rows = await rowsOf(m.storeId);
      expect(rows.map((r) => [r.query, r.sample, r.count])).to.deep.equal([
        ['green hat', 'GREEN hat', '1'],
        ['red dress', 'red dress', '3'],
      ]);
      expect(rows[0]!.first_seen_at.getTime()).to.equal(rows[0]!.last_seen_at.getTime());
      expect(errors).to.deep.equal([]);
    });

    it('writes on its own after the flush interval, and keeps the counts of a failed write for the next one', async () => {
      const m = await newMerchant();
      let failNext = true;
      const errors: unknown[] = [];
      const db = {
        query: (sql: string, params: unknown[]) => {
          if (failNext) {
            failNext = false;
            return Promise.reject(new Error('database away'));
          }
          return server.runtime.dataSource.query(sql, params);
        },
      } as unknown as DataSource;
      const recorder = new ZeroResultRecorder(db, (e) => errors.push(e), 20);
      recorder.add(m.storeId, 'blue shirt');
      recorder.add(m.storeId, 'blue shirt');
      await eventually(() => errors.length === 1, 'the first write to fail');
      recorder.add(m.storeId, 'Blue Shirt');
      await eventually(async () => (await rowsOf(m.storeId)).length === 1, 'the counts to be written after the failure');
      await recorder.close();
      expect((await rowsOf(m.storeId)).map((r) => [r.query, r.sample, r.count])).to.deep.equal([['blue shirt', 'Blue Shirt', '3']]);
    });

    it('drops (and reports once) a row the database refuses for its content, and writes every other row', async () => {
      const [a, b] = [await newMerchant(), await newMerchant()];
      const errors: unknown[] = [];
      const dropped: Array<{ storeId: string; query: string }> = [];
      const recorder = new ZeroResultRecorder(
        server.runtime.dataSource,
        (e) => errors.push(e),
        60_000,
        5_000,
        (_e, entry) => dropped.push({ storeId: entry.storeId, query: entry.query }),
      );
      recorder.add(a.storeId, 'before');
      // U+0000 and an unpaired surrogate: jsonb refuses both (SQLSTATE 22P05, 22P02).
      recorder.add(b.storeId, 'glorp\u0000quux');
      recorder.add(b.storeId, 'lone \ud800 half');
      recorder.add(a.storeId, 'after');
      recorder.add(b.storeId, 'other store');
      await recorder.flush();
      expect((await rowsOf(a.storeId)).map((r) => [r.query, r.count])).to.deep.equal([
        ['after', '1'],
        ['before', '1'],
      ]);
      expect((await rowsOf(b.storeId)).map((r) => [r.query, r.count])).to.deep.equal([['other store', '1']]);
      expect(dropped).to.have.deep.members([
        { storeId: b.storeId, query: 'glorp\u0000quux' },
        { storeId: b.storeId, query: 'lone \ud800 half' },
      ]);
      expect(errors).to.deep.equal([]);
      // Nothing is kept for a next write: the next flush writes only what is new.
      recorder.add(a.storeId, 'before');
      await recorder.close();
      expect((await rowsOf(a.storeId)).map((r) => [r.query, r.count])).to.deep.equal([
        ['after', '1'],
        ['before', '2'],
      ]);
      expect(dropped).to.have.length(2);
    });
  });

  describe('the per-store cap', () => {
    const queriesOf = async (storeId: string): Promise<Array<[string, string]>> =>
      (
        (await server.runtime.dataSource.query(
          'SELECT query, count::text FROM zero_result_queries WHERE store_id = $1 ORDER BY last_seen_at, query',
          [storeId],
        )) as Array<{ query: string; count: string }>
      ).map((r) => [r.query, r.count]);
    const at = (minutesAgo: number): Date => new Date(Date.now() - minutesAgo * 60_000);

    it('evicts the least recently seen queries of a full store; a query seen again stays; other stores keep theirs', async () => {
      const [m, other] = [await newMerchant(), await newMerchant()];
      const errors: unknown[] = [];
      const recorder = new ZeroResultRecorder(
        server.runtime.dataSource,
        (e) => errors.push(e),
        60_000,
        5_000,
        undefined,
        () => 3,
      );
      recorder.add(m.storeId, 'alpha', at(50));
      recorder.add(m.storeId, 'bravo', at(40));
      recorder.add(m.storeId, 'charlie', at(30));
      recorder.add(m.storeId, 'delta', at(20));
      for (const q of ['one', 'two', 'three']) recorder.add(other.storeId, q, at(60));
      await recorder.flush();
      // Four new queries for a cap of three: the least recently seen (alpha) is gone.
      expect(await queriesOf(m.storeId)).to.deep.equal([
        ['bravo', '1'],
        ['charlie', '1'],
        ['delta', '1'],
      ]);
      // bravo is searched again, then a new query arrives: charlie is now the least recently seen.
      recorder.add(m.storeId, 'bravo', at(10));
      recorder.add(m.storeId, 'echo', at(5));
      await recorder.flush();
      expect(await queriesOf(m.storeId)).to.deep.equal([
        ['delta', '1'],
        ['bravo', '2'],
        ['echo', '1'],
      ]);
      // Counting known queries of a full store evicts nothing.
      recorder.add(m.storeId, 'delta', at(1));
      await recorder.close();
      expect((await queriesOf(m.storeId)).map(([q]) => q)).to.deep.equal(['bravo', 'echo', 'delta']);
      expect(await queriesOf(other.storeId)).to.have.length(3);
      expect(errors).to.deep.equal([]);
    });

    it('holds for single writes too, with the default cap unless one is given', async () => {
      const m = await newMerchant();
      for (const q of ['first', 'second', 'third']) await recordZeroResult(server.runtime.dataSource, m.storeId, q, 2);
      expect((await queriesOf(m.storeId)).map(([q]) => q)).to.deep.equal(['second', 'third']);
      expect(ZERO_RESULT_STORE_CAP).to.equal(10_000);
      expect(server.runtime.config.search.zeroResultQueriesPerStore).to.equal(ZERO_RESULT_STORE_CAP);
    });

    it('cuts a store far over its cap back in one write (e.g. after the cap was lowered)', async () => {
      const m = await newMerchant();
      await server.runtime.dataSource.query(
        `INSERT INTO zero_result_queries (store_id, tenant_id, query, sample, count, first_seen_at, last_seen_at)
         SELECT $1, $2, 'query ' || g, 'Query ' || g, 1, now() - g * interval '1 minute', now() - g * interval '1 minute'
           FROM generate_series(1, 50) g`,
        [m.storeId, m.owner.tenantId],
      );
      await recordZeroResult(server.runtime.dataSource, m.storeId, 'newest', 5);
      expect((await queriesOf(m.storeId)).map(([q]) => q)).to.deep.equal(['query 4', 'query 3', 'query 2', 'query 1', 'newest']);
    });
  });

  describe('GET /search-synonyms/zero-result-queries', () => {
    it('lists the most frequent first, then the most recent, with every field', async () => {
      const m = await newMerchant();
      for (const q of ['rare', 'often', 'often', 'often', 'twice', 'Twice', 'later']) await record(m.storeId, q);
      // Same count (1): 'later' was seen after 'rare'.
      await server.runtime.dataSource.query(
        "UPDATE zero_result_queries SET first_seen_at = now() - interval '2 hours', last_seen_at = now() - interval '1 hour' WHERE store_id = $1 AND query = 'rare'",
        [m.storeId],
      );
      const got = await items(m);
      expect(got.map((i) => [i.query, i.count])).to.deep.equal([
        ['often', 3],
        ['twice', 2],
        ['later', 1],
        ['rare', 1],
      ]);
      expect(got[1]).to.include({ sample: 'Twice', answeredNow: false, answeredBy: null, answeredLoosely: false });
      for (const item of got) {
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
        expect(Date.parse(item.firstSeenAt)).to.be.at.most(Date.parse(item.lastSeenAt));
      }
    });

    it('answers at most 100 queries, the most frequent ones', async () => {
      const m = await newMerchant();
      await server.runtime.dataSource.query(
        `INSERT INTO zero_result_queries (store_id, tenant_id, query, sample, count)
         SELECT $1, $2, 'query ' || g, 'Query ' || g, g FROM generate_series(1, 105) g`,
        [m.storeId, m.owner.tenantId],
      );
      const got = await items(m);
      expect(got).to.have.length(100);
      expect(got[0]).to.include({ query: 'query 105', count: 105 });
      expect(got[99]).to.include({ query: 'query 6', count: 6 });
    });

    it('answers an empty list for a store without zero-result queries', async () => {
      const m = await newMerchant();
      expect(await items(m)).to.deep.equal([]);
    });

    it('validates storeId and answers 404 for another tenant or an unknown store, 401 without a token', async () => {
      const m = await newMerchant();
      const stranger = await newMerchant();
      await record(m.storeId, 'secret query');
      expectProblem(await list(stranger, m.storeId), 404, 'store_not_found');
      expectProblem(await list(m, uuidv7()), 404, 'store_not_found');
      expectProblem(
        await call(server, 'GET', '/api/v1/search-synonyms/zero-result-queries', { headers: m.headers }),
        400,
        'validation_failed',
      );
      expectProblem(await list(m, 'not-a-uuid'), 400, 'validation_failed');
      expectProblem(
        await call(server, 'GET', `/api/v1/search-synonyms/zero-result-queries?storeId=${m.storeId}&limit=5`, { headers: m.headers }),
        400,
        'validation_failed',
      );
      expect((await call(server, 'GET', `/api/v1/search-synonyms/zero-result-queries?storeId=${m.storeId}`)).status).to.equal(401);
      expect(await items(stranger)).to.deep.equal([]);
      expect((await items(m)).map((i) => i.query)).to.deep.equal(['secret query']);
    });

    it('says a query is answered (PRODUCT) once a matching product is published and indexed', async () => {
      const m = await newMerchant();
      await record(m.storeId, 'Walnut Bookshelf');
      await record(m.storeId, 'unicorn saddle');
      expect((await items(m)).map((i) => [i.query, i.answeredNow, i.answeredBy])).to.deep.equal([
        ['unicorn saddle', false, null],
        ['walnut bookshelf', false, null],
      ]);
      // A draft is not enough.
      const draft = await call(server, 'POST', '/api/v1/catalog/products', {
        headers: m.headers,
        body: { storeId: m.storeId, title: 'Walnut Bookshelf', type: 'PHYSICAL', price: 90 },
      });
      expect(draft.status, draft.text).to.equal(201);
      await drain(m);
      expect((await items(m)).find((i) => i.query === 'walnut bookshelf')).to.include({ answeredNow: false, answeredBy: null });
      const published = await call(server, 'POST', `/api/v1/catalog/products/${draft.json.id}/publish`, { headers: m.headers });
      expect(published.status, published.text).to.equal(201);
      await drain(m);
      const got = await items(m);
      expect(got.find((i) => i.query === 'walnut bookshelf')).to.include({ answeredNow: true, answeredBy: 'PRODUCT' });
      expect(got.find((i) => i.query === 'unicorn saddle')).to.include({ answeredNow: false, answeredBy: null });
      // Another store's products never answer this store's queries.
      const other = await newMerchant();
      await publish(other, 'Unicorn Saddle');
      await drain(other);
      expect((await items(m)).find((i) => i.query === 'unicorn saddle')).to.include({ answeredNow: false, answeredBy: null });
    });

    it('says SYNONYM when an active rule makes it match, and not while the rule is inactive', async () => {
      const m = await newMerchant();
      await publish(m, 'Velvet Couch');
      await drain(m);
      await record(m.storeId, 'Settee');
      await record(m.storeId, 'chesterfield');
      // Same count: the most recently seen first.
      expect((await items(m)).map((i) => [i.query, i.answeredNow])).to.deep.equal([
        ['chesterfield', false],
        ['settee', false],
      ]);

      // An inactive rule does not count.
      const inactive = await call(server, 'POST', '/api/v1/search-synonyms', {
        headers: m.headers,
        body: { storeId: m.storeId, type: 'ONE_WAY', input: 'chesterfield', synonyms: ['couch'], isActive: false },
      });
      expect(inactive.status, inactive.text).to.equal(201);
      const rule = await call(server, 'POST', '/api/v1/search-synonyms', {
        headers: m.headers,
        body: { storeId: m.storeId, type: 'MULTI_WAY', terms: ['settee', 'couch'] },
      });
      expect(rule.status, rule.text).to.equal(201);
      await drain(m);
      let got = await items(m);
      expect(got.find((i) => i.query === 'settee')).to.include({ answeredNow: true, answeredBy: 'SYNONYM' });
      expect(got.find((i) => i.query === 'chesterfield')).to.include({ answeredNow: false, answeredBy: null });

      // Activating the one-way rule answers the other query by synonym too.
      expect(
        (await call(server, 'PATCH', `/api/v1/search-synonyms/${inactive.json.id}`, { headers: m.headers, body: { isActive: true } }))
          .status,
      ).to.equal(200);
      await drain(m);
      got = await items(m);
      expect(got.find((i) => i.query === 'chesterfield')).to.include({ answeredNow: true, answeredBy: 'SYNONYM' });

      // Measured, not guessed from dates: seen again after the rule, it is still answered only by the rule.
      await record(m.storeId, 'settee');
      got = await items(m);
      expect(got[0]).to.include({ query: 'settee', count: 2, answeredNow: true, answeredBy: 'SYNONYM' });
    });

    it('labels each query against the current index: products, only a synonym, only loosely, or nothing', async () => {
      const m = await newMerchant();
      await publish(m, 'Camping Tent');
      await publish(m, 'Gas Stove');
      for (const body of [
        // stove and tent trigger rules, yet products answer them without the rules.
        { storeId: m.storeId, type: 'MULTI_WAY', terms: ['stove', 'cooker'] },
        { storeId: m.storeId, type: 'ONE_WAY', input: 'shelter', synonyms: ['tent'] },
        { storeId: m.storeId, type: 'ONE_WAY', input: 'tent', synonyms: ['marquee'] },
      ]) {
        const rule = await call(server, 'POST', '/api/v1/search-synonyms', { headers: m.headers, body });
        expect(rule.status, rule.text).to.equal(201);
      }
      await drain(m);
      for (const q of ['Tent', 'stove', 'Cooker', 'gas cooker', 'shelter', 'unicorn saddle', 'stove unicorn']) await record(m.storeId, q);
      const label = (i: Item) => [i.answeredNow, i.answeredBy, i.answeredLoosely];
      const got = new Map((await items(m)).map((i) => [i.query, label(i)]));
      expect(Object.fromEntries(got)).to.deep.equal({
        tent: [true, 'PRODUCT', false],
        stove: [true, 'PRODUCT', false],
        // A quoted word is matched literally: were synonyms applied to it, these would say PRODUCT.
        cooker: [true, 'SYNONYM', false],
        'gas cooker': [true, 'SYNONYM', false],
        shelter: [true, 'SYNONYM', false],
        'unicorn saddle': [false, null, false],
        // Not every word matches: only the loose pass answers it, which is no answer.
        'stove unicorn': [false, null, true],
      });
      // Another store's index answers nothing of this one's: its own products and rules only.
      const other = await newMerchant();
      await record(other.storeId, 'cooker');
      expect((await items(other)).map(label)).to.deep.equal([[false, null, false]]);
    });

    it('answers answeredNow null when Meilisearch cannot be reached, instead of failing', async () => {
      const m = await newMerchant();
      await record(m.storeId, 'lamp');
      // The list asks Meilisearch over the process's search connection (the context's services): here one to nowhere.
      const unreachable = createSearchTransport('http://127.0.0.1:9', 'no-key', 1_000);
      const ctx: RequestContext = {
        requestId: 'test',
        tenantId: m.owner.tenantId,
        actor: { type: 'user', id: m.owner.userId, tenantRole: 'owner' },
        dataSource: server.runtime.dataSource,
        manager: server.runtime.dataSource.manager,
        inTransaction: false,
        services: { ...server.runtime.services, meiliSearch: unreachable },
      };
      try {
        const got = await listZeroResultQueries(ctx, m.storeId);
        expect(got.items).to.have.length(1);
        expect(got.items[0]).to.include({ query: 'lamp', count: 1, answeredNow: null, answeredBy: null, answeredLoosely: null });
      } finally {
        unreachable.close();
      }
    });
  });
});
