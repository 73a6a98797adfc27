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
import { GET_DESCRIPTION, LIST_DESCRIPTION, REVERT_DESCRIPTION, STORE_OVERVIEW_DESCRIPTION } from './product-bulk-edits.descriptions';

type Params = Record<string, string>;

export const productBulkEditRoutes = defineRoutes({ tag: 'product-bulk-edits', auth: 'merchant' }, [
  {
    operationId: 'productBulkEdits.list',
    method: 'GET',
    path: '/product-bulk-edits',
    summary: 'Bulk edits of a store, newest first',
    description: LIST_DESCRIPTION,
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
    description: STORE_OVERVIEW_DESCRIPTION,
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
    description: GET_DESCRIPTION,
    response: ProductBulkEditResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => getBulkEdit(req.context, req.params.id),
  },
  {
    operationId: 'productBulkEdits.revert',
    method: 'POST',
    path: '/product-bulk-edits/{id}/revert',
    summary: 'Restore the values a bulk edit changed',
    description: REVERT_DESCRIPTION,
    response: ProductBulkEditResponse,
    status: 200,
    problems: [409],
    handler: (req: RouteRequest<Params>) => revertBulkEdit(req.context, req.params.id),
  },
]);
