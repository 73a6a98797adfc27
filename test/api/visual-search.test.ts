/**
 * Visual search against the real services with real embeddings of the default model (MobileNetV2
 * from nsfwjs on tfjs wasm) on images these tests draw with sharp. Product images are served by a
 * local HTTP server that the fetcher may reach only through the test allow-list (127.0.0.1), so every
 * other private address stays refused. Outbox rows (vision, then index) are delivered here with the
 * real consumers, deterministically.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type BeeQueue from 'bee-queue';
import { expect } from 'chai';
import pino from 'pino';
import sharp from 'sharp';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { eventually } from '../helpers/wait';
import { auditRows, expectProblem } from '../helpers/accounts';
import { category, createProduct, merchant, type Merchant } from '../helpers/fixtures';
import { jobIdFor, outboxConsumer, type OutboxJobData } from '../../storage/outbox';
import type { DeliveryHandler } from '../../storage/consumers';
import type { QueueName } from '../../storage/queues';
import { createIndexHandler } from '../../indexer/index-consumer';
import { createVisionHandler } from '../../vision/worker';
import { disposeEmbedders, getEmbedder } from '../../vision/embedder';
import { storeIndexUid } from '../../search/index-names';
import { startConsumers } from '../../storage/consumers';
import { QueueRegistry } from '../../storage/queues';
import { visionConsumers } from '../../app/roles/vision';
import { testConfig } from '../helpers/harness';
import { uuidv7 } from '../../storage/ids';
import type { VisionConfig } from '../../lib/config';
import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { writeTinyClip } from '../helpers/tiny-clip';

const silent = pino({ level: 'silent' });
const retry = { retryBaseMs: 1, retryMaxMs: 10 };

type Rgb = [number, number, number];

/** A 256×256 PNG: a background colour with a pattern drawn in a second colour. */
function drawing(kind: 'circle' | 'stripes' | 'checker' | 'triangle' | 'ring' | 'bars', bg: Rgb, fg: Rgb, size = 256): Promise<Buffer> {
  const c = (rgb: Rgb): string => `rgb(${rgb.join(',')})`;
  const shapes: Record<string, string> = {
    circle: `<circle cx="128" cy="128" r="70" fill="${c(fg)}"/>`,
    stripes: Array.from({ length: 8 }, (_, i) => `<rect x="0" y="${i * 32}" width="256" height="16" fill="${c(fg)}"/>`).join(''),
    checker: Array.from({ length: 64 }, (_, i) =>
      (i + Math.floor(i / 8)) % 2 ? `<rect x="${(i % 8) * 32}" y="${Math.floor(i / 8) * 32}" width="32" height="32" fill="${c(fg)}"/>` : '',
    ).join(''),
    triangle: `<polygon points="128,20 236,236 20,236" fill="${c(fg)}"/>`,
    ring: `<circle cx="128" cy="128" r="90" fill="none" stroke="${c(fg)}" stroke-width="30"/>`,
    bars: Array.from({ length: 8 }, (_, i) => `<rect x="${i * 32}" y="0" width="12" height="256" fill="${c(fg)}"/>`).join(''),
  };
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256"><rect width="256" height="256" fill="${c(bg)}"/>${shapes[kind]}</svg>`;
  return sharp(Buffer.from(svg)).resize(size, size).png().toBuffer();
}

describe('visual search', function () {
  this.timeout(120_000);
  let server: TestServer;
  let images: http.Server;
  let imageBase: string;
  let saved: VisionConfig;
  const served = new Map<string, { body: Buffer; type: string }>();
  let visionHandler: DeliveryHandler;
  let indexHandler: DeliveryHandler;

  const suite = apiSuite((started) => (server = started));

  before(async () => {
    saved = { ...server.runtime.config.vision };
    Object.assign(server.runtime.config.vision, {
      fetchAllowAddresses: ['127.0.0.1'],
      uploadMaxBytes: 300_000,
      maxPixels: 4_000_000,
      fetchMaxBytes: 400_000,
      fetchTimeoutMs: 3_000,
      maxAttempts: 2,
      publicQueriesPerMinute: 100_000,
    });
    visionHandler = createVisionHandler({ dataSource: server.runtime.dataSource, logger: silent, config: server.runtime.config.vision });
    indexHandler = createIndexHandler({ dataSource: server.runtime.dataSource, meili: server.runtime.meiliAdmin, logger: silent });
    images = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/redirect') {
        res.writeHead(302, { Location: url.searchParams.get('to') ?? '/' });
        res.end();
        return;
      }
      if (url.pathname === '/flaky') {
        res.writeHead(503);
        res.end();
        return;
      }
      const item = served.get(url.pathname);
      if (!item) {
        res.writeHead(404);
        res.end();
        return;
      }
      res.writeHead(200, { 'Content-Type': item.type });
      res.end(item.body);
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', () => resolve()));
    imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;

    served.set('/red-circle.png', { body: await drawing('circle', [255, 255, 255], [220, 20, 20]), type: 'image/png' });
    served.set('/blue-stripes.png', { body: await drawing('stripes', [255, 255, 255], [20, 40, 200]), type: 'image/png' });
    served.set('/green-checker.png', { body: await drawing('checker', [0, 0, 0], [30, 190, 40]), type: 'image/png' });
    served.set('/yellow-triangle.png', { body: await drawing('triangle', [40, 40, 40], [250, 220, 30]), type: 'image/png' });
    served.set('/purple-ring.png', { body: await drawing('ring', [250, 250, 250], [130, 30, 160]), type: 'image/png' });
    served.set('/orange-bars.png', { body: await drawing('bars', [255, 255, 255], [250, 140, 20]), type: 'image/png' });
    served.set('/not-an-image.png', { body: Buffer.from('<html><body>hello, I am not a picture at all</body></html>'), type: 'image/png' });
    served.set('/too-large.jpg', { body: Buffer.alloc(500_000, 0xff), type: 'image/jpeg' });
    // 2500×2500 = 6.25 MP > the 4 MP limit of these tests, yet a tiny file: a decompression bomb in miniature.
    served.set('/bomb.png', {
      body: await sharp({ create: { width: 2500, height: 2500, channels: 3, background: { r: 200, g: 0, b: 0 } } })
        .png()
        .toBuffer(),
      type: 'image/png',
    });
    // Load the model once, before the first test that needs it.
    await getEmbedder('mobilenet-v2', server.runtime.config.vision);
  });

  after(async () => {
    // The rest of the suite runs in this process: give the model threads' memory back.
    await disposeEmbedders();
    Object.assign(server.runtime.config.vision, saved);
    await new Promise<void>((resolve) => images.close(() => resolve()));
  });

  const newMerchant = async (): Promise<Merchant> => suite.addMerchant(await merchant(server), { indexed: true });

  /** Delivers the tenant's pending rows of `queue` aggregate by aggregate; returns the failures. */
  async function drain(m: Merchant, queue: QueueName, handler: DeliveryHandler): Promise<Error[]> {
    const rows: Array<{ aggregate_type: string; aggregate_id: string }> = await server.runtime.dataSource.query(
      `WITH c AS (UPDATE outbox SET status = 'in_flight', claimed_at = now(), attempts = attempts + 1
                   WHERE tenant_id = $1 AND queue = $2 AND status = 'pending' AND available_at <= now() RETURNING id, aggregate_type, aggregate_id)
       SELECT aggregate_type, aggregate_id, min(id) AS first FROM c GROUP BY 1, 2 ORDER BY first`,
      [m.owner.tenantId, queue],
    );
    const consume = outboxConsumer(server.runtime.dataSource, queue, retry, handler);
    const failures: Error[] = [];
    // Several at once, so the embedder batches images of different products.
    await Promise.all(
      rows.map((row) => {
        const job = {
          id: jobIdFor(row.aggregate_type, row.aggregate_id),
          data: { aggregateType: row.aggregate_type, aggregateId: row.aggregate_id, tenantId: m.owner.tenantId },
        };
        return consume(job as BeeQueue.Job<OutboxJobData>).catch((e: Error) => failures.push(e));
      }),
    );
    return failures;
  }

  /** Runs the vision worker, then the indexer, until the tenant has nothing pending (rows waiting for a retry included); returns the failures. */
  async function settle(m: Merchant): Promise<Error[]> {
    const failures: Error[] = [];
    await eventually(
      async () => {
        failures.push(...(await drain(m, 'vision', visionHandler)));
        failures.push(...(await drain(m, 'index', indexHandler)));
        const [left]: Array<{ n: number }> = await server.runtime.dataSource.query(
          "SELECT count(*)::int AS n FROM outbox WHERE tenant_id = $1 AND queue IN ('vision', 'index') AND status <> 'done'",
          [m.owner.tenantId],
        );
        return left!.n === 0;
      },
      'the vision and index rows of the tenant to be done',
      90_000, // embedding is slow on a busy machine; the tests' own timeout (120 s) bounds it too
    );
    return failures;
  }

  /** A published product made through the API with the image at `image` of the test image server (none when null); answers its id. */
  async function product(m: Merchant, title: string, image: string | null, extra: Record<string, unknown> = {}): Promise<string> {
    const body = { title, status: 'PUBLISHED', images: image ? [{ url: `${imageBase}${image}` }] : [], variants: [{ stock: 5 }], ...extra };
    return (await createProduct(server, m, body)).id;
  }

  async function enable(m: Merchant, body: Record<string, unknown> = {}): Promise<void> {
    const res = await call(server, 'PATCH', `/api/v1/visual-search/stores/${m.storeId}/settings`, {
      headers: m.headers,
      body: { enabled: true, ...body },
    });
    expect(res.status, res.text).to.equal(200);
  }

  const path = (m: Merchant, rest: string): string => `/api/v1/visual-search/stores/${m.storeId}${rest}`;
  const publicPath = (m: Merchant): string => `/api/v1/visual-search/public/stores/${m.storeId}/query`;

  function multipart(
    fields: Record<string, string>,
    file?: { name: string; body: Buffer; type?: string },
  ): { rawBody: Buffer; contentType: string } {
    const boundary = `----test${uuidv7().replace(/-/g, '')}`;
    const parts: Buffer[] = [];
    for (const [name, value] of Object.entries(fields))
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
    if (file) {
      parts.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="photo"\r\nContent-Type: ${file.type ?? 'application/octet-stream'}\r\n\r\n`,
        ),
      );
      parts.push(file.body, Buffer.from('\r\n'));
    }
    parts.push(Buffer.from(`--${boundary}--\r\n`));
    return { rawBody: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
  }

  // A catalog shared by the query tests: six drawings, one draft, one failing image.
  let shop: Merchant;
  const ids: Record<string, string> = {};
  let redBrand: string;
  let hats: string;

  before(async () => {
    shop = await newMerchant();
    redBrand = uuidv7();
    await server.runtime.dataSource.query('INSERT INTO brands (id, tenant_id, store_id, name, slug) VALUES ($1, $2, $3, $4, $5)', [
      redBrand,
      shop.owner.tenantId,
      shop.storeId,
      'Redline',
      `redline-${redBrand.slice(-8)}`,
    ]);
    hats = await category(server, shop, { name: 'Hats' });
    ids.red = await product(shop, 'Red circle', '/red-circle.png', { brandId: redBrand, categoryIds: [hats], price: 25 });
    ids.blue = await product(shop, 'Blue stripes', '/blue-stripes.png', { price: 40 });
    ids.green = await product(shop, 'Green checker', '/green-checker.png', { categoryIds: [hats], price: 15, variants: [{ stock: 0 }] });
    ids.yellow = await product(shop, 'Yellow triangle', '/yellow-triangle.png', { price: 60 });
    ids.purple = await product(shop, 'Purple ring', '/purple-ring.png', { price: 30 });
    ids.orangeDraft = await product(shop, 'Orange bars (draft)', '/orange-bars.png', { status: 'DRAFT' });
    ids.broken = await product(shop, 'Broken image', '/not-an-image.png');
    ids.noImage = await product(shop, 'No image', null);
    expect(await settle(shop)).to.deep.equal([]);
    await enable(shop);
    expect(await settle(shop)).to.deep.equal([]);
  });

  describe('settings', () => {
    it('starts disabled, validates every bound, and records one audit entry per change', async () => {
      const m = await newMerchant();
      const status = await call(server, 'GET', path(m, '/index'), { headers: m.headers });
      expect(status.status, status.text).to.equal(200);
      expect(status.json).to.include({ enabled: false, model: 'mobilenet-v2', dimensions: 1280 });

      for (const body of [
        {},
        { minSimilarity: -0.1 },
        { minSimilarity: 1.01 },
        { maxResults: 0 },
        { maxResults: 101 },
        { maxResults: 2.5 },
        { model: 'resnet' },
        { enabled: 'yes' },
        { unknown: 1 },
      ]) {
        const res = await call(server, 'PATCH', path(m, '/settings'), { headers: m.headers, body });
        expectProblem(res, 400, 'validation_failed');
      }
      const clip = await call(server, 'PATCH', path(m, '/settings'), { headers: m.headers, body: { model: 'clip' } });
      expectProblem(clip, 400, 'model_unavailable');

      const res = await call(server, 'PATCH', path(m, '/settings'), { headers: m.headers, body: { minSimilarity: 0.75, maxResults: 100 } });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.include({
        storeId: m.storeId,
        enabled: false,
        model: 'mobilenet-v2',
        dimensions: 1280,
        minSimilarity: 0.75,
        maxResults: 100,
        textQueries: false,
      });
      const again = await call(server, 'PATCH', path(m, '/settings'), { headers: m.headers, body: { minSimilarity: 0.75 } });
      expect(again.status).to.equal(200);
      const audits = (await auditRows(server, m.owner.tenantId)).filter((a) => a.action === 'visual_search.settings.update');
      expect(audits).to.have.length(1);
      expect(audits[0]!.after).to.include({ minSimilarity: 0.75, maxResults: 100 });
    });

    it("answers 404 for another tenant's store, and 401 without a token", async () => {
      const other = await newMerchant();
      expectProblem(
        await call(server, 'PATCH', path(shop, '/settings'), { headers: other.headers, body: { enabled: false } }),
        404,
        'store_not_found',
      );
      expectProblem(await call(server, 'GET', path(shop, '/index'), { headers: other.headers }), 404, 'store_not_found');
      expectProblem(await call(server, 'DELETE', path(shop, '/index'), { headers: other.headers }), 404, 'store_not_found');
      expectProblem(await call(server, 'POST', path(shop, '/index'), { headers: other.headers, body: {} }), 404, 'store_not_found');
      expectProblem(
        await call(server, 'GET', path(shop, `/products/${ids.red}/similar`), { headers: other.headers }),
        404,
        'store_not_found',
      );
      expectProblem(
        await call(server, 'POST', path(shop, '/query'), { headers: other.headers, body: { imageUrl: `${imageBase}/red-circle.png` } }),
        404,
        'store_not_found',
      );
      expect((await call(server, 'GET', path(shop, '/index'))).status).to.equal(401);
    });
  });

  describe('the image index', () => {
    it('indexes every product image, records a bad image FAILED with its reason, and skips products without one', async () => {
      const res = await call(server, 'GET', path(shop, '/index'), { headers: shop.headers });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.include({ enabled: true, model: 'mobilenet-v2', dimensions: 1280 });
      expect(res.json.counts).to.deep.equal({ products: 8, withImage: 7, indexed: 6, pending: 0, failed: 1 });
      expect(res.json.failures).to.have.length(1);
      expect(res.json.failures[0]).to.include({ productId: ids.broken, imageUrl: `${imageBase}/not-an-image.png`, attempts: 1 });
      expect(res.json.failures[0].reason).to.match(/^not_an_image: /);
      expect(res.json.lastIndexedAt).to.be.a('string');
      expect(res.json.lastRequestedAt).to.be.a('string');
      // The vectors reached the search index through the indexer (one writer), and are L2-normalised.
      const doc = (await server.runtime.meiliAdmin
        .index(storeIndexUid(shop.storeId))
        .getDocument(ids.red, { retrieveVectors: true } as never)) as { _vectors?: { image?: { embeddings: number[][] } } };
      const vector = doc._vectors!.image!.embeddings[0]!;
      expect(vector).to.have.length(1280);
      expect(Math.sqrt(vector.reduce((s, x) => s + x * x, 0))).to.be.closeTo(1, 1e-3);
      const settings = await server.runtime.meiliAdmin.index(storeIndexUid(shop.storeId)).getSettings();
      expect(settings.embedders).to.deep.include({ image: { source: 'userProvided', dimensions: 1280 } });
    });

    it('re-embeds a product whose main image changes, and reuses stored vectors when asked to index again', async () => {
      const m = await newMerchant();
      await enable(m);
      const id = await product(m, 'Changes', '/red-circle.png');
      expect(await settle(m)).to.deep.equal([]);
      const [first]: Array<{ vector: Buffer; updated_at: Date }> = await server.runtime.dataSource.query(
        'SELECT vector, updated_at FROM product_image_vectors WHERE product_id = $1',
        [id],
      );
      expect(first!.vector).to.have.length(1280 * 4);

      const index = await call(server, 'POST', path(m, '/index'), { headers: m.headers, body: {} });
      expect(index.status, index.text).to.equal(202);
      expect(index.json).to.deep.equal({ storeId: m.storeId, queued: 1, model: 'mobilenet-v2' });
      const pending = await call(server, 'GET', path(m, '/index'), { headers: m.headers });
      expect(pending.json.counts).to.include({ pending: 1, indexed: 0 });
      expect(await settle(m)).to.deep.equal([]);
      const [reused]: Array<{ vector: Buffer; status: string }> = await server.runtime.dataSource.query(
        'SELECT vector, status FROM product_image_vectors WHERE product_id = $1',
        [id],
      );
      expect(reused!.status).to.equal('INDEXED');
      expect(reused!.vector.equals(first!.vector)).to.equal(true);

      const patch = await call(server, 'PUT', `/api/v1/catalog/products/${id}`, {
        headers: m.headers,
        body: {
          title: 'Changes',
          type: 'PHYSICAL',
          price: 10,
          images: [{ url: `${imageBase}/blue-stripes.png` }],
          variants: [{ stock: 5 }],
        },
      });
      expect(patch.status, patch.text).to.equal(200);
      expect(await settle(m)).to.deep.equal([]);
      const [changed]: Array<{ vector: Buffer; image_url: string }> = await server.runtime.dataSource.query(
        'SELECT vector, image_url FROM product_image_vectors WHERE product_id = $1',
        [id],
      );
      expect(changed!.image_url).to.equal(`${imageBase}/blue-stripes.png`);
      expect(changed!.vector.equals(first!.vector)).to.equal(false);
    });

    it('validates index requests: unknown products 404, bounds 400, disabled store 409', async () => {
      expectProblem(
        await call(server, 'POST', path(shop, '/index'), { headers: shop.headers, body: { productIds: [uuidv7()] } }),
        404,
        'product_not_found',
      );
      expectProblem(
        await call(server, 'POST', path(shop, '/index'), { headers: shop.headers, body: { productIds: [] } }),
        400,
        'validation_failed',
      );
      expectProblem(
        await call(server, 'POST', path(shop, '/index'), { headers: shop.headers, body: { productIds: ['nope'] } }),
        400,
        'validation_failed',
      );
      expectProblem(
        await call(server, 'POST', path(shop, '/index'), {
          headers: shop.headers,
          body: { productIds: Array.from({ length: 1001 }, () => uuidv7()) },
        }),
        400,
        'validation_failed',
      );
      const m = await newMerchant();
      expectProblem(await call(server, 'POST', path(m, '/index'), { headers: m.headers, body: {} }), 409, 'visual_search_disabled');
      const other = await newMerchant();
      const foreign = await product(other, 'Foreign', '/red-circle.png');
      await enable(m);
      expectProblem(
        await call(server, 'POST', path(m, '/index'), { headers: m.headers, body: { productIds: [foreign] } }),
        404,
        'product_not_found',
      );
    });

    it('retries an unreachable image with backoff and records FAILED after the last attempt, while the others index', async () => {
      const m = await newMerchant();
      await enable(m);
      const flaky = await product(m, 'Flaky', '/flaky');
      const fine = await product(m, 'Fine', '/purple-ring.png');
      const failures = await drain(m, 'vision', visionHandler);
      expect(failures).to.have.length(1);
      let [row]: Array<{ status: string; attempts: number; error: string }> = await server.runtime.dataSource.query(
        'SELECT status, attempts, error FROM product_image_vectors WHERE product_id = $1',
        [flaky],
      );
      expect(row).to.include({ status: 'FAILED', attempts: 1 });
      expect(row!.error).to.match(/^http_status: .*503/);
      const [outbox]: Array<{ status: string }> = await server.runtime.dataSource.query(
        "SELECT status FROM outbox WHERE aggregate_id = $1 AND queue = 'vision' ORDER BY id DESC LIMIT 1",
        [flaky],
      );
      expect(outbox!.status).to.equal('pending');
      expect(await settle(m)).to.deep.equal([]);
      [row] = await server.runtime.dataSource.query('SELECT status, attempts, error FROM product_image_vectors WHERE product_id = $1', [
        flaky,
      ]);
      expect(row).to.include({ status: 'FAILED', attempts: 2 });
      const [ok]: Array<{ status: string }> = await server.runtime.dataSource.query(
        'SELECT status FROM product_image_vectors WHERE product_id = $1',
        [fine],
      );
      expect(ok!.status).to.equal('INDEXED');
    });

    it("runs through the vision role's consumer table on a bee-queue worker, as the relay hands jobs over", async () => {
      const m = await newMerchant();
      await enable(m);
      const ids2 = [
        await product(m, 'One', '/red-circle.png'),
        await product(m, 'Two', '/blue-stripes.png'),
        await product(m, 'Three', '/purple-ring.png'),
      ];
      const prefix = testConfig().queuePrefix;
      const producers = new QueueRegistry({ redisUrl: server.runtime.config.redisUrl, isWorker: false, logger: silent, prefix });
      const consumers = startConsumers(
        { dataSource: server.runtime.dataSource, redisUrl: server.runtime.config.redisUrl, logger: silent, outbox: retry, prefix },
        visionConsumers({ dataSource: server.runtime.dataSource, logger: silent, config: server.runtime.config }),
      );
      try {
        expect(consumers.queues).to.deep.equal(['vision']);
        // Claimed like the relay claims them (only this tenant's rows: other test files share the outbox).
        const rows: Array<{ aggregate_type: string; aggregate_id: string }> = await server.runtime.dataSource.query(
          `WITH c AS (UPDATE outbox SET status = 'in_flight', claimed_at = now(), attempts = attempts + 1
                       WHERE tenant_id = $1 AND queue = 'vision' AND status = 'pending' RETURNING aggregate_type, aggregate_id)
           SELECT DISTINCT aggregate_type, aggregate_id FROM c`,
          [m.owner.tenantId],
        );
        expect(rows).to.have.length(3);
        for (const row of rows) {
          await producers
            .get('vision')
            .createJob({ aggregateType: row.aggregate_type, aggregateId: row.aggregate_id, tenantId: m.owner.tenantId })
            .setId(jobIdFor(row.aggregate_type, row.aggregate_id))
            .save();
        }
        // The product rows (the store's calibration row the worker adds once they settle is not handed over here).
        const left = async (): Promise<number> =>
          (
            (await server.runtime.dataSource.query(
              "SELECT count(*)::int AS n FROM outbox WHERE tenant_id = $1 AND queue = 'vision' AND aggregate_type = 'product' AND status <> 'done'",
              [m.owner.tenantId],
            )) as Array<{ n: number }>
          )[0]!.n;
        await eventually(async () => (await left()) === 0, 'the worker to finish the vision rows', { timeoutMs: 60_000, intervalMs: 100 });
      } finally {
        await consumers.stop(2_000);
        await producers.close(1_000);
      }
      const done: Array<{ status: string }> = await server.runtime.dataSource.query(
        'SELECT status FROM product_image_vectors WHERE product_id = ANY($1::uuid[])',
        [ids2],
      );
      expect(done.map((r) => r.status)).to.deep.equal(['INDEXED', 'INDEXED', 'INDEXED']);
      // Each vector went on to the index queue for the indexer.
      const [indexRows]: Array<{ n: number }> = await server.runtime.dataSource.query(
        "SELECT count(*)::int AS n FROM outbox WHERE tenant_id = $1 AND queue = 'index' AND topic = 'product.image_vector_updated'",
        [m.owner.tenantId],
      );
      expect(indexRows!.n).to.equal(3);
      // Once nothing of the store was waiting, the worker queued one measure of its score calibration.
      const calibrations: Array<{ aggregate_id: string }> = await server.runtime.dataSource.query(
        "SELECT DISTINCT aggregate_id FROM outbox WHERE tenant_id = $1 AND queue = 'vision' AND aggregate_type = 'store' AND topic = 'visual_search.calibrate'",
        [m.owner.tenantId],
      );
      expect(calibrations.map((r) => r.aggregate_id)).to.deep.equal([m.storeId]);
    });

    it('loses no job when the worker crashes mid-batch: the rows go back to pending and index later', async () => {
      const m = await newMerchant();
      await enable(m);
      const a = await product(m, 'A', '/red-circle.png');
      const b = await product(m, 'B', '/green-checker.png');
      let crashes = 0;
      const crashing = createVisionHandler({
        dataSource: server.runtime.dataSource,
        logger: silent,
        config: server.runtime.config.vision,
        embedderFor: async () => {
          crashes += 1;
          throw new Error('worker crashed (simulated)');
        },
      });
      const failures = await drain(m, 'vision', crashing);
      expect(failures).to.have.length(2);
      expect(crashes).to.equal(2);
      const rows: Array<{ status: string }> = await server.runtime.dataSource.query(
        "SELECT status FROM outbox WHERE tenant_id = $1 AND queue = 'vision' AND aggregate_id = ANY($2::text[])",
        [m.owner.tenantId, [a, b]],
      );
      expect(rows.map((r) => r.status)).to.deep.equal(['pending', 'pending']);
      // A worker that died without answering leaves rows in flight; the relay reclaims them the same way.
      expect(await settle(m)).to.deep.equal([]);
      const done: Array<{ status: string }> = await server.runtime.dataSource.query(
        'SELECT status FROM product_image_vectors WHERE product_id = ANY($1::uuid[])',
        [[a, b]],
      );
      expect(done.map((r) => r.status)).to.deep.equal(['INDEXED', 'INDEXED']);
    });

    it("clears the store's vectors (and from the search index), with one audit entry", async () => {
      const m = await newMerchant();
      await enable(m);
      const id = await product(m, 'Clear me', '/yellow-triangle.png');
      expect(await settle(m)).to.deep.equal([]);
      const res = await call(server, 'DELETE', path(m, '/index'), { headers: m.headers });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.deep.equal({ storeId: m.storeId, cleared: 1 });
      expect(await settle(m)).to.deep.equal([]);
      const doc = (await server.runtime.meiliAdmin.index(storeIndexUid(m.storeId)).getDocument(id, { retrieveVectors: true } as never)) as {
        _vectors?: { image?: { embeddings: number[][] } };
      };
      expect(doc._vectors?.image?.embeddings ?? []).to.deep.equal([]);
      const status = await call(server, 'GET', path(m, '/index'), { headers: m.headers });
      expect(status.json.counts).to.include({ indexed: 0, failed: 0, pending: 0 });
      const again = await call(server, 'DELETE', path(m, '/index'), { headers: m.headers });
      expect(again.json.cleared).to.equal(0);
      expect((await auditRows(server, m.owner.tenantId)).filter((a) => a.action === 'visual_search.clear')).to.have.length(1);
      expectProblem(
        await call(server, 'GET', path(m, `/products/${id}/similar`), { headers: m.headers }),
        409,
        'product_image_not_indexed',
      );
    });
  });

  describe('similar products', () => {
    it('lists published products of the same store by similarity, never the product itself', async () => {
      const other = await newMerchant();
      await enable(other);
      const foreignTwin = await product(other, 'Twin in another store', '/red-circle.png');
      expect(await settle(other)).to.deep.equal([]);

      const res = await call(server, 'GET', path(shop, `/products/${ids.red}/similar?limit=10`), { headers: shop.headers });
      expect(res.status, res.text).to.equal(200);
      const found = res.json.items.map((i: { id: string }) => i.id);
      expect(found).to.not.include(ids.red);
      expect(found).to.not.include(ids.orangeDraft);
      expect(found).to.not.include(foreignTwin);
      expect(found).to.have.members([ids.blue, ids.green, ids.yellow, ids.purple]);
      // sameCategory prefer (the default): green shares the red hat's category, so it leads; the rest by similarity.
      expect(res.json.sameCategory).to.equal('prefer');
      expect(found[0]).to.equal(ids.green);
      expect(res.json.items[0].tier).to.equal('same_category');
      const scores = res.json.items.slice(1).map((i: { score: number }) => i.score);
      expect(scores).to.deep.equal([...scores].sort((a, b) => b - a));
      for (const score of scores) expect(score).to.be.within(0, 1);
      expect(res.json.model).to.equal('mobilenet-v2');

      const limited = await call(server, 'GET', path(shop, `/products/${ids.red}/similar?limit=2`), { headers: shop.headers });
      expect(limited.json.items).to.have.length(2);
      expectProblem(
        await call(server, 'GET', path(shop, `/products/${ids.red}/similar?limit=0`), { headers: shop.headers }),
        400,
        'validation_failed',
      );
      expectProblem(
        await call(server, 'GET', path(shop, `/products/${ids.red}/similar?limit=101`), { headers: shop.headers }),
        400,
        'validation_failed',
      );
      expectProblem(
        await call(server, 'GET', path(shop, `/products/${foreignTwin}/similar`), { headers: shop.headers }),
        404,
        'product_not_found',
      );
      expectProblem(
        await call(server, 'GET', path(shop, `/products/${ids.noImage}/similar`), { headers: shop.headers }),
        409,
        'product_image_not_indexed',
      );
    });
  });

  describe('query by image', () => {
    const red = (): Buffer => served.get('/red-circle.png')!.body;

    it('finds the product of a resized, re-encoded or slightly cropped copy first (public, multipart upload)', async () => {
      const copies = {
        resized: await sharp(red()).resize(150, 150).png().toBuffer(),
        jpeg: await sharp(red()).jpeg({ quality: 60 }).toBuffer(),
        cropped: await sharp(red()).extract({ left: 12, top: 10, width: 236, height: 238 }).webp().toBuffer(),
      };
      for (const [label, body] of Object.entries(copies)) {
        const form = multipart({}, { name: 'image', body, type: 'image/png' });
        const res = await call(server, 'POST', publicPath(shop), form);
        expect(res.status, `${label}: ${res.text}`).to.equal(201);
        expect(res.json.items[0].id, label).to.equal(ids.red);
        expect(res.json.items[0].score, label).to.be.above(0.9);
        const statuses = new Set(res.json.items.map((i: { status: string }) => i.status));
        expect([...statuses]).to.deep.equal(['PUBLISHED']);
      }
    });

    it('takes base64 in JSON and an image URL; each finds its own product first', async () => {
      const b64 = await call(server, 'POST', publicPath(shop), {
        body: { image: (await sharp(served.get('/green-checker.png')!.body).resize(200, 200).jpeg().toBuffer()).toString('base64') },
      });
      expect(b64.status, b64.text).to.equal(201);
      expect(b64.json.items[0].id).to.equal(ids.green);
      const url = await call(server, 'POST', publicPath(shop), { body: { imageUrl: `${imageBase}/yellow-triangle.png` } });
      expect(url.status, url.text).to.equal(201);
      expect(url.json.items[0].id).to.equal(ids.yellow);
      expect(url.json.items[0]).to.have.keys([
        'id',
        'title',
        'slug',
        'status',
        'price',
        'currency',
        'imageUrl',
        'inStock',
        'score',
        'calibratedScore',
        'goodMatch',
      ]);
    });

    it('applies filters inside the search: category, brand, price range, in stock', async () => {
      const q = async (filters: Record<string, unknown>): Promise<string[]> => {
        const res = await call(server, 'POST', publicPath(shop), { body: { imageUrl: `${imageBase}/red-circle.png`, ...filters } });
        expect(res.status, res.text).to.equal(201);
        return res.json.items.map((i: { id: string }) => i.id);
      };
      expect(await q({ categoryId: hats })).to.have.members([ids.red, ids.green]);
      expect(await q({ brandId: redBrand })).to.deep.equal([ids.red]);
      expect(await q({ minPrice: 26, maxPrice: 45 })).to.have.members([ids.blue, ids.purple]);
      expect(await q({ inStock: false })).to.deep.equal([ids.green]);
      expect(await q({ inStock: true, categoryId: hats })).to.deep.equal([ids.red]);
      const form = multipart({ categoryId: hats, inStock: 'true' }, { name: 'image', body: served.get('/green-checker.png')!.body });
      const res = await call(server, 'POST', publicPath(shop), form);
      expect(res.status, res.text).to.equal(201);
      expect(res.json.items.map((i: { id: string }) => i.id)).to.deep.equal([ids.red]);
    });

    it('leaves prices out and ignores price filters for visitors the store hides prices from', async () => {
      const setVisibility = async (priceVisibility: string): Promise<void> => {
        const res = await call(server, 'PATCH', `/api/v1/organization/stores/${shop.storeId}`, {
          headers: shop.headers,
          body: { priceVisibility },
        });
        expect(res.status, res.text).to.equal(200);
      };
      const q = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
        call(server, 'POST', publicPath(shop), { headers, body: { imageUrl: `${imageBase}/red-circle.png`, ...body } });
      const everything = await q({});
      expect(everything.json).to.deep.include({ pricesShown: true, ignoredParams: [] });
      try {
        await setVisibility('HIDDEN');
        const hidden = await q({});
        expect(hidden.status, hidden.text).to.equal(201);
        expect(hidden.json).to.deep.include({ pricesShown: false, ignoredParams: [] });
        expect(hidden.json.items.map((i: { id: string }) => i.id)).to.deep.equal(everything.json.items.map((i: { id: string }) => i.id));
        for (const item of hidden.json.items) expect(item).to.not.have.any.keys('price', 'currency');
        // A price range cannot narrow the results down (a binary search for a price), signed in or not.
        for (const headers of [{}, shop.headers]) {
          const ranged = await q({ minPrice: 26, maxPrice: 45 }, headers);
          expect(ranged.status, ranged.text).to.equal(201);
          expect(ranged.json.ignoredParams).to.deep.equal(['minPrice', 'maxPrice']);
          expect(ranged.json.items.map((i: { id: string }) => i.id)).to.have.members(hidden.json.items.map((i: { id: string }) => i.id));
          expect(ranged.text).to.not.match(/"(price|currency)"/);
        }
        // SIGNED_IN: anonymous visitors as above, a signed-in one sees prices and filters by them.
        await setVisibility('SIGNED_IN');
        expect((await q({ minPrice: 26, maxPrice: 45 })).json.items).to.have.length(hidden.json.items.length);
        const signedIn = await q({ minPrice: 26, maxPrice: 45 }, shop.headers);
        expect(signedIn.json).to.deep.include({ pricesShown: true, ignoredParams: [] });
        expect(signedIn.json.items.map((i: { id: string }) => i.id)).to.have.members([ids.blue, ids.purple]);
        expect(signedIn.json.items[0]).to.include.keys('price', 'currency');
      } finally {
        await setVisibility('EVERYONE');
      }
    });

    it('merchant query searches every status, drafts included, with the same filters', async () => {
      const res = await call(server, 'POST', path(shop, '/query'), {
        headers: shop.headers,
        body: { image: served.get('/orange-bars.png')!.body.toString('base64') },
      });
      expect(res.status, res.text).to.equal(201);
      expect(res.json.items[0]).to.include({ id: ids.orangeDraft, status: 'DRAFT' });
      const pub = await call(server, 'POST', publicPath(shop), {
        body: { image: served.get('/orange-bars.png')!.body.toString('base64') },
      });
      expect(pub.json.items.map((i: { id: string }) => i.id)).to.not.include(ids.orangeDraft);
      const filtered = await call(server, 'POST', path(shop, '/query'), {
        headers: shop.headers,
        body: { imageUrl: `${imageBase}/red-circle.png`, categoryId: hats, inStock: false },
      });
      expect(filtered.json.items.map((i: { id: string }) => i.id)).to.deep.equal([ids.green]);
      const form = multipart({ limit: '2' }, { name: 'image', body: red() });
      const upload = await call(server, 'POST', path(shop, '/query'), { headers: shop.headers, ...form });
      expect(upload.status, upload.text).to.equal(201);
      expect(upload.json.items).to.have.length(2);
      expect(upload.json.items[0].id).to.equal(ids.red);
    });

    it('applies minimum similarity and maximum results from the settings', async () => {
      const m = await newMerchant();
      await enable(m, { maxResults: 2 });
      for (const [title, image] of [
        ['r', '/red-circle.png'],
        ['b', '/blue-stripes.png'],
        ['g', '/green-checker.png'],
        ['y', '/yellow-triangle.png'],
      ])
        await product(m, title!, image!);
      expect(await settle(m)).to.deep.equal([]);
      const capped = await call(server, 'POST', publicPath(m), { body: { imageUrl: `${imageBase}/red-circle.png`, limit: 50 } });
      expect(capped.json.items).to.have.length(2);
      const res = await call(server, 'PATCH', path(m, '/settings'), { headers: m.headers, body: { minSimilarity: 0.999, maxResults: 10 } });
      expect(res.status).to.equal(200);
      const strict = await call(server, 'POST', publicPath(m), { body: { imageUrl: `${imageBase}/red-circle.png` } });
      expect(strict.json.items.map((i: { title: string }) => i.title)).to.deep.equal(['r']);
      const merchantStrict = await call(server, 'POST', path(m, '/query'), {
        headers: m.headers,
        body: { imageUrl: `${imageBase}/red-circle.png` },
      });
      expect(merchantStrict.json.items.map((i: { title: string }) => i.title)).to.deep.equal(['r']);
    });

    it('refuses what is not an image (415/400), oversized uploads (413), pixel bombs and bad input', async () => {
      const text = Buffer.from('just some text, definitely not a picture');
      expectProblem(
        await call(server, 'POST', publicPath(shop), multipart({}, { name: 'image', body: text, type: 'image/jpeg' })),
        415,
        'not_an_image',
      );
      expectProblem(await call(server, 'POST', publicPath(shop), { body: { image: text.toString('base64') } }), 415, 'not_an_image');
      expectProblem(
        await call(server, 'POST', publicPath(shop), { body: { imageUrl: `${imageBase}/not-an-image.png` } }),
        400,
        'not_an_image',
      );
      expectProblem(
        await call(server, 'POST', publicPath(shop), multipart({}, { name: 'image', body: Buffer.alloc(310_000, 0xff) })),
        413,
        'payload_too_large',
      );
      expectProblem(
        await call(server, 'POST', publicPath(shop), multipart({}, { name: 'image', body: served.get('/bomb.png')!.body })),
        413,
        'image_too_many_pixels',
      );
      expectProblem(
        await call(server, 'POST', publicPath(shop), { body: { imageUrl: `${imageBase}/bomb.png` } }),
        400,
        'image_too_many_pixels',
      );
      expectProblem(
        await call(server, 'POST', publicPath(shop), { body: { imageUrl: `${imageBase}/too-large.jpg` } }),
        400,
        'image_too_large',
      );
      expectProblem(await call(server, 'POST', publicPath(shop), { body: {} }), 400, 'image_required');
      expectProblem(
        await call(server, 'POST', publicPath(shop), { body: { image: 'abc', imageUrl: `${imageBase}/red-circle.png` } }),
        400,
        'validation_failed',
      );
      expectProblem(
        await call(server, 'POST', publicPath(shop), { body: { imageUrl: 'ftp://example.com/a.png' } }),
        400,
        'validation_failed',
      );
      expectProblem(
        await call(server, 'POST', publicPath(shop), { body: { imageUrl: `${imageBase}/red-circle.png`, minPrice: -1 } }),
        400,
        'validation_failed',
      );
      expectProblem(
        await call(server, 'POST', publicPath(shop), { body: { imageUrl: `${imageBase}/red-circle.png`, limit: 101 } }),
        400,
        'validation_failed',
      );
      expectProblem(await call(server, 'POST', publicPath(shop), { body: { text: 'red hat' } }), 400, 'text_queries_unavailable');
      const csv = await call(server, 'POST', publicPath(shop), { rawBody: 'a,b', contentType: 'text/csv' });
      expectProblem(csv, 415, 'unsupported_media_type');
      expect(csv.json.detail).to.include('multipart/form-data');
      expectProblem(
        await call(
          server,
          'POST',
          publicPath(shop),
          multipart({ imageUrl: `${imageBase}/red-circle.png` }, { name: 'image', body: red() }),
        ),
        400,
        'validation_failed',
      );
      expectProblem(await call(server, 'POST', publicPath(shop), multipart({}, { name: 'other', body: red() })), 400, 'invalid_multipart');
    });

    // (localhost resolves to 127.0.0.1, the one address these tests allow; test/unit/safe-fetch covers it without the allow-list.)
    it('refuses image URLs of loopback, private and metadata addresses, also behind a redirect', async () => {
      const port = (images.address() as AddressInfo).port;
      for (const url of [
        `http://127.0.0.2:${port}/red-circle.png`,
        `http://[::1]:${port}/red-circle.png`,
        'http://10.0.0.7/a.png',
        'http://192.168.1.1/a.png',
        'http://169.254.169.254/latest/meta-data/',
        'http://[fd00:ec2::254]/latest/meta-data/',
        `${imageBase}/redirect?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`,
        `${imageBase}/redirect?to=${encodeURIComponent(`http://127.0.0.2:${port}/red-circle.png`)}`,
      ]) {
        const res = await call(server, 'POST', publicPath(shop), { body: { imageUrl: url } });
        expectProblem(res, 400, 'image_url_not_allowed');
      }
      const res = await call(server, 'POST', publicPath(shop), {
        body: { imageUrl: `${imageBase}/redirect?to=${encodeURIComponent('/red-circle.png')}` },
      });
      expect(res.status, res.text).to.equal(201);
      expect(res.json.items[0].id).to.equal(ids.red);
    });

    it('answers 409 visual_search_disabled for a disabled store, 404 for an unknown one, and rate-limits per client', async () => {
      const m = await newMerchant();
      expectProblem(
        await call(server, 'POST', publicPath(m), { body: { imageUrl: `${imageBase}/red-circle.png` } }),
        409,
        'visual_search_disabled',
      );
      expectProblem(
        await call(server, 'POST', path(m, '/query'), { headers: m.headers, body: { imageUrl: `${imageBase}/red-circle.png` } }),
        409,
        'visual_search_disabled',
      );
      expectProblem(
        await call(server, 'POST', `/api/v1/visual-search/public/stores/${uuidv7()}/query`, {
          body: { imageUrl: `${imageBase}/red-circle.png` },
        }),
        404,
        'store_not_found',
      );
      await enable(m);
      await call(server, 'PATCH', path(m, '/settings'), { headers: m.headers, body: { enabled: false } });
      expectProblem(
        await call(server, 'GET', path(m, `/products/${uuidv7()}/similar`), { headers: m.headers }),
        409,
        'visual_search_disabled',
      );

      const limit = server.runtime.config.vision.publicQueriesPerMinute;
      server.runtime.config.vision.publicQueriesPerMinute = 2;
      try {
        const headers = { 'X-Forwarded-For': '203.0.113.77' };
        const statuses: number[] = [];
        for (let i = 0; i < 3; i += 1)
          statuses.push((await call(server, 'POST', publicPath(m), { headers, body: { imageUrl: `${imageBase}/red-circle.png` } })).status);
        // Without trusted proxies every test request shares one client address; the third is over the limit.
        expect(statuses.filter((s) => s === 429).length).to.be.at.least(1);
      } finally {
        server.runtime.config.vision.publicQueriesPerMinute = limit;
      }
    });
  });
  describe('the CLIP path', () => {
    let modelRoot: string;

    before(() => {
      modelRoot = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'tiny-clip-'));
      server.runtime.config.vision.clipModelDir = writeTinyClip(modelRoot).dir;
    });

    after(() => {
      server.runtime.config.vision.clipModelDir = saved.clipModelDir;
      fs.rmSync(modelRoot, { recursive: true, force: true });
    });

    it('loads a CLIP-layout model from a local folder, embeds product images with it, and answers image and text queries', async () => {
      const m = await newMerchant();
      const red = await product(m, 'Red circle', '/red-circle.png');
      const blue = await product(m, 'Blue stripes', '/blue-stripes.png');
      const green = await product(m, 'Green checker', '/green-checker.png');
      const res = await call(server, 'PATCH', path(m, '/settings'), { headers: m.headers, body: { enabled: true, model: 'clip' } });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.include({ model: 'clip', dimensions: 8, textQueries: true });
      expect(await settle(m)).to.deep.equal([]);
      const status = await call(server, 'GET', path(m, '/index'), { headers: m.headers });
      expect(status.json).to.include({ model: 'clip', dimensions: 8 });
      expect(status.json.counts).to.include({ indexed: 3, failed: 0, pending: 0 });
      const settings = await server.runtime.meiliAdmin.index(storeIndexUid(m.storeId)).getSettings();
      expect(settings.embedders).to.deep.include({ image: { source: 'userProvided', dimensions: 8 } });

      const byImage = await call(server, 'POST', publicPath(m), {
        body: { image: (await sharp(served.get('/red-circle.png')!.body).resize(120, 120).jpeg().toBuffer()).toString('base64') },
      });
      expect(byImage.status, byImage.text).to.equal(201);
      expect(byImage.json.model).to.equal('clip');
      expect(byImage.json.items[0].id).to.equal(red);
      const byText = await call(server, 'POST', publicPath(m), { body: { text: 'red hat' } });
      expect(byText.status, byText.text).to.equal(201);
      expect(byText.json.items.map((i: { id: string }) => i.id)).to.have.members([red, blue, green]);
      const similar = await call(server, 'GET', path(m, `/products/${blue}/similar`), { headers: m.headers });
      expect(similar.status, similar.text).to.equal(200);
      expect(similar.json.items.map((i: { id: string }) => i.id)).to.have.members([red, green]);

      // Back to the default model: every image is embedded again, with 1280-d vectors.
      const back = await call(server, 'PATCH', path(m, '/settings'), { headers: m.headers, body: { model: 'mobilenet-v2' } });
      expect(back.json).to.include({ model: 'mobilenet-v2', dimensions: 1280, textQueries: false });
      const midway = await call(server, 'GET', path(m, '/index'), { headers: m.headers });
      expect(midway.json.counts).to.include({ indexed: 0, pending: 3 });
      // Documents that reach the index before the store's embedder has its new dimensions are refused
      // by Meilisearch and retried by the outbox; the state converges.
      await settle(m);
      const [left]: Array<{ n: number }> = await server.runtime.dataSource.query(
        "SELECT count(*)::int AS n FROM outbox WHERE tenant_id = $1 AND status <> 'done'",
        [m.owner.tenantId],
      );
      expect(left!.n).to.equal(0);
      const after = await call(server, 'GET', path(m, '/index'), { headers: m.headers });
      expect(after.json.counts).to.include({ indexed: 3, pending: 0 });
      const again = await call(server, 'POST', publicPath(m), { body: { imageUrl: `${imageBase}/green-checker.png` } });
      expect(again.status, again.text).to.equal(201);
      expect(again.json.items[0].id).to.equal(green);
    });
  });
});
