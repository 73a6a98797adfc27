/** Product bulk edits: history, overview and revert (docs/catalog.md, "Bulk edits"). */
import { defineRoutes, type RouteRequest } from '../http/route';
import { int, oneOf, positiveInt, storeId, uuid } from '../http/schema-types';
import {
  BULK_EDIT_ACTIONS,
  BULK_EDIT_STATUSES,
  ProductBulkEditListResponse,
  ProductBulkEditOverviewResponse,
  ProductBulkEditResponse,
} from './product-bulk-edits.schemas';
import { bulkEditOverview, getBulkEdit, listBulkEdits, revertBulkEdit, type ListBulkEditsQuery } from './product-bulk-edits.service';

type Params = Record<string, string>;

const readers =
  "Any member of the tenant, or an API key of the store with product-bulk-edits:read. Another tenant's store or bulk edit answers 404.";

export const productBulkEditRoutes = defineRoutes({ tag: 'product-bulk-edits', auth: 'merchant' }, [
  {
    operationId: 'productBulkEdits.list',
    method: 'GET',
    path: '/product-bulk-edits',
    summary: 'Bulk edits of a store, newest first',
    description: `${readers} Summaries without per-product results, filtered by action and status; cursor is the nextCursor of the previous page (the id of its last edit).`,
    query: {
      storeId: storeId(),
      action: oneOf(BULK_EDIT_ACTIONS),
      status: oneOf(BULK_EDIT_STATUSES),
      cursor: uuid(),
      limit: positiveInt(100).default(50),
    },
    response: ProductBulkEditListResponse,
    status: 200,
    handler: (req: RouteRequest) => listBulkEdits(req.context, req.query as ListBulkEditsQuery),
  },
  {
    operationId: 'productBulkEdits.storeOverview',
    method: 'GET',
    path: '/product-bulk-edits/store-overview',
    summary: 'Counts of bulk edits per action and status over the last days',
    description: `${readers} Edits created in the last sinceDays days (default 30), counted per action, per status and per action × status. Reverts count under the action of the edit they reverted.`,
    query: { storeId: storeId(), sinceDays: int(1, 365).default(30) },
    response: ProductBulkEditOverviewResponse,
    status: 200,
    handler: (req: RouteRequest) => bulkEditOverview(req.context, req.query.storeId as string, req.query.sinceDays as number),
  },
  {
    operationId: 'productBulkEdits.get',
    method: 'GET',
    path: '/product-bulk-edits/{id}',
    summary: 'One bulk edit with its per-product results',
    description: `${readers} With one item per selected product (in the order given): its result, error and the previous values of what the edit changed. A RUNNING edit shows its progress in processedCount.`,
    response: ProductBulkEditResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => getBulkEdit(req.context, req.params.id),
  },
  {
    operationId: 'productBulkEdits.revert',
    method: 'POST',
    path: '/product-bulk-edits/{id}/revert',
    summary: 'Restore the values a bulk edit changed',
    description:
      "Any member of the tenant, or an API key of the store with product-bulk-edits:write; another tenant's edit answers 404, an archived store 409 store_archived. Restores, for every product the edit changed (items OK), the previous values it recorded: status and publishedAt, categories, tags, product and variant prices; a hard-deleted product is recreated with its ids, variants, images, categories, tags, relations, collection and bundle links and sponsored listings (links to things deleted since are left out). Refused with 409 bulk_edit_conflict when any of those products changed after the edit (its updated_at is no longer the one the edit left, or it was deleted; for a hard delete: its id, slug or a SKU is taken again); the problem lists them in productIds and errors, and nothing is reverted. Also 409 bulk_edit_running, not_revertible (a revert), already_reverted and nothing_to_revert. The revert is itself a bulk edit (operation revert, the action of the edit it reverts, revertOf) answered like the bulk operations (run within the request up to BULK_SYNC_MAX products, else RUNNING on the jobs worker); the reverted edit gets revertedBy. Audited as product_bulk_edit.revert plus one entry per product.",
    response: ProductBulkEditResponse,
    status: 200,
    problems: [409],
    handler: (req: RouteRequest<Params>) => revertBulkEdit(req.context, req.params.id),
  },
]);
