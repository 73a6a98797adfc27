/**
 * Asynchronous product import and product export jobs (docs/catalog.md, "Import and export").
 *
 * Import: the request stores the uploaded CSV in `transfer_job_chunks` (in the job's tenant), writes
 * the job row, one audit entry (product_import.create) and one outbox row (queue `import`) in one
 * transaction, and answers 202 with the job id. The jobs worker streams the stored CSV back through
 * the parser and commits the products in batches (IMPORT_BATCH_PRODUCTS per transaction); each batch
 * also records its row errors and advances `next_row` in the same transaction, under a lock on the
 * job row. A worker that dies mid-way leaves the outbox row in flight; it is delivered again and the
 * job continues at `next_row`, so no product is written twice.
 *
 * Export: the worker writes the catalog as CSV (the import layout) into the job's chunks, then the
 * progress shows a download link signed with the application secret that expires
 * EXPORT_LINK_TTL_SECONDS after the export finished; the link also needs a token of the same tenant.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Readable } from 'node:stream';
import type { DataSource } from 'typeorm';
import {
  Brand,
  Category,
  Product,
  ProductCategory,
  ProductImage,
  ProductTag,
  ProductTagAssignment,
  ProductVariant,
  TransferJob,
  TransferJobError,
} from '../../storage/entities';
import type { TransferJobKind } from '../../storage/entities/transfer-job.entity';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { notifyTenant } from '../../storage/notifications';
import { DeliveryReleased, enqueueOutbox, releaseIfStopping, type OutboxDelivery } from '../../storage/outbox';
import { inTransaction, servicesOf, type ActorType, type ContextServices, type RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { toCsv, attachment } from '../http/csv';
import { AppError, NotFoundError } from '../../lib/errors';
import { requireStore } from '../../domain/store-access';
import type { ProductParts } from '../products/products.view';
import { csvRecords, type CsvSource, type RowError } from './csv-stream';
import { importSettings } from './imports.settings';
import { recordImportRows } from '../../lib/metrics';
import {
  applyProductGroups,
  emptyOutcome,
  MAX_REPORTED_ROW_ERRORS,
  prepareProductGroups,
  productCsvRules,
  type PreparedGroups,
} from './product-import.service';
import { exportRows, LAYOUT_COLUMNS, productGroups, type ProductGroup } from './product-layout';
import { importsError } from './imports.errors';
import type { TransferJobView } from './imports.views';

const CHUNK_BYTES = 1024 * 1024;
export const TRANSFER_AGGREGATE = 'transfer_job';

const jobNotFound = (): NotFoundError => importsError('job_not_found', 'The import or export job does not exist.');

/** Stores `source` as the job's chunks (about 1 MiB each) inside the caller's transaction; returns the byte count. */
async function storeChunks(tx: RequestContext, jobId: string, source: CsvSource): Promise<number> {
  let seq = 0;
  let bytes = 0;
  const write = async (data: Buffer): Promise<void> => {
    await tx.manager.query('INSERT INTO transfer_job_chunks (job_id, tenant_id, seq, data) VALUES ($1, $2, $3, $4)', [
      jobId,
      tx.tenantId,
      seq,
      data,
    ]);
    seq += 1;
    bytes += data.length;
  };
  if (Buffer.isBuffer(source)) {
    for (let offset = 0; offset < source.length; offset += CHUNK_BYTES) await write(source.subarray(offset, offset + CHUNK_BYTES));
    return bytes;
  }
  if (typeof source === 'string') {
    // Encoded piece by piece (never a second copy of the whole upload), without splitting a surrogate pair.
    for (let start = 0; start < source.length;) {
      let end = Math.min(source.length, start + CHUNK_BYTES / 2);
      const last = source.charCodeAt(end - 1);
      if (end < source.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
      await write(Buffer.from(source.slice(start, end), 'utf8'));
      start = end;
    }
    return bytes;
  }
  // A stream (an upload as it arrives): at most one chunk plus one piece is held; awaiting each insert
  // before reading on lets the socket's back-pressure slow a fast client down.
  let pending: Buffer[] = [];
  let size = 0;
  for await (const piece of source) {
    const data = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece;
    pending.push(data);
    size += data.length;
    if (size < CHUNK_BYTES) continue;
    let joined = Buffer.concat(pending, size);
    while (joined.length >= CHUNK_BYTES) {
      await write(joined.subarray(0, CHUNK_BYTES));
      joined = joined.subarray(CHUNK_BYTES);
    }
    pending = joined.length ? [Buffer.from(joined)] : [];
    size = joined.length;
  }
  if (size) await write(Buffer.concat(pending, size));
  return bytes;
}

/** The stored chunks of a job, read back one at a time. */
async function* readChunks(dataSource: DataSource, jobId: string): AsyncGenerator<Buffer> {
  for (let seq = 0; ; seq += 1) {
    const rows: Array<{ data: Buffer }> = await dataSource.query('SELECT data FROM transfer_job_chunks WHERE job_id = $1 AND seq = $2', [
      jobId,
      seq,
    ]);
    if (!rows.length) return;
    // Smaller pieces let the parser hand over the rows before a malformed spot later in the chunk.
    const data = rows[0]!.data;
    for (let offset = 0; offset < data.length; offset += 64 * 1024) yield data.subarray(offset, offset + 64 * 1024);
  }
}

async function createJob(ctx: RequestContext, storeId: string, kind: TransferJobKind, source?: CsvSource): Promise<TransferJobView> {
  return inTransaction(ctx, async (tx) => {
    const store = await requireStore(tx, storeId, { forWrite: true });
    const id = uuidv7();
    await tx.manager.insert(TransferJob, {
      id,
      tenantId: tx.tenantId!,
      storeId: store.id,
      kind,
      state: 'QUEUED',
      actorType: tx.actor.type,
      actorId: tx.actor.id ?? null,
    });
    let bytes = 0;
    if (source !== undefined) {
      bytes = await storeChunks(tx, id, source);
      await tx.manager.update(TransferJob, { id }, { fileBytes: String(bytes) });
    }
    const action = kind === 'PRODUCT_IMPORT' ? 'product_import.create' : 'product_export.create';
    await recordAudit(tx, {
      action,
      resourceType: 'transfer_job',
      resourceId: id,
      before: null,
      after: { storeId: store.id, kind, fileBytes: bytes },
    });
    await enqueueOutbox(
      tx,
      kind === 'PRODUCT_IMPORT'
        ? { queue: 'import', topic: 'product_import.queued', aggregateType: TRANSFER_AGGREGATE, aggregateId: id }
        : { queue: 'export', topic: 'product_export.queued', aggregateType: TRANSFER_AGGREGATE, aggregateId: id },
    );
    const job = await tx.manager.findOneByOrFail(TransferJob, { id });
    return jobView(tx, job, []);
  });
}

/** How much of the start of an upload is looked at for the header and a first data row. */
const HEAD_BYTES = 1_000_000;

/**
 * Only the header and the presence of a data row are checked before the job is created (400, nothing
 * written); the rows are the worker's. `head` is the start of the file, at most HEAD_BYTES.
 */
async function checkHead(head: string): Promise<void> {
  const lines = head
    .slice(0, HEAD_BYTES)
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '');
  const records = csvRecords(lines.slice(0, 1).join('\n'), productCsvRules);
  await records.next();
  await records.return(undefined);
  if (lines.length < 2)
    throw importsError('empty_csv', 'The CSV has no data rows.', [{ path: 'body', message: 'at least one data row is needed' }]);
}

/** True once `head` holds a whole first line and something after it (the start of a data row). */
function headIsEnough(head: string): boolean {
  const text = head.replace(/^[\s\uFEFF]+/, '');
  const end = text.indexOf('\n');
  return end >= 0 && text.slice(end + 1).trim() !== '';
}

/**
 * Reads a streamed upload only as far as its header and first data row (at most about HEAD_BYTES),
 * and returns the whole upload again as one stream: what was read, then the rest as it arrives.
 */
async function readHead(source: AsyncIterable<Buffer | string>): Promise<{ head: string; upload: AsyncIterable<Buffer> }> {
  const iterator = source[Symbol.asyncIterator]();
  const read: Buffer[] = [];
  let size = 0;
  let done = false;
  while (size < HEAD_BYTES) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    const piece = typeof next.value === 'string' ? Buffer.from(next.value, 'utf8') : next.value;
    read.push(piece);
    size += piece.length;
    if (headIsEnough(Buffer.concat(read, size).toString('utf8', 0, Math.min(size, HEAD_BYTES)))) break;
  }
  const head = Buffer.concat(read, size);
  async function* upload(): AsyncGenerator<Buffer> {
    if (head.length) yield head;
    if (done) return;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      yield typeof next.value === 'string' ? Buffer.from(next.value, 'utf8') : next.value;
    }
  }
  return { head: head.toString('utf8', 0, Math.min(size, HEAD_BYTES)), upload: upload() };
}

/**
 * Starts an asynchronous import: the header is checked at once (400), the rest by the worker. A
 * streamed upload is stored chunk by chunk as it arrives, inside the transaction that creates the
 * job, so memory stays bounded by the chunk size and a body that fails part-way (413 over the
 * limit, a client that went away) rolls back with no job and no chunks.
 */
export async function startProductImport(ctx: RequestContext, storeId: string, source: CsvSource): Promise<TransferJobView> {
  await requireStore(ctx, storeId, { forWrite: true });
  if (typeof source === 'string' || Buffer.isBuffer(source)) {
    await checkHead(
      typeof source === 'string' ? source.slice(0, HEAD_BYTES) : source.toString('utf8', 0, Math.min(source.length, HEAD_BYTES)),
    );
    return createJob(ctx, storeId, 'PRODUCT_IMPORT', source);
  }
  const { head, upload } = await readHead(source);
  await checkHead(head);
  return createJob(ctx, storeId, 'PRODUCT_IMPORT', upload);
}

export function startProductExport(ctx: RequestContext, storeId: string): Promise<TransferJobView> {
  return createJob(ctx, storeId, 'PRODUCT_EXPORT');
}

function signature(secret: string, jobId: string, expires: number): string {
  return createHmac('sha256', secret).update(`transfer-download:${jobId}:${expires}`).digest('base64url');
}

/** The progress of a job as the progress operation answers it. */
export function jobView(ctx: RequestContext, job: TransferJob, errors: RowError[]): TransferJobView {
  let download: { url: string; expiresAt: string } | null = null;
  let downloadExpired = false;
  if (job.kind === 'PRODUCT_EXPORT' && job.state === 'COMPLETED' && job.finishedAt) {
    const expires = Math.floor(job.finishedAt.getTime() / 1000) + importSettings().exportLinkTtlSeconds;
    if (expires * 1000 > Date.now()) {
      const sig = signature(servicesOf(ctx).config.appSecret, job.id, expires);
      download = {
        url: `/api/v1/bulk-import/jobs/${job.id}/download?expires=${expires}&signature=${sig}`,
        expiresAt: new Date(expires * 1000).toISOString(),
      };
    } else downloadExpired = true;
  }
  return {
    id: job.id,
    storeId: job.storeId,
    kind: job.kind,
    state: job.state,
    fileBytes: Number(job.fileBytes),
    rows: { read: job.rowsRead, failed: job.rowsFailed },
    products: {
      created: job.productsCreated,
      updated: job.productsUpdated,
      unchanged: job.productsUnchanged,
      failed: job.productsFailed,
      exported: job.productsExported,
    },
    errors,
    errorsTotal: job.errorsCount,
    failure: job.failure,
    download,
    downloadExpired,
    createdAt: job.createdAt.toISOString(),
    startedAt: job.startedAt?.toISOString() ?? null,
    finishedAt: job.finishedAt?.toISOString() ?? null,
  };
}

/** The caller's job (an API key: only jobs of its store), or 404. */
async function callerJob(ctx: RequestContext, id: string): Promise<TransferJob> {
  const job = await tenantRepository(ctx, TransferJob, jobNotFound).findOneBy({ id });
  if (!job) throw jobNotFound();
  if (ctx.actor.type === 'api_key' && ctx.actor.storeId !== job.storeId) throw jobNotFound();
  return job;
}

export async function getTransferJob(ctx: RequestContext, id: string): Promise<TransferJobView> {
  const job = await callerJob(ctx, id);
  const errors = await ctx.manager.find(TransferJobError, {
    where: { jobId: job.id },
    order: { rowNumber: 'ASC', id: 'ASC' },
    take: MAX_REPORTED_ROW_ERRORS,
  });
  return jobView(
    ctx,
    job,
    errors.map((e) => ({ row: e.rowNumber, column: e.columnName, message: e.message })),
  );
}

/** The exported CSV, streamed from the stored chunks, for a valid unexpired link of the caller's tenant. */
export async function downloadExport(
  ctx: RequestContext,
  id: string,
  expires: number,
  sig: string,
): Promise<{ body: Readable; disposition: string }> {
  const job = await callerJob(ctx, id);
  if (job.kind !== 'PRODUCT_EXPORT') throw jobNotFound();
  const expected = Buffer.from(signature(servicesOf(ctx).config.appSecret, job.id, expires));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    throw importsError('invalid_download_link', 'The download link is not valid for this job.');
  if (expires * 1000 <= Date.now()) throw importsError('download_expired', 'The download link has expired; start a new export.');
  if (job.state !== 'COMPLETED') throw importsError('export_not_ready', 'The export has not completed.');
  return { body: Readable.from(readChunks(ctx.dataSource, job.id)), disposition: attachment(`products-${job.storeId}-${job.id}.csv`) };
}

/* ---------------------------------------------------------------- worker */

function jobContext(dataSource: DataSource, job: TransferJob, services?: ContextServices): RequestContext {
  return {
    requestId: `transfer-job-${job.id}`,
    tenantId: job.tenantId,
    actor: {
      type: job.actorType as ActorType,
      id: job.actorId ?? undefined,
      storeId: job.storeId,
      tenantRole: job.actorType === 'user' ? 'staff' : undefined,
    },
    dataSource,
    manager: dataSource.manager,
    inTransaction: false,
    services,
  };
}

export interface ImportRunOptions {
  /** Test hook: stop (as if the worker died) after committing this many batches. */
  stopAfterBatches?: number;
  /** Test hook: die inside batch number N (1-based), after its products were written but before it commits. */
  crashInBatch?: number;
  /** Aborted when the worker shuts down: the import stops after the batch being committed. */
  signal?: AbortSignal;
}

/** Runs (or resumes) an import job until done. Returns false when stopped early (test hook or shutdown). */
export async function runImportJob(
  dataSource: DataSource,
  jobId: string,
  services?: ContextServices,
  options: ImportRunOptions = {},
): Promise<boolean> {
  const job = await dataSource.manager.findOneBy(TransferJob, { id: jobId });
  if (!job || job.kind !== 'PRODUCT_IMPORT' || job.state === 'COMPLETED' || job.state === 'FAILED') return true;
  await dataSource.query(
    `UPDATE transfer_jobs SET state = 'RUNNING', started_at = COALESCE(started_at, now()), updated_at = now() WHERE id = $1`,
    [jobId],
  );
  const ctx = jobContext(dataSource, job, services);
  const { batchProducts } = importSettings();
  let header: string[] = [];
  let batches = 0;
  const commit = async (groups: ProductGroup[], final: boolean, preparing: Promise<PreparedGroups>): Promise<void> => {
    const prepared = await preparing;
    let committed: ReturnType<typeof emptyOutcome> | undefined;
    await inTransaction(ctx, async (tx) => {
      const [locked] = (await tx.manager.query('SELECT next_row, errors_count FROM transfer_jobs WHERE id = $1 FOR UPDATE', [
        jobId,
      ])) as Array<{ next_row: number; errors_count: number }>;
      const todo = groups.filter((g) => g.firstRow >= locked!.next_row);
      if (!todo.length) return;
      const out = (committed = emptyOutcome());
      await applyProductGroups(tx, job.storeId, header, todo, out, { final, prepared });
      if (options.crashInBatch === batches + 1) throw new Error('simulated crash inside a batch');
      const keep = out.errors.slice(0, Math.max(0, MAX_REPORTED_ROW_ERRORS - locked!.errors_count));
      if (keep.length)
        await tx.manager.insert(
          TransferJobError,
          keep.map((e) => ({ jobId, rowNumber: e.row, columnName: e.column, message: e.message.slice(0, 2000) })),
        );
      await tx.manager.query(
        `UPDATE transfer_jobs SET next_row = $2, rows_read = rows_read + $3, rows_failed = rows_failed + $4, products_created = products_created + $5,
                products_updated = products_updated + $6, products_unchanged = products_unchanged + $7, products_failed = products_failed + $8,
                errors_count = errors_count + $9, updated_at = now() WHERE id = $1`,
        [
          jobId,
          todo[todo.length - 1]!.lastRow + 1,
          out.rowsRead,
          out.rowsFailed,
          out.created,
          out.updated,
          out.unchanged,
          out.failed,
          out.errors.length,
        ],
      );
    });
    batches += 1;
    // Counted once the batch has committed (a batch rolled back and done again counts once).
    if (committed) recordImportRows('async', committed);
  };
  // A full batch is committed once the next product has been read (so the last one is known to be last),
  // and while it commits the next batch is read, parsed and checked: that work overlaps the database's.
  let committing: Promise<void> | undefined;
  try {
    let batch: ProductGroup[] = [];
    let full: ProductGroup[] | undefined;
    const stopped = (): boolean =>
      (options.stopAfterBatches !== undefined && batches >= options.stopAfterBatches) || options.signal?.aborted === true;
    const start = async (groups: ProductGroup[], final: boolean): Promise<boolean> => {
      // This batch's checks run now, while the previous batch may still be committing.
      const preparing = prepareProductGroups(ctx, job.storeId, header, groups);
      preparing.catch(() => undefined);
      await committing;
      if (stopped()) return false;
      committing = commit(groups, final, preparing);
      // Observed by the next await; until then the file goes on being read.
      committing.catch(() => undefined);
      return true;
    };
    for await (const group of productGroups(csvRecords(readChunks(dataSource, jobId), productCsvRules, (names) => (header = names)))) {
      if (group.lastRow < job.nextRow) continue;
      if (full) {
        if (!(await start(full, false))) return false;
        full = undefined;
      }
      batch.push(group);
      if (batch.length >= batchProducts) {
        full = batch;
        batch = [];
      }
    }
    if (full && !(await start(full, batch.length === 0))) return false;
    if (batch.length && !(await start(batch, true))) return false;
    await committing;
    if (stopped()) return false;
  } catch (error) {
    // A batch still committing finishes (or fails) before the job's state is decided.
    await committing?.catch(() => undefined);
    if (error instanceof AppError) {
      // The file itself is unreadable from some row on: what was committed stays, the job fails.
      await dataSource.query(
        `UPDATE transfer_jobs SET state = 'FAILED', failure = $2, finished_at = now(), updated_at = now() WHERE id = $1`,
        [jobId, error.message.slice(0, 2000)],
      );
      return true;
    }
    throw error;
  }
  await dataSource.transaction(async (manager) => {
    const [done] = (await manager.query(
      `UPDATE transfer_jobs SET state = 'COMPLETED', finished_at = now(), updated_at = now() WHERE id = $1 AND state = 'RUNNING' RETURNING tenant_id, store_id`,
      [jobId],
    )) as [Array<{ tenant_id: string; store_id: string }>, number];
    // The merchant's in-app notification (docs/messaging.md), in the transaction that completes the import.
    for (const job of done)
      await notifyTenant(
        {
          requestId: `job:import:${jobId}`,
          tenantId: job.tenant_id,
          actor: { type: 'system', id: 'imports' },
          dataSource,
          manager,
          inTransaction: true,
        },
        {
          tenantId: job.tenant_id,
          storeId: job.store_id,
          topic: 'imports.finished',
          title: 'Product import finished',
          body: 'The product import has finished; its report lists any rows that failed.',
          dedupeKey: `import:${jobId}`,
        },
      );
  });
  return true;
}

/**
 * Writes the store's catalog into the job's chunks, then completes the job. Each chunk (about 1 MiB
 * of whole products, in id order) commits together with the job's cursor and counters, so a run
 * stopped by a shutdown (DeliveryReleased, between pages) or a crash resumes after the last chunk
 * written, and no product is written twice.
 */
export async function runExportJob(
  dataSource: DataSource,
  jobId: string,
  signal?: AbortSignal,
  sizes: { chunkBytes?: number; pageProducts?: number } = {},
): Promise<void> {
  const chunkBytes = sizes.chunkBytes ?? CHUNK_BYTES;
  const job = await dataSource.manager.findOneBy(TransferJob, { id: jobId });
  if (!job || job.kind !== 'PRODUCT_EXPORT' || job.state === 'COMPLETED' || job.state === 'FAILED') return;
  const m = dataSource.manager;
  const resuming = job.exportAfter !== null;
  if (!resuming) {
    await dataSource.query('DELETE FROM transfer_job_chunks WHERE job_id = $1', [jobId]);
    await dataSource.query(`UPDATE transfer_jobs SET rows_read = 0, products_exported = 0, file_bytes = 0 WHERE id = $1`, [jobId]);
  }
  await dataSource.query(
    `UPDATE transfer_jobs SET state = 'RUNNING', started_at = COALESCE(started_at, now()), updated_at = now() WHERE id = $1`,
    [jobId],
  );
  const scope = { tenantId: job.tenantId, storeId: job.storeId };
  const names = {
    brands: new Map((await m.find(Brand, { where: scope, select: { id: true, slug: true } })).map((b) => [b.id, b.slug])),
    categories: new Map((await m.find(Category, { where: scope, select: { id: true, slug: true } })).map((c) => [c.id, c.slug])),
    tags: new Map((await m.find(ProductTag, { where: scope, select: { id: true, slug: true } })).map((t) => [t.id, t.slug])),
  };
  const columns = LAYOUT_COLUMNS.map((header) => ({ header, value: (row: Record<string, unknown>) => row[header] }));
  const [{ next }]: Array<{ next: number }> = await dataSource.query(
    'SELECT COALESCE(max(seq) + 1, 0)::int AS next FROM transfer_job_chunks WHERE job_id = $1',
    [jobId],
  );
  let seq = next;
  let rows = 0;
  let products = 0;
  let after = job.exportAfter ?? '00000000-0000-0000-0000-000000000000';
  let pending: string[] = resuming ? [] : [toCsv([], columns)];
  let pendingBytes = pending[0]?.length ?? 0;
  const flush = async (): Promise<void> => {
    if (!pending.length) return;
    const data = Buffer.from(pending.join(''), 'utf8');
    await dataSource.transaction(async (tx) => {
      await tx.query('INSERT INTO transfer_job_chunks (job_id, tenant_id, seq, data) VALUES ($1, $2, $3, $4)', [
        jobId,
        job.tenantId,
        seq,
        data,
      ]);
      await tx.query(
        `UPDATE transfer_jobs SET export_after = $2, rows_read = rows_read + $3, products_exported = products_exported + $4, file_bytes = file_bytes + $5, updated_at = now() WHERE id = $1`,
        [jobId, after, rows, products, data.length],
      );
    });
    seq += 1;
    rows = 0;
    products = 0;
    pending = [];
    pendingBytes = 0;
  };
  for (;;) {
    // Between pages: what is pending is not committed yet, and the next run rewrites it.
    releaseIfStopping({ signal });
    const page = await m
      .createQueryBuilder(Product, 'p')
      .where('p.tenant_id = :tenantId AND p.store_id = :storeId AND p.id > :after', { ...scope, after })
      .orderBy('p.id', 'ASC')
      .take(sizes.pageProducts ?? 500)
      .getMany();
    if (!page.length) break;
    after = page[page.length - 1]!.id;
    const ids = page.map((p) => p.id);
    const variants = await m
      .createQueryBuilder(ProductVariant, 'v')
      .where('v.product_id IN (:...ids)', { ids })
      .orderBy('v.position', 'ASC')
      .addOrderBy('v.id', 'ASC')
      .getMany();
    const images = await m
      .createQueryBuilder(ProductImage, 'i')
      .where('i.product_id IN (:...ids)', { ids })
      .orderBy('i.position', 'ASC')
      .addOrderBy('i.id', 'ASC')
      .getMany();
    const categories = await m
      .createQueryBuilder(ProductCategory, 'c')
      .where('c.product_id IN (:...ids)', { ids })
      .orderBy('c.position', 'ASC')
      .getMany();
    const tags = await m
      .createQueryBuilder(ProductTagAssignment, 't')
      .where('t.product_id IN (:...ids)', { ids })
      .orderBy('t.created_at', 'ASC')
      .addOrderBy('t.tag_id', 'ASC')
      .getMany();
    const records: Array<Record<string, unknown>> = [];
    for (const product of page) {
      const parts: ProductParts = {
        product,
        variants: variants.filter((v) => v.productId === product.id),
        images: images.filter((i) => i.productId === product.id),
        categoryIds: categories.filter((c) => c.productId === product.id).map((c) => c.categoryId),
        tagIds: tags.filter((t) => t.productId === product.id).map((t) => t.tagId),
      };
      records.push(...exportRows(parts, names));
      products += 1;
    }
    rows += records.length;
    const text = toCsv(records, columns, { header: false });
    pending.push(text);
    pendingBytes += text.length;
    if (pendingBytes >= chunkBytes) await flush();
  }
  await flush();
  await dataSource.query(`UPDATE transfer_jobs SET state = 'COMPLETED', finished_at = now(), updated_at = now() WHERE id = $1`, [jobId]);
}

/** The consumer of the `import` and `export` queues (jobs worker). */
export function transferJobsHandler(
  dataSource: DataSource,
  services?: ContextServices,
): (delivery: OutboxDelivery<'import' | 'export'>) => Promise<void> {
  return async (delivery) => {
    switch (delivery.aggregateType) {
      case TRANSFER_AGGREGATE:
        if (delivery.queue === 'export') await runExportJob(dataSource, delivery.aggregateId, delivery.signal);
        // Stopped by a shutdown after a committed batch: the next run resumes at the job's next row.
        else if (!(await runImportJob(dataSource, delivery.aggregateId, services, { signal: delivery.signal })))
          throw new DeliveryReleased('import stopped between batches');
        return;
      default: {
        // Every aggregate type of the queues is handled above; a row of an older version with another is acknowledged.
        const _exhaustive: never = delivery.aggregateType;
        void _exhaustive;
      }
    }
  };
}
