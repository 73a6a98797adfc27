/**
 * Catalog and customer migration: product CSV import (synchronous and asynchronous) and export, and
 * the customer import (docs/catalog.md, "Import and export"). The progress and download operations
 * are extensions: the specification says the progress of a job is queried and an export gives a
 * download link, but lists no operation for either (docs/decisions.md, Extensions).
 */
import Joi from 'joi';
import type { StreamedBody } from '../http/body';
import { defineRoutes, type RouteRequest } from '../http/route';
import { inferredStoreId, uuid } from '../http/schema-types';
import { resolveStoreId } from '../../domain/store-access';
import { importCustomers } from '../customers/customers.service';
import {
  CustomerImportCsv,
  CustomerImportResult,
  ProductExportCsv,
  ProductImportCsv,
  ProductImportResult,
  TransferJobProgress,
} from './imports.schemas';
import { importProductsSync } from './product-import.service';
import { downloadExport, getTransferJob, startProductExport, startProductImport } from './transfer-jobs.service';
import {
  DOWNLOAD_EXPORT_DESCRIPTION,
  EXPORT_PRODUCTS_DESCRIPTION,
  GET_JOB_DESCRIPTION,
  IMPORT_CUSTOMERS_DESCRIPTION,
  IMPORT_PRODUCTS_ASYNC_DESCRIPTION,
  IMPORT_PRODUCTS_DESCRIPTION,
} from './imports.descriptions';

type Params = Record<string, string>;

/** The operations of this table that the specification does not list (extensions; their descriptions say so). */
export const importExtensionOperationIds = ['imports.getJob', 'imports.downloadExport'] as const;

/** The store an import or export acts on: the one named, a store-bound credential's own, or the tenant's default store. */
const storeOf = (req: Pick<RouteRequest, 'context' | 'query'>): Promise<string> =>
  resolveStoreId(req.context, (req.query as { storeId?: string }).storeId, 'query');

export const importRoutes = defineRoutes({ tag: 'import', auth: 'merchant' }, [
  {
    operationId: 'imports.importProducts',
    method: 'POST',
    path: '/bulk-import/products',
    summary: 'Import CSV rows of products and variants',
    description: IMPORT_PRODUCTS_DESCRIPTION,
    query: { storeId: inferredStoreId() },
    body: ProductImportCsv,
    response: ProductImportResult,
    status: 200,
    handler: async (req: RouteRequest<Params>) => importProductsSync(req.context, await storeOf(req), req.body ?? ''),
  },
  {
    operationId: 'imports.importProductsAsync',
    method: 'POST',
    path: '/bulk-import/products/async',
    summary: 'Import a large catalog (10 thousand rows or more) in the background; returns a job number',
    description: IMPORT_PRODUCTS_ASYNC_DESCRIPTION,
    query: { storeId: inferredStoreId() },
    body: ProductImportCsv,
    // Any size: the upload is stored chunk by chunk as it arrives, never held whole.
    streamBody: true,
    response: TransferJobProgress,
    status: 202,
    handler: async (req: RouteRequest<Params, Record<string, unknown>, StreamedBody>) =>
      startProductImport(req.context, await storeOf(req), req.body),
  },
  {
    operationId: 'imports.exportProducts',
    method: 'POST',
    path: '/bulk-import/products/export',
    summary: 'Export the catalog; a download link becomes available when the job completes',
    description: EXPORT_PRODUCTS_DESCRIPTION,
    query: { storeId: inferredStoreId() },
    response: TransferJobProgress,
    status: 202,
    handler: async (req: RouteRequest<Params>) => startProductExport(req.context, await storeOf(req)),
  },
  {
    operationId: 'imports.getJob',
    method: 'GET',
    path: '/bulk-import/jobs/{id}',
    summary: 'Progress of a product import or export job (extension)',
    description: GET_JOB_DESCRIPTION,
    params: { id: uuid().required() },
    response: TransferJobProgress,
    status: 200,
    handler: (req: RouteRequest<Params>) => getTransferJob(req.context, req.params.id!),
  },
  {
    operationId: 'imports.downloadExport',
    method: 'GET',
    path: '/bulk-import/jobs/{id}/download',
    summary: 'Download the CSV of a completed export (extension)',
    description: DOWNLOAD_EXPORT_DESCRIPTION,
    params: { id: uuid().required() },
    query: {
      expires: Joi.number().integer().min(0).max(99_999_999_999).required().description('Unix time (seconds) when the link stops working.'),
      signature: Joi.string()
        .pattern(/^[A-Za-z0-9_-]{43}$/)
        .required()
        .description('The link signature.'),
    },
    response: ProductExportCsv,
    status: 200,
    handler: async (req: RouteRequest<Params>) => {
      const query = req.query as { expires: number; signature: string };
      const { body, disposition } = await downloadExport(req.context, req.params.id!, query.expires, query.signature);
      req.koa.set('Content-Disposition', disposition);
      return body;
    },
  },
  {
    operationId: 'imports.importCustomers',
    method: 'POST',
    path: '/customers/import',
    summary: 'Import customers from CSV',
    description: IMPORT_CUSTOMERS_DESCRIPTION,
    query: { storeId: inferredStoreId() },
    body: CustomerImportCsv,
    response: CustomerImportResult,
    status: 200,
    handler: async (req: RouteRequest<Params>) => importCustomers(req.context, await storeOf(req), req.body ?? ''),
  },
]);
