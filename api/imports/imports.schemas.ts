/** Bodies and answers of the import and export operations (docs/catalog.md, "Import and export"). */
import Joi from 'joi';
import { csvDocument, dto } from '../http/route';
import { CUSTOMER_COLUMNS } from '../customers/customers.service';
import { LAYOUT_COLUMNS } from './product-layout';

export const PRODUCT_LAYOUT_DESCRIPTION =
  `UTF-8 CSV with a header row; columns (any order, unknown ones refused): ${LAYOUT_COLUMNS.join(', ')}. ` +
  'One row per variant; the rows of a product share its handle (the product slug, lowercase letters, digits and hyphens) and must be contiguous. ' +
  'Product columns are read from the first row of a handle; later rows leave them empty or repeat them. Required: handle, title and price (first row). ' +
  'description: HTML (sanitised like the product operations); type: PHYSICAL (default), DIGITAL, BUNDLE, GIFT_CARD, SUBSCRIPTION or SERVICE; status: DRAFT, PUBLISHED or ARCHIVED (empty: DRAFT for a new product, kept for an existing one); ' +
  "price, compareAtPrice, variantPrice, variantCompareAtPrice: decimals with at most 4 places; currency: ISO 4217 (empty: the store's); vendor: the vendor name; " +
  'brand: a brand of the store by slug or name; categories: category slugs of the store separated by | (the first is the main one); tags: product tags of the store by slug or name, separated by |; ' +
  'attributes and translations: JSON objects as the product operations take them; images: image URLs separated by |; imageAlts: a JSON array of alt texts (or null) in image order. ' +
  'Variant columns: sku (unique in the store), barcode, option1Name/option1Value … option3Name/option3Value, variantPrice (empty: the product price), variantCompareAtPrice, stock (whole number, empty: 0). A product whose rows have no variant columns has no variants. ' +
  'A column missing from the header keeps the stored value of an existing product (variants included when no variant column is present); a column present with an empty cell clears it. ' +
  'Stored variants keep their ids when a row has the same SKU (or, without SKU, the same options). Cells beginning with an apostrophe followed by = + - @ are read without the apostrophe (the export neutralises formulas that way).';

export const ProductImportCsv = csvDocument('ProductImportCsv', PRODUCT_LAYOUT_DESCRIPTION);

export const CustomerImportCsv = csvDocument(
  'CustomerImportCsv',
  `UTF-8 CSV with a header row; columns (any order, unknown ones refused): ${CUSTOMER_COLUMNS.join(', ')}. One row per customer, upserted by e-mail (unique per store, case-insensitively); an e-mail appearing twice is an error on the later row. ` +
    'email is required; name at most 200 characters; phone: digits, spaces, parentheses and hyphens with an optional leading +; tags: separated by | (at most 50, each at most 100 characters); acceptsMarketing: true/false (also yes/no, 1/0); ' +
    'marketingConsentAt: ISO 8601 time of the consent (only with acceptsMarketing true; default: kept when already consenting, else the import time); address columns (addressLine1 required when any is filled; country an ISO 3166-1 alpha-2 code) give the default address, placed first in the list (an identical stored address is not repeated). ' +
    'A column missing from the header keeps the stored value of an existing customer; a column present with an empty cell clears it (acceptsMarketing: false).',
);

const rowError = Joi.object({
  row: Joi.number().integer().min(1).required().description('Data row number (the header is not counted; the first data row is 1).'),
  column: Joi.string().allow(null).required().description('The CSV column, or null when the problem is the row as a whole.'),
  message: Joi.string().required(),
}).label('ImportRowError');

const rowCounts = Joi.object({ read: Joi.number().integer().required(), failed: Joi.number().integer().required() }).required();

const recordCounts = Joi.object({
  created: Joi.number().integer().required(),
  updated: Joi.number().integer().required(),
  unchanged: Joi.number().integer().required(),
  failed: Joi.number().integer().required(),
}).required();

/** What a synchronous import answers: rows read and failed, what became of each record (`products`, `customers`), the row errors. */
const importResult = (name: string, records: 'products' | 'customers') =>
  dto(
    name,
    Joi.object({
      rows: rowCounts,
      [records]: recordCounts,
      errors: Joi.array().items(rowError).max(1000).required().description('Row errors in row order (at most 1000).'),
      errorsTruncated: Joi.boolean().required(),
    }),
  );

export const ProductImportResult = importResult('ProductImportResult', 'products');

export const CustomerImportResult = importResult('CustomerImportResult', 'customers');

export const TransferJobProgress = dto(
  'TransferJobProgress',
  Joi.object({
    id: Joi.string().uuid().required().description('The job number.'),
    storeId: Joi.string().uuid().required(),
    kind: Joi.string().valid('PRODUCT_IMPORT', 'PRODUCT_EXPORT').required(),
    state: Joi.string().valid('QUEUED', 'RUNNING', 'COMPLETED', 'FAILED').required(),
    fileBytes: Joi.number().integer().required().description('Size of the uploaded (import) or written (export) CSV.'),
    rows: rowCounts.description('Import: data rows committed so far and rows of products that failed. Export: rows written.'),
    products: recordCounts.keys({ exported: Joi.number().integer().required() }),
    errors: Joi.array().items(rowError).max(1000).required().description('The first 1000 row errors, in row order.'),
    errorsTotal: Joi.number().integer().required(),
    failure: Joi.string()
      .allow(null)
      .required()
      .description('Why a FAILED job stopped (e.g. the CSV is malformed from some row on; the rows before it stay imported).'),
    download: Joi.object({ url: Joi.string().required(), expiresAt: Joi.string().isoDate().required() })
      .allow(null)
      .required()
      .description(
        'A completed export: the download link (a path under this API; it also needs a token of the same tenant) and when it stops working.',
      ),
    downloadExpired: Joi.boolean().required(),
    createdAt: Joi.string().isoDate().required(),
    startedAt: Joi.string().isoDate().allow(null).required(),
    finishedAt: Joi.string().isoDate().allow(null).required(),
  }),
);

export const ProductExportCsv = csvDocument(
  'ProductExportCsv',
  `The catalog in the import layout (${LAYOUT_COLUMNS.join(', ')}); re-importing it into the same store changes nothing.`,
);
