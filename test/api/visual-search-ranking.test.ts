/**
 * Visual search that knows what a product is: similar products ranked within the catalog's categories
 * (the store's sameCategory setting), the filters of query by image on the storefront and merchant
 * paths, and scores calibrated per store (calibratedScore, goodMatch, minSimilarity on that scale).
 *
 * Product vectors are not embedded: they are written straight into product_image_vectors (1280-d,
 * the default model's length) with the image URL of the product, so the vision worker reuses them and
 * never fetches, and the indexer is run deterministically to put them into Meilisearch. They are
 * built around `q`, the default model's embedding of the query image (a solid colour), so each
 * product's raw score against the query (and against the grey sofa S, whose vector is `q`) is known.
 */
import type BeeQueue from 'bee-queue';
import { expect } from 'chai';
import sharp from 'sharp';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { auditRows, expectProblem } from '../helpers/accounts';
import { brand, category, createProduct, merchant, type Merchant } from '../helpers/fixtures';
import { deliverIndexRows, silentLogger } from '../helpers/indexing';
import { web } from '../helpers/web-page';
import { jobIdFor, outboxConsumer, type OutboxJobData } from '../../storage/outbox';
import { encodeVector } from '../../storage/vectors';
import { uuidv7 } from '../../storage/ids';
import { createVisionHandler } from '../../vision/worker';
import { getEmbedder, MOBILENET_DIMENSIONS } from '../../vision/embedder';
import { prepareImage } from '../../vision/image';
import type { VisionConfig } from '../../lib/config';

const DIMENSIONS = MOBILENET_DIMENSIONS;
const QUERY_RGB: [number, number, number] = [200, 30, 30];

const dot = (a: number[], b: number[]): number => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
const unit = (v: number[]): number[] => {
  const norm = Math.sqrt(dot(v, v));
  return v.map((x) => x / norm);
};
/** The raw score of two unit vectors: (1 + cosine) / 2. */
const rawScore = (a: number[], b: number[]): number => (1 + dot(a, b)) / 2;

/** Seven unit vectors orthogonal to `q` and to each other (Gram-Schmidt over the standard basis). */
function orthogonalTo(q: number[]): number[][] {
  const basis: number[][] = [q];
  for (let i = 0; i < DIMENSIONS && basis.length < 8; i += 1) {
    let v: number[] = Array.from({ length: DIMENSIONS }, (_, d) => (d === i ? 1 : 0));
    for (const b of basis) {
      const along = dot(v, b);
      v = v.map((x, d) => x - along * b[d]!);
    }
    if (Math.sqrt(dot(v, v)) > 1e-3) basis.push(unit(v));
  }
  return basis.slice(1);
}

/** A unit vector whose raw score against unit `q` is `raw`, leaning towards `u` (unit, orthogonal to q). */
const withScore = (q: number[], u: number[], raw: number): number[] => {
  const cos = 2 * raw - 1;
  const sin = Math.sqrt(1 - cos * cos);
  return q.map((x, d) => cos * x + sin * u[d]!);
};

async function solidPng(rgb: [number, number, number]): Promise<Buffer> {
  return sharp({ create: { width: 64, height: 64, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } } })
    .png()
    .toBuffer();
}

describe('visual search: category-aware similar products, filters and calibrated scores', function () {
  this.timeout(120_000);
  let server: TestServer;
  let saved: VisionConfig;
  const suite = apiSuite((started) => (server = started));

  /** The default model's embedding of the query image, and seven directions away from it. */
  let q: number[];
  let u: number[][];

  before(async () => {
    saved = { ...server.runtime.config.vision };
    server.runtime.config.vision.publicQueriesPerMinute = 100_000;
    // The model the server's queries use (the same process-wide thread): the query image's vector.
    const embedder = await getEmbedder('mobilenet-v2', server.runtime.config.vision);
    const image = await prepareImage(await solidPng(QUERY_RGB), {
      size: embedder.inputSize,
      maxPixels: server.runtime.config.vision.maxPixels,
    });
    q = unit(Array.from((await embedder.embedImages([image]))[0]!));
    u = orthogonalTo(q);
  });

  after(() => {
    // The model thread is left to the next file (test/api/visual-search.test.ts uses the same model and
    // unloads it): onnxruntime's native module loads in only one thread of a process.
    Object.assign(server.runtime.config.vision, saved);
  });

  const db = () => server.runtime.dataSource;
  const path = (m: Merchant, rest: string): string => `/api/v1/visual-search/stores/${m.storeId}${rest}`;
  const publicPath = (m: Merchant, rest: string): string => `/api/v1/visual-search/public/stores/${m.storeId}${rest}`;

  /** A merchant whose store has visual search on with the default model, at most 100 results. */
  async function visualStore(settings: Record<string, unknown> = {}): Promise<Merchant> {
    const m = suite.addMerchant(await merchant(server), { indexed: true });
    const res = await call(server, 'PATCH', path(m, '/settings'), {
      headers: m.headers,
      body: { enabled: true, maxResults: 100, ...settings },
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.json).to.include({ model: 'mobilenet-v2', dimensions: DIMENSIONS });
    return m;
  }

  interface Seed {
    title: string;
    vector: number[];
    categoryIds?: string[];
    brandId?: string;
    price?: number;
    stock?: number;
    status?: 'PUBLISHED' | 'DRAFT';
    attributes?: Record<string, string>;
  }

  /** A product made through the API with an image, and its image vector stored as the worker would have. */
  async function seed(m: Merchant, s: Seed): Promise<string> {
    const imageUrl = `https://images.example.org/${uuidv7()}.jpg`;
    const product = await createProduct(server, m, {
      title: s.title,
      status: s.status ?? 'PUBLISHED',
      price: s.price ?? 10,
      images: [{ url: imageUrl }],
      variants: [{ stock: s.stock ?? 5 }],
      ...(s.categoryIds ? { categoryIds: s.categoryIds } : {}),
      ...(s.brandId ? { brandId: s.brandId } : {}),
    });
    if (s.attributes) await db().query('UPDATE products SET attributes = $2 WHERE id = $1', [product.id, JSON.stringify(s.attributes)]);
    await db().query(
      `INSERT INTO product_image_vectors (product_id, store_id, tenant_id, status, model, dimensions, vector, image_url)
       VALUES ($1, $2, $3, 'INDEXED', 'mobilenet-v2', $4, $5, $6)
       ON CONFLICT (product_id) DO UPDATE SET status = 'INDEXED', model = 'mobilenet-v2', dimensions = $4, vector = $5, image_url = $6, updated_at = now()`,
      [product.id, m.storeId, m.owner.tenantId, DIMENSIONS, encodeVector(Float32Array.from(s.vector)), imageUrl],
    );
    return product.id;
  }

  /** Puts the tenant's pending product and store changes into its search index. */
  async function index(m: Merchant): Promise<void> {
    expect(await deliverIndexRows(server, m.owner.tenantId)).to.deep.equal([]);
  }

  /** Runs the vision worker over the tenant's pending vision rows until none is left; the model must never be needed. */
  async function runVisionWorker(m: Merchant): Promise<void> {
    const handler = createVisionHandler({
      dataSource: db(),
      logger: silentLogger,
      config: server.runtime.config.vision,
      embedderFor: () => Promise.reject(new Error('the stored vectors must be reused')),
    });
    const consume = outboxConsumer(db(), 'vision', { retryBaseMs: 1, retryMaxMs: 10 }, handler);
    for (let round = 0; round < 5; round += 1) {
      const rows: Array<{ aggregate_type: string; aggregate_id: string }> = await db().query(
        `WITH c AS (UPDATE outbox SET status = 'in_flight', claimed_at = now(), attempts = attempts + 1
                     WHERE tenant_id = $1 AND queue = 'vision' AND status = 'pending' RETURNING id, aggregate_type, aggregate_id)
         SELECT aggregate_type, aggregate_id, min(id) AS first FROM c GROUP BY 1, 2 ORDER BY first`,
        [m.owner.tenantId],
      );
      if (rows.length === 0) return;
      for (const row of rows) {
        const job = {
          id: jobIdFor(row.aggregate_type, row.aggregate_id),
          data: { aggregateType: row.aggregate_type, aggregateId: row.aggregate_id, tenantId: m.owner.tenantId },
        };
        await consume(job as BeeQueue.Job<OutboxJobData>);
      }
    }
    throw new Error('the vision rows did not settle');
  }

  const ids = (res: { json: { items: Array<{ id: string }> } }): string[] => res.json.items.map((i) => i.id);

  // ---------------------------------------------------------------------------------------------
  // A furniture store: Furniture > Sofas > Corner sofas, Furniture > Chairs > Office chairs,
  // Tools > Trowels, Lamps. S is a grey leather sofa; raw scores against S are given per product.

  let shop: Merchant;
  const p: Record<string, string> = {};
  const cat: Record<string, string> = {};
  let ownBrand: string;
  let otherBrand: string;

  before(async () => {
    shop = await visualStore();
    cat.furniture = await category(server, shop, { name: 'Furniture' });
    cat.sofas = await category(server, shop, { name: 'Sofas', parent_id: cat.furniture });
    cat.corner = await category(server, shop, { name: 'Corner sofas', parent_id: cat.sofas });
    cat.chairs = await category(server, shop, { name: 'Chairs', parent_id: cat.furniture });
    cat.office = await category(server, shop, { name: 'Office chairs', parent_id: cat.chairs });
    cat.tools = await category(server, shop, { name: 'Tools' });
    cat.trowels = await category(server, shop, { name: 'Trowels', parent_id: cat.tools });
    cat.lamps = await category(server, shop, { name: 'Lamps' });
    ownBrand = await brand(server, shop, { name: 'Sofaco' });
    otherBrand = await brand(server, shop, { name: 'Elsewhere' });
    const leather = { material: 'leather', colour: 'grey' };
    p.S = await seed(shop, { title: 'Grey sofa', vector: q, categoryIds: [cat.sofas], brandId: ownBrand, price: 100, attributes: leather });
    p.D1 = await seed(shop, {
      title: 'Sofa D1',
      vector: withScore(q, u[0]!, 0.854),
      categoryIds: [cat.sofas],
      brandId: otherBrand,
      price: 40,
    });
    // Created after D1, so its id sorts after D1's: only the brand can put it first.
    p.D2 = await seed(shop, {
      title: 'Sofa D2',
      vector: withScore(q, u[1]!, 0.852),
      categoryIds: [cat.sofas],
      brandId: ownBrand,
      price: 45,
      stock: 0,
    });
    p.A = await seed(shop, { title: 'Sofa A', vector: withScore(q, u[2]!, 0.8), categoryIds: [cat.sofas], price: 60 });
    p.A2 = await seed(shop, {
      title: 'Corner sofa',
      vector: withScore(q, u[3]!, 0.65),
      categoryIds: [cat.corner],
      brandId: otherBrand,
      price: 70,
    });
    p.C1 = await seed(shop, {
      title: 'Red chair',
      vector: withScore(q, u[4]!, 0.975),
      categoryIds: [cat.chairs],
      brandId: otherBrand,
      price: 30,
      attributes: { colour: 'red' },
    });
    p.C2 = await seed(shop, {
      title: 'Leather office chair',
      vector: withScore(q, u[5]!, 0.973),
      categoryIds: [cat.office],
      brandId: otherBrand,
      price: 35,
      stock: 0,
      attributes: { material: 'leather' },
    });
    p.T = await seed(shop, {
      title: 'Trowel',
      vector: withScore(q, u[6]!, 0.995),
      categoryIds: [cat.trowels],
      brandId: ownBrand,
      price: 20,
    });
    p.N = await seed(shop, { title: 'Uncategorised thing', vector: withScore(q, u[0]!, 0.985), price: 15 });
    p.L = await seed(shop, { title: 'Lamp', vector: withScore(q, u[1]!, 0.55), categoryIds: [cat.lamps], price: 80 });
    p.DR = await seed(shop, {
      title: 'Draft sofa',
      vector: withScore(q, u[2]!, 0.9),
      categoryIds: [cat.sofas],
      brandId: ownBrand,
      price: 55,
      stock: 0,
      status: 'DRAFT',
    });
    await index(shop);
  });

  const similar = (m: Merchant, productId: string, limit = 50) =>
    call(server, 'GET', path(m, `/products/${productId}/similar?limit=${limit}`), { headers: m.headers });

  async function setSameCategory(m: Merchant, mode: string): Promise<void> {
    const res = await call(server, 'PATCH', path(m, '/settings'), { headers: m.headers, body: { sameCategory: mode } });
    expect(res.status, res.text).to.equal(200);
    expect(res.json.sameCategory).to.equal(mode);
  }

  describe('similar products', () => {
    it('prefer (the default): the same category first, then sibling categories, then the rest; brand, then attributes break ties', async () => {
      const res = await similar(shop, p.S!);
      expect(res.status, res.text).to.equal(200);
      expect(res.json.sameCategory).to.equal('prefer');
      expect(ids(res)).to.deep.equal([p.D2, p.D1, p.A, p.A2, p.C2, p.C1, p.T, p.N, p.L]);
      expect(res.json.items.map((i: { tier: string }) => i.tier)).to.deep.equal([
        'same_category',
        'same_category',
        'same_category',
        'same_category',
        'sibling_category',
        'sibling_category',
        'other',
        'other',
        'other',
      ]);
      // The raw scores are the stored vectors' own, whatever the order.
      const byId = new Map(res.json.items.map((i: { id: string; score: number }) => [i.id, i.score]));
      expect(byId.get(p.T)).to.be.closeTo(0.995, 1e-4);
      expect(byId.get(p.D2)).to.be.closeTo(0.852, 1e-4);
      expect(ids(res)).to.not.include(p.S).and.not.include(p.DR);

      // A page the first tier fills, and one that needs the next.
      expect(ids(await similar(shop, p.S!, 2))).to.deep.equal([p.D2, p.D1]);
      expect(ids(await similar(shop, p.S!, 5))).to.deep.equal([p.D2, p.D1, p.A, p.A2, p.C2]);
    });

    it('ignore: similarity alone, each hit still naming its tier; require: the same category only, or nothing', async () => {
      const m = shop;
      try {
        await setSameCategory(m, 'ignore');
        const ignored = await similar(m, p.S!);
        expect(ignored.json.sameCategory).to.equal('ignore');
        expect(ids(ignored)).to.deep.equal([p.T, p.N, p.C1, p.C2, p.D1, p.D2, p.A, p.A2, p.L]);
        expect(ignored.json.items[0].tier).to.equal('other');
        const scores = ignored.json.items.map((i: { score: number }) => i.score);
        expect(scores).to.deep.equal([...scores].sort((a: number, b: number) => b - a));

        await setSameCategory(m, 'require');
        const required = await similar(m, p.S!);
        expect(required.json.sameCategory).to.equal('require');
        expect(ids(required)).to.deep.equal([p.D2, p.D1, p.A, p.A2]);
        // A product in a category no other product shares, and one without a category: an empty list, never other categories.
        for (const lonely of [p.L!, p.N!]) {
          const none = await similar(m, lonely);
          expect(none.status, none.text).to.equal(200);
          expect(none.json).to.deep.include({ items: [], sameCategory: 'require' });
        }
      } finally {
        await setSameCategory(m, 'prefer');
      }
      // prefer without a category: one tier, the rest by similarity.
      expect(ids(await similar(m, p.N!))).to.have.length(9);
    });

    it('the storefront read: published products of an active store for a published product, prices as the visitor may see them', async () => {
      const res = await call(server, 'GET', publicPath(shop, `/products/${p.S}/similar?limit=4`));
      expect(res.status, res.text).to.equal(200);
      expect(ids(res)).to.deep.equal([p.D2, p.D1, p.A, p.A2]);
      expect(res.json).to.include({ pricesShown: true, sameCategory: 'prefer' });
      expect(res.json.items[0]).to.include.keys('price', 'currency', 'score', 'calibratedScore', 'goodMatch', 'tier');
      // limit defaults to the store's maxResults.
      expect(ids(await call(server, 'GET', publicPath(shop, `/products/${p.S}/similar`)))).to.have.length(9);

      expectProblem(await call(server, 'GET', publicPath(shop, `/products/${p.DR}/similar`)), 404, 'product_not_found');
      expectProblem(await call(server, 'GET', publicPath(shop, `/products/${uuidv7()}/similar`)), 404, 'product_not_found');
      expectProblem(await call(server, 'GET', publicPath(shop, `/products/${p.S}/similar?limit=101`)), 400, 'validation_failed');
      expectProblem(await call(server, 'GET', publicPath(shop, '/products/not-a-uuid/similar')), 400, 'validation_failed');

      const visibility = async (priceVisibility: string): Promise<void> => {
        const r = await call(server, 'PATCH', `/api/v1/organization/stores/${shop.storeId}`, {
          headers: shop.headers,
          body: { priceVisibility },
        });
        expect(r.status, r.text).to.equal(200);
      };
      try {
        await visibility('HIDDEN');
        const hidden = await call(server, 'GET', publicPath(shop, `/products/${p.S}/similar?limit=4`));
        expect(hidden.json.pricesShown).to.equal(false);
        expect(ids(hidden)).to.deep.equal([p.D2, p.D1, p.A, p.A2]);
        expect(hidden.text).to.not.match(/"(price|currency)"/);
      } finally {
        await visibility('EVERYONE');
      }
    });

    it('the product page\'s "Looks similar" section shows them in that order', async () => {
      const [row]: Array<{ slug: string }> = await db().query('SELECT slug FROM products WHERE id = $1', [p.S]);
      const page = await fetch(`${server.baseUrl}/shop/${shop.storeId}/products/${row!.slug}`);
      expect(page.status).to.equal(200);
      const html = await page.text();
      const section = html.slice(html.indexOf('id="similar-products"'));
      expect(section.length, 'the similar products section').to.be.below(html.length);
      const titles = [...section.matchAll(/<span class="title">([^<]+)<\/span>/g)].map((m) => m[1]).slice(0, 6);
      expect(titles).to.deep.equal(['Sofa D2', 'Sofa D1', 'Sofa A', 'Corner sofa', 'Leather office chair', 'Red chair']);
    });

    it('validates sameCategory (400), audits its change, shows it in the index status, and keeps it per store', async () => {
      const m = await visualStore();
      for (const sameCategory of ['sometimes', '', 'PREFER', 3, null]) {
        expectProblem(
          await call(server, 'PATCH', path(m, '/settings'), { headers: m.headers, body: { sameCategory } }),
          400,
          'validation_failed',
        );
      }
      const before = await call(server, 'GET', path(m, '/index'), { headers: m.headers });
      expect(before.json).to.include({ sameCategory: 'prefer', calibration: null });
      await setSameCategory(m, 'require');
      const audits = (await auditRows(server, m.owner.tenantId)).filter((a) => a.action === 'visual_search.settings.update');
      expect(audits.at(-1)!.before).to.include({ sameCategory: 'prefer' });
      expect(audits.at(-1)!.after).to.include({ sameCategory: 'require' });
      expect((await call(server, 'GET', path(m, '/index'), { headers: m.headers })).json.sameCategory).to.equal('require');

      // Another tenant can neither read nor change it; its own setting leaves this store's ranking alone.
      expectProblem(
        await call(server, 'PATCH', path(shop, '/settings'), { headers: m.headers, body: { sameCategory: 'ignore' } }),
        404,
        'store_not_found',
      );
      expectProblem(await similar({ ...shop, headers: m.headers }, p.S!), 404, 'store_not_found');
      const twin = await seed(m, { title: 'Twin of the grey sofa', vector: q });
      await index(m);
      const res = await similar(shop, p.S!);
      expect(res.json.sameCategory).to.equal('prefer');
      expect(ids(res)).to.deep.equal([p.D2, p.D1, p.A, p.A2, p.C2, p.C1, p.T, p.N, p.L]);
      expect(ids(res)).to.not.include(twin);
      expectProblem(await call(server, 'GET', publicPath(shop, `/products/${twin}/similar`)), 404, 'product_not_found');
      expectProblem(await similar(shop, twin), 404, 'product_not_found');
    });
  });

  // ---------------------------------------------------------------------------------------------

  describe('query by image: filters on both paths', () => {
    let image: string;
    before(async () => {
      image = (await solidPng(QUERY_RGB)).toString('base64');
    });

    const query = async (m: Merchant, filters: Record<string, unknown>, merchantPath: boolean): Promise<string[]> => {
      const res = merchantPath
        ? await call(server, 'POST', path(m, '/query'), { headers: m.headers, body: { image, ...filters } })
        : await call(server, 'POST', publicPath(m, '/query'), { body: { image, ...filters } });
      expect(res.status, res.text).to.equal(201);
      return ids(res);
    };

    it('finds the product whose stored vector is the query image first, on both paths', async () => {
      for (const merchantPath of [false, true]) {
        const res = merchantPath
          ? await call(server, 'POST', path(shop, '/query'), { headers: shop.headers, body: { image } })
          : await call(server, 'POST', publicPath(shop, '/query'), { body: { image } });
        expect(res.status, res.text).to.equal(201);
        expect(res.json.items[0].id).to.equal(p.S);
        expect(res.json.items[0].score).to.be.above(0.9995);
        expect(res.json.items).to.have.length(merchantPath ? 11 : 10);
      }
    });

    const published = (...names: string[]): string[] => names.map((n) => p[n]!);

    for (const merchantPath of [false, true]) {
      const label = merchantPath ? 'merchant' : 'public';
      const draft = (...names: string[]): string[] => (merchantPath ? [...published(...names), p.DR!] : published(...names));
      it(`${label}: category (with its subcategories), brand, price range, in stock, and all of them together`, async () => {
        expect(await query(shop, { categoryId: cat.furniture }, merchantPath)).to.have.members(
          draft('S', 'D1', 'D2', 'A', 'A2', 'C1', 'C2'),
        );
        expect(await query(shop, { categoryId: cat.sofas }, merchantPath)).to.have.members(draft('S', 'D1', 'D2', 'A', 'A2'));
        expect(await query(shop, { categoryId: cat.trowels }, merchantPath)).to.deep.equal(published('T'));
        expect(await query(shop, { brandId: ownBrand }, merchantPath)).to.have.members(draft('S', 'D2', 'T'));
        expect(await query(shop, { minPrice: 30, maxPrice: 60 }, merchantPath)).to.have.members(draft('D1', 'D2', 'A', 'C1', 'C2'));
        expect(await query(shop, { minPrice: 75 }, merchantPath)).to.have.members(published('S', 'L'));
        expect(await query(shop, { inStock: false }, merchantPath)).to.have.members(draft('D2', 'C2'));
        expect(await query(shop, { inStock: true, categoryId: cat.sofas }, merchantPath)).to.have.members(published('S', 'D1', 'A', 'A2'));
        expect(await query(shop, { categoryId: cat.furniture, inStock: true, maxPrice: 50 }, merchantPath)).to.have.members(
          published('D1', 'C1'),
        );
        // Filters narrow; the order stays by similarity.
        expect(await query(shop, { categoryId: cat.furniture, brandId: otherBrand }, merchantPath)).to.deep.equal(
          published('C1', 'C2', 'D1', 'A2'),
        );
        expect(await query(shop, { categoryId: uuidv7() }, merchantPath)).to.deep.equal([]);
      });
    }
  });

  // ---------------------------------------------------------------------------------------------

  describe('calibrated scores', () => {
    // P and its duplicate photo P2 are the query image; Q is merely similar to P (raw 0.95); six
    // others lean away from it (raw 0.65 against P).
    let cal: Merchant;
    const c: Record<string, string> = {};
    const vectors: Record<string, number[]> = {};
    let image: string;

    before(async () => {
      image = (await solidPng(QUERY_RGB)).toString('base64');
      cal = await visualStore();
      vectors.P = q;
      vectors.P2 = q;
      vectors.Q = withScore(q, u[0]!, 0.95);
      for (let k = 1; k <= 6; k += 1) vectors[`R${k}`] = withScore(q, u[k]!, 0.65);
      for (const [name, vector] of Object.entries(vectors)) c[name] = await seed(cal, { title: name, vector });
      await index(cal);
    });

    /** What the calibration must find: the largest nearest-neighbour raw score (identical photos left out) + 0.0001. */
    function expectedThreshold(): number {
      const all = Object.values(vectors);
      const nearest = all.map((v) => Math.max(...all.filter((w) => rawScore(v, w) < 0.9995).map((w) => rawScore(v, w))));
      return Math.max(...nearest) + 1e-4;
    }

    it('before calibration: raw scores only; goodMatch for the same photo alone', async () => {
      const res = await call(server, 'POST', publicPath(cal, '/query'), { body: { image } });
      expect(res.status, res.text).to.equal(201);
      expect(res.json.calibrated).to.equal(false);
      expect(ids(res).slice(0, 3)).to.have.members([c.P, c.P2, c.Q]);
      const q1 = res.json.items.find((i: { id: string }) => i.id === c.Q);
      expect(q1).to.include({ calibratedScore: null, goodMatch: false });
      expect(q1.score).to.be.closeTo(0.95, 1e-4);
      for (const item of res.json.items.slice(0, 2)) expect(item).to.include({ calibratedScore: null, goodMatch: true });
    });

    it('is measured by the vision worker once indexing settles, shown in the index status, and again on demand', async () => {
      await runVisionWorker(cal);
      const status = await call(server, 'GET', path(cal, '/index'), { headers: cal.headers });
      expect(status.status, status.text).to.equal(200);
      const calibration = status.json.calibration;
      expect(calibration).to.include({ model: 'mobilenet-v2', dimensions: DIMENSIONS, vectors: 9, sampleSize: 9, stale: false });
      expect(calibration.goodMatchScore).to.be.closeTo(expectedThreshold(), 1e-6);
      expect(calibration.goodMatchScore).to.be.closeTo(0.9501, 1e-6);
      expect(calibration.knots).to.have.length(51);
      expect(calibration.knots[0]).to.be.closeTo(0.65, 1e-6);
      expect(calibration.knots.at(-1)).to.equal(calibration.goodMatchScore);

      const again = await call(server, 'POST', path(cal, '/calibration'), { headers: cal.headers });
      expect(again.status, again.text).to.equal(200);
      expect(again.json).to.include({ vectors: 9, sampleSize: 9, stale: false });
      expect(again.json.knots).to.deep.equal(calibration.knots);
      expect(Date.parse(again.json.computedAt)).to.be.at.least(Date.parse(calibration.computedAt));
    });

    it('an exact duplicate is a good match, a merely similar product is not; minSimilarity is read on the calibrated scale', async () => {
      const res = await similar(cal, c.P!);
      expect(res.status, res.text).to.equal(200);
      expect(res.json.calibrated).to.equal(true);
      expect(res.json.items[0]).to.include({ id: c.P2, goodMatch: true, calibratedScore: 1 });
      expect(res.json.items[1]).to.include({ id: c.Q, goodMatch: false });
      expect(res.json.items[1].calibratedScore).to.be.within(0.3, 0.4999);
      expect(res.json.items[1].score).to.be.closeTo(0.95, 1e-4);
      for (const item of res.json.items.slice(2)) {
        expect(item.goodMatch).to.equal(false);
        expect(item.calibratedScore).to.be.below(0.35);
      }
      for (const item of res.json.items) expect(item.goodMatch).to.equal(item.calibratedScore >= 0.5);

      const settings = await call(server, 'PATCH', path(cal, '/settings'), { headers: cal.headers, body: { minSimilarity: 0.5 } });
      expect(settings.status, settings.text).to.equal(200);
      try {
        expect(ids(await similar(cal, c.P!))).to.deep.equal([c.P2]);
        for (const [label, res2] of [
          ['public', await call(server, 'POST', publicPath(cal, '/query'), { body: { image } })],
          ['merchant', await call(server, 'POST', path(cal, '/query'), { headers: cal.headers, body: { image } })],
        ] as const) {
          expect(res2.status, `${label}: ${res2.text}`).to.equal(201);
          expect(res2.json.calibrated, label).to.equal(true);
          expect(ids(res2), label).to.have.members([c.P, c.P2]);
          for (const item of res2.json.items) expect(item, label).to.include({ goodMatch: true });
        }
      } finally {
        await call(server, 'PATCH', path(cal, '/settings'), { headers: cal.headers, body: { minSimilarity: 0 } });
      }
    });

    it('goes stale when the vectors change by a tenth, and the worker measures it again', async () => {
      c.R7 = await seed(cal, { title: 'R7', vector: unit(u[1]!.map((x, d) => x + u[2]![d]!)) });
      vectors.R7 = unit(u[1]!.map((x, d) => x + u[2]![d]!));
      await index(cal);
      const stale = await call(server, 'GET', path(cal, '/index'), { headers: cal.headers });
      expect(stale.json.calibration).to.include({ vectors: 9, stale: true });
      await runVisionWorker(cal);
      const fresh = await call(server, 'GET', path(cal, '/index'), { headers: cal.headers });
      expect(fresh.json.calibration).to.include({ vectors: 10, sampleSize: 10, stale: false });
      expect(fresh.json.calibration.goodMatchScore).to.be.closeTo(expectedThreshold(), 1e-6);
    });

    it("the console's visual search page shows the setting and the calibration, and its form changes the setting", async () => {
      const cookies = { console_at: cal.owner.accessToken };
      const page = await web(server, 'GET', `/console/stores/${cal.storeId}/visual`, { cookies });
      expect(page.status, page.text.slice(0, 300)).to.equal(200);
      expect(page.text).to.match(/<option value="prefer" selected>/);
      expect(page.text).to.match(/data-calibration>Scores calibrated on 10 of 10 products: a good match scores 0\.95 or more\./);
      const saved = await web(server, 'POST', `/console/stores/${cal.storeId}/visual/settings`, {
        form: { sameCategory: 'require' },
        cookies,
      });
      expect(saved.status).to.equal(302);
      expect(saved.location).to.match(/flash=Similar\+products\+setting\+saved/);
      expect((await call(server, 'GET', path(cal, '/index'), { headers: cal.headers })).json.sameCategory).to.equal('require');
      const refused = await web(server, 'POST', `/console/stores/${cal.storeId}/visual/settings`, {
        form: { sameCategory: 'always' },
        cookies,
      });
      expect(refused.location).to.match(/error=/);
      expect((await call(server, 'GET', path(cal, '/index'), { headers: cal.headers })).json.sameCategory).to.equal('require');
    });

    it('answers 409 with too little to calibrate against, 409 when disabled, 404 for another tenant; a clear removes it', async () => {
      const small = await visualStore();
      await seed(small, { title: 'alone', vector: q });
      expectProblem(await call(server, 'POST', path(small, '/calibration'), { headers: small.headers }), 409, 'calibration_unavailable');
      await seed(small, { title: 'the same photo again', vector: q });
      expectProblem(await call(server, 'POST', path(small, '/calibration'), { headers: small.headers }), 409, 'calibration_unavailable');
      expectProblem(await call(server, 'POST', path(cal, '/calibration'), { headers: small.headers }), 404, 'store_not_found');

      const off = suite.addMerchant(await merchant(server));
      expectProblem(await call(server, 'POST', path(off, '/calibration'), { headers: off.headers }), 409, 'visual_search_disabled');

      const cleared = await call(server, 'DELETE', path(cal, '/index'), { headers: cal.headers });
      expect(cleared.status, cleared.text).to.equal(200);
      expect((await call(server, 'GET', path(cal, '/index'), { headers: cal.headers })).json.calibration).to.equal(null);
    });
  });
});
