/**
 * Products (merchant): create, get, replace, delete, publish, archive and duplicate — with their
 * validation bounds, tenant isolation (another tenant's store or product is 404), conflicts (slug,
 * SKU), references (brand, categories, tags), sanitised HTML, attribute validation, and exactly one
 * audit entry and one outbox row per write (none for a refused or no-op one).
 */
import { expect } from 'chai';
import { uuidv7 } from '../../storage/ids';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem } from '../helpers/accounts';
import { apiKey, attribute, brand, category, createProduct, merchant, store, tag, type Merchant } from '../helpers/fixtures';

describe('products (merchant writes)', () => {
  let server: TestServer;
  apiSuite((started) => (server = started));

  /** POST /catalog/products with `body` over the defaults of createProduct; the answer as it comes. */
  const postProduct = (m: Merchant, body: Record<string, unknown> = {}) =>
    call(server, 'POST', '/api/v1/catalog/products', {
      headers: m.headers,
      body: { storeId: m.storeId, title: 'Blue Shirt', type: 'PHYSICAL', price: 10, ...body },
    });

  /** The outbox topics and audit actions recorded for a product id. */
  async function writesFor(id: string): Promise<{ topics: string[]; actions: string[] }> {
    const outbox: Array<{ topic: string; queue: string; aggregate_type: string }> = await server.runtime.dataSource.query(
      'SELECT topic, queue, aggregate_type FROM outbox WHERE aggregate_id = $1 ORDER BY id',
      [id],
    );
    for (const row of outbox) expect(row).to.include({ queue: 'index', aggregate_type: 'product' });
    const audit: Array<{ action: string }> = await server.runtime.dataSource.query(
      "SELECT action FROM audit_log WHERE resource_id = $1 AND resource_type = 'product' ORDER BY id",
      [id],
    );
    return { topics: outbox.map((row) => row.topic), actions: audit.map((row) => row.action) };
  }

  const get = (m: Merchant, id: string) => call(server, 'GET', `/api/v1/catalog/products/${id}`, { headers: m.headers });
  const put = (m: Merchant, id: string, body: Record<string, unknown>) =>
    call(server, 'PUT', `/api/v1/catalog/products/${id}`, {
      headers: m.headers,
      body: { title: 'Blue Shirt', type: 'PHYSICAL', price: 10, ...body },
    });
  const action = (m: Merchant, id: string, verb: string) =>
    call(server, 'POST', `/api/v1/catalog/products/${id}/${verb}`, { headers: m.headers });

  describe('POST /catalog/products', () => {
    it('creates a draft with every part, derives the slug and answers the full product', async () => {
      const m = await merchant(server, { currency: 'USD' });
      const brandId = await brand(server, m);
      const categoryId = await category(server, m, { name: 'Shirts' });
      await attribute(server, m, categoryId, { name: 'Material', type: 'text' });
      const tagId = await tag(server, m);
      const res = await postProduct(m, {
        title: 'Blue Shirt Ünique',
        price: 19.99,
        compareAtPrice: 24.99,
        brandId,
        vendorId: uuidv7(),
        vendorName: 'Vendor',
        categoryIds: [categoryId],
        tagIds: [tagId],
        attributes: { material: 'cotton' },
        variants: [
          { sku: 'BS-M', barcode: '123', options: { size: 'M' }, stock: 0 },
          { sku: 'BS-L', options: { size: 'L' }, price: 21.5, stock: 3 },
        ],
        images: [{ url: 'https://img.example/a.jpg', alt: 'front' }, { url: 'https://img.example/b.jpg' }],
        translations: { tr: { title: 'Mavi Gömlek' }, 'pt-BR': { descriptionHtml: '<p>Olá</p>' } },
      });
      expect(res.status, res.text).to.equal(201);
      const p = res.json;
      expect(p).to.include({
        slug: 'blue-shirt-unique',
        status: 'DRAFT',
        currency: 'USD',
        price: 19.99,
        compareAtPrice: 24.99,
        discountPercent: 20,
        brandId,
        inStock: true,
        publishedAt: null,
        rating: 0,
        reviewCount: 0,
        salesCount: 0,
        viewCount: 0,
      });
      expect(p.categoryIds).to.deep.equal([categoryId]);
      expect(p.tagIds).to.deep.equal([tagId]);
      expect(p.attributes).to.deep.equal({ Material: 'cotton' });
      expect(p.variants.map((v: any) => [v.sku, v.price, v.stock, v.position])).to.deep.equal([
        ['BS-M', null, 0, 0],
        ['BS-L', 21.5, 3, 1],
      ]);
      expect(p.images.map((i: any) => [i.url, i.alt, i.position])).to.deep.equal([
        ['https://img.example/a.jpg', 'front', 0],
        ['https://img.example/b.jpg', null, 1],
      ]);
      expect(p.translations).to.deep.equal({ tr: { title: 'Mavi Gömlek' }, 'pt-BR': { descriptionHtml: '<p>Olá</p>' } });
      expect(await writesFor(p.id)).to.deep.equal({ topics: ['product.created'], actions: ['product.create'] });
      const again = await get(m, p.id);
      expect(again.status).to.equal(200);
      expect(again.json).to.deep.equal(p);
    });

    it('appends -2, -3 to a derived slug until free and refuses a taken slug with 409', async () => {
      const m = await merchant(server);
      expect((await createProduct(server, m, { title: 'Mug' })).slug).to.equal('mug');
      expect((await createProduct(server, m, { title: 'MUG' })).slug).to.equal('mug-2');
      expect((await createProduct(server, m, { title: 'mug!' })).slug).to.equal('mug-3');
      expectProblem(await postProduct(m, { slug: 'mug-2' }), 409, 'slug_taken');
      // Another store may use it.
      const other = await merchant(server);
      expect((await createProduct(server, other, { slug: 'mug-2' })).slug).to.equal('mug-2');
    });

    it('gives concurrent creates of one title distinct derived slugs', async () => {
      const m = await merchant(server);
      const results = await Promise.all([1, 2, 3, 4].map(() => postProduct(m, { title: 'Race' })));
      expect(results.map((r) => r.status)).to.deep.equal([201, 201, 201, 201]);
      expect(results.map((r) => r.json.slug).sort()).to.deep.equal(['race', 'race-2', 'race-3', 'race-4']);
    });

    it('sanitises HTML: scripts, styles, event handlers and javascript: links vanish', async () => {
      const m = await merchant(server);
      const p = await createProduct(server, m, {
        descriptionHtml:
          '<p onclick="steal()">Hi <strong>there</strong><script>alert(1)</script><style>p{}</style> <a href="javascript:alert(1)">x</a> <a href="https://ok.example">ok</a><img src="data:image/png;base64,AA" onerror="x()"><img src="https://i.example/a.png"></p>',
        translations: { de: { descriptionHtml: '<em onmouseover="x()">Hallo</em><script>1</script>' } },
      });
      expect(p.descriptionHtml).to.not.match(/script|onclick|onerror|style|javascript|data:/);
      expect(p.descriptionHtml)
        .to.contain('<strong>there</strong>')
        .and.contain('<a href="https://ok.example">ok</a>')
        .and.contain('<img src="https://i.example/a.png" />');
      expect(p.translations.de.descriptionHtml).to.equal('<em>Hallo</em>');
    });

    it('validates bounds with field paths', async () => {
      const m = await merchant(server);
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ title: '' }, 'body.title'],
        [{ title: 'x'.repeat(301) }, 'body.title'],
        [{ slug: 'Bad Slug' }, 'body.slug'],
        [{ slug: 'x'.repeat(161) }, 'body.slug'],
        [{ type: 'FOOD' }, 'body.type'],
        [{ price: -1 }, 'body.price'],
        [{ price: 1_000_000_001 }, 'body.price'],
        [{ price: 1.23456 }, 'body.price'],
        [{ currency: 'XYZ' }, 'body.currency'],
        [{ status: 'ACTIVE' }, 'body.status'],
        [{ descriptionHtml: 'x'.repeat(100_001) }, 'body.descriptionHtml'],
        [{ categoryIds: [uuidv7(), uuidv7()].flatMap((id) => [id, id]) }, 'body.categoryIds[1]'],
        [{ categoryIds: Array.from({ length: 21 }, () => uuidv7()) }, 'body.categoryIds'],
        [{ tagIds: Array.from({ length: 51 }, () => uuidv7()) }, 'body.tagIds'],
        [{ variants: [{ stock: -1 }] }, 'body.variants[0].stock'],
        [{ variants: [{ stock: 1, sku: 'x'.repeat(101) }] }, 'body.variants[0].sku'],
        [
          { variants: [{ stock: 1, options: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`o${i}`, 'v'])) }] },
          'body.variants[0].options',
        ],
        [{ variants: Array.from({ length: 101 }, () => ({ stock: 1 })) }, 'body.variants'],
        [{ images: [{ url: 'ftp://x.example/a.png' }] }, 'body.images[0].url'],
        [{ images: Array.from({ length: 51 }, () => ({ url: 'https://x.example/a.png' })) }, 'body.images'],
        [{ translations: { EN: { title: 'x' } } }, 'body.translations.EN'],
        [
          {
            translations: Object.fromEntries(
              Array.from({ length: 31 }, (_, i) => [`a${String.fromCharCode(97 + (i % 26))}-x${i}`, { title: 't' }]),
            ),
          },
          'body.translations',
        ],
        [{ images: [{ url: 'https://x.example/a.png', alt: 'x'.repeat(501) }] }, 'body.images[0].alt'],
        [{ variants: [{ stock: 1, barcode: 'x'.repeat(65) }] }, 'body.variants[0].barcode'],
        [{ attributes: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`a${i}`, 1])) }, 'body.attributes'],
        [{ vendorName: 'x'.repeat(201) }, 'body.vendorName'],
        [{ unknownField: 1 }, 'body.unknownField'],
      ];
      for (const [body, path] of cases) {
        const res = await postProduct(m, body);
        expectProblem(res, 400, 'validation_failed');
        expect(
          res.json.errors.map((e: any) => e.path),
          JSON.stringify(body).slice(0, 80),
        ).to.include(path);
      }
      const count = await server.runtime.dataSource.query('SELECT count(*)::int AS n FROM products WHERE store_id = $1', [m.storeId]);
      expect(count[0].n).to.equal(0);
    });

    it('refuses a compare-at price below the price, also on a variant', async () => {
      const m = await merchant(server);
      expectProblem(await postProduct(m, { price: 10, compareAtPrice: 9.9999 }), 400, 'compare_at_below_price');
      expectProblem(
        await postProduct(m, { price: 10, variants: [{ price: 5, compareAtPrice: 4, stock: 1 }] }),
        400,
        'compare_at_below_price',
      );
      expect((await createProduct(server, m, { price: 10, compareAtPrice: 10 })).discountPercent).to.equal(0);
      expect((await createProduct(server, m, { price: 0.1, compareAtPrice: 0.3 })).discountPercent).to.equal(67);
    });

    it('refuses brands, categories and tags of another store with 400', async () => {
      const m = await merchant(server);
      const other = await merchant(server);
      const foreignBrand = await brand(server, other);
      const foreignCategory = await category(server, other, { name: 'Foreign' });
      const foreignTag = await tag(server, other);
      expectProblem(await postProduct(m, { brandId: foreignBrand }), 400, 'invalid_brand');
      expectProblem(await postProduct(m, { brandId: uuidv7() }), 400, 'invalid_brand');
      const cat = await postProduct(m, { categoryIds: [await category(server, m, { name: 'Mine' }), foreignCategory] });
      expectProblem(cat, 400, 'invalid_category');
      expect(cat.json.errors[0].path).to.equal('body.categoryIds[1]');
      expectProblem(await postProduct(m, { tagIds: [foreignTag] }), 400, 'invalid_tag');
    });

    it('refuses a SKU used in the store (case-insensitively) or twice in the request with 409', async () => {
      const m = await merchant(server);
      await createProduct(server, m, { variants: [{ sku: 'SKU-1', stock: 1 }] });
      expectProblem(await postProduct(m, { variants: [{ sku: 'sku-1', stock: 1 }] }), 409, 'sku_taken');
      const twice = await postProduct(m, {
        variants: [
          { sku: 'A', stock: 1 },
          { sku: 'a', stock: 1 },
        ],
      });
      expectProblem(twice, 409, 'sku_taken');
      expect(twice.json.errors[0].path).to.equal('body.variants[1].sku');
      const other = await merchant(server);
      await createProduct(server, other, { variants: [{ sku: 'SKU-1', stock: 1 }] });
    });

    it('validates attributes against the categories: unknown, wrong type, enum, required only when published', async () => {
      const m = await merchant(server);
      const categoryId = await category(server, m, { name: 'Phones' });
      await attribute(server, m, categoryId, { name: 'Colour', type: 'enum', values: ['Red', 'Blue'], required: true });
      await attribute(server, m, categoryId, { name: 'Weight', type: 'number' });
      await attribute(server, m, categoryId, { name: 'Waterproof', type: 'boolean' });
      const base = { categoryIds: [categoryId] };
      expectProblem(await postProduct(m, { ...base, attributes: { Flavour: 'x' } }), 400, 'unknown_attribute');
      expectProblem(await postProduct(m, { attributes: { Colour: 'Red' } }), 400, 'unknown_attribute');
      const wrongType = await postProduct(m, { ...base, attributes: { Weight: '12' } });
      expectProblem(wrongType, 400, 'invalid_attribute');
      expect(wrongType.json.errors[0].path).to.equal('body.attributes.Weight');
      expectProblem(await postProduct(m, { ...base, attributes: { Waterproof: 'yes' } }), 400, 'invalid_attribute');
      expectProblem(await postProduct(m, { ...base, attributes: { Colour: 'Green' } }), 400, 'invalid_attribute');
      const missing = await postProduct(m, { ...base, status: 'PUBLISHED', attributes: { Weight: 1.5 } });
      expectProblem(missing, 400, 'missing_required_attributes');
      expect(missing.json.errors.map((e: any) => e.path)).to.deep.equal(['body.attributes.Colour']);
      const draft = await createProduct(server, m, { ...base, attributes: { Weight: 1.5, Waterproof: true } });
      expect(draft.status).to.equal('DRAFT');
      const published = await createProduct(server, m, { ...base, status: 'PUBLISHED', attributes: { colour: 'Blue' } });
      expect(published).to.include({ status: 'PUBLISHED' });
      expect(published.attributes).to.deep.equal({ Colour: 'Blue' });
      expect(published.publishedAt).to.be.a('string');
    });

    it("answers 404 for another tenant's store and for an API key's other store", async () => {
      const m = await merchant(server);
      const other = await merchant(server);
      expectProblem(
        await call(server, 'POST', '/api/v1/catalog/products', {
          headers: m.headers,
          body: { storeId: other.storeId, title: 'x', type: 'PHYSICAL', price: 1 },
        }),
        404,
        'store_not_found',
      );
      const second = await store(server, m, { name: 'Second' });
      const keyHeaders = await apiKey(server, m, ['catalog:write', 'catalog:read']);
      const viaKey = await call(server, 'POST', '/api/v1/catalog/products', {
        headers: keyHeaders,
        body: { storeId: m.storeId, title: 'By key', type: 'DIGITAL', price: 1 },
      });
      expect(viaKey.status, viaKey.text).to.equal(201);
      expectProblem(
        await call(server, 'POST', '/api/v1/catalog/products', {
          headers: keyHeaders,
          body: { storeId: second, title: 'x', type: 'DIGITAL', price: 1 },
        }),
        404,
        'store_not_found',
      );
      const inSecond = await createProduct(server, { ...m, storeId: second });
      expectProblem(
        await call(server, 'GET', `/api/v1/catalog/products/${inSecond.id}`, { headers: keyHeaders }),
        404,
        'product_not_found',
      );
    });
  });

  describe('archived store', () => {
    it('refuses every write with 409 store_archived and still reads', async () => {
      const m = await merchant(server);
      const p = await createProduct(server, m);
      const archived = await call(server, 'DELETE', `/api/v1/organization/stores/${m.storeId}`, { headers: m.headers });
      expect(archived.status, archived.text).to.equal(204);
      expectProblem(await postProduct(m), 409, 'store_archived');
      expectProblem(await put(m, p.id, {}), 409, 'store_archived');
      for (const verb of ['publish', 'archive', 'duplicate']) expectProblem(await action(m, p.id, verb), 409, 'store_archived');
      expectProblem(await call(server, 'DELETE', `/api/v1/catalog/products/${p.id}`, { headers: m.headers }), 409, 'store_archived');
      expect((await get(m, p.id)).status).to.equal(200);
      expect((await writesFor(p.id)).topics).to.deep.equal(['product.created']);
    });
  });

  describe('GET /catalog/products/{id}', () => {
    it("answers 404 for an unknown product and another tenant's product", async () => {
      const m = await merchant(server);
      const other = await merchant(server);
      const p = await createProduct(server, other);
      expectProblem(await get(m, uuidv7()), 404, 'product_not_found');
      expectProblem(await get(m, p.id), 404, 'product_not_found');
      expectProblem(await get(m, 'not-a-uuid'), 400, 'validation_failed');
    });
  });

  describe('PUT /catalog/products/{id}', () => {
    it('replaces every field, keeps variant ids given, and writes one update', async () => {
      const m = await merchant(server);
      const categoryId = await category(server, m, { name: 'Cups' });
      const p = await createProduct(server, m, {
        title: 'Cup',
        descriptionHtml: '<p>old</p>',
        categoryIds: [categoryId],
        variants: [
          { sku: 'C-1', stock: 1 },
          { sku: 'C-2', stock: 2 },
        ],
        images: [{ url: 'https://x.example/1.png' }],
      });
      const keep = p.variants[1].id;
      const res = await put(m, p.id, {
        title: 'Big Cup',
        price: 12.5,
        variants: [
          { id: keep, sku: 'C-1', stock: 5 },
          { sku: 'C-9', stock: 0 },
        ],
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.include({ title: 'Big Cup', slug: 'cup', descriptionHtml: '', price: 12.5, status: 'DRAFT' });
      expect(res.json.categoryIds).to.deep.equal([]);
      expect(res.json.images).to.deep.equal([]);
      expect(res.json.variants.map((v: any) => [v.id === keep, v.sku, v.stock])).to.deep.equal([
        [true, 'C-1', 5],
        [false, 'C-9', 0],
      ]);
      expect(await writesFor(p.id)).to.deep.equal({
        topics: ['product.created', 'product.updated'],
        actions: ['product.create', 'product.update'],
      });
    });

    it('writes nothing for an identical replace', async () => {
      const m = await merchant(server);
      const body = {
        title: 'Same',
        type: 'PHYSICAL',
        price: 5.5,
        variants: [{ sku: 'S-1', stock: 1, options: { size: 'M' } }],
        images: [{ url: 'https://x.example/1.png', alt: 'a' }],
      };
      const p = await createProduct(server, m, body);
      const res = await put(m, p.id, { ...body, price: 5.5 });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.deep.equal(p);
      expect((await writesFor(p.id)).topics).to.deep.equal(['product.created']);
    });

    it('refuses slug and SKU conflicts, foreign variants and bad references, and answers 404 across tenants', async () => {
      const m = await merchant(server);
      const a = await createProduct(server, m, { title: 'A', variants: [{ sku: 'A-1', stock: 1 }] });
      const b = await createProduct(server, m, { title: 'B' });
      expectProblem(await put(m, b.id, { slug: a.slug }), 409, 'slug_taken');
      expectProblem(await put(m, b.id, { variants: [{ sku: 'a-1', stock: 1 }] }), 409, 'sku_taken');
      expectProblem(await put(m, b.id, { variants: [{ id: a.variants[0].id, stock: 1 }] }), 400, 'invalid_variant');
      expectProblem(await put(m, b.id, { brandId: uuidv7() }), 400, 'invalid_brand');
      expectProblem(await put(m, b.id, { storeId: m.storeId }), 400, 'validation_failed');
      expectProblem(await put(m, uuidv7(), {}), 404, 'product_not_found');
      const other = await merchant(server);
      expectProblem(await put(other, a.id, {}), 404, 'product_not_found');
      // Its own SKU and slug are fine.
      expect((await put(m, a.id, { title: 'A', slug: a.slug, variants: [{ sku: 'A-1', stock: 2 }] })).status).to.equal(200);
      expect((await writesFor(b.id)).topics).to.deep.equal(['product.created']);
    });
  });

  describe('DELETE /catalog/products/{id}', () => {
    it('deletes for good with one audit entry and outbox row; 404 after and across tenants', async () => {
      const m = await merchant(server);
      const p = await createProduct(server, m, { variants: [{ sku: 'D-1', stock: 1 }] });
      const other = await merchant(server);
      expectProblem(await call(server, 'DELETE', `/api/v1/catalog/products/${p.id}`, { headers: other.headers }), 404, 'product_not_found');
      const res = await call(server, 'DELETE', `/api/v1/catalog/products/${p.id}`, { headers: m.headers });
      expect(res.status, res.text).to.equal(204);
      expectProblem(await get(m, p.id), 404, 'product_not_found');
      expectProblem(await call(server, 'DELETE', `/api/v1/catalog/products/${p.id}`, { headers: m.headers }), 404, 'product_not_found');
      expect(await writesFor(p.id)).to.deep.equal({
        topics: ['product.created', 'product.deleted'],
        actions: ['product.create', 'product.delete'],
      });
      // The SKU is free again.
      await createProduct(server, m, { variants: [{ sku: 'D-1', stock: 1 }] });
    });
  });

  describe('publish and archive', () => {
    it('publishes (publishedAt set), archives, and does nothing when already there', async () => {
      const m = await merchant(server);
      const p = await createProduct(server, m);
      const published = await action(m, p.id, 'publish');
      expect(published.status, published.text).to.equal(201);
      expect(published.json.status).to.equal('PUBLISHED');
      expect(published.json.publishedAt).to.be.a('string');
      expect((await action(m, p.id, 'publish')).json.publishedAt).to.equal(published.json.publishedAt);
      const archived = await action(m, p.id, 'archive');
      expect(archived.status).to.equal(201);
      expect(archived.json.status).to.equal('ARCHIVED');
      expect((await action(m, p.id, 'archive')).status).to.equal(201);
      expect(await writesFor(p.id)).to.deep.equal({
        topics: ['product.created', 'product.published', 'product.archived'],
        actions: ['product.create', 'product.publish', 'product.archive'],
      });
      expect((await get(m, p.id)).json.status).to.equal('ARCHIVED');
    });

    it('refuses to publish while required attributes are missing, listing them', async () => {
      const m = await merchant(server);
      const categoryId = await category(server, m, { name: 'Laptops' });
      await attribute(server, m, categoryId, { name: 'Cpu', type: 'text', required: true });
      await attribute(server, m, categoryId, { name: 'Ram', type: 'number', required: true });
      const p = await createProduct(server, m, { categoryIds: [categoryId], attributes: { Ram: 16 } });
      const res = await action(m, p.id, 'publish');
      expectProblem(res, 400, 'missing_required_attributes');
      expect(res.json.errors.map((e: any) => e.path)).to.deep.equal(['attributes.Cpu']);
      expect((await writesFor(p.id)).topics).to.deep.equal(['product.created']);
      expect((await put(m, p.id, { categoryIds: [categoryId], attributes: { Ram: 16, Cpu: 'M3' } })).status).to.equal(200);
      expect((await action(m, p.id, 'publish')).status).to.equal(201);
    });

    it("answers 404 for unknown and other tenants' products", async () => {
      const m = await merchant(server);
      const other = await merchant(server);
      const p = await createProduct(server, other);
      for (const verb of ['publish', 'archive', 'duplicate']) {
        expectProblem(await action(m, uuidv7(), verb), 404, 'product_not_found');
        expectProblem(await action(m, p.id, verb), 404, 'product_not_found');
      }
      expect((await writesFor(p.id)).topics).to.deep.equal(['product.created']);
    });
  });

  describe('POST /catalog/products/{id}/duplicate', () => {
    it('copies as a draft with a -copy slug, SKUs cleared and counters zero', async () => {
      const m = await merchant(server);
      const categoryId = await category(server, m, { name: 'Hats' });
      const p = await createProduct(server, m, {
        title: 'Hat',
        status: 'PUBLISHED',
        categoryIds: [categoryId],
        variants: [{ sku: 'H-1', barcode: '42', stock: 4 }],
        images: [{ url: 'https://x.example/h.png' }],
      });
      await server.runtime.dataSource.query('UPDATE products SET sales_count = 7, view_count = 9, rating = 4.5 WHERE id = $1', [p.id]);
      const first = await action(m, p.id, 'duplicate');
      expect(first.status, first.text).to.equal(201);
      expect(first.json).to.include({
        title: 'Hat',
        slug: 'hat-copy',
        status: 'DRAFT',
        publishedAt: null,
        salesCount: 0,
        viewCount: 0,
        rating: 0,
        price: 10,
      });
      expect(first.json.id).to.not.equal(p.id);
      expect(first.json.categoryIds).to.deep.equal([categoryId]);
      expect(first.json.variants.map((v: any) => [v.sku, v.barcode, v.stock])).to.deep.equal([[null, '42', 4]]);
      expect(first.json.images.map((i: any) => i.url)).to.deep.equal(['https://x.example/h.png']);
      expect((await action(m, p.id, 'duplicate')).json.slug).to.equal('hat-copy-2');
      expect(await writesFor(first.json.id)).to.deep.equal({ topics: ['product.created'], actions: ['product.duplicate'] });
      expect((await writesFor(p.id)).topics).to.deep.equal(['product.created']);
    });
  });
});
