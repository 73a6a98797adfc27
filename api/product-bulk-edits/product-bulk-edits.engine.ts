/**
 * Runs bulk edits. A request validates everything first (400 and nothing written on bad input), then
 * records the edit (RUNNING) with one PENDING item per product. Up to `bulkEdits.syncMax` products
 * (BULK_SYNC_MAX, default 500) are processed in the same transaction and the answer is the finished
 * edit; a larger edit is answered at once, still RUNNING, and an outbox row (queue `jobs`, aggregate
 * `product_bulk_edit`) hands it to the jobs worker, which processes BATCH_SIZE products per transaction
 * and advances `processedCount` after each. Items already processed are never touched again, so a
 * worker that dies mid-way resumes where the last committed batch stopped (the outbox re-delivers the
 * job) without applying anything twice.
 */
import { In } from 'typeorm';
import { Product, ProductBulkEdit, ProductBulkEditItem, Store } from '../../storage/entities';
import type { BulkEditAction, BulkEditItemStatus, BulkEditOperation } from '../../storage/entities/product-bulk-edit.entity';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { enqueueOutbox, releaseIfStopping } from '../../storage/outbox';
import { notifyTenant } from '../../storage/notifications';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { AppError, NotFoundError } from '../../lib/errors';
import { requireStore } from '../../domain/store-access';
import {
  applyCategory,
  applyDelete,
  applyPrice,
  applyRevert,
  applyStatus,
  applyTags,
  productGone,
  restoreLinks,
  type BulkParams,
  type ItemOutcome,
  type RevertSource,
} from './product-bulk-edits.operations';
import { productBulkEditsError } from './product-bulk-edits.errors';

/** Products per transaction on the jobs worker. */
export const BATCH_SIZE = 200;
/** Used when the request context carries no configuration. */
export const DEFAULT_SYNC_MAX = 500;

export const bulkEditNotFound = (): NotFoundError => productBulkEditsError('bulk_edit_not_found', 'The bulk edit does not exist.');

export interface NewBulkEdit {
  storeId: string;
  operation: BulkEditOperation;
  action: BulkEditAction;
  params: BulkParams;
  productIds: string[];
  revertOf?: string;
}

/** The edit recorded, RUNNING, with its PENDING items; processed here when small, else queued. Returns its id. */
export async function runBulkEdit(tx: RequestContext, store: Store, spec: NewBulkEdit): Promise<string> {
  const id = uuidv7();
  const now = new Date();
  const edit = tenantRepository(tx, ProductBulkEdit).create({
    id,
    storeId: store.id,
    action: spec.action,
    operation: spec.operation,
    status: 'RUNNING',
    params: spec.params as Record<string, unknown>,
    actorType: tx.actor.type,
    actorId: tx.actor.id ?? null,
    productCount: spec.productIds.length,
    revertOf: spec.revertOf ?? null,
    revertedBy: null,
    createdAt: now,
    updatedAt: now,
    finishedAt: null,
  });
  await tx.manager.insert(ProductBulkEdit, edit as never);
  for (let start = 0; start < spec.productIds.length; start += 1_000) {
    await tx.manager.insert(
      ProductBulkEditItem,
      spec.productIds.slice(start, start + 1_000).map((productId, i) => ({
        bulkEditId: id,
        productId: productId.toLowerCase(),
        tenantId: tx.tenantId!,
        position: start + i,
        status: 'PENDING' as const,
      })),
    );
  }
  await recordAudit(tx, {
    action: spec.revertOf ? 'product_bulk_edit.revert' : 'product_bulk_edit.create',
    resourceType: 'product_bulk_edit',
    resourceId: id,
    before: null,
    after: {
      storeId: store.id,
      action: spec.action,
      operation: spec.operation,
      params: spec.params,
      productCount: spec.productIds.length,
      revertOf: spec.revertOf ?? null,
    },
  });
  const syncMax = tx.services?.config.bulkEdits?.syncMax ?? DEFAULT_SYNC_MAX;
  if (spec.productIds.length <= syncMax) {
    while (!(await processBatch(tx, id, BATCH_SIZE))) {
      // every batch of the small edit in this one transaction
    }
  } else {
    await enqueueOutbox(tx, { queue: 'jobs', topic: 'product_bulk_edit.run', aggregateType: 'product_bulk_edit', aggregateId: id });
  }
  return id;
}

interface PendingItem {
  product_id: string;
}

/** The original items a batch of a revert undoes, with whether each product is as the edit left it. */
async function revertSources(tx: RequestContext, revertOf: string, productIds: string[]): Promise<Map<string, RevertSource>> {
  const [original] = await tx.manager.query('SELECT operation FROM product_bulk_edits WHERE id = $1 AND tenant_id = $2', [
    revertOf,
    tx.tenantId,
  ]);
  const rows: Array<{ product_id: string; previous: Record<string, unknown>; unchanged: boolean }> = await tx.manager.query(
    `SELECT i.product_id, i.previous, (p.id IS NOT NULL AND p.updated_at IS NOT DISTINCT FROM i.updated_at_after) AS unchanged
       FROM product_bulk_edit_items i LEFT JOIN products p ON p.id = i.product_id
      WHERE i.bulk_edit_id = $1 AND i.tenant_id = $2 AND i.product_id = ANY($3::uuid[])`,
    [revertOf, tx.tenantId, productIds],
  );
  return new Map(
    rows.map((r) => [
      r.product_id,
      { operation: original.operation as BulkEditOperation, previous: r.previous, unchangedSince: r.unchanged },
    ]),
  );
}

async function applyItem(
  tx: RequestContext,
  edit: ProductBulkEdit,
  productId: string,
  product: Product | undefined,
  sources: Map<string, RevertSource>,
): Promise<ItemOutcome> {
  const params = edit.params as BulkParams;
  if (edit.operation === 'revert') return applyRevert(tx, productId, product ?? null, sources.get(productId)!);
  if (!product) throw productGone();
  switch (edit.operation) {
    case 'publish':
      return applyStatus(tx, product, 'PUBLISHED');
    case 'archive':
      return applyStatus(tx, product, 'ARCHIVED');
    case 'set-status':
      return applyStatus(tx, product, params.status!);
    case 'set-category':
      return applyCategory(tx, product, params.categoryId ?? null);
    case 'update-price':
      return applyPrice(tx, product, params.mode!, params.value!);
    case 'add-tags':
      return applyTags(tx, product, params.tagIds!, true);
    case 'remove-tags':
      return applyTags(tx, product, params.tagIds!, false);
    case 'hard-delete':
      return applyDelete(tx, product);
  }
}

/**
 * Processes up to `limit` PENDING items of the edit in `tx` (the edit row locked, so two workers never
 * process the same edit at once) and advances its counters; when none is left, finishes the edit.
 * Returns true once the edit is finished.
 */
export async function processBatch(tx: RequestContext, editId: string, limit: number): Promise<boolean> {
  const edits = tenantRepository(tx, ProductBulkEdit, bulkEditNotFound);
  const edit = await edits.findOne({ where: { id: editId }, lock: { mode: 'pessimistic_write' } });
  if (!edit || edit.status !== 'RUNNING') return true;
  const pending: PendingItem[] = await tx.manager.query(
    "SELECT product_id FROM product_bulk_edit_items WHERE bulk_edit_id = $1 AND status = 'PENDING' ORDER BY position LIMIT $2",
    [editId, limit],
  );
  if (pending.length === 0) {
    await finish(tx, edit);
    return true;
  }
  const ids = pending.map((p) => p.product_id);
  let storeProblem: AppError | undefined;
  try {
    await requireStore(tx, edit.storeId, { forWrite: true });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    storeProblem = error;
  }
  // Locked in id order, so concurrent writers of the same products cannot deadlock with this batch.
  const products = storeProblem
    ? []
    : await tenantRepository(tx, Product).find({
        where: { id: In(ids), storeId: edit.storeId },
        order: { id: 'ASC' },
        lock: { mode: 'pessimistic_write' },
      });
  const byId = new Map(products.map((p) => [p.id.toLowerCase(), p]));
  const sources =
    edit.operation === 'revert' && !storeProblem ? await revertSources(tx, edit.revertOf!, ids) : new Map<string, RevertSource>();
  const counts: Record<Exclude<BulkEditItemStatus, 'PENDING'>, number> = { OK: 0, UNCHANGED: 0, FAILED: 0 };
  for (const productId of ids) {
    let status: Exclude<BulkEditItemStatus, 'PENDING'>;
    let previous: Record<string, unknown> | null = null;
    let error: AppError | undefined = storeProblem;
    if (!error) {
      try {
        const outcome = await applyItem(tx, edit, productId, byId.get(productId), sources);
        status = outcome.status;
        if (outcome.status === 'OK') previous = outcome.previous;
      } catch (caught) {
        if (!(caught instanceof AppError)) throw caught;
        error = caught;
      }
    }
    status = error ? 'FAILED' : status!;
    counts[status] += 1;
    await tx.manager.query(
      `UPDATE product_bulk_edit_items
          SET status = $3, error_code = $4, error_message = $5, previous = $6::jsonb, processed_at = now(),
              updated_at_after = CASE WHEN $3 = 'OK' THEN (SELECT updated_at FROM products WHERE id = $2) END
        WHERE bulk_edit_id = $1 AND product_id = $2`,
      [editId, productId, status, error?.code ?? null, error?.message ?? null, previous === null ? null : JSON.stringify(previous)],
    );
  }
  await edits.update(
    { id: editId },
    {
      processedCount: edit.processedCount + ids.length,
      okCount: edit.okCount + counts.OK,
      unchangedCount: edit.unchangedCount + counts.UNCHANGED,
      failedCount: edit.failedCount + counts.FAILED,
      updatedAt: new Date(),
    },
  );
  return false;
}

/** COMPLETED, or FAILED when every product failed. A revert of a hard delete then relinks the restored products with each other. */
async function finish(tx: RequestContext, edit: ProductBulkEdit): Promise<void> {
  if (edit.operation === 'revert' && edit.action === 'DELETE') {
    // Relations between two products of the same delete were kept in the snapshot of whichever went first.
    const rows: Array<{ rels: unknown[] }> = await tx.manager.query(
      `SELECT coalesce(o.previous->'links'->'product_relations', '[]'::jsonb) AS rels
         FROM product_bulk_edit_items o JOIN product_bulk_edit_items r ON r.product_id = o.product_id AND r.bulk_edit_id = $2 AND r.status = 'OK'
        WHERE o.bulk_edit_id = $1`,
      [edit.revertOf, edit.id],
    );
    await restoreLinks(
      tx,
      'product_relations',
      rows.flatMap((r) => r.rels),
    );
  }
  const now = new Date();
  const failed = edit.productCount > 0 && edit.failedCount === edit.productCount;
  await tenantRepository(tx, ProductBulkEdit).update(
    { id: edit.id },
    { status: failed ? 'FAILED' : 'COMPLETED', finishedAt: now, updatedAt: now },
  );
  // The merchant's in-app notification (docs/messaging.md), once per edit.
  await notifyTenant(tx, {
    tenantId: edit.tenantId,
    storeId: edit.storeId,
    topic: 'product_bulk_edits.finished',
    title: failed ? 'Bulk edit failed' : 'Bulk edit finished',
    body: `${edit.productCount - edit.failedCount} of ${edit.productCount} products changed.`,
    dedupeKey: `product_bulk_edit:${edit.id}`,
  });
}

/**
 * The jobs worker's step: one batch per transaction until the edit is finished. A shutdown stops it
 * between batches (DeliveryReleased); the next run goes on with the PENDING items.
 */
export async function runQueuedBulkEdit(ctx: RequestContext, editId: string, signal?: AbortSignal): Promise<void> {
  for (;;) {
    releaseIfStopping({ signal });
    const done = await inTransaction(ctx, (tx) => processBatch(tx, editId, BATCH_SIZE));
    if (done) return;
  }
}
