/**
 * Storefront filter configuration: the default until a store saves one, replacing it (positions from
 * the order, enabled by default), validation of facets and price buckets (400 with field paths),
 * tenant isolation (404), API key scopes, and one audit entry and one outbox row per change (none for
 * a save that changes nothing).
 */
import { expect } from 'chai';
import { uuidv7 } from '../../storage/ids';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { apiKey, merchant, store, type Headers } from '../helpers/fixtures';
import { expectProblem } from '../helpers/accounts';

describe('storefront filter configuration', () => {
  let server: TestServer;
  apiSuite((started) => (server = started));

  const get = (h: Headers, storeId: string) => call(server, 'GET', `/api/v1/storefront/filter-config?storeId=${storeId}`, { headers: h });
  const put = (h: Headers, storeId: string, body: unknown) =>
    call(server, 'PUT', `/api/v1/storefront/filter-config?storeId=${storeId}`, { headers: h, body });

  async function writes(storeId: string): Promise<{ outbox: any[]; audit: any[] }> {
    const outbox = await server.runtime.dataSource.query(
      "SELECT topic, queue, aggregate_type FROM outbox WHERE aggregate_id = $1 AND topic LIKE 'filter_config.%' ORDER BY id",
      [storeId],
    );
    const audit = await server.runtime.dataSource.query(
      "SELECT action, resource_type, before, after FROM audit_log WHERE resource_id = $1 AND action LIKE 'filter_config.%' ORDER BY id",
      [storeId],
    );
    return { outbox, audit };
  }

  function expectFieldErrors(res: TestResponse, paths: string[]): void {
    expectProblem(res, 400, 'validation_failed');
    const got = (res.json.errors as Array<{ path: string }>).map((e) => e.path);
    for (const path of paths) expect(got, res.text).to.include(path);
  }

  const CONFIG = {
    facets: [
      { key: 'price', label: 'Price', display: 'range' },
      { key: 'option:size', label: 'Size', display: 'checkbox', enabled: false },
      { key: 'attr:Screen size', label: 'Screen', display: 'radio' },
      { key: 'vendor', label: 'Seller', display: 'checkbox', enabled: true },
    ],
    priceBuckets: [{ min: 0, max: 19.99, label: 'Under 20' }, { min: 19.99, max: 100 }, { min: 150 }],
  };

  it('answers the default configuration, with updatedAt null and no price buckets, for a store that saved none', async () => {
    const m = await merchant(server);
    const res = await get(m.headers, m.storeId);
    expect(res.status, res.text).to.equal(200);
    expect(res.json).to.deep.equal({
      storeId: m.storeId,
      facets: [
        { key: 'category', label: 'Category', display: 'checkbox', position: 0, enabled: true },
        { key: 'brand', label: 'Brand', display: 'checkbox', position: 1, enabled: true },
        { key: 'price', label: 'Price', display: 'range', position: 2, enabled: true },
        { key: 'rating', label: 'Rating', display: 'rating', position: 3, enabled: true },
        { key: 'inStock', label: 'In stock', display: 'toggle', position: 4, enabled: true },
        { key: 'discounted', label: 'On sale', display: 'toggle', position: 5, enabled: true },
      ],
      // No buckets configured: public search derives them from the store's prices (test/api/price-buckets.test.ts).
      priceBuckets: [],
      updatedAt: null,
    });
  });

  it('replaces the configuration (positions from the order), with one audit entry and one outbox row per change', async () => {
    const m = await merchant(server);
    const res = await put(m.headers, m.storeId, CONFIG);
    expect(res.status, res.text).to.equal(200);
    const expected = {
      storeId: m.storeId,
      facets: [
        { key: 'price', label: 'Price', display: 'range', position: 0, enabled: true },
        { key: 'option:size', label: 'Size', display: 'checkbox', position: 1, enabled: false },
        { key: 'attr:Screen size', label: 'Screen', display: 'radio', position: 2, enabled: true },
        { key: 'vendor', label: 'Seller', display: 'checkbox', position: 3, enabled: true },
      ],
      priceBuckets: [
        { min: 0, max: 19.99, label: 'Under 20' },
        { min: 19.99, max: 100 },
        { min: 150, max: null },
      ],
    };
    expect(res.json).to.deep.include(expected);
    expect(new Date(res.json.updatedAt).toISOString()).to.equal(res.json.updatedAt);
    expect((await get(m.headers, m.storeId)).json).to.deep.equal(res.json);
    let w = await writes(m.storeId);
    expect(w.outbox).to.deep.equal([{ topic: 'filter_config.updated', queue: 'index', aggregate_type: 'store' }]);
    expect(w.audit).to.have.length(1);
    expect(w.audit[0]).to.deep.include({ action: 'filter_config.update', resource_type: 'filter_config', before: null });
    expect(w.audit[0].after).to.deep.equal({ facets: expected.facets, priceBuckets: expected.priceBuckets });

    // The same configuration again: nothing changes, nothing is written.
    const same = await put(m.headers, m.storeId, CONFIG);
    expect(same.status).to.equal(200);
    expect(same.json).to.deep.equal(res.json);
    w = await writes(m.storeId);
    expect(w.outbox).to.have.length(1);
    expect(w.audit).to.have.length(1);

    // A real change: one more of each; empty lists are a valid configuration (no filters shown).
    const empty = await put(m.headers, m.storeId, { facets: [], priceBuckets: [] });
    expect(empty.status, empty.text).to.equal(200);
    expect(empty.json).to.deep.include({ facets: [], priceBuckets: [] });
    w = await writes(m.storeId);
    expect(w.outbox).to.have.length(2);
    expect(w.audit).to.have.length(2);
    expect(w.audit[1].before).to.deep.equal({ facets: expected.facets, priceBuckets: expected.priceBuckets });
    expect(w.audit[1].after).to.deep.equal({ facets: [], priceBuckets: [] });
  });

  it('validates facets (400 with field paths)', async () => {
    const m = await merchant(server);
    const facet = (f: Record<string, unknown>) => ({
      facets: [{ key: 'brand', label: 'Brand', display: 'checkbox', ...f }],
      priceBuckets: [],
    });
    for (const key of ['color', 'Brand', 'option:', 'attr: size', 'attr:size ', 'option:a:b', `attr:${'x'.repeat(61)}`, '']) {
      expectFieldErrors(await put(m.headers, m.storeId, facet({ key })), ['body.facets[0].key']);
    }
    expect((await put(m.headers, m.storeId, facet({ key: `attr:${'x'.repeat(60)}` }))).status).to.equal(200);
    expectFieldErrors(await put(m.headers, m.storeId, facet({ label: '' })), ['body.facets[0].label']);
    expectFieldErrors(await put(m.headers, m.storeId, facet({ label: 'l'.repeat(61) })), ['body.facets[0].label']);
    expectFieldErrors(await put(m.headers, m.storeId, facet({ display: 'dropdown' })), ['body.facets[0].display']);
    expectFieldErrors(await put(m.headers, m.storeId, facet({ enabled: 'yes please' })), ['body.facets[0].enabled']);
    expectFieldErrors(await put(m.headers, m.storeId, facet({ position: 3 })), ['body.facets[0].position']);
    const dup = {
      facets: [
        { key: 'brand', label: 'A', display: 'checkbox' },
        { key: 'brand', label: 'B', display: 'radio' },
      ],
      priceBuckets: [],
    };
    expectFieldErrors(await put(m.headers, m.storeId, dup), ['body.facets[1]']);
    const many = (n: number) => ({
      facets: Array.from({ length: n }, (_, i) => ({ key: `attr:a${i}`, label: `A${i}`, display: 'checkbox' })),
      priceBuckets: [],
    });
    expectFieldErrors(await put(m.headers, m.storeId, many(41)), ['body.facets']);
    expect((await put(m.headers, m.storeId, many(40))).status).to.equal(200);
    expectFieldErrors(await put(m.headers, m.storeId, { priceBuckets: [] }), ['body.facets']);
    expectFieldErrors(await put(m.headers, m.storeId, { facets: [], priceBuckets: [], extra: 1 }), ['body.extra']);
  });

  it('validates price buckets: ascending, non-overlapping, max above min, only the last open-ended (400 with field paths)', async () => {
    const m = await merchant(server);
    const buckets = (priceBuckets: unknown[]) => put(m.headers, m.storeId, { facets: [], priceBuckets });
    expectFieldErrors(await buckets([{ min: -1, max: 10 }]), ['body.priceBuckets[0].min']);
    expectFieldErrors(await buckets([{ max: 10 }]), ['body.priceBuckets[0].min']);
    expectFieldErrors(await buckets([{ min: 10, max: 10 }]), ['body.priceBuckets[0].max']);
    expectFieldErrors(await buckets([{ min: 10, max: 5 }]), ['body.priceBuckets[0].max']);
    expectFieldErrors(
      await buckets([
        { min: 0, max: 50 },
        { min: 40, max: 80 },
      ]),
      ['body.priceBuckets[1].min'],
    );
    expectFieldErrors(
      await buckets([
        { min: 50, max: 100 },
        { min: 0, max: 10 },
      ]),
      ['body.priceBuckets[1].min'],
    );
    expectFieldErrors(
      await buckets([
        { min: 0, max: null },
        { min: 10, max: 20 },
      ]),
      ['body.priceBuckets[0].max'],
    );
    expectFieldErrors(await buckets([{ min: 0 }, { min: 10 }]), ['body.priceBuckets[0].max']);
    expectFieldErrors(await buckets([{ min: 0, max: 10, label: '' }]), ['body.priceBuckets[0].label']);
    expectFieldErrors(await buckets([{ min: 0, max: 10, colour: 'red' }]), ['body.priceBuckets[0].colour']);
    const ladder = (n: number) => Array.from({ length: n }, (_, i) => ({ min: i * 10, max: i * 10 + 10 }));
    expectFieldErrors(await buckets(ladder(21)), ['body.priceBuckets']);
    const ok = await buckets(ladder(20));
    expect(ok.status, ok.text).to.equal(200);
    expect(ok.json.priceBuckets).to.have.length(20);
    // Gaps between buckets are allowed.
    expect(
      (
        await buckets([
          { min: 0, max: 10 },
          { min: 20, max: null },
        ])
      ).status,
    ).to.equal(200);
    expect((await writes(m.storeId)).audit).to.have.length(2);
  });

  it("answers 404 for another tenant's or an unknown store, and 409 for an archived one", async () => {
    const m = await merchant(server);
    const stranger = await merchant(server);
    for (const storeId of [m.storeId, uuidv7()]) {
      expectProblem(await get(stranger.headers, storeId), 404, 'store_not_found');
      expectProblem(await put(stranger.headers, storeId, CONFIG), 404, 'store_not_found');
    }
    expect((await writes(m.storeId)).audit).to.have.length(0);
    expectFieldErrors(await get(m.headers, 'not-a-uuid'), ['query.storeId']);
    expectProblem(await get({}, m.storeId), 401, 'unauthorized');
    await server.runtime.dataSource.query("UPDATE stores SET status = 'archived', is_default = false WHERE id = $1", [m.storeId]);
    expectProblem(await put(m.headers, m.storeId, CONFIG), 409, 'store_archived');
    expect((await get(m.headers, m.storeId)).status).to.equal(200);
  });

  it('lets API keys of the store with the catalog scope read and replace it, on their own store only', async () => {
    const m = await merchant(server);
    const key = (scopes: string[]) => apiKey(server, m, scopes);
    const writer = await key(['catalog:read', 'catalog:write']);
    expect((await put(writer, m.storeId, CONFIG)).status).to.equal(200);
    expect((await get(writer, m.storeId)).json.facets).to.have.length(4);
    const audit = await server.runtime.dataSource.query(
      "SELECT actor_type FROM audit_log WHERE resource_id = $1 AND action = 'filter_config.update'",
      [m.storeId],
    );
    expect(audit).to.deep.equal([{ actor_type: 'api_key' }]);
    const reader = await key(['catalog:read']);
    expectProblem(await put(reader, m.storeId, CONFIG), 403, 'insufficient_scope');
    const brands = await key(['brands:read']);
    expectProblem(await get(brands, m.storeId), 403, 'insufficient_scope');
    expectProblem(await get(writer, await store(server, m, { name: 'Other' })), 404, 'store_not_found');
  });
});
