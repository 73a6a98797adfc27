/** Catalog and customer migration (document 2, "Sandbox and import"; document 1 rule 5 of migration). */
import { defineRoutes } from '../http/route';
import { CustomerImportCsv, ProductImportCsv } from './imports.schemas';

export const importRoutes = defineRoutes({ tag: 'import', auth: 'merchant' }, [
  {
    operationId: 'imports.importProducts',
    method: 'POST',
    path: '/bulk-import/products',
    summary: 'Import CSV rows of products and variants',
    description: 'Success status not stated: 200 with the import summary (the import runs within the request).',
    body: ProductImportCsv,
    status: 200,
  },
  {
    operationId: 'imports.importProductsAsync',
    method: 'POST',
    path: '/bulk-import/products/async',
    summary: 'Import a large catalog (10 thousand rows or more) in the background; returns a job number',
    description: 'Success status not stated: 202 Accepted with the job number whose progress is queried.',
    body: ProductImportCsv,
    status: 202,
  },
  {
    operationId: 'imports.exportProducts',
    method: 'POST',
    path: '/bulk-import/products/export',
    summary: 'Export the catalog; a download link becomes available when the job completes',
    description: 'Success status not stated: 202 Accepted with the job number.',
    status: 202,
  },
  {
    operationId: 'imports.importCustomers',
    method: 'POST',
    path: '/customers/import',
    summary: 'Import customers from CSV',
    description: 'Success status not stated: 200 with the import summary.',
    body: CustomerImportCsv,
    status: 200,
  },
]);
