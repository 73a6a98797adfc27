/** Brands of a store (docs/catalog.md, "The catalog (merchant side)"). */
import { csvDownload } from '../http/csv';
import { defineRoutes, type RouteRequest } from '../http/route';
import { storeId } from '../http/schema-types';
import { CsvImportBodyDto } from '../categories/categories.schemas';
import {
  BRANDS_CSV_COLUMNS,
  BrandImportResponse,
  BrandListResponse,
  BrandResponse,
  BrandsCsv,
  BulkSetBrandStatusDto,
  BulkSetBrandStatusResponse,
  CreateBrandDto,
  UpdateBrandDto,
} from './brands.schemas';
import {
  BRAND_IMPORT_MAX_ROWS,
  bulkSetBrandStatus,
  createBrand,
  deleteBrand,
  exportBrands,
  importBrands,
  listBrands,
  updateBrand,
  type BulkSetBrandStatusInput,
  type CreateBrandInput,
  type UpdateBrandInput,
} from './brands.service';

type Params = Record<string, string>;

const readers = "Any member of the tenant, or an API key of the store with brands:read. Another tenant's store answers 404.";
const writers =
  "Any member of the tenant (owner, admin, staff), or an API key of the store with brands:write; an archived store answers 409 store_archived. Another tenant's store or brand answers 404. Each brand changed writes one audit entry and one outbox row (topic brand.created, brand.updated or brand.deleted); a request that changes nothing writes neither.";

export const brandRoutes = defineRoutes({ tag: 'brands', auth: 'merchant' }, [
  {
    operationId: 'brands.list',
    method: 'GET',
    path: '/catalog/brands',
    summary: 'Brands of a store',
    description: `${readers} Every brand, active or not, ordered by name; not paged.`,
    query: { storeId: storeId() },
    response: BrandListResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params>) => listBrands(req.context, req.query.storeId),
  },
  {
    operationId: 'brands.create',
    method: 'POST',
    path: '/catalog/brands',
    summary: 'Create a brand',
    description: `${writers} A slug already used by a brand of the store (case-insensitively) answers 409 slug_taken; without a slug one is derived from the name.`,
    body: CreateBrandDto,
    response: BrandResponse,
    status: 201,
    problems: [409],
    handler: (req: RouteRequest<Params, Params, CreateBrandInput>) => createBrand(req.context, req.body),
  },
  {
    operationId: 'brands.export',
    method: 'GET',
    path: '/catalog/brands/export',
    summary: 'Export the brands of a store as CSV',
    description: `${readers} A download (Content-Disposition: attachment; filename="brands-<storeId>.csv"), UTF-8 with a header row, in the layout the import reads: ${BRANDS_CSV_COLUMNS}. Cells a spreadsheet would read as a formula get a leading apostrophe.`,
    query: { storeId: storeId() },
    response: BrandsCsv,
    status: 200,
    handler: csvDownload((ctx, query: Params) => exportBrands(ctx, query.storeId!)),
  },
  {
    operationId: 'brands.update',
    method: 'PATCH',
    path: '/catalog/brands/{id}',
    summary: 'Update a brand',
    description: `${writers} Changes only the fields given (null clears description, logoUrl or websiteUrl); a slug taken by another brand of the store answers 409 slug_taken.`,
    body: UpdateBrandDto,
    response: BrandResponse,
    status: 200,
    problems: [409],
    handler: (req: RouteRequest<Params, Params, UpdateBrandInput>) => updateBrand(req.context, req.params.id, req.body),
  },
  {
    operationId: 'brands.delete',
    method: 'DELETE',
    path: '/catalog/brands/{id}',
    summary: 'Delete a brand',
    description: `${writers} Deleting a brand detaches it from its products (their brand becomes none); the products themselves stay.`,
    status: 204,
    handler: (req: RouteRequest<Params>) => deleteBrand(req.context, req.params.id),
  },
  {
    operationId: 'brands.bulkSetActive',
    method: 'POST',
    path: '/catalog/brands/bulk/set-active',
    summary: 'Activate or deactivate several brands',
    description: `${writers} Sets isActive on up to 500 brands of the store in one transaction and counts the brands changed and those that already had the status. Ids that are not brands of the store (unknown, or of another store or tenant) are listed in notFound and nothing else is said about them.`,
    body: BulkSetBrandStatusDto,
    response: BulkSetBrandStatusResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, BulkSetBrandStatusInput>) => bulkSetBrandStatus(req.context, req.body),
  },
  {
    operationId: 'brands.import',
    method: 'POST',
    path: '/catalog/brands/import',
    summary: 'Import brands from CSV',
    description: `${writers} The CSV (UTF-8, header row) has the export's columns: ${BRANDS_CSV_COLUMNS}. slug and name are required in every row; isActive is true or false (default true); description (at most 5000 characters), logoUrl and websiteUrl (http or https URLs) may be empty. Every row is validated first: when any row is bad (or two rows share a slug) the answer is 400 listing each as rows[N].column (N counts data rows from 1) and nothing is written. Otherwise all rows are written in one transaction: a row whose slug (case-insensitively) is a brand of the store replaces that brand's fields, empty cells clearing the optional ones; any other row creates a brand. At most ${BRAND_IMPORT_MAX_ROWS} rows (413 above) and a request body of at most BODY_LIMIT_JSON (1 MB by default, 413 above).`,
    body: CsvImportBodyDto,
    response: BrandImportResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, { storeId: string; csv: string }>) => importBrands(req.context, req.body),
  },
]);
