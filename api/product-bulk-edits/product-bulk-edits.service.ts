/**
 * The eight bulk product operations, and the history of bulk edits: list, store overview, one edit
 * with its per-product results, and revert.
 *
 * Bad input fails the whole request with 400 before anything is written: a product id that is not a
 * product of the store (unknown, of another store or of another tenant, all alike: invalid_product),
 * a category or tag of another store (invalid_category, invalid_tag). A store of another tenant is 404.
 * A product that breaks a rule of the operation (missing required attributes, a negative price, too
 * many tags, …) fails alone and is reported in the edit's items; the others are changed.
 */
import { ProductBulkEdit } from '../../storage/entities';
import type { BulkEditAction, BulkEditOperation, BulkEditStatus } from '../../storage/entities/product-bulk-edit.entity';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { BadRequestError, ConflictError, type FieldError, type ProblemBody } from '../../lib/errors';
import { requireStore } from '../../domain/store-access';
import { checkCategories, checkTags } from '../../domain/product-rules';
import { bulkEditNotFound, runBulkEdit } from './product-bulk-edits.engine';
import { restoreBlocker, type BulkParams } from './product-bulk-edits.operations';
import {
  BULK_EDIT_ACTIONS,
  BULK_EDIT_STATUSES,
  type BulkProductTagsDto,
  type BulkSetCategoryDto,
  type BulkSetProductStatusDto,
  type BulkUpdatePriceDto,
  type ProductIdsBodyDto,
} from './product-bulk-edits.schemas';
import type { InputOf } from '../http/typed-schema';
import { PRODUCT_BULK_EDITS_ERRORS, productBulkEditsError } from './product-bulk-edits.errors';

export type ProductIdsInput = InputOf<typeof ProductIdsBodyDto>;

const ACTIONS: Record<Exclude<BulkEditOperation, 'revert'>, BulkEditAction> = {
  publish: 'UPDATE_STATUS',
  archive: 'ARCHIVE',
  'hard-delete': 'DELETE',
  'set-category': 'UPDATE_CATEGORY',
  'set-status': 'UPDATE_STATUS',
  'update-price': 'UPDATE_PRICE',
  'add-tags': 'UPDATE_TAGS',
  'remove-tags': 'UPDATE_TAGS',
};

/** 400 invalid_product unless every id is a product of the store (of the caller's tenant). */
async function checkProducts(tx: RequestContext, storeId: string, productIds: string[]): Promise<void> {
  const rows: Array<{ id: string }> = await tx.manager.query(
    'SELECT id FROM products WHERE tenant_id = $1 AND store_id = $2 AND id = ANY($3::uuid[])',
    [tx.tenantId, storeId, productIds],
  );
  const found = new Set(rows.map((r) => r.id.toLowerCase()));
  const errors: FieldError[] = [];
  productIds.forEach((id, index) => {
    if (!found.has(id.toLowerCase())) errors.push({ path: `body.productIds[${index}]`, message: 'not a product of the store' });
  });
  if (errors.length) {
    throw productBulkEditsError(
      'invalid_product',
      `${errors.length} of the product ids are not products of the store; nothing was changed.`,
      errors.slice(0, 100),
    );
  }
}

async function bulk(
  ctx: RequestContext,
  operation: Exclude<BulkEditOperation, 'revert'>,
  input: ProductIdsInput,
  params: BulkParams,
  check?: (tx: RequestContext) => Promise<void>,
): Promise<BulkEditView> {
  return inTransaction(ctx, async (tx) => {
    const store = await requireStore(tx, input.storeId, { forWrite: true });
    await checkProducts(tx, store.id, input.productIds);
    if (check) await check(tx);
    const id = await runBulkEdit(tx, store, {
      storeId: store.id,
      operation,
      action: ACTIONS[operation],
      params,
      productIds: input.productIds,
    });
    return loadBulkEdit(tx, id, true) as Promise<BulkEditView>;
  });
}

export const bulkPublish = (ctx: RequestContext, input: ProductIdsInput) => bulk(ctx, 'publish', input, { status: 'PUBLISHED' });
export const bulkArchive = (ctx: RequestContext, input: ProductIdsInput) => bulk(ctx, 'archive', input, { status: 'ARCHIVED' });
export const bulkHardDelete = (ctx: RequestContext, input: ProductIdsInput) => bulk(ctx, 'hard-delete', input, {});
export const bulkSetStatus = (ctx: RequestContext, input: InputOf<typeof BulkSetProductStatusDto>) =>
  bulk(ctx, 'set-status', input, { status: input.status });

export const bulkSetCategory = (ctx: RequestContext, input: InputOf<typeof BulkSetCategoryDto>) =>
  bulk(ctx, 'set-category', input, { categoryId: input.categoryId === null ? null : input.categoryId.toLowerCase() }, async (tx) => {
    if (input.categoryId === null) return;
    try {
      await checkCategories(tx, input.storeId, [input.categoryId]);
    } catch (error) {
      if (!(error instanceof BadRequestError)) throw error;
      throw productBulkEditsError('invalid_category', 'The category is not a category of the store.', [
        { path: 'body.categoryId', message: 'not a category of the store' },
      ]);
    }
  });

export const bulkUpdatePrice = (ctx: RequestContext, input: InputOf<typeof BulkUpdatePriceDto>) =>
  bulk(ctx, 'update-price', input, { mode: input.mode, value: input.value });

const tagsOp = (operation: 'add-tags' | 'remove-tags') => (ctx: RequestContext, input: InputOf<typeof BulkProductTagsDto>) =>
  bulk(ctx, operation, input, { tagIds: input.tagIds.map((t) => t.toLowerCase()) }, (tx) => checkTags(tx, input.storeId, input.tagIds));
export const bulkAddTags = tagsOp('add-tags');
export const bulkRemoveTags = tagsOp('remove-tags');

// ------------------------------------------------------------------------------------------- history

export interface BulkEditView {
  id: string;
  storeId: string;
  action: BulkEditAction;
  operation: BulkEditOperation;
  status: BulkEditStatus;
  params: Record<string, unknown>;
  actor: { type: string; id: string | null };
  productCount: number;
  processedCount: number;
  okCount: number;
  unchangedCount: number;
  failedCount: number;
  revertOf: string | null;
  revertedBy: string | null;
  createdAt: string;
  finishedAt: string | null;
  items?: Array<{
    productId: string;
    status: string;
    errorCode: string | null;
    errorMessage: string | null;
    previous: Record<string, unknown> | null;
  }>;
}

/** The edits of a store since a time, counted by action and status (ProductBulkEditOverviewResponse). */
export interface BulkEditOverviewView {
  storeId: string;
  sinceDays: number;
  since: string;
  total: number;
  byAction: Record<BulkEditAction, number>;
  byStatus: Record<BulkEditStatus, number>;
  /** Every action × status pair with at least one edit. */
  counts: Array<{ action: BulkEditAction; status: BulkEditStatus; count: number }>;
}

function summary(edit: ProductBulkEdit): BulkEditView {
  return {
    id: edit.id,
    storeId: edit.storeId,
    action: edit.action,
    operation: edit.operation,
    status: edit.status,
    params: edit.params,
    actor: { type: edit.actorType, id: edit.actorId },
    productCount: edit.productCount,
    processedCount: edit.processedCount,
    okCount: edit.okCount,
    unchangedCount: edit.unchangedCount,
    failedCount: edit.failedCount,
    revertOf: edit.revertOf,
    revertedBy: edit.revertedBy,
    createdAt: edit.createdAt.toISOString(),
    finishedAt: edit.finishedAt ? edit.finishedAt.toISOString() : null,
  };
}

/** The caller's edit (an API key: only of its store), or 404 bulk_edit_not_found. */
async function findEdit(ctx: RequestContext, id: string, lock = false): Promise<ProductBulkEdit> {
  const edits = tenantRepository(ctx, ProductBulkEdit, bulkEditNotFound);
  const edit = lock ? await edits.findOne({ where: { id }, lock: { mode: 'pessimistic_write' } }) : await edits.findOneBy({ id });
  if (!edit) throw bulkEditNotFound();
  if (ctx.actor.type === 'api_key' && ctx.actor.storeId !== edit.storeId) throw bulkEditNotFound();
  return edit;
}

async function loadBulkEdit(ctx: RequestContext, id: string, withItems: boolean): Promise<BulkEditView> {
  const view = summary(await findEdit(ctx, id));
  if (withItems) {
    const rows: Array<{
      product_id: string;
      status: string;
      error_code: string | null;
      error_message: string | null;
      previous: Record<string, unknown> | null;
    }> = await ctx.manager.query(
      'SELECT product_id, status, error_code, error_message, previous FROM product_bulk_edit_items WHERE bulk_edit_id = $1 AND tenant_id = $2 ORDER BY position',
      [id, ctx.tenantId],
    );
    view.items = rows.map((r) => ({
      productId: r.product_id,
      status: r.status,
      errorCode: r.error_code,
      errorMessage: r.error_message,
      previous: r.previous,
    }));
  }
  return view;
}

export async function getBulkEdit(ctx: RequestContext, id: string): Promise<BulkEditView> {
  return loadBulkEdit(ctx, id, true);
}

export interface ListBulkEditsQuery {
  storeId: string;
  action?: BulkEditAction;
  status?: BulkEditStatus;
  cursor?: string;
  limit: number;
}

/** Newest first; the cursor is the id of the last edit of the previous page. */
export async function listBulkEdits(
  ctx: RequestContext,
  query: ListBulkEditsQuery,
): Promise<{ items: BulkEditView[]; nextCursor: string | null }> {
  const store = await requireStore(ctx, query.storeId);
  const qb = tenantRepository(ctx, ProductBulkEdit).createQueryBuilder('e').andWhere('e.storeId = :storeId', { storeId: store.id });
  if (query.action) qb.andWhere('e.action = :action', { action: query.action });
  if (query.status) qb.andWhere('e.status = :status', { status: query.status });
  if (query.cursor) qb.andWhere('e.id < :cursor', { cursor: query.cursor });
  const rows = await qb
    .orderBy('e.id', 'DESC')
    .take(query.limit + 1)
    .getMany();
  const page = rows.slice(0, query.limit);
  return { items: page.map(summary), nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
}

export async function bulkEditOverview(ctx: RequestContext, storeId: string, sinceDays: number): Promise<BulkEditOverviewView> {
  const store = await requireStore(ctx, storeId);
  const since = new Date(Date.now() - sinceDays * 86_400_000);
  const rows: Array<{ action: BulkEditAction; status: BulkEditStatus; count: number }> = await ctx.manager.query(
    'SELECT action, status, count(*)::int AS count FROM product_bulk_edits WHERE tenant_id = $1 AND store_id = $2 AND created_at >= $3 GROUP BY action, status ORDER BY action, status',
    [ctx.tenantId, store.id, since],
  );
  const byAction = Object.fromEntries(BULK_EDIT_ACTIONS.map((a) => [a, 0])) as Record<BulkEditAction, number>;
  const byStatus = Object.fromEntries(BULK_EDIT_STATUSES.map((s) => [s, 0])) as Record<BulkEditStatus, number>;
  for (const row of rows) {
    byAction[row.action] += row.count;
    byStatus[row.status] += row.count;
  }
  return {
    storeId: store.id,
    sinceDays,
    since: since.toISOString(),
    total: rows.reduce((n, r) => n + r.count, 0),
    byAction,
    byStatus,
    counts: rows,
  };
}

// -------------------------------------------------------------------------------------------- revert

/** 409 bulk_edit_conflict, listing the products that changed since the edit (also as `productIds`). */
export class BulkEditConflictError extends ConflictError {
  constructor(
    readonly productIds: string[],
    errors: FieldError[],
  ) {
    super(
      `${productIds.length} of the products changed after the bulk edit; nothing was reverted.`,
      PRODUCT_BULK_EDITS_ERRORS.code('bulk_edit_conflict'),
      errors,
    );
  }

  override toProblem(): ProblemBody & { productIds: string[] } {
    return { ...super.toProblem(), productIds: this.productIds };
  }
}

/**
 * Restores what the edit changed, for every product it changed (items OK), as a new bulk edit
 * (operation revert, the action of the edit reverted, revertOf its id); the edit gets revertedBy.
 * Refused with 409 while the edit runs (bulk_edit_running), for a revert (not_revertible), a second time
 * (already_reverted), when it changed nothing (nothing_to_revert), and when any of its products changed
 * since (updated_at no longer the one the edit left; a deleted product whose id, slug or a SKU is taken
 * again): bulk_edit_conflict with their ids, and nothing is reverted.
 */
export async function revertBulkEdit(ctx: RequestContext, id: string): Promise<BulkEditView> {
  return inTransaction(ctx, async (tx) => {
    const edit = await findEdit(tx, id, true);
    const store = await requireStore(tx, edit.storeId, { forWrite: true }).catch((error: unknown) => {
      if ((error as { status?: number }).status === 404) throw bulkEditNotFound();
      throw error;
    });
    if (edit.operation === 'revert')
      throw productBulkEditsError('not_revertible', 'A revert cannot be reverted; make a new bulk edit instead.');
    if (edit.status === 'RUNNING')
      throw productBulkEditsError('bulk_edit_running', 'The bulk edit is still running; revert it once it has finished.');
    if (edit.revertedBy) throw productBulkEditsError('already_reverted', `The bulk edit was already reverted by ${edit.revertedBy}.`);
    const items: Array<{ product_id: string; previous: Record<string, unknown>; unchanged: boolean }> = await tx.manager.query(
      `SELECT i.product_id, i.previous, (p.id IS NOT NULL AND p.updated_at IS NOT DISTINCT FROM i.updated_at_after) AS unchanged
         FROM product_bulk_edit_items i LEFT JOIN products p ON p.id = i.product_id
        WHERE i.bulk_edit_id = $1 AND i.tenant_id = $2 AND i.status = 'OK' ORDER BY i.position`,
      [edit.id, tx.tenantId],
    );
    if (items.length === 0)
      throw productBulkEditsError('nothing_to_revert', 'The bulk edit changed no product; there is nothing to revert.');
    const changed: FieldError[] = [];
    for (const item of items) {
      if (edit.operation === 'hard-delete') {
        const blocker = await restoreBlocker(tx, item.previous);
        if (blocker) changed.push({ path: `products.${item.product_id}`, message: blocker });
      } else if (!item.unchanged) {
        changed.push({ path: `products.${item.product_id}`, message: 'changed (or deleted) after the bulk edit' });
      }
    }
    if (changed.length)
      throw new BulkEditConflictError(
        changed.map((c) => c.path.slice('products.'.length)),
        changed.slice(0, 100),
      );
    const revertId = await runBulkEdit(tx, store, {
      storeId: store.id,
      operation: 'revert',
      action: edit.action,
      params: { revertOf: edit.id },
      productIds: items.map((i) => i.product_id),
      revertOf: edit.id,
    });
    await tenantRepository(tx, ProductBulkEdit).update({ id: edit.id }, { revertedBy: revertId, updatedAt: new Date() });
    return loadBulkEdit(tx, revertId, true);
  });
}
