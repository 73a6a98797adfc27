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

type Params = Record<string, string>;

/** The operations of this table that the specification does not list (extensions; their descriptions say so). */
export const importExtensionOperationIds = ['imports.getJob', 'imports.downloadExport'] as const;

const writers =
  "Any member of the tenant (owner, admin, staff), or an API key of the store with import:write; another tenant's store answers 404 and an archived one 409 store_archived. storeId is optional: a store API key, the sandbox token or a simulated token acts on its own store (a storeId naming another store answers 404 store_not_found); a member acts on the store named, else on the tenant's default store (the store with isDefault), and gets 400 when the tenant has none.";
const productWrites =
  'Products are upserted by handle through the product operations: a new handle creates a product, a known one replaces it (one audit entry product.create or product.update and one outbox row, queue index, per changed product; a product whose rows match what is stored writes nothing). Valid products are committed in batches (IMPORT_BATCH_PRODUCTS per transaction); a product with a bad row is skipped and reported with its row numbers and columns, never costing the good ones.';
const readers = "Any member of the tenant, or an API key of the job's store with import:read. Another tenant's job answers 404.";

/** The store an import or export acts on: the one named, a store-bound credential's own, or the tenant's default store. */
const storeOf = (req: Pick<RouteRequest, 'context' | 'query'>): Promise<string> =>
  resolveStoreId(req.context, (req.query as { storeId?: string }).storeId, 'query');

export const importRoutes = defineRoutes({ tag: 'import', auth: 'merchant' }, [
  {
    operationId: 'imports.importProducts',
    method: 'POST',
    path: '/bulk-import/products',
    summary: 'Import CSV rows of products and variants',
    description: `Success status not stated: 200 with the import summary (the import runs within the request). ${writers} ${productWrites} A CSV of 10000 data rows or more (IMPORT_ASYNC_MIN_ROWS) is refused with 413 use_async_import before anything is written: use the asynchronous operation. A malformed CSV (unclosed quote, a row with another number of cells) or a header with unknown or missing columns answers 400. Body size limit: BODY_LIMIT_CSV (413).`,
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
    description: `Success status not stated: 202 Accepted with the job (its id is the job number) whose progress GET /bulk-import/jobs/{id} reports. ${writers} The CSV is stored durably with the job before the answer; the header is checked at once (400), the rows by the jobs worker. ${productWrites} A crashed worker resumes after the last committed batch without duplicating products. Any number of rows is accepted.`,
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
    description: `Success status not stated: 202 Accepted with the job (its id is the job number). ${writers} The jobs worker writes every product of the store (any status) in the import layout, one row per variant; when the job is COMPLETED its progress shows a download link that expires EXPORT_LINK_TTL_SECONDS (default 24 hours) after the export finished and works only with a token of the same tenant. Importing the file into the same store changes nothing.`,
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
    description: `Extension: the progress of an asynchronous import or an export, which the specification says can be queried without listing an operation for it. ${readers} state QUEUED → RUNNING → COMPLETED or FAILED; rows and products count what is committed so far; errors lists row errors (row number, column, message).`,
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
    description: `Extension: the download link of an export, available when the export job completes. ${readers} The link's expires and signature come from the job's progress; a changed link answers 403 invalid_download_link, an expired one 410 download_expired. The CSV is streamed as an attachment.`,
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
    description: `Success status not stated: 200 with the import summary. ${writers} Customers belong to a store; each row is upserted by e-mail. Bad rows are reported (row number, column, message) and skipped; the good ones are written in batches of 500, each one transaction, with one audit entry per created or changed customer (customer.create, customer.update). At most CUSTOMER_IMPORT_MAX_ROWS (10000) data rows (413 beyond).`,
    query: { storeId: inferredStoreId() },
    body: CustomerImportCsv,
    response: CustomerImportResult,
    status: 200,
    handler: async (req: RouteRequest<Params>) => importCustomers(req.context, await storeOf(req), req.body ?? ''),
  },
]);
