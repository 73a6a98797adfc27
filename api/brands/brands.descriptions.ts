/** The long descriptions of the brands route table (brands.routes.ts), kept out of its rows. */

export const readers = "Any member of the tenant, or an API key of the store with brands:read. Another tenant's store answers 404.";

export const writers =
  "Any member of the tenant (owner, admin, staff), or an API key of the store with brands:write; an archived store answers 409 store_archived. Another tenant's store or brand answers 404. Each brand changed writes one audit entry and one outbox row (topic brand.created, brand.updated or brand.deleted); a request that changes nothing writes neither.";

export const CREATE_DESCRIPTION = `${writers} A slug already used by a brand of the store (case-insensitively) answers 409 slug_taken; without a slug one is derived from the name.`;

export const exportDescription = (BRANDS_CSV_COLUMNS: string): string =>
  `${readers} A download (Content-Disposition: attachment; filename="brands-<storeId>.csv"), UTF-8 with a header row, in the layout the import reads: ${BRANDS_CSV_COLUMNS}. Cells a spreadsheet would read as a formula get a leading apostrophe.`;

export const UPDATE_DESCRIPTION = `${writers} Changes only the fields given (null clears description, logoUrl or websiteUrl); a slug taken by another brand of the store answers 409 slug_taken.`;

export const DELETE_DESCRIPTION = `${writers} Deleting a brand detaches it from its products (their brand becomes none); the products themselves stay.`;

export const BULK_SET_ACTIVE_DESCRIPTION = `${writers} Sets isActive on up to 500 brands of the store in one transaction and counts the brands changed and those that already had the status. Ids that are not brands of the store (unknown, or of another store or tenant) are listed in notFound and nothing else is said about them.`;

export const importDescription = (BRANDS_CSV_COLUMNS: string, BRAND_IMPORT_MAX_ROWS: number): string =>
  `${writers} The CSV (UTF-8, header row) has the export's columns: ${BRANDS_CSV_COLUMNS}. slug and name are required in every row; isActive is true or false (default true); description (at most 5000 characters), logoUrl and websiteUrl (http or https URLs) may be empty. Every row is validated first: when any row is bad (or two rows share a slug) the answer is 400 listing each as rows[N].column (N counts data rows from 1) and nothing is written. Otherwise all rows are written in one transaction: a row whose slug (case-insensitively) is a brand of the store replaces that brand's fields, empty cells clearing the optional ones; any other row creates a brand. At most ${BRAND_IMPORT_MAX_ROWS} rows (413 above) and a request body of at most BODY_LIMIT_JSON (1 MB by default, 413 above).`;
