/**
 * Search synonym rules: CRUD with bounds, tenancy, list search and paging, audit and outbox rows per
 * write, storeSynonyms() output, and end to end: a rule makes the store's index find a product by a synonym.
 */
import { expect } from 'chai';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { auditRows, expectProblem } from '../helpers/accounts';
import { merchant, type Merchant } from '../helpers/fixtures';
import { deliverIndexRows, pendingIndexRows } from '../helpers/indexing';
import { uuidv7 } from '../../storage/ids';
import { storeSynonyms } from '../../search/index-settings';
import { storeIndexUid } from '../../search/index-names';
import { mergeSynonyms } from '../../search/unit-synonyms';

describe('search synonyms', function () {
  this.timeout(60_000);
  let server: TestServer;

  const suite = apiSuite((started) => (server = started));

  const newMerchant = async (): Promise<Merchant> => suite.addMerchant(await merchant(server), { indexed: true });

  const create = (m: Merchant, body: Record<string, unknown>) =>
    call(server, 'POST', '/api/v1/search-synonyms', { headers: m.headers, body: { storeId: m.storeId, ...body } });

  async function outboxRows(
    tenantId: string,
  ): Promise<Array<{ topic: string; aggregate_type: string; aggregate_id: string; queue: string }>> {
    return server.runtime.dataSource.query(
      "SELECT queue, topic, aggregate_type, aggregate_id FROM outbox WHERE tenant_id = $1 AND aggregate_type IN ('search_synonym', 'store') ORDER BY id",
      [tenantId],
    );
  }

  it('creates, reads, updates and deletes rules of both types, with one audit entry and two outbox rows per write', async () => {
    const m = await newMerchant();
    const multi = await create(m, { type: 'MULTI_WAY', terms: ['  Sofa ', 'COUCH', 'settee'] });
    expect(multi.status, multi.text).to.equal(201);
    expect(multi.json).to.deep.include({
      storeId: m.storeId,
      type: 'MULTI_WAY',
      terms: ['sofa', 'couch', 'settee'],
      input: null,
      synonyms: null,
      isActive: true,
    });
    const one = await create(m, { type: 'ONE_WAY', input: 'Phone', synonyms: ['smartphone', 'mobile phone'], isActive: false });
    expect(one.status, one.text).to.equal(201);
    expect(one.json).to.deep.include({
      type: 'ONE_WAY',
      terms: null,
      input: 'phone',
      synonyms: ['smartphone', 'mobile phone'],
      isActive: false,
    });

    const got = await call(server, 'GET', `/api/v1/search-synonyms/${one.json.id}`, { headers: m.headers });
    expect(got.status).to.equal(200);
    expect(got.json).to.deep.equal(one.json);

    const patched = await call(server, 'PATCH', `/api/v1/search-synonyms/${one.json.id}`, {
      headers: m.headers,
      body: { synonyms: ['cellphone'], isActive: true },
    });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.json).to.deep.include({ input: 'phone', synonyms: ['cellphone'], isActive: true });
    // A PATCH that changes nothing writes nothing.
    const same = await call(server, 'PATCH', `/api/v1/search-synonyms/${one.json.id}`, { headers: m.headers, body: { isActive: true } });
    expect(same.status).to.equal(200);

    const del = await call(server, 'DELETE', `/api/v1/search-synonyms/${multi.json.id}`, { headers: m.headers });
    expect(del.status).to.equal(204);
    expectProblem(
      await call(server, 'GET', `/api/v1/search-synonyms/${multi.json.id}`, { headers: m.headers }),
      404,
      'search_synonym_not_found',
    );

    const audit = (await auditRows(server, m.owner.tenantId)).filter((r) => r.resource_type === 'search_synonym');
    expect(audit.map((r) => [r.action, r.resource_id])).to.deep.equal([
      ['search_synonym.create', multi.json.id],
      ['search_synonym.create', one.json.id],
      ['search_synonym.update', one.json.id],
      ['search_synonym.delete', multi.json.id],
    ]);
    const rows = await outboxRows(m.owner.tenantId);
    expect(rows.map((r) => [r.queue, r.topic, r.aggregate_type, r.aggregate_id])).to.deep.equal([
      ['index', 'search_synonym.created', 'search_synonym', multi.json.id],
      ['index', 'search_synonyms.updated', 'store', m.storeId],
      ['index', 'search_synonym.created', 'search_synonym', one.json.id],
      ['index', 'search_synonyms.updated', 'store', m.storeId],
      ['index', 'search_synonym.updated', 'search_synonym', one.json.id],
      ['index', 'search_synonyms.updated', 'store', m.storeId],
      ['index', 'search_synonym.deleted', 'search_synonym', multi.json.id],
      ['index', 'search_synonyms.updated', 'store', m.storeId],
    ]);
  });

  it('rejects rules out of bounds with field paths and writes nothing', async () => {
    const m = await newMerchant();
    const many = Array.from({ length: 21 }, (_, i) => `term${i}`);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: 'MULTI_WAY', terms: ['only'] }, 'body.terms'],
      [{ type: 'MULTI_WAY', terms: many }, 'body.terms'],
      [{ type: 'MULTI_WAY', terms: ['a', 'x'.repeat(101)] }, 'body.terms[1]'],
      [{ type: 'MULTI_WAY', terms: ['a', '   '] }, 'body.terms[1]'],
      [{ type: 'MULTI_WAY', terms: ['Sofa', 'sofa '] }, 'body.terms[1]'],
      [{ type: 'MULTI_WAY', terms: ['a', 'b'], input: 'c' }, 'body.input'],
      [{ type: 'ONE_WAY', input: 'phone', synonyms: [] }, 'body.synonyms'],
      [{ type: 'ONE_WAY', input: 'phone', synonyms: many }, 'body.synonyms'],
      [{ type: 'ONE_WAY', synonyms: ['mobile'] }, 'body.input'],
      [{ type: 'ONE_WAY', input: 'phone', synonyms: ['mobile'], terms: ['a', 'b'] }, 'body.terms'],
      [{ type: 'ONE_WAY', input: 'Phone', synonyms: ['phone'] }, 'body.synonyms'],
      [{ type: 'SOMETIMES', terms: ['a', 'b'] }, 'body.type'],
    ];
    for (const [body, path] of cases) {
      const res = await create(m, body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).to.equal(400);
      expect(
        res.json.errors.map((e: { path: string }) => e.path),
        JSON.stringify(body),
      ).to.include(path);
    }
    const ok = await create(m, { type: 'MULTI_WAY', terms: ['a', 'x'.repeat(100)] });
    expect(ok.status, ok.text).to.equal(201);
    const wrongField = await call(server, 'PATCH', `/api/v1/search-synonyms/${ok.json.id}`, { headers: m.headers, body: { input: 'b' } });
    expect(wrongField.status).to.equal(400);
    expect(wrongField.json.errors.map((e: { path: string }) => e.path)).to.deep.equal(['body.input']);
    expect((await call(server, 'PATCH', `/api/v1/search-synonyms/${ok.json.id}`, { headers: m.headers, body: {} })).status).to.equal(400);
    expect(
      (await call(server, 'PATCH', `/api/v1/search-synonyms/${ok.json.id}`, { headers: m.headers, body: { terms: ['one'] } })).status,
    ).to.equal(400);
    expect((await outboxRows(m.owner.tenantId)).length).to.equal(2);
  });

  it("answers 404 for unknown rules and for another tenant's store or rule", async () => {
    const m = await newMerchant();
    const other = await newMerchant();
    const rule = await create(m, { type: 'MULTI_WAY', terms: ['a', 'b'] });
    const unknown = uuidv7();
    expectProblem(await call(server, 'GET', `/api/v1/search-synonyms/${unknown}`, { headers: m.headers }), 404, 'search_synonym_not_found');
    expectProblem(
      await call(server, 'PATCH', `/api/v1/search-synonyms/${unknown}`, { headers: m.headers, body: { isActive: false } }),
      404,
      'search_synonym_not_found',
    );
    expectProblem(
      await call(server, 'DELETE', `/api/v1/search-synonyms/${unknown}`, { headers: m.headers }),
      404,
      'search_synonym_not_found',
    );
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { isActive: false }],
      ['DELETE', undefined],
    ] as const) {
      const res = await call(server, method, `/api/v1/search-synonyms/${rule.json.id}`, { headers: other.headers, body });
      expect(res.status, `${method}: ${res.text}`).to.equal(404);
    }
    expect(
      (
        await call(server, 'POST', '/api/v1/search-synonyms', {
          headers: other.headers,
          body: { storeId: m.storeId, type: 'MULTI_WAY', terms: ['a', 'b'] },
        })
      ).status,
    ).to.equal(404);
    expect((await call(server, 'GET', `/api/v1/search-synonyms?storeId=${m.storeId}`, { headers: other.headers })).status).to.equal(404);
    expect((await call(server, 'GET', `/api/v1/search-synonyms/${rule.json.id}`, { headers: m.headers })).json.isActive).to.equal(true);
  });

  it('lists rules with search and cursor paging', async () => {
    const m = await newMerchant();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create(m, { type: 'MULTI_WAY', terms: [`shoe${i}`, `sneaker${i}`] })).json.id);
    ids.push((await create(m, { type: 'ONE_WAY', input: 'laptop', synonyms: ['notebook computer'] })).json.id);
    const list = (query: string) => call(server, 'GET', `/api/v1/search-synonyms?storeId=${m.storeId}${query}`, { headers: m.headers });

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await list(`&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status, res.text).to.equal(200);
      expect(res.json.items.length).to.be.at.most(2);
      seen.push(...res.json.items.map((r: { id: string }) => r.id));
      cursor = res.json.nextCursor;
    } while (cursor);
    expect(seen).to.deep.equal(ids);

    const found = await list('&search=SNEAKER3');
    expect(found.json.items.map((r: { id: string }) => r.id)).to.deep.equal([ids[3]]);
    expect((await list('&search=notebook')).json.items.map((r: { id: string }) => r.id)).to.deep.equal([ids[5]]);
    expect((await list('&search=lapt')).json.items.map((r: { id: string }) => r.id)).to.deep.equal([ids[5]]);
    expect((await list('&search=%25')).json.items).to.deep.equal([]);
    expect((await list('&limit=0')).status).to.equal(400);
    expect((await list('&limit=101')).status).to.equal(400);
    expect((await list('&cursor=not-a-cursor')).status).to.equal(400);
    expect((await list(`&search=${'x'.repeat(201)}`)).status).to.equal(400);
  });

  it('storeSynonyms() maps multi-way terms to each other and one-way inputs to their synonyms, from active rules only, after the built-ins', async () => {
    const m = await newMerchant();
    await create(m, { type: 'MULTI_WAY', terms: ['sofa', 'couch', 'settee'] });
    await create(m, { type: 'ONE_WAY', input: 'phone', synonyms: ['smartphone', 'mobile phone'] });
    await create(m, { type: 'MULTI_WAY', terms: ['tv', 'television'], isActive: false });
    const builtIns = mergeSynonyms([]);
    expect(builtIns).to.have.property('gallon');
    expect(await storeSynonyms(server.runtime.dataSource, m.storeId)).to.deep.equal({
      ...builtIns,
      couch: ['settee', 'sofa'],
      phone: ['mobile phone', 'smartphone'],
      settee: ['couch', 'sofa'],
      sofa: ['couch', 'settee'],
    });
    expect(await storeSynonyms(server.runtime.dataSource.manager, uuidv7())).to.deep.equal(builtIns);
  });

  it("makes the store's search find a product by a synonym once the outbox rows are delivered", async () => {
    const m = await newMerchant();
    const drain = async (): Promise<void> => {
      expect(await deliverIndexRows(server, m.owner.tenantId)).to.deep.equal([]);
      expect(await pendingIndexRows(server, m.owner.tenantId)).to.equal(0);
    };
    const search = async (q: string): Promise<string[]> =>
      (await server.runtime.meiliAdmin.index(storeIndexUid(m.storeId)).search(q)).hits.map((h) => h.id as string);

    const product = await call(server, 'POST', '/api/v1/catalog/products', {
      headers: m.headers,
      body: { storeId: m.storeId, title: 'Velvet Couch', type: 'PHYSICAL', price: 499 },
    });
    expect(product.status, product.text).to.equal(201);
    const published = await call(server, 'POST', `/api/v1/catalog/products/${product.json.id}/publish`, { headers: m.headers });
    expect(published.status, published.text).to.equal(201);
    await drain();
    expect(await search('couch')).to.deep.equal([product.json.id]);
    expect(await search('sofa')).to.deep.equal([]);

    const rule = await create(m, { type: 'MULTI_WAY', terms: ['sofa', 'couch'] });
    expect(rule.status, rule.text).to.equal(201);
    const oneWay = await create(m, { type: 'ONE_WAY', input: 'living room seat', synonyms: ['couch'] });
    expect(oneWay.status, oneWay.text).to.equal(201);
    await drain();
    expect(await server.runtime.meiliAdmin.index(storeIndexUid(m.storeId)).getSynonyms()).to.deep.equal({
      ...mergeSynonyms([]),
      couch: ['sofa'],
      'living room seat': ['couch'],
      sofa: ['couch'],
    });
    expect(await search('sofa')).to.deep.equal([product.json.id]);
    expect(await search('living room seat')).to.deep.equal([product.json.id]);

    // Deactivating the rule takes the synonym away again.
    expect(
      (await call(server, 'PATCH', `/api/v1/search-synonyms/${rule.json.id}`, { headers: m.headers, body: { isActive: false } })).status,
    ).to.equal(200);
    await drain();
    expect(await search('sofa')).to.deep.equal([]);
  });
});
