/** Product collections of a store (document 2, "Collections and content"). */
import { defineRoutes } from '../http/route';
import { storeId } from '../http/schema-types';
import { CsvImportBodyDto } from '../categories/categories.schemas';
import { BulkSetCollectionStatusDto, CollectionItemsDto, CollectionsCsv, CreateCollectionDto, IdsBodyDto, UpdateCollectionDto } from './collections.schemas';

export const collectionRoutes = defineRoutes({ tag: 'collections', auth: 'merchant' }, [
  { operationId: 'collections.list', method: 'GET', path: '/catalog/collections', summary: 'Collections of a store', query: { storeId: storeId() }, status: 200 },
  { operationId: 'collections.create', method: 'POST', path: '/catalog/collections', summary: 'Create a collection', body: CreateCollectionDto, status: 201 },
  {
    operationId: 'collections.export',
    method: 'GET',
    path: '/catalog/collections/export',
    summary: 'Export the collections of a store as CSV',
    query: { storeId: storeId() },
    response: CollectionsCsv,
    status: 200,
  },
  {
    operationId: 'collections.bulkSetActive',
    method: 'POST',
    path: '/catalog/collections/bulk/set-active',
    summary: 'Activate or deactivate several collections',
    body: BulkSetCollectionStatusDto,
    status: 200,
  },
  { operationId: 'collections.import', method: 'POST', path: '/catalog/collections/import', summary: 'Import collections from CSV', body: CsvImportBodyDto, status: 200 },
  { operationId: 'collections.get', method: 'GET', path: '/catalog/collections/{id}', summary: 'One collection with its products', status: 200 },
  { operationId: 'collections.update', method: 'PATCH', path: '/catalog/collections/{id}', summary: 'Update a collection', body: UpdateCollectionDto, status: 200 },
  { operationId: 'collections.delete', method: 'DELETE', path: '/catalog/collections/{id}', summary: 'Delete a collection', status: 204 },
  { operationId: 'collections.reorder', method: 'POST', path: '/catalog/collections/reorder', summary: 'Set the order of collections', body: IdsBodyDto, status: 204 },
  { operationId: 'collections.addItems', method: 'POST', path: '/catalog/collections/{id}/items', summary: 'Add products to a collection', body: CollectionItemsDto, status: 201 },
  {
    operationId: 'collections.removeItems',
    method: 'DELETE',
    path: '/catalog/collections/{id}/items',
    summary: 'Remove products from a collection',
    description: 'The products to remove are named in the request body.',
    body: CollectionItemsDto,
    status: 200,
  },
]);
