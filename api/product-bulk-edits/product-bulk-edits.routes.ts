/** Product bulk edits: history, overview and revert (document 2, "Product bulk edits"). */
import { defineRoutes } from '../http/route';
import { int, oneOf, positiveInt, storeId, uuid } from '../http/schema-types';
import { BULK_EDIT_ACTIONS, BULK_EDIT_STATUSES } from './product-bulk-edits.schemas';

export const productBulkEditRoutes = defineRoutes({ tag: 'product-bulk-edits', auth: 'merchant' }, [
  {
    operationId: 'productBulkEdits.list',
    method: 'GET',
    path: '/product-bulk-edits',
    summary: 'Bulk edits of a store, newest first',
    query: {
      storeId: storeId(),
      action: oneOf(BULK_EDIT_ACTIONS),
      status: oneOf(BULK_EDIT_STATUSES),
      cursor: uuid(),
      limit: positiveInt(100).default(50),
    },
    status: 200,
  },
  {
    operationId: 'productBulkEdits.storeOverview',
    method: 'GET',
    path: '/product-bulk-edits/store-overview',
    summary: 'Counts of bulk edits per action and status over the last days',
    query: { storeId: storeId(), sinceDays: int(1, 365).default(30) },
    status: 200,
  },
  { operationId: 'productBulkEdits.get', method: 'GET', path: '/product-bulk-edits/{id}', summary: 'One bulk edit with its per-product results', status: 200 },
  { operationId: 'productBulkEdits.revert', method: 'POST', path: '/product-bulk-edits/{id}/revert', summary: 'Restore the values a bulk edit changed', status: 200 },
]);
