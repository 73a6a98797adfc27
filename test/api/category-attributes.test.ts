/**
 * Category attributes: read and replace the set — ids kept for names that stay, enum values rules,
 * case-insensitive unique names, bounds, tenant isolation, API keys bound to their store, and one
 * audit entry plus one outbox row per change (none for a no-op or refused write).
 */
import { expect } from 'chai';
import { uuidv7 } from '../../storage/ids';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem } from '../helpers/accounts';
import { apiKey, category, createProduct, merchant, store, type Merchant } from '../helpers/fixtures';

describe('category attributes', () => {
  let server: TestServer;
  apiSuite((started) => (server = started));

  /** A merchant with a category 'Shirts' (no attributes yet). */
  async function merchantWithCategory(): Promise<Merchant & { categoryId: string }> {
    const m = await merchant(server);
    return { ...m, categoryId: await category(server, m, { name: 'Shirts' }) };
  }

  const get = (id: string, headers: Record<string, string>): Promise<TestResponse> =>
    call(server, 'GET', `/api/v1/categories/${id}/attributes`, { headers });
  const set = (id: string, headers: Record<string, string>, attributes: unknown): Promise<TestResponse> =>
    call(server, 'PUT', `/api/v1/categories/${id}/attributes`, { headers, body: { attributes } });

  async function writes(id: string): Promise<{ audit: number; outbox: number }> {
    const [{ audit }] = await server.runtime.dataSource.query(
      "SELECT count(*)::int AS audit FROM audit_log WHERE resource_id = $1 AND action = 'category.set_attributes'",
      [id],
    );
    const [{ outbox }] = await server.runtime.dataSource.query(
      "SELECT count(*)::int AS outbox FROM outbox WHERE aggregate_type = 'category' AND aggregate_id = $1 AND topic = 'category.updated'",
      [id],
    );
    return { audit, outbox };
  }

  it('starts empty, replaces the set in order with defaults, and records one change', async () => {
    const m = await merchantWithCategory();
    expect((await get(m.categoryId, m.headers)).json).to.deep.equal({ items: [] });
    const res = await set(m.categoryId, m.headers, [
      { name: 'Size', type: 'enum', values: ['S', 'M', 'L'], required: true, filterable: true },
      { name: 'Material', type: 'text' },
      { name: 'Weight', type: 'number', filterable: true },
      { name: 'Organic', type: 'boolean' },
    ]);
    expect(res.status, res.text).to.equal(200);
    expect(res.json.items.map((a: Record<string, unknown>) => ({ ...a, id: undefined }))).to.deep.equal([
      { id: undefined, name: 'Size', type: 'enum', values: ['S', 'M', 'L'], required: true, filterable: true, position: 0 },
      { id: undefined, name: 'Material', type: 'text', values: [], required: false, filterable: false, position: 1 },
      { id: undefined, name: 'Weight', type: 'number', values: [], required: false, filterable: true, position: 2 },
      { id: undefined, name: 'Organic', type: 'boolean', values: [], required: false, filterable: false, position: 3 },
    ]);
    expect((await get(m.categoryId, m.headers)).json).to.deep.equal(res.json);
    expect(await writes(m.categoryId)).to.deep.equal({ audit: 1, outbox: 1 });
    const [entry] = await server.runtime.dataSource.query(
      "SELECT before, after FROM audit_log WHERE resource_id = $1 AND action = 'category.set_attributes'",
      [m.categoryId],
    );
    expect(entry.before.attributes).to.deep.equal([]);
    expect(entry.after.attributes).to.have.length(4);
  });

  it('keeps the ids of attributes whose name stays, removes the others, and skips no-op writes', async () => {
    const m = await merchantWithCategory();
    const first = (
      await set(m.categoryId, m.headers, [
        { name: 'Size', type: 'text' },
        { name: 'Colour', type: 'text' },
      ])
    ).json.items;
    const res = await set(m.categoryId, m.headers, [
      { name: 'colour', type: 'enum', values: ['red', 'blue'] },
      { name: 'Fit', type: 'text' },
    ]);
    expect(res.status, res.text).to.equal(200);
    expect(res.json.items[0]).to.include({ id: first[1].id, name: 'colour', type: 'enum', position: 0 });
    expect(res.json.items[1].id).to.not.be.oneOf(first.map((a: { id: string }) => a.id));
    expect((await get(m.categoryId, m.headers)).json.items.map((a: { name: string }) => a.name)).to.deep.equal(['colour', 'Fit']);
    expect(await writes(m.categoryId)).to.deep.equal({ audit: 2, outbox: 2 });
    // The same set again: no change, nothing recorded.
    const same = await set(m.categoryId, m.headers, [
      { name: 'colour', type: 'enum', values: ['red', 'blue'] },
      { name: 'Fit', type: 'text' },
    ]);
    expect(same.json).to.deep.equal(res.json);
    expect(await writes(m.categoryId)).to.deep.equal({ audit: 2, outbox: 2 });
    // Clearing the set is a change.
    expect((await set(m.categoryId, m.headers, [])).json).to.deep.equal({ items: [] });
    expect(await writes(m.categoryId)).to.deep.equal({ audit: 3, outbox: 3 });
  });

  it('validates names, types and values, writing nothing', async () => {
    const m = await merchantWithCategory();
    const cases: Array<[unknown, string]> = [
      [[{ name: '', type: 'text' }], 'body.attributes[0].name'],
      [[{ name: 'x'.repeat(101), type: 'text' }], 'body.attributes[0].name'],
      [[{ name: 'A', type: 'date' }], 'body.attributes[0].type'],
      [[{ name: 'A' }], 'body.attributes[0].type'],
      [[{ name: 'A', type: 'enum' }], 'body.attributes[0].values'],
      [[{ name: 'A', type: 'enum', values: [] }], 'body.attributes[0].values'],
      [[{ name: 'A', type: 'enum', values: ['x', 'x'] }], 'body.attributes[0].values[1]'],
      [[{ name: 'A', type: 'enum', values: [''] }], 'body.attributes[0].values[0]'],
      [[{ name: 'A', type: 'enum', values: ['y'.repeat(101)] }], 'body.attributes[0].values[0]'],
      [[{ name: 'A', type: 'enum', values: Array.from({ length: 201 }, (_, i) => `v${i}`) }], 'body.attributes[0].values'],
      [[{ name: 'A', type: 'text', values: ['x'] }], 'body.attributes[0].values'],
      [[{ name: 'A', type: 'text', required: 'yes' }], 'body.attributes[0].required'],
      [[{ name: 'A', type: 'text', extra: true }], 'body.attributes[0].extra'],
      [
        [
          { name: 'Size', type: 'text' },
          { name: 'SIZE', type: 'number' },
        ],
        'body.attributes[1]',
      ],
      [Array.from({ length: 101 }, (_, i) => ({ name: `a${i}`, type: 'text' })), 'body.attributes'],
      [undefined, 'body.attributes'],
    ];
    for (const [attributes, path] of cases) {
      const res = await set(m.categoryId, m.headers, attributes);
      expect(res.status, String(JSON.stringify(attributes)).slice(0, 200)).to.equal(400);
      expect(
        res.json.errors.map((e: { path: string }) => e.path),
        String(JSON.stringify(attributes)).slice(0, 200),
      ).to.include(path);
    }
    expect(await writes(m.categoryId)).to.deep.equal({ audit: 0, outbox: 0 });
    // The bounds themselves are accepted.
    const max = await set(m.categoryId, m.headers, [
      { name: 'x'.repeat(100), type: 'enum', values: Array.from({ length: 200 }, (_, i) => `v${i}`) },
      ...Array.from({ length: 99 }, (_, i) => ({ name: `a${i}`, type: 'text' })),
    ]);
    expect(max.status, max.text).to.equal(200);
    expect(max.json.items).to.have.length(100);
  });

  it('answers 404 for unknown and foreign categories, and keeps API keys to their store', async () => {
    const m = await merchantWithCategory();
    const stranger = await merchantWithCategory();
    expectProblem(await get(uuidv7(), m.headers), 404, 'category_not_found');
    expectProblem(await set(uuidv7(), m.headers, []), 404, 'category_not_found');
    expectProblem(await get(m.categoryId, stranger.headers), 404, 'category_not_found');
    expectProblem(await set(m.categoryId, stranger.headers, [{ name: 'Hacked', type: 'text' }]), 404, 'category_not_found');
    expect((await get('nope', m.headers)).status).to.equal(400);
    expect((await get(m.categoryId, m.headers)).json.items).to.deep.equal([]);

    // An API key of another store of the same tenant cannot reach this category.
    const key = await apiKey(server, m, ['category-attributes:write'], await store(server, m));
    expectProblem(await set(m.categoryId, key, [{ name: 'Size', type: 'text' }]), 404, 'store_not_found');
    // A key of the category's own store can.
    const ownKey = await apiKey(server, m, ['category-attributes:write']);
    expect((await set(m.categoryId, ownKey, [{ name: 'Size', type: 'text' }])).status).to.equal(200);
    expect(await writes(m.categoryId)).to.deep.equal({ audit: 1, outbox: 1 });
  });

  describe('GET /products/{id}/category-attributes/validate', () => {
    const validate = (id: string, headers: Record<string, string>): Promise<TestResponse> =>
      call(server, 'GET', `/api/v1/products/${id}/category-attributes/validate`, { headers });

    it('reports missing required, invalid and unknown values of a stored product, writing nothing', async () => {
      const m = await merchantWithCategory();
      expect(
        (
          await set(m.categoryId, m.headers, [
            { name: 'Size', type: 'enum', values: ['S', 'M', 'L'], required: true },
            { name: 'Cotton', type: 'boolean', required: true },
            { name: 'Weight', type: 'number' },
          ])
        ).status,
      ).to.equal(200);
      const created = await createProduct(server, m, { title: 'Tee', categoryIds: [m.categoryId], attributes: { Size: 'M' } });
      const report = await validate(created.id, m.headers);
      expect(report.status, report.text).to.equal(200);
      expect(report.json).to.deep.equal({ productId: created.id, valid: false, missing: ['Cotton'], invalid: [], unknown: [] });

      // Values stored before the attributes changed can break them: the report names each.
      await server.runtime.dataSource.query(
        `UPDATE products SET attributes = '{"Size": "XXL", "Cotton": true, "Colour": "red"}'::jsonb WHERE id = $1`,
        [created.id],
      );
      const stale = await validate(created.id, m.headers);
      expect(stale.json.valid).to.equal(false);
      expect(stale.json.missing).to.deep.equal([]);
      expect(stale.json.invalid).to.deep.equal([{ path: 'attributes.Size', message: 'Size must be one of S, M, L' }]);
      expect(stale.json.unknown).to.deep.equal(['Colour']);

      await server.runtime.dataSource.query(
        `UPDATE products SET attributes = '{"Size": "L", "Cotton": true, "Weight": 180}'::jsonb WHERE id = $1`,
        [created.id],
      );
      expect((await validate(created.id, m.headers)).json).to.deep.equal({
        productId: created.id,
        valid: true,
        missing: [],
        invalid: [],
        unknown: [],
      });
      const [{ n }] = await server.runtime.dataSource.query(
        "SELECT count(*)::int AS n FROM audit_log WHERE resource_id = $1 AND action LIKE '%validate%'",
        [created.id],
      );
      expect(n).to.equal(0);
    });

    it("answers 404 for an unknown product and for another tenant's product, and 400 for a malformed id", async () => {
      const m = await merchantWithCategory();
      const created = await createProduct(server, m, { title: 'Tee' });
      expectProblem(await validate(uuidv7(), m.headers), 404, 'product_not_found');
      const stranger = await merchantWithCategory();
      expectProblem(await validate(created.id, stranger.headers), 404, 'product_not_found');
      expectProblem(await validate('nope', m.headers), 400, 'validation_failed');
      expect((await validate(created.id, m.headers)).json).to.deep.equal({
        productId: created.id,
        valid: true,
        missing: [],
        invalid: [],
        unknown: [],
      });
    });
  });
});
