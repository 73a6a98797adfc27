/** Bulk operations on selected products (document 2, "Catalog: products (merchant)", `bulk/*`). */
import { defineRoutes } from '../http/route';
import { BulkProductTagsDto, BulkSetCategoryDto, BulkSetProductStatusDto, BulkUpdatePriceDto, ProductIdsBodyDto } from './products.schemas';

export const productBulkRoutes = defineRoutes({ tag: 'catalog', auth: 'merchant' }, [
  { operationId: 'products.bulkPublish', method: 'POST', path: '/catalog/products/bulk/publish', summary: 'Publish the selected products', body: ProductIdsBodyDto, status: 200 },
  { operationId: 'products.bulkArchive', method: 'POST', path: '/catalog/products/bulk/archive', summary: 'Archive the selected products', body: ProductIdsBodyDto, status: 200 },
  { operationId: 'products.bulkHardDelete', method: 'POST', path: '/catalog/products/bulk/hard-delete', summary: 'Delete the selected products permanently', body: ProductIdsBodyDto, status: 200 },
  { operationId: 'products.bulkSetCategory', method: 'POST', path: '/catalog/products/bulk/set-category', summary: 'Move the selected products to a category', body: BulkSetCategoryDto, status: 200 },
  { operationId: 'products.bulkSetStatus', method: 'POST', path: '/catalog/products/bulk/set-status', summary: 'Set the status of the selected products', body: BulkSetProductStatusDto, status: 200 },
  { operationId: 'products.bulkUpdatePrice', method: 'POST', path: '/catalog/products/bulk/update-price', summary: 'Change the price of the selected products', body: BulkUpdatePriceDto, status: 200 },
  { operationId: 'products.bulkAddTags', method: 'POST', path: '/catalog/products/bulk/add-tags', summary: 'Add tags to the selected products', body: BulkProductTagsDto, status: 200 },
  { operationId: 'products.bulkRemoveTags', method: 'POST', path: '/catalog/products/bulk/remove-tags', summary: 'Remove tags from the selected products', body: BulkProductTagsDto, status: 200 },
]);
