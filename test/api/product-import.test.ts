/**
 * Product CSV import and export: the synchronous import with row errors, upsert by handle through
 * the product service (audit and outbox per product), the threshold to the asynchronous import, the
 * asynchronous job with its progress, resume after a worker that died mid-way, export → import round
 * trip, the download link (expiry, signature, tenant isolation), and the store inferred when storeId
 * is left out.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { call, startTestServer, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { expectProblem } from '../helpers/accounts';
import { apiKey, attribute, brand, category, createProduct, merchant, store, tag, type Merchant } from '../helpers/fixtures';
import { sleep } from '../helpers/wait';
import { runExportJob, runImportJob, transferJobsHandler } from '../../api/imports/transfer-jobs.service';
import { DeliveryReleased } from '../../storage/outbox';
import { LAYOUT_COLUMNS, productGroups, type ProductGroup } from '../../api/imports/product-layout';
import { applyProductGroups, emptyOutcome, prepareProductGroups, productCsvRules } from '../../api/imports/product-import.service';
import { csvRecords } from '../../api/imports/csv-stream';
import { inTransaction, systemContext } from '../../storage/request-context';

const HEADER =
  'handle,title,description,type,status,price,compareAtPrice,brand,categories,tags,attributes,images,sku,option1Name,option1Value,variantPrice,stock';

describe('product import and export', function () {
  this.timeout(60_000);
  let server: TestServer;
  apiSuite((started) => (server = started));

  const importSync = (m: Merchant, csv: string, headers = m.headers, storeId = m.storeId) =>
    call(server, 'POST', `/api/v1/bulk-import/products?storeId=${storeId}`, { headers, rawBody: csv, contentType: 'text/csv' });
  const importAsync = (m: Merchant, csv: string) =>
    call(server, 'POST', `/api/v1/bulk-import/products/async?storeId=${m.storeId}`, {
      headers: m.headers,
      rawBody: csv,
      contentType: 'text/csv',
    });
  /**
   * Sends `csv` to the asynchronous import as a chunked stream (no Content-Length), 64 KiB at a time;
   * `abortAfter` bytes makes the client give up part-way.
   */
  async function streamAsync(
    target: TestServer,
    m: Merchant,
    csv: Buffer,
    abortAfter?: number,
  ): Promise<{ status: number; json: any } | Error> {
    let offset = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (abortAfter !== undefined && offset >= abortAfter) {
          controller.error(new Error('client gave up'));
          return;
        }
        if (offset >= csv.length) {
          controller.close();
          return;
        }
        controller.enqueue(csv.subarray(offset, offset + 64 * 1024));
        offset += 64 * 1024;
      },
    });
    const init = { method: 'POST', headers: { ...m.headers, 'Content-Type': 'text/csv' }, body, duplex: 'half' } as RequestInit;
    try {
      const response = await fetch(`${target.baseUrl}/api/v1/bulk-import/products/async?storeId=${m.storeId}`, init);
      return { status: response.status, json: await response.json() };
    } catch (error) {
      return error as Error;
    }
  }
  const storedJobs = async (storeId: string): Promise<{ jobs: number; chunks: number }> => {
    const [row] = await server.runtime.dataSource.query(
      'SELECT (SELECT count(*)::int FROM transfer_jobs WHERE store_id = $1) AS jobs, (SELECT count(*)::int FROM transfer_job_chunks c JOIN transfer_jobs j ON j.id = c.job_id WHERE j.store_id = $1) AS chunks',
      [storeId],
    );
    return row;
  };
  const progress = (m: Merchant, id: string, headers = m.headers) => call(server, 'GET', `/api/v1/bulk-import/jobs/${id}`, { headers });
  const deliver = (queue: 'import' | 'export', id: string) =>
    transferJobsHandler(
      server.runtime.dataSource,
      server.runtime.services,
    )({ queue, aggregateType: 'transfer_job', aggregateId: id, tenantId: null, messages: [] });

  async function products(
    storeId: string,
  ): Promise<Array<{ slug: string; title: string; price: string; status: string; variants: number }>> {
    return server.runtime.dataSource.query(
      'SELECT p.slug, p.title, p.price::text AS price, p.status, (SELECT count(*)::int FROM product_variants v WHERE v.product_id = p.id) AS variants FROM products p WHERE p.store_id = $1 ORDER BY p.slug',
      [storeId],
    );
  }

  /** A CSV of `count` products with `variants` rows each. */
  function generated(count: number, variants = 2, from = 0): string {
    const lines = ['handle,title,price,sku,option1Name,option1Value,stock'];
    for (let i = from; i < from + count; i += 1)
      for (let v = 0; v < variants; v += 1) lines.push(`gen-${i},Product ${i},${10 + i}.5,SKU-${i}-${v},Size,S${v},${v + 1}`);
    return lines.join('\n');
  }

  it('imports products with variants, resolving brand, categories and tags, with one audit entry per product and one outbox row per batch', async () => {
    const m = await merchant(server);
    await brand(server, m, { name: 'Acme' });
    const shirts = await category(server, m, { name: 'Shirts' });
    await attribute(server, m, shirts, { name: 'material', type: 'text' });
    const [shirtsRow] = await server.runtime.dataSource.query('SELECT slug FROM categories WHERE id = $1', [shirts]);
    const summer = await tag(server, m, { name: 'Summer' });
    const csv = [
      HEADER,
      `blue-shirt,Blue Shirt,<p>Soft</p><script>x</script>,PHYSICAL,PUBLISHED,19.9,29.9,acme,${shirtsRow.slug},summer,"{""material"":""cotton""}",https://img.example.test/a.jpg|https://img.example.test/b.jpg,BS-S,Size,S,,3`,
      'blue-shirt,,,,,,,,,,,,BS-M,Size,M,21,0',
      'mug,Mug,,,,5,,,,,,,,,,,',
    ].join('\n');
    const res = await importSync(m, csv);
    expect(res.status, res.text).to.equal(200);
    expect(res.json).to.deep.equal({
      rows: { read: 3, failed: 0 },
      products: { created: 2, updated: 0, unchanged: 0, failed: 0 },
      errors: [],
      errorsTruncated: false,
    });

    const [shirt] = await server.runtime.dataSource.query("SELECT * FROM products WHERE store_id = $1 AND slug = 'blue-shirt'", [
      m.storeId,
    ]);
    const view = await call(server, 'GET', `/api/v1/catalog/products/${shirt.id}`, { headers: m.headers });
    expect(view.json).to.deep.include({
      title: 'Blue Shirt',
      descriptionHtml: '<p>Soft</p>',
      type: 'PHYSICAL',
      status: 'PUBLISHED',
      price: 19.9,
      compareAtPrice: 29.9,
      categoryIds: [shirts],
      tagIds: [summer],
      attributes: { material: 'cotton' },
    });
    expect(view.json.brandId).to.be.a('string');
    expect(view.json.images.map((i: { url: string }) => i.url)).to.deep.equal([
      'https://img.example.test/a.jpg',
      'https://img.example.test/b.jpg',
    ]);
    expect(view.json.variants.map((v: Record<string, unknown>) => [v.sku, v.options, v.price, v.stock])).to.deep.equal([
      ['BS-S', { Size: 'S' }, null, 3],
      ['BS-M', { Size: 'M' }, 21, 0],
    ]);
    // New products of a batch reach the indexer as one outbox row listing them all.
    const [mug] = await server.runtime.dataSource.query("SELECT id FROM products WHERE store_id = $1 AND slug = 'mug'", [m.storeId]);
    const outbox = await server.runtime.dataSource.query(
      "SELECT aggregate_type, topic, payload FROM outbox WHERE tenant_id = $1 AND queue = 'index' ORDER BY id",
      [m.owner.tenantId],
    );
    // The import's last batch says so: the indexer writes it without waiting for more.
    expect(outbox).to.deep.equal([
      { aggregate_type: 'product_batch', topic: 'product.created', payload: { productIds: [shirt.id, mug.id], final: true } },
    ]);
    const audit = await server.runtime.dataSource.query(
      "SELECT action FROM audit_log WHERE tenant_id = $1 AND resource_type = 'product' ORDER BY id",
      [m.owner.tenantId],
    );
    expect(audit.map((r: { action: string }) => r.action)).to.deep.equal(['product.create', 'product.create']);

    // The same file again changes nothing; a changed price updates only that product and keeps variant ids.
    const again = await importSync(m, csv);
    expect(again.json.products).to.deep.equal({ created: 0, updated: 0, unchanged: 2, failed: 0 });
    const changed = await importSync(m, csv.replace('blue-shirt,,,,,,,,,,,,BS-M,Size,M,21,0', 'blue-shirt,,,,,,,,,,,,BS-M,Size,M,22,0'));
    expect(changed.json.products).to.deep.equal({ created: 0, updated: 1, unchanged: 1, failed: 0 });
    const view2 = await call(server, 'GET', `/api/v1/catalog/products/${shirt.id}`, { headers: m.headers });
    expect(view2.json.variants.map((v: { id: string }) => v.id)).to.deep.equal(view.json.variants.map((v: { id: string }) => v.id));
    expect(view2.json.variants[1].price).to.equal(22);
    // The changed product went through replaceProduct: one product row of its own.
    const outbox2 = await server.runtime.dataSource.query(
      "SELECT aggregate_type, aggregate_id, topic FROM outbox WHERE tenant_id = $1 AND queue = 'index' ORDER BY id",
      [m.owner.tenantId],
    );
    expect(outbox2.slice(1)).to.deep.equal([{ aggregate_type: 'product', aggregate_id: shirt.id, topic: 'product.updated' }]);
  });

  it('tells webhook subscribers of imported products: product.created for new ones, product.updated for changed ones', async () => {
    const m = await merchant(server);
    const hook = await call(server, 'POST', '/api/v1/webhooks/endpoints', {
      headers: m.headers,
      body: { url: 'https://hooks.example.com/import', topics: ['product.created', 'product.updated'] },
    });
    expect(hook.status, hook.text).to.equal(201);
    const csv = [HEADER, 'lamp,Lamp,,,,12,,,,,,,,,,,', 'vase,Vase,,,,8,,,,,,,,,,,'].join('\n');
    expect((await importSync(m, csv)).json.products.created).to.equal(2);
    expect((await importSync(m, csv.replace('lamp,Lamp,,,,12', 'lamp,Lamp,,,,13'))).json.products).to.deep.include({
      updated: 1,
      unchanged: 1,
    });
    const events = await server.runtime.dataSource.query(
      "SELECT topic, payload FROM outbox WHERE tenant_id = $1 AND queue = 'webhooks' ORDER BY id",
      [m.owner.tenantId],
    );
    expect(events.map((e: { topic: string; payload: any }) => [e.topic, e.payload.data.slug, e.payload.data.price])).to.deep.equal([
      ['product.created', 'lamp', 12],
      ['product.created', 'vase', 8],
      ['product.updated', 'lamp', 13],
    ]);
  });

  it('reports bad rows with row number and column and still imports the good products', async () => {
    const m = await merchant(server);
    await createProduct(server, m, { slug: 'taken-sku', variants: [{ sku: 'DUP-1', stock: 1 }] });
    const csv = [
      'handle,title,price,compareAtPrice,type,brand,categories,tags,attributes,sku,option1Name,option1Value,stock',
      'good-one,Good One,10,,,,,,,G1,,,1',
      'no-price,No Price,,,,,,,,,,,',
      'bad-compare,Bad Compare,10,5,,,,,,,,,',
      'bad-type,Bad Type,10,,GADGET,,,,,,,,',
      'bad-refs,Bad Refs,10,,,nobrand,nocat,notag,{oops,,,,',
      'dup-sku,Dup SKU,10,,,,,,,DUP-1,,,1',
      'bad-variant,Bad Variant,10,,,,,,,BV-1,Size,,x',
      'good-one,Again,10,,,,,,,G2,,,1',
      'Bad Handle!,Bad Handle,10,,,,,,,,,,',
      'good-two,Good Two,12.25,,,,,,,G3,,,2',
    ].join('\n');
    const res = await importSync(m, csv);
    expect(res.status, res.text).to.equal(200);
    expect(res.json.products).to.deep.equal({ created: 2, updated: 0, unchanged: 0, failed: 8 });
    expect(res.json.rows).to.deep.equal({ read: 10, failed: 8 });
    const at = (row: number) => res.json.errors.filter((e: { row: number }) => e.row === row).map((e: { column: string }) => e.column);
    expect(at(2)).to.deep.equal(['price']);
    expect(at(3)).to.deep.equal(['compareAtPrice']);
    expect(at(4)).to.deep.equal(['type']);
    expect(at(5)).to.have.members(['brand', 'categories', 'tags', 'attributes']);
    expect(at(6)).to.deep.equal(['sku']);
    expect(at(7)).to.have.members(['option1Value', 'stock']);
    expect(at(8)).to.deep.equal(['handle']);
    expect(at(9)).to.deep.equal(['handle']);
    expect(res.json.errors.find((e: { row: number }) => e.row === 8).message).to.match(/contiguous; it already appeared in row 1/);
    for (const e of res.json.errors) expect(e.message).to.be.a('string').and.not.empty;
    expect((await products(m.storeId)).map((p) => p.slug)).to.deep.equal(['good-one', 'good-two', 'taken-sku']);
  });

  it('refuses a bad header, a malformed file, another tenant, and sends 10000 rows or more to the asynchronous import', async () => {
    const m = await merchant(server);
    const other = await merchant(server);
    const noHandle = await importSync(m, 'title,price\nA,1\n');
    expectProblem(noHandle, 400, 'validation_failed');
    expect(noHandle.json.errors[0].message).to.match(/missing required column "handle"/);
    expectProblem(await importSync(m, 'handle,title,price,colour\na,A,1,red\n'), 400, 'validation_failed');
    expectProblem(await importSync(m, 'handle,title,price\na,"A,1\n'), 400, 'invalid_csv');
    expectProblem(await importSync(m, 'handle,title,price\na,A,1\n', m.headers, other.storeId), 404, 'store_not_found');
    expectProblem(await importSync(m, 'handle,title,price\na,A,1\n', {}), 401, 'unauthorized');

    process.env.IMPORT_ASYNC_MIN_ROWS = '6';
    try {
      const big = await importSync(m, generated(3));
      expectProblem(big, 413, 'use_async_import');
      expect(big.json.detail).to.match(/\/bulk-import\/products\/async/);
      expect(await products(m.storeId)).to.have.length(0);
      const small = await importSync(m, generated(2, 2));
      expect(small.status, small.text).to.equal(200);
      expect(small.json.products.created).to.equal(2);
    } finally {
      delete process.env.IMPORT_ASYNC_MIN_ROWS;
    }
  });

  it("infers the store when storeId is left out: an API key's own store, a member's default store; a disagreeing storeId is 404", async () => {
    const m = await merchant(server);
    const second = await store(server, m, { name: 'Second' });
    const post = (path: string, headers: Record<string, string>, csv?: string) =>
      call(server, 'POST', `/api/v1/bulk-import/products${path}`, {
        headers,
        ...(csv === undefined ? {} : { rawBody: csv, contentType: 'text/csv' }),
      });
    // A member: the tenant's default store (its first store), for the three operations.
    const sync = await post('', m.headers, 'handle,title,price\nby-member,By member,5\n');
    expect(sync.status, sync.text).to.equal(200);
    expect((await products(m.storeId)).map((p) => p.slug)).to.deep.equal(['by-member']);
    expect(await products(second)).to.have.length(0);
    const job = await post('/async', m.headers, 'handle,title,price\nby-job,By job,6\n');
    expect(job.status, job.text).to.equal(202);
    expect(job.json.storeId).to.equal(m.storeId);
    const exported = await post('/export', m.headers);
    expect(exported.status, exported.text).to.equal(202);
    expect(exported.json.storeId).to.equal(m.storeId);

    // A key bound to the second store: its own store, whatever the tenant's default is.
    const key = await apiKey(server, m, ['import:write'], second);
    const byKey = await post('', key, 'handle,title,price\nby-key,By key,7\n');
    expect(byKey.status, byKey.text).to.equal(200);
    expect((await products(second)).map((p) => p.slug)).to.deep.equal(['by-key']);
    expect((await post('/async', key, 'handle,title,price\nkey-job,Key job,8\n')).json.storeId).to.equal(second);
    expect((await post('/export', key)).json.storeId).to.equal(second);
    // Naming another store of the same tenant disagrees with the key: 404, nothing written or queued.
    const jobsBefore = await storedJobs(m.storeId);
    for (const [path, csv] of [
      ['', 'handle,title,price\nsneaky,Sneaky,1\n'],
      ['/async', 'handle,title,price\nsneaky,Sneaky,1\n'],
      ['/export', undefined],
    ] as Array<[string, string | undefined]>) {
      expectProblem(await post(`${path}?storeId=${m.storeId}`, key, csv), 404, 'store_not_found');
    }
    expect((await products(m.storeId)).map((p) => p.slug)).to.deep.equal(['by-member']);
    expect(await storedJobs(m.storeId)).to.deep.equal(jobsBefore);

    // A tenant without a default store (its only store archived) must name one.
    const lone = await merchant(server);
    expect((await call(server, 'DELETE', `/api/v1/organization/stores/${lone.storeId}`, { headers: lone.headers })).status).to.equal(204);
    const none = await post('', lone.headers, 'handle,title,price\nx,X,1\n');
    expectProblem(none, 400, 'validation_failed');
    expect(none.json.errors.map((e: { path: string }) => e.path)).to.deep.equal(['query.storeId']);
  });

  it('runs a large import as a job: 202 with the job number, durable upload, progress with row errors, audit and outbox', async () => {
    const m = await merchant(server);
    const csv = `${generated(5)}\nbroken,Broken,-1,,,,\n`;
    const started = await importAsync(m, csv);
    expect(started.status, started.text).to.equal(202);
    expect(started.json).to.deep.include({
      storeId: m.storeId,
      kind: 'PRODUCT_IMPORT',
      state: 'QUEUED',
      fileBytes: Buffer.byteLength(csv),
      download: null,
    });
    const id = started.json.id;
    const [outbox] = await server.runtime.dataSource.query(
      "SELECT queue, topic FROM outbox WHERE aggregate_type = 'transfer_job' AND aggregate_id = $1",
      [id],
    );
    expect(outbox).to.deep.equal({ queue: 'import', topic: 'product_import.queued' });
    const [chunks] = await server.runtime.dataSource.query(
      'SELECT count(*)::int AS n, sum(length(data))::int AS bytes, min(tenant_id::text) AS tenant FROM transfer_job_chunks WHERE job_id = $1',
      [id],
    );
    expect(chunks).to.deep.equal({ n: 1, bytes: Buffer.byteLength(csv), tenant: m.owner.tenantId });
    const [audit] = await server.runtime.dataSource.query('SELECT action FROM audit_log WHERE resource_id = $1', [id]);
    expect(audit.action).to.equal('product_import.create');

    await deliver('import', id);
    const done = await progress(m, id);
    expect(done.status, done.text).to.equal(200);
    expect(done.json).to.deep.include({ state: 'COMPLETED', rows: { read: 11, failed: 1 }, errorsTotal: 1, failure: null });
    expect(done.json.products).to.deep.include({ created: 5, updated: 0, unchanged: 0, failed: 1 });
    expect(done.json.errors).to.deep.equal([{ row: 11, column: 'price', message: 'price must be greater than or equal to 0' }]);
    expect(done.json.finishedAt).to.be.a('string');
    expect(await products(m.storeId)).to.have.length(5);

    // Delivered again (the outbox redelivers after a crash): nothing happens twice.
    await deliver('import', id);
    expect((await progress(m, id)).json.products.created).to.equal(5);

    const bad = await importAsync(m, 'handle,nope\n');
    expectProblem(bad, 400, 'validation_failed');
    expectProblem(await importAsync(m, 'handle,title,price\n'), 400, 'empty_csv');
  });

  it('streams an asynchronous upload into 1 MiB chunks as it arrives, and keeps nothing of one over the limit or cut off', async () => {
    const m = await merchant(server);
    const csv = Buffer.from(`${generated(45_000, 2)}\n`);
    expect(csv.length).to.be.greaterThan(4 * 1024 * 1024);
    const started = await streamAsync(server, m, csv);
    if (started instanceof Error) throw started;
    expect(started.status, JSON.stringify(started.json)).to.equal(202);
    expect(started.json).to.deep.include({ state: 'QUEUED', fileBytes: csv.length });
    const chunks: Array<{ seq: number; bytes: number }> = await server.runtime.dataSource.query(
      'SELECT seq, length(data) AS bytes FROM transfer_job_chunks WHERE job_id = $1 ORDER BY seq',
      [started.json.id],
    );
    const whole = Math.floor(csv.length / (1024 * 1024));
    expect(chunks.map((c) => c.seq)).to.deep.equal([...Array(whole + 1).keys()]);
    expect(chunks.slice(0, whole).every((c) => c.bytes === 1024 * 1024)).to.equal(true);
    expect(chunks[whole]!.bytes).to.equal(csv.length - whole * 1024 * 1024);
    const [stored] = await server.runtime.dataSource.query(
      "SELECT encode(sha256(string_agg(data, ''::bytea ORDER BY seq)), 'hex') AS digest FROM transfer_job_chunks WHERE job_id = $1",
      [started.json.id],
    );
    expect(stored.digest).to.equal(createHash('sha256').update(csv).digest('hex'));

    // A bad header is refused as soon as it has arrived, before anything is written, however large the upload.
    const badHeader = await streamAsync(server, m, Buffer.concat([Buffer.from('handle,nope\n'), csv]));
    if (badHeader instanceof Error) throw badHeader;
    expect(badHeader.status).to.equal(400);
    expect(badHeader.json.code).to.equal('validation_failed');
    expect((await storedJobs(m.storeId)).jobs).to.equal(1);

    // A server whose BODY_LIMIT_CSV is 2 MiB: a streamed body over it answers 413 and leaves no job, no chunks.
    const small = await startTestServer({ config: { bodyLimitCsvBytes: 2 * 1024 * 1024 } });
    try {
      const other = await merchant(small);
      const tooBig = await streamAsync(small, other, csv);
      if (tooBig instanceof Error) throw tooBig;
      expect(tooBig.status).to.equal(413);
      expect(tooBig.json.code).to.equal('payload_too_large');
      expect(await storedJobs(other.storeId)).to.deep.equal({ jobs: 0, chunks: 0 });
      // Declared too large: refused before reading.
      expectProblem(
        await call(small, 'POST', `/api/v1/bulk-import/products/async?storeId=${other.storeId}`, {
          headers: other.headers,
          rawBody: csv,
          contentType: 'text/csv',
        }),
        413,
        'payload_too_large',
      );
      expectProblem(
        await call(small, 'POST', `/api/v1/bulk-import/products/async?storeId=${other.storeId}`, {
          headers: other.headers,
          rawBody: 'handle,title,price\na,A,1\n',
          contentType: 'text/plain',
        }),
        415,
        'unsupported_media_type',
      );

      // A client that gives up part-way: the transaction rolls back.
      const cut = await streamAsync(small, other, csv.subarray(0, 1_500_000), 1_200_000);
      expect(cut).to.be.instanceOf(Error);
      // Time for the server to see the client gone and roll back: no job may be committed late.
      await sleep(500);
      expect(await storedJobs(other.storeId)).to.deep.equal({ jobs: 0, chunks: 0 });

      // The server still answers on the same footing afterwards.
      const fine = await streamAsync(small, other, Buffer.from(generated(2)));
      if (fine instanceof Error) throw fine;
      expect(fine.status).to.equal(202);
      expect(await storedJobs(other.storeId)).to.deep.equal({ jobs: 1, chunks: 1 });
    } finally {
      await small.close();
    }
  });

  /** The import's index rows in order: [products listed, final]. */
  const batchRows = async (m: Merchant): Promise<Array<[number, boolean]>> => {
    const rows: Array<{ payload: { productIds: string[]; final?: boolean } }> = await server.runtime.dataSource.query(
      "SELECT payload FROM outbox WHERE tenant_id = $1 AND aggregate_type = 'product_batch' ORDER BY id",
      [m.owner.tenantId],
    );
    return rows.map((r) => [r.payload.productIds.length, r.payload.final ?? false]);
  };

  it('resumes an import whose worker died after the last committed batch, without duplicating products', async () => {
    const m = await merchant(server);
    process.env.IMPORT_BATCH_PRODUCTS = '3';
    try {
      const started = await importAsync(m, generated(10, 2));
      const id = started.json.id;
      const finished = await runImportJob(server.runtime.dataSource, id, server.runtime.services, { stopAfterBatches: 2 });
      expect(finished).to.equal(false);
      const midway = await progress(m, id);
      expect(midway.json).to.deep.include({ state: 'RUNNING', rows: { read: 12, failed: 0 } });
      expect(midway.json.products.created).to.equal(6);
      expect(await products(m.storeId)).to.have.length(6);

      // The worker dies inside the next batch, after writing its products: the batch's transaction rolls back.
      let crash: Error | undefined;
      await runImportJob(server.runtime.dataSource, id, server.runtime.services, { crashInBatch: 1 }).catch(
        (error: Error) => (crash = error),
      );
      expect(crash?.message).to.equal('simulated crash inside a batch');
      expect(await products(m.storeId)).to.have.length(6);
      expect((await progress(m, id)).json.rows.read).to.equal(12);

      // Delivered again (the outbox reclaims the row of a dead worker): it continues after the last committed batch.
      await deliver('import', id);
      const done = await progress(m, id);
      expect(done.json).to.deep.include({ state: 'COMPLETED', rows: { read: 20, failed: 0 } });
      expect(done.json.products).to.deep.include({ created: 10, updated: 0, unchanged: 0, failed: 0 });
      const rows = await products(m.storeId);
      expect(rows.map((r) => r.slug)).to.have.length(10);
      expect(rows.every((r) => r.variants === 2)).to.equal(true);
      const [counts] = await server.runtime.dataSource.query(
        "SELECT count(*)::int AS n FROM audit_log WHERE tenant_id = $1 AND action = 'product.create'",
        [m.owner.tenantId],
      );
      expect(counts.n).to.equal(10);
      // One index row per committed batch; only the last says that nothing more follows.
      expect(await batchRows(m)).to.deep.equal([
        [3, false],
        [3, false],
        [3, false],
        [1, true],
      ]);
    } finally {
      delete process.env.IMPORT_BATCH_PRODUCTS;
    }
  });

  /** A shutdown signal that turns aborted at its `after`+1-th look (a worker stopping part-way). */
  const stopsAfterLooks = (after: number): AbortSignal => {
    let looks = 0;
    return {
      get aborted() {
        looks += 1;
        return looks > after;
      },
    } as AbortSignal;
  };

  it('hands an import back at shutdown after its committed batch (DeliveryReleased) and resumes it without duplicates', async () => {
    const m = await merchant(server);
    process.env.IMPORT_BATCH_PRODUCTS = '3';
    try {
      const started = await importAsync(m, generated(10, 1));
      const id = started.json.id;
      const handler = transferJobsHandler(server.runtime.dataSource, server.runtime.services);
      let released: unknown;
      await handler({
        queue: 'import',
        aggregateType: 'transfer_job',
        aggregateId: id,
        tenantId: null,
        messages: [],
        signal: stopsAfterLooks(1),
      }).catch((error: unknown) => (released = error));
      expect(released).to.be.instanceOf(DeliveryReleased);
      const midway = (await progress(m, id)).json;
      expect(midway.state).to.equal('RUNNING');
      expect(midway.products.created).to.be.within(3, 9);
      expect(await products(m.storeId)).to.have.length(midway.products.created);

      await deliver('import', id);
      const done = (await progress(m, id)).json;
      expect(done).to.deep.include({ state: 'COMPLETED', rows: { read: 10, failed: 0 } });
      expect(done.products).to.deep.include({ created: 10, updated: 0 });
      expect((await products(m.storeId)).map((p) => p.slug)).to.deep.equal([...Array(10).keys()].map((i) => `gen-${i}`).sort());
    } finally {
      delete process.env.IMPORT_BATCH_PRODUCTS;
    }
  });

  it('resumes an export stopped at shutdown after its last written chunk: the file equals an export run in one go', async () => {
    const m = await merchant(server);
    expect((await importSync(m, generated(7, 2))).status).to.equal(200);
    const start = async (): Promise<string> => {
      const res = await call(server, 'POST', `/api/v1/bulk-import/products/export?storeId=${m.storeId}`, { headers: m.headers });
      expect(res.status, res.text).to.equal(202);
      return res.json.id;
    };
    const file = async (id: string): Promise<string> => {
      const rows: Array<{ data: Buffer }> = await server.runtime.dataSource.query(
        'SELECT data FROM transfer_job_chunks WHERE job_id = $1 ORDER BY seq',
        [id],
      );
      return Buffer.concat(rows.map((r) => r.data)).toString('utf8');
    };
    const whole = await start();
    await runExportJob(server.runtime.dataSource, whole);

    const stopped = await start();
    const sizes = { chunkBytes: 1, pageProducts: 2 };
    let released: unknown;
    // Two pages (a chunk each) are written, then the worker is told to stop before the third.
    await runExportJob(server.runtime.dataSource, stopped, stopsAfterLooks(2), sizes).catch((error: unknown) => (released = error));
    expect(released).to.be.instanceOf(DeliveryReleased);
    const midway = (await progress(m, stopped)).json;
    expect(midway).to.deep.include({ state: 'RUNNING' });
    expect(midway.products.exported).to.equal(4);
    await runExportJob(server.runtime.dataSource, stopped, undefined, sizes);
    const done = (await progress(m, stopped)).json;
    expect(done).to.deep.include({ state: 'COMPLETED', rows: { read: 14, failed: 0 } });
    expect(done.products.exported).to.equal(7);
    expect(await file(stopped)).to.equal(await file(whole));
    expect(done.fileBytes).to.equal(Buffer.byteLength(await file(whole)));
  });

  it('treats a handle created after its batch was checked ahead as an update, not a second product', async () => {
    const m = await merchant(server);
    const ctx = systemContext(server.runtime.dataSource, 'import-race', m.owner.tenantId);
    let header: string[] = [];
    const groups: ProductGroup[] = [];
    for await (const group of productGroups(csvRecords(generated(2, 1), productCsvRules, (names) => (header = names)))) groups.push(group);
    const prepared = await prepareProductGroups(ctx, m.storeId, header, groups);
    expect(prepared.checked.size).to.equal(2);
    // Meanwhile a merchant creates gen-1 by hand.
    const created = await call(server, 'POST', '/api/v1/catalog/products', {
      headers: m.headers,
      body: { storeId: m.storeId, title: 'By hand', slug: 'gen-1', type: 'PHYSICAL', price: 5 },
    });
    expect(created.status, created.text).to.equal(201);
    const out = emptyOutcome();
    await inTransaction(ctx, (tx) => applyProductGroups(tx, m.storeId, header, groups, out, { prepared }));
    expect(out).to.include({ created: 1, updated: 1, failed: 0 });
    expect((await products(m.storeId)).map((p) => [p.slug, p.title, p.variants])).to.deep.equal([
      ['gen-0', 'Product 0', 1],
      ['gen-1', 'Product 1', 1],
    ]);
  });

  it('marks the last batch of an import final also when the file ends with a full batch', async () => {
    const m = await merchant(server);
    process.env.IMPORT_BATCH_PRODUCTS = '3';
    try {
      const started = await importAsync(m, generated(6, 1));
      await deliver('import', started.json.id);
      expect((await progress(m, started.json.id)).json).to.deep.include({ state: 'COMPLETED' });
      expect(await batchRows(m)).to.deep.equal([
        [3, false],
        [3, true],
      ]);
    } finally {
      delete process.env.IMPORT_BATCH_PRODUCTS;
    }
  });

  it('fails a job whose file turns malformed part-way, keeping the rows committed before', async () => {
    const m = await merchant(server);
    process.env.IMPORT_BATCH_PRODUCTS = '500';
    try {
      const started = await importAsync(m, `${generated(3000, 1)}\nx,"unterminated,1,,,,\n`);
      expect(started.status, started.text).to.equal(202);
      await deliver('import', started.json.id);
      const done = await progress(m, started.json.id);
      expect(done.json.state).to.equal('FAILED');
      expect(done.json.failure).to.match(/could not be read after data row \d+: Quote Not Closed/);
      expect(done.json.products.created).to.be.greaterThan(0);
      expect(await products(m.storeId)).to.have.length(done.json.products.created);
    } finally {
      delete process.env.IMPORT_BATCH_PRODUCTS;
    }
  });

  it('exports the catalog in the import layout; re-importing the file changes nothing', async () => {
    const m = await merchant(server);
    await brand(server, m, { name: 'Acme' });
    const cat = await category(server, m, { name: 'Mugs' });
    await attribute(server, m, cat, { name: 'volume', type: 'text' });
    await tag(server, m, { name: 'Gift' });
    const [catRow] = await server.runtime.dataSource.query('SELECT slug FROM categories WHERE id = $1', [cat]);
    const csv = [
      'handle,title,description,type,status,price,compareAtPrice,currency,vendor,brand,categories,tags,attributes,translations,images,imageAlts,sku,barcode,option1Name,option1Value,option2Name,option2Value,variantPrice,variantCompareAtPrice,stock',
      `mug,Mug,"<p>Big, ""hot""</p>",PHYSICAL,PUBLISHED,12.5,15,EUR,Potter,acme,${catRow.slug},gift,"{""volume"":""300ml""}","{""tr"":{""title"":""Kupa""}}",https://img.example.test/m.jpg,"[""A mug""]",MUG-W,123,Colour,White,Size,L,,20,4`,
      'mug,,,,,,,,,,,,,,,,MUG-B,,Colour,Black,Size,L,13,,0',
      'formula,=SUM(A1),,DIGITAL,DRAFT,0,,,,,,,,,,,,,,,,,,,',
    ].join('\n');
    const first = await importSync(m, csv);
    expect(first.json.products, first.text).to.deep.equal({ created: 2, updated: 0, unchanged: 0, failed: 0 });
    const before = await server.runtime.dataSource.query('SELECT id, updated_at FROM products WHERE store_id = $1 ORDER BY id', [
      m.storeId,
    ]);

    const started = await call(server, 'POST', `/api/v1/bulk-import/products/export?storeId=${m.storeId}`, { headers: m.headers });
    expect(started.status, started.text).to.equal(202);
    expect(started.json).to.deep.include({ kind: 'PRODUCT_EXPORT', state: 'QUEUED', download: null });
    const [outbox] = await server.runtime.dataSource.query('SELECT queue FROM outbox WHERE aggregate_id = $1', [started.json.id]);
    expect(outbox.queue).to.equal('export');
    await deliver('export', started.json.id);
    const done = await progress(m, started.json.id);
    expect(done.json).to.deep.include({ state: 'COMPLETED', downloadExpired: false });
    expect(done.json.products.exported).to.equal(2);
    expect(done.json.rows.read).to.equal(3);
    expect(done.json.download.url).to.match(
      new RegExp(`^/api/v1/bulk-import/jobs/${started.json.id}/download\\?expires=\\d+&signature=[A-Za-z0-9_-]{43}$`),
    );
    expect(Date.parse(done.json.download.expiresAt) - Date.now()).to.be.within(86_000_000, 86_400_000);

    const file = await call(server, 'GET', done.json.download.url, { headers: m.headers });
    expect(file.status, file.text).to.equal(200);
    expect(file.headers.get('content-type')).to.match(/^text\/csv/);
    expect(file.headers.get('content-disposition')).to.match(/^attachment; filename="products-/);
    const lines = file.text.trim().split('\r\n');
    expect(lines[0]).to.equal(LAYOUT_COLUMNS.join(','));
    expect(lines).to.have.length(4);
    expect(file.text).to.include("'=SUM(A1)");

    const reimport = await importSync(m, file.text);
    expect(reimport.json, reimport.text).to.deep.equal({
      rows: { read: 3, failed: 0 },
      products: { created: 0, updated: 0, unchanged: 2, failed: 0 },
      errors: [],
      errorsTruncated: false,
    });
    const after = await server.runtime.dataSource.query('SELECT id, updated_at FROM products WHERE store_id = $1 ORDER BY id', [
      m.owner.tenantId ? m.storeId : m.storeId,
    ]);
    expect(after).to.deep.equal(before);
    const [formula] = await server.runtime.dataSource.query("SELECT title FROM products WHERE store_id = $1 AND slug = 'formula'", [
      m.storeId,
    ]);
    expect(formula.title).to.equal('=SUM(A1)');
  });

  it('gives a download link that works only for the same tenant, unaltered and before it expires', async () => {
    const m = await merchant(server);
    const other = await merchant(server);
    await importSync(m, generated(2));
    const started = await call(server, 'POST', `/api/v1/bulk-import/products/export?storeId=${m.storeId}`, { headers: m.headers });
    await deliver('export', started.json.id);
    const { url } = (await progress(m, started.json.id)).json.download;

    expectProblem(await call(server, 'GET', url), 401, 'unauthorized');
    expectProblem(await call(server, 'GET', url, { headers: other.headers }), 404, 'job_not_found');
    expectProblem(await progress(other, started.json.id, other.headers), 404, 'job_not_found');
    const otherStoreKey = await apiKey(server, m, ['import:read'], await store(server, m, { name: 'Second' }));
    expectProblem(await call(server, 'GET', url, { headers: otherStoreKey }), 404, 'job_not_found');
    const key = await apiKey(server, m, ['import:read']);
    expect((await call(server, 'GET', url, { headers: key })).status).to.equal(200);

    const expires = Number(/expires=(\d+)/.exec(url)![1]);
    expectProblem(
      await call(server, 'GET', url.replace(`expires=${expires}`, `expires=${expires + 3600}`), { headers: m.headers }),
      403,
      'invalid_download_link',
    );
    expectProblem(
      await call(
        server,
        'GET',
        url.replace(/signature=./, (s: string) => (s.endsWith('A') ? 'signature=B' : 'signature=A')),
        { headers: m.headers },
      ),
      403,
      'invalid_download_link',
    );

    // An export finished longer ago than EXPORT_LINK_TTL_SECONDS shows no link, and its old link answers 410.
    process.env.EXPORT_LINK_TTL_SECONDS = '1';
    try {
      const short = await call(server, 'POST', `/api/v1/bulk-import/products/export?storeId=${m.storeId}`, { headers: m.headers });
      await deliver('export', short.json.id);
      const link = (await progress(m, short.json.id)).json.download.url;
      await sleep(1_100); // past the 1 s link lifetime
      expectProblem(await call(server, 'GET', link, { headers: m.headers }), 410, 'download_expired');
      const expired = await progress(m, short.json.id);
      expect(expired.json).to.deep.include({ download: null, downloadExpired: true });
    } finally {
      delete process.env.EXPORT_LINK_TTL_SECONDS;
    }
  });
});
