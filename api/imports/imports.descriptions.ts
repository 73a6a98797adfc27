/** The long descriptions of the imports route table (imports.routes.ts), kept out of its rows. */

export const writers =
  "Any member of the tenant (owner, admin, staff), or an API key of the store with import:write; another tenant's store answers 404 and an archived one 409 store_archived. storeId is optional: a store API key, the sandbox token or a simulated token acts on its own store (a storeId naming another store answers 404 store_not_found); a member acts on the store named, else on the tenant's default store (the store with isDefault), and gets 400 when the tenant has none.";

export const productWrites =
  'Products are upserted by handle through the product operations: a new handle creates a product, a known one replaces it (one audit entry product.create or product.update and one outbox row, queue index, per changed product; a product whose rows match what is stored writes nothing). Valid products are committed in batches (IMPORT_BATCH_PRODUCTS per transaction); a product with a bad row is skipped and reported with its row numbers and columns, never costing the good ones.';

export const readers = "Any member of the tenant, or an API key of the job's store with import:read. Another tenant's job answers 404.";

export const IMPORT_PRODUCTS_DESCRIPTION = `Success status not stated: 200 with the import summary (the import runs within the request). ${writers} ${productWrites} A CSV of 10000 data rows or more (IMPORT_ASYNC_MIN_ROWS) is refused with 413 use_async_import before anything is written: use the asynchronous operation. A malformed CSV (unclosed quote, a row with another number of cells) or a header with unknown or missing columns answers 400. Body size limit: BODY_LIMIT_CSV (413).`;

export const IMPORT_PRODUCTS_ASYNC_DESCRIPTION = `Success status not stated: 202 Accepted with the job (its id is the job number) whose progress GET /bulk-import/jobs/{id} reports. ${writers} The CSV is stored durably with the job before the answer; the header is checked at once (400), the rows by the jobs worker. ${productWrites} A crashed worker resumes after the last committed batch without duplicating products. Any number of rows is accepted.`;

export const EXPORT_PRODUCTS_DESCRIPTION = `Success status not stated: 202 Accepted with the job (its id is the job number). ${writers} The jobs worker writes every product of the store (any status) in the import layout, one row per variant; when the job is COMPLETED its progress shows a download link that expires EXPORT_LINK_TTL_SECONDS (default 24 hours) after the export finished and works only with a token of the same tenant. Importing the file into the same store changes nothing.`;

export const GET_JOB_DESCRIPTION = `Extension: the progress of an asynchronous import or an export, which the specification says can be queried without listing an operation for it. ${readers} state QUEUED → RUNNING → COMPLETED or FAILED; rows and products count what is committed so far; errors lists row errors (row number, column, message).`;

export const DOWNLOAD_EXPORT_DESCRIPTION = `Extension: the download link of an export, available when the export job completes. ${readers} The link's expires and signature come from the job's progress; a changed link answers 403 invalid_download_link, an expired one 410 download_expired. The CSV is streamed as an attachment.`;

export const IMPORT_CUSTOMERS_DESCRIPTION = `Success status not stated: 200 with the import summary. ${writers} Customers belong to a store; each row is upserted by e-mail. Bad rows are reported (row number, column, message) and skipped; the good ones are written in batches of 500, each one transaction, with one audit entry per created or changed customer (customer.create, customer.update). At most CUSTOMER_IMPORT_MAX_ROWS (10000) data rows (413 beyond).`;
