/** Brands of a store (document 2, "Brands, bundles, synonyms, visual search"). */
import { defineRoutes } from '../http/route';
import { storeId } from '../http/schema-types';
import { CsvImportBodyDto } from '../categories/categories.schemas';
import { BrandsCsv, BulkSetBrandStatusDto, CreateBrandDto, UpdateBrandDto } from './brands.schemas';

export const brandRoutes = defineRoutes({ tag: 'brands', auth: 'merchant' }, [
  { operationId: 'brands.list', method: 'GET', path: '/catalog/brands', summary: 'Brands of a store', query: { storeId: storeId() }, status: 200 },
  { operationId: 'brands.create', method: 'POST', path: '/catalog/brands', summary: 'Create a brand', body: CreateBrandDto, status: 201 },
  {
    operationId: 'brands.export',
    method: 'GET',
    path: '/catalog/brands/export',
    summary: 'Export the brands of a store as CSV',
    query: { storeId: storeId() },
    response: BrandsCsv,
    status: 200,
  },
  { operationId: 'brands.update', method: 'PATCH', path: '/catalog/brands/{id}', summary: 'Update a brand', body: UpdateBrandDto, status: 200 },
  { operationId: 'brands.delete', method: 'DELETE', path: '/catalog/brands/{id}', summary: 'Delete a brand', status: 204 },
  { operationId: 'brands.bulkSetActive', method: 'POST', path: '/catalog/brands/bulk/set-active', summary: 'Activate or deactivate several brands', body: BulkSetBrandStatusDto, status: 200 },
  { operationId: 'brands.import', method: 'POST', path: '/catalog/brands/import', summary: 'Import brands from CSV', body: CsvImportBodyDto, status: 200 },
]);
