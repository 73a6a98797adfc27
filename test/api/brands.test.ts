/**
 * Brands: list, create, update, delete, bulk set-active, CSV export and import — validation bounds,
 * slugs (derived, unique per store: 409), tenant isolation (another tenant's store or brand is 404,
 * an API key stays on its store), and exactly one audit entry and one outbox row per brand changed
 * (none for a write that changes nothing or is refused). CSV: round trip into a fresh store, formula
 * neutralisation, all-or-nothing imports.
 */
import { expect } from 'chai';
import { uuidv7 } from '../../storage/ids';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { addMember, auditRows, expectProblem } from '../helpers/accounts';
import { apiKey, merchant, store, type Headers, type Merchant } from '../helpers/fixtures';

describe('brands', () => {
  let server: TestServer;
  apiSuite((started) => (server = started));

  const create = (h: Headers, body: Record<string, unknown>) => call(server, 'POST', '/api/v1/catalog/brands', { headers: h, body });
  const list = (h: Headers, storeId: string) => call(server, 'GET', `/api/v1/catalog/brands?storeId=${storeId}`, { headers: h });
  const patch = (h: Headers, id: string, body: Record<string, unknown>) =>
    call(server, 'PATCH', `/api/v1/catalog/brands/${id}`, { headers: h, body });
  const remove = (h: Headers, id: string) => call(server, 'DELETE', `/api/v1/catalog/brands/${id}`, { headers: h });
  const bulk = (h: Headers, body: Record<string, unknown>) =>
    call(server, 'POST', '/api/v1/catalog/brands/bulk/set-active', { headers: h, body });
  const exportCsv = (h: Headers, storeId: string) =>
    call(server, 'GET', `/api/v1/catalog/brands/export?storeId=${storeId}`, { headers: h });
  const importCsv = (h: Headers, storeId: string, csv: string) =>
    call(server, 'POST', '/api/v1/catalog/brands/import', { headers: h, body: { storeId, csv } });

  async function brand(m: Merchant, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
    const res = await create(m.headers, { storeId: m.storeId, name: `Brand ${uuidv7().slice(-6)}`, ...body });
    expect(res.status, res.text).to.equal(201);
    return res.json;
  }

  /** Outbox rows and audit entries written for a resource. */
  async function writes(id: string): Promise<{
    outbox: Array<{ topic: string; queue: string; aggregate_type: string }>;
    audit: Array<{ action: string; before: any; after: any }>;
  }> {
    const outbox = await server.runtime.dataSource.query(
      'SELECT topic, queue, aggregate_type FROM outbox WHERE aggregate_id = $1 ORDER BY id',
      [id],
    );
    const audit = await server.runtime.dataSource.query('SELECT action, before, after FROM audit_log WHERE resource_id = $1 ORDER BY id', [
      id,
    ]);
    return { outbox, audit };
  }

  async function brandCount(storeId: string): Promise<number> {
    const [row] = await server.runtime.dataSource.query('SELECT count(*)::int AS n FROM brands WHERE store_id = $1', [storeId]);
    return row.n;
  }

  function expectFieldErrors(res: TestResponse, paths: string[]): void {
    expectProblem(res, 400, 'validation_failed');
    const got = (res.json.errors as Array<{ path: string }>).map((e) => e.path);
    for (const path of paths) expect(got, res.text).to.include(path);
  }

  const FIELDS = ['id', 'name', 'slug', 'description', 'logoUrl', 'websiteUrl', 'isActive', 'createdAt', 'updatedAt'];

  describe('POST /catalog/brands and GET /catalog/brands', () => {
    it("creates a brand (201) with one audit entry and one outbox row, and lists the store's brands by name", async () => {
      const m = await merchant(server);
      const res = await create(m.headers, {
        storeId: m.storeId,
        name: 'Zeta Tools',
        slug: 'zeta',
        description: 'Hand tools since 1901.',
        logoUrl: 'https://cdn.example.test/zeta.png',
        websiteUrl: 'http://zeta.example.test',
      });
      expect(res.status, res.text).to.equal(201);
      expect(Object.keys(res.json)).to.have.members(FIELDS);
      expect(res.json).to.include({
        name: 'Zeta Tools',
        slug: 'zeta',
        description: 'Hand tools since 1901.',
        logoUrl: 'https://cdn.example.test/zeta.png',
        websiteUrl: 'http://zeta.example.test',
        isActive: true,
      });
      expect(new Date(res.json.createdAt).toISOString()).to.equal(res.json.createdAt);
      const alpha = await brand(m, { name: 'alpha', isActive: false });
      expect(alpha).to.include({ slug: 'alpha', isActive: false, description: null, logoUrl: null, websiteUrl: null });
      await brand(m, { name: 'Mid' });

      const listed = await list(m.headers, m.storeId);
      expect(listed.status, listed.text).to.equal(200);
      expect(Object.keys(listed.json)).to.deep.equal(['items']);
      expect(listed.json.items.map((b: any) => b.name)).to.deep.equal(['alpha', 'Mid', 'Zeta Tools']);
      expect(listed.json.items[2]).to.deep.equal(res.json);

      const w = await writes(res.json.id);
      expect(w.outbox).to.deep.equal([{ topic: 'brand.created', queue: 'index', aggregate_type: 'brand' }]);
      expect(w.audit).to.have.length(1);
      expect(w.audit[0]).to.deep.include({ action: 'brand.create', before: null });
      expect(w.audit[0]!.after).to.include({ storeId: m.storeId, name: 'Zeta Tools', slug: 'zeta' });
      const actors = (await auditRows(server, m.owner.tenantId)).filter((a) => a.resource_id === res.json.id);
      expect(actors[0]).to.include({ actor_type: 'user', actor_id: m.owner.userId, resource_type: 'brand' });
    });

    it('derives the slug from the name, appending -2, -3… until it is free in the store', async () => {
      const m = await merchant(server);
      expect((await brand(m, { name: 'Ünïcode  & Sons!' })).slug).to.equal('unicode-sons');
      expect((await brand(m, { name: 'Unicode Sons' })).slug).to.equal('unicode-sons-2');
      expect((await brand(m, { name: 'unicode sons' })).slug).to.equal('unicode-sons-3');
      expect((await brand(m, { name: '***' })).slug).to.equal('brand');
      // Another store has slugs of its own.
      const other = await store(server, m);
      const res = await create(m.headers, { storeId: other, name: 'Unicode Sons' });
      expect(res.json.slug).to.equal('unicode-sons');
    });

    it('refuses a slug already used in the store (409 slug_taken) and writes nothing', async () => {
      const m = await merchant(server);
      await brand(m, { name: 'Acme', slug: 'acme' });
      const res = await create(m.headers, { storeId: m.storeId, name: 'Acme again', slug: 'acme' });
      expectProblem(res, 409, 'slug_taken');
      expect(res.json.errors).to.deep.equal([{ path: 'body.slug', message: 'slug is already taken in the store' }]);
      expect(await brandCount(m.storeId)).to.equal(1);
      // A mixed-case slug already in the table (e.g. written before the rule) still collides case-insensitively.
      await server.runtime.dataSource.query("UPDATE brands SET slug = 'ACME' WHERE store_id = $1", [m.storeId]);
      expectProblem(await create(m.headers, { storeId: m.storeId, name: 'Acme', slug: 'acme' }), 409, 'slug_taken');
    });

    it('validates the bounds of every field (400 with field paths)', async () => {
      const m = await merchant(server);
      const base = { storeId: m.storeId, name: 'Ok' };
      expectFieldErrors(await create(m.headers, { ...base, name: '' }), ['body.name']);
      expectFieldErrors(await create(m.headers, { ...base, name: '   ' }), ['body.name']);
      expectFieldErrors(await create(m.headers, { ...base, name: 'x'.repeat(121) }), ['body.name']);
      expect((await create(m.headers, { ...base, name: 'x'.repeat(120) })).status).to.equal(201);
      for (const slug of ['Bad', 'a b', 'a--b', '-a', 'a-', '', 'ä', 'a'.repeat(121)]) {
        expectFieldErrors(await create(m.headers, { ...base, slug }), ['body.slug']);
      }
      expect((await create(m.headers, { ...base, slug: 'a'.repeat(120) })).status).to.equal(201);
      expect((await create(m.headers, { ...base, slug: '9' })).status).to.equal(201);
      expectFieldErrors(await create(m.headers, { ...base, description: 'd'.repeat(5001) }), ['body.description']);
      expect((await create(m.headers, { ...base, description: 'd'.repeat(5000) })).status).to.equal(201);
      for (const url of ['ftp://example.test/x.png', 'javascript:alert(1)', 'not a url', `https://example.test/${'a'.repeat(2048)}`]) {
        expectFieldErrors(await create(m.headers, { ...base, logoUrl: url, websiteUrl: url }), ['body.logoUrl', 'body.websiteUrl']);
      }
      expectFieldErrors(await create(m.headers, { ...base, isActive: 'maybe' }), ['body.isActive']);
      expectFieldErrors(await create(m.headers, { ...base, tenantId: uuidv7() }), ['body.tenantId']);
      expectFieldErrors(await create(m.headers, { name: 'No store' }), ['body.storeId']);
      expectFieldErrors(await create(m.headers, { ...base, storeId: 'nope' }), ['body.storeId']);
      expectFieldErrors(await list(m.headers, 'nope'), ['query.storeId']);
    });

    it("answers 404 for another tenant's store or an unknown one, and 401 without a token", async () => {
      const m = await merchant(server);
      const stranger = await merchant(server);
      await brand(m, { name: 'Private' });
      for (const storeId of [m.storeId, uuidv7()]) {
        expectProblem(await list(stranger.headers, storeId), 404, 'store_not_found');
        expectProblem(await create(stranger.headers, { storeId, name: 'Intruder' }), 404, 'store_not_found');
      }
      expect(await brandCount(m.storeId)).to.equal(1);
      expectProblem(await list({}, m.storeId), 401, 'unauthorized');
    });

    it('lets staff and API keys of the store with the brands scope edit brands; keys stay on their store', async () => {
      const m = await merchant(server);
      const staff = await addMember(server, m.owner, 'staff');
      expect((await create(staff.headers, { storeId: m.storeId, name: 'By staff' })).status).to.equal(201);

      const key = await apiKey(server, m, ['brands:write', 'brands:read']);
      const byKey = await create(key, { storeId: m.storeId, name: 'By key' });
      expect(byKey.status, byKey.text).to.equal(201);
      expect((await list(key, m.storeId)).json.items).to.have.length(2);

      const sibling = await store(server, m);
      const siblingBrand = (await create(m.headers, { storeId: sibling, name: 'Sibling' })).json;
      expectProblem(await create(key, { storeId: sibling, name: 'Elsewhere' }), 404, 'store_not_found');
      expectProblem(await patch(key, siblingBrand.id, { name: 'Hijack' }), 404, 'brand_not_found');
      expectProblem(await remove(key, siblingBrand.id), 404, 'brand_not_found');

      const reader = await apiKey(server, m, ['brands:read']);
      expectProblem(await create(reader, { storeId: m.storeId, name: 'No scope' }), 403, 'insufficient_scope');
      const catalogOnly = await apiKey(server, m, ['catalog:read']);
      expectProblem(await list(catalogOnly, m.storeId), 403, 'insufficient_scope');
    });

    it('refuses changes to an archived store (409 store_archived)', async () => {
      const m = await merchant(server);
      const second = await store(server, m);
      const b = (await create(m.headers, { storeId: second, name: 'Old' })).json;
      await server.runtime.dataSource.query("UPDATE stores SET status = 'archived', is_default = false WHERE id = $1", [second]);
      expectProblem(await create(m.headers, { storeId: second, name: 'New' }), 409, 'store_archived');
      expectProblem(await patch(m.headers, b.id, { name: 'Renamed' }), 409, 'store_archived');
      expect((await list(m.headers, second)).status).to.equal(200);
    });
  });

  describe('PATCH /catalog/brands/{id}', () => {
    it('changes the given fields, clears optional ones with null, and audits the change once', async () => {
      const m = await merchant(server);
      const b = await brand(m, {
        name: 'Old',
        slug: 'old',
        description: 'text',
        logoUrl: 'https://example.test/l.png',
        websiteUrl: 'https://example.test',
      });
      const res = await patch(m.headers, b.id, { name: 'New', slug: 'new', description: null, logoUrl: null, isActive: false });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.include({
        id: b.id,
        name: 'New',
        slug: 'new',
        description: null,
        logoUrl: null,
        websiteUrl: 'https://example.test',
        isActive: false,
        createdAt: b.createdAt,
      });
      expect(new Date(res.json.updatedAt).getTime()).to.be.at.least(new Date(b.updatedAt).getTime());
      expect((await list(m.headers, m.storeId)).json.items[0]).to.deep.equal(res.json);
      const w = await writes(b.id);
      expect(w.outbox.map((o) => o.topic)).to.deep.equal(['brand.created', 'brand.updated']);
      expect(w.audit.map((a) => a.action)).to.deep.equal(['brand.create', 'brand.update']);
      expect(w.audit[1]!.before).to.deep.equal({
        name: 'Old',
        slug: 'old',
        description: 'text',
        logoUrl: 'https://example.test/l.png',
        isActive: true,
      });
      expect(w.audit[1]!.after).to.deep.equal({ name: 'New', slug: 'new', description: null, logoUrl: null, isActive: false });
    });

    it('writes no audit entry or outbox row for a PATCH that changes nothing', async () => {
      const m = await merchant(server);
      const b = await brand(m, { name: 'Same', slug: 'same' });
      const res = await patch(m.headers, b.id, { name: 'Same', slug: 'same', description: null, isActive: true });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.deep.equal(b);
      const w = await writes(b.id);
      expect(w.outbox).to.have.length(1);
      expect(w.audit).to.have.length(1);
    });

    it('refuses an empty body, storeId and bad values (400), a taken slug (409), unknown and foreign brands (404)', async () => {
      const m = await merchant(server);
      const b = await brand(m, { slug: 'mine' });
      await brand(m, { slug: 'taken' });
      expectFieldErrors(await patch(m.headers, b.id, {}), ['body']);
      expectFieldErrors(await patch(m.headers, b.id, { storeId: m.storeId }), ['body.storeId']);
      expectFieldErrors(await patch(m.headers, b.id, { name: null }), ['body.name']);
      expectFieldErrors(await patch(m.headers, b.id, { slug: 'Not OK', websiteUrl: 'mailto:a@b.c', isActive: null }), [
        'body.slug',
        'body.websiteUrl',
        'body.isActive',
      ]);
      expectFieldErrors(await call(server, 'PATCH', '/api/v1/catalog/brands/not-a-uuid', { headers: m.headers, body: { name: 'x' } }), [
        'params.id',
      ]);
      expectProblem(await patch(m.headers, b.id, { slug: 'taken' }), 409, 'slug_taken');
      // Its own slug is not "taken".
      expect((await patch(m.headers, b.id, { slug: 'mine', name: 'Renamed' })).status).to.equal(200);
      expectProblem(await patch(m.headers, uuidv7(), { name: 'Ghost' }), 404, 'brand_not_found');
      const stranger = await merchant(server);
      expectProblem(await patch(stranger.headers, b.id, { name: 'Stolen' }), 404, 'brand_not_found');
      const w = await writes(b.id);
      expect(w.audit.map((a) => a.action)).to.deep.equal(['brand.create', 'brand.update']);
      expect(w.outbox).to.have.length(2);
    });
  });

  describe('DELETE /catalog/brands/{id}', () => {
    it('deletes a brand (204) with one audit entry and one outbox row; then it is 404', async () => {
      const m = await merchant(server);
      const b = await brand(m, { name: 'Gone', slug: 'gone' });
      const stranger = await merchant(server);
      expectProblem(await remove(stranger.headers, b.id), 404, 'brand_not_found');
      const res = await remove(m.headers, b.id);
      expect(res.status, res.text).to.equal(204);
      expect(res.text).to.equal('');
      expect((await list(m.headers, m.storeId)).json.items).to.deep.equal([]);
      expectProblem(await remove(m.headers, b.id), 404, 'brand_not_found');
      expectProblem(await patch(m.headers, b.id, { name: 'Back' }), 404, 'brand_not_found');
      const w = await writes(b.id);
      expect(w.outbox.map((o) => o.topic)).to.deep.equal(['brand.created', 'brand.deleted']);
      expect(w.audit.map((a) => a.action)).to.deep.equal(['brand.create', 'brand.delete']);
      expect(w.audit[1]!.before).to.include({ storeId: m.storeId, name: 'Gone', slug: 'gone' });
      // The slug is free again.
      expect((await create(m.headers, { storeId: m.storeId, name: 'Gone', slug: 'gone' })).status).to.equal(201);
    });
  });

  describe('POST /catalog/brands/bulk/set-active', () => {
    it("changes only what needs changing, reports the rest, and never reveals other stores' or tenants' brands", async () => {
      const m = await merchant(server);
      const a = await brand(m, { isActive: true });
      const b = await brand(m, { isActive: true });
      const c = await brand(m, { isActive: false });
      const sibling = await store(server, m);
      const siblings = (await create(m.headers, { storeId: sibling, name: 'Sibling' })).json;
      const stranger = await merchant(server);
      const foreign = await brand(stranger, {});
      const unknown = uuidv7();

      const res = await bulk(m.headers, { storeId: m.storeId, ids: [a.id, siblings.id, b.id, c.id, foreign.id, unknown], isActive: false });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.deep.equal({ updated: 2, unchanged: 1, notFound: [siblings.id, foreign.id, unknown] });
      const items = (await list(m.headers, m.storeId)).json.items;
      expect(items.every((i: any) => i.isActive === false)).to.equal(true);
      for (const changed of [a, b]) {
        const w = await writes(changed.id);
        expect(w.outbox.map((o) => o.topic)).to.deep.equal(['brand.created', 'brand.updated']);
        expect(w.audit.map((x) => x.action)).to.deep.equal(['brand.create', 'brand.update']);
        expect(w.audit[1]).to.deep.include({ before: { isActive: true }, after: { isActive: false } });
      }
      for (const untouched of [c, siblings, foreign]) {
        const w = await writes(untouched.id);
        expect(w.outbox).to.have.length(1);
        expect(w.audit).to.have.length(1);
      }
      expect((await list(stranger.headers, stranger.storeId)).json.items[0].isActive).to.equal(true);
      expect((await list(m.headers, sibling)).json.items[0].isActive).to.equal(true);

      // Once more: nothing changes, nothing is written.
      const again = await bulk(m.headers, { storeId: m.storeId, ids: [a.id, b.id], isActive: false });
      expect(again.json).to.deep.equal({ updated: 0, unchanged: 2, notFound: [] });
      expect((await writes(a.id)).audit).to.have.length(2);
    });

    it("validates the body (400) and answers 404 for another tenant's store", async () => {
      const m = await merchant(server);
      const id = uuidv7();
      expectFieldErrors(await bulk(m.headers, { storeId: m.storeId, ids: [], isActive: true }), ['body.ids']);
      expectFieldErrors(await bulk(m.headers, { storeId: m.storeId, ids: Array.from({ length: 501 }, () => uuidv7()), isActive: true }), [
        'body.ids',
      ]);
      expect(
        (await bulk(m.headers, { storeId: m.storeId, ids: Array.from({ length: 500 }, () => uuidv7()), isActive: true })).status,
      ).to.equal(200);
      expectFieldErrors(await bulk(m.headers, { storeId: m.storeId, ids: [id, id], isActive: true }), ['body.ids[1]']);
      expectFieldErrors(await bulk(m.headers, { storeId: m.storeId, ids: ['nope'], isActive: true }), ['body.ids[0]']);
      expectFieldErrors(await bulk(m.headers, { storeId: m.storeId, ids: [id] }), ['body.isActive']);
      expectFieldErrors(await bulk(m.headers, { ids: [id], isActive: true }), ['body.storeId']);
      const stranger = await merchant(server);
      expectProblem(await bulk(stranger.headers, { storeId: m.storeId, ids: [id], isActive: true }), 404, 'store_not_found');
    });
  });

  describe('CSV export and import', () => {
    it('exports the documented layout with formula injection neutralised, and round-trips into a fresh store', async () => {
      const m = await merchant(server);
      await brand(m, {
        name: '=HYPERLINK("http://evil.test")',
        slug: 'evil',
        description: '+1 "quoted", with comma\nand a new line',
        isActive: false,
      });
      await brand(m, { name: 'Plain', slug: 'plain', logoUrl: 'https://example.test/p.png', websiteUrl: 'https://plain.example.test' });
      await brand(m, { name: '@mention', slug: 'mention', description: '-minus' });

      const res = await exportCsv(m.headers, m.storeId);
      expect(res.status, res.text).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/csv/);
      expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="brands-${m.storeId}.csv"`);
      const lines = res.text.split('\r\n');
      expect(lines[0]).to.equal('slug,name,isActive,description,logoUrl,websiteUrl');
      expect(lines).to.include("mention,'@mention,true,'-minus,,");
      expect(res.text).to.include(`evil,"'=HYPERLINK(""http://evil.test"")",false,"'+1 ""quoted"", with comma\nand a new line",,`);
      expect(res.text).to.include('plain,Plain,true,,https://example.test/p.png,https://plain.example.test');

      const fresh = await store(server, m);
      const imported = await importCsv(m.headers, fresh, res.text);
      expect(imported.status, imported.text).to.equal(200);
      expect(imported.json).to.deep.equal({ created: 3, updated: 0 });
      const strip = (items: any[]) => items.map(({ id: _i, createdAt: _c, updatedAt: _u, ...rest }) => rest);
      expect(strip((await list(m.headers, fresh)).json.items)).to.deep.equal(strip((await list(m.headers, m.storeId)).json.items));
      expect((await exportCsv(m.headers, fresh)).text).to.equal(res.text);

      // Importing the export into the store it came from changes nothing and writes nothing.
      const [before] = await server.runtime.dataSource.query('SELECT count(*)::int AS n FROM audit_log WHERE tenant_id = $1', [
        m.owner.tenantId,
      ]);
      expect((await importCsv(m.headers, m.storeId, res.text)).json).to.deep.equal({ created: 0, updated: 0 });
      const [afterwards] = await server.runtime.dataSource.query('SELECT count(*)::int AS n FROM audit_log WHERE tenant_id = $1', [
        m.owner.tenantId,
      ]);
      expect(afterwards.n).to.equal(before.n);
    });

    it('creates and updates by slug (case-insensitively), one audit entry and outbox row per brand changed', async () => {
      const m = await merchant(server);
      const kept = await brand(m, { name: 'Kept', slug: 'kept', description: 'same' });
      const changed = await brand(m, {
        name: 'Before',
        slug: 'changed',
        description: 'will be cleared',
        logoUrl: 'https://example.test/x.png',
      });
      const csv = ['name,slug,isActive,description', 'Kept,kept,true,same', 'After,CHANGED,false,', 'Brand New,brand-new,,Fresh'].join(
        '\n',
      );
      const res = await importCsv(m.headers, m.storeId, csv);
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.deep.equal({ created: 1, updated: 1 });
      const items = (await list(m.headers, m.storeId)).json.items;
      expect(items.map((b: any) => [b.name, b.slug, b.isActive, b.description, b.logoUrl])).to.deep.equal([
        ['After', 'changed', false, null, null],
        ['Brand New', 'brand-new', true, 'Fresh', null],
        ['Kept', 'kept', true, 'same', null],
      ]);
      expect(items.find((b: any) => b.slug === 'changed').id).to.equal(changed.id);
      expect((await writes(kept.id)).audit).to.have.length(1);
      const w = await writes(changed.id);
      expect(w.outbox.map((o) => o.topic)).to.deep.equal(['brand.created', 'brand.updated']);
      expect(w.audit.map((a) => a.action)).to.deep.equal(['brand.create', 'brand.update']);
      const created = items.find((b: any) => b.slug === 'brand-new');
      const cw = await writes(created.id);
      expect(cw.outbox.map((o) => o.topic)).to.deep.equal(['brand.created']);
      expect(cw.audit.map((a) => a.action)).to.deep.equal(['brand.create']);
    });

    it('refuses the whole import when any row is bad (400 listing rows and columns) and writes nothing', async () => {
      const m = await merchant(server);
      await brand(m, { name: 'Existing', slug: 'existing' });
      const [before] = await server.runtime.dataSource.query('SELECT count(*)::int AS n FROM outbox WHERE tenant_id = $1', [
        m.owner.tenantId,
      ]);
      const csv = [
        'slug,name,isActive,description,logoUrl,websiteUrl',
        'good-one,Good,true,,,',
        'existing,Renamed,true,,,',
        'Bad Slug,Bad,maybe,,ftp://x.test/a.png,',
        `long,${'n'.repeat(121)},true,,,`,
        'no-name,,true,,,',
      ].join('\n');
      const res = await importCsv(m.headers, m.storeId, csv);
      expectProblem(res, 400, 'validation_failed');
      const paths = res.json.errors.map((e: any) => e.path);
      expect(paths).to.include.members(['rows[3].slug', 'rows[3].isActive', 'rows[3].logoUrl', 'rows[4].name', 'rows[5].name']);
      expect(paths.some((p: string) => p.startsWith('rows[1]') || p.startsWith('rows[2]'))).to.equal(false);
      expect((await list(m.headers, m.storeId)).json.items.map((b: any) => b.name)).to.deep.equal(['Existing']);
      const [afterwards] = await server.runtime.dataSource.query('SELECT count(*)::int AS n FROM outbox WHERE tenant_id = $1', [
        m.owner.tenantId,
      ]);
      expect(afterwards.n).to.equal(before.n);

      // Two rows with one slug.
      const dup = await importCsv(m.headers, m.storeId, 'slug,name\nsame,One\nother,Other\nSAME,Two\n');
      expectProblem(dup, 400, 'validation_failed');
      expect(dup.json.errors).to.deep.equal([{ path: 'rows[3].slug', message: 'slug "same" already appears in row 1' }]);
      // The header must match the layout.
      const header = await importCsv(m.headers, m.storeId, 'slug,title\na,b\n');
      expectProblem(header, 400, 'validation_failed');
      expect(header.json.errors.map((e: any) => e.path)).to.include('body.csv.header');
      expectFieldErrors(await importCsv(m.headers, m.storeId, ''), ['body.csv']);
      expect(await brandCount(m.storeId)).to.equal(1);
    });

    it('enforces the row limit (413) and tenancy (404) on import and export', async () => {
      const m = await merchant(server);
      const rows = Array.from({ length: 5001 }, (_, i) => `b${i},B${i}`);
      const res = await importCsv(m.headers, m.storeId, ['slug,name', ...rows].join('\n'));
      expect(res.status, res.text.slice(0, 300)).to.equal(413);
      expect(await brandCount(m.storeId)).to.equal(0);
      const stranger = await merchant(server);
      expectProblem(await exportCsv(stranger.headers, m.storeId), 404, 'store_not_found');
      expectProblem(await importCsv(stranger.headers, m.storeId, 'slug,name\na,A\n'), 404, 'store_not_found');
      expect(await brandCount(m.storeId)).to.equal(0);
    });
  });
});
