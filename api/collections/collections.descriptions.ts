/** The long descriptions of the collections route table (collections.routes.ts), kept out of its rows. */

export const readers =
  "Any member of the tenant, or an API key of the store with collections:read. Another tenant's store or collection answers 404.";

export const writers =
  "Any member of the tenant (owner, admin, staff), or an API key of the store with collections:write; an archived store answers 409 store_archived. Another tenant's store or collection answers 404. Each collection changed (its fields, position or products) writes one audit entry and one outbox row (aggregate collection, topic collection.created, collection.updated or collection.deleted); a request that changes nothing writes neither.";

export const LIST_DESCRIPTION = `${readers} Every collection, active or not, in the store's manual order (position, then name), with its product count; not paged.`;

export const CREATE_DESCRIPTION = `${writers} The new collection comes last in the store's order and has no products. A slug already used by a collection of the store (case-insensitively) answers 409 slug_taken; without a slug one is derived from the name.`;

export const exportDescription = (COLLECTIONS_CSV_COLUMNS: string): string =>
  `${readers} A download (Content-Disposition: attachment; filename="collections-<storeId>.csv"), UTF-8 with a header row, in the layout the import reads: ${COLLECTIONS_CSV_COLUMNS}. productSlugs lists the slugs of the collection's products in order, separated by spaces. Cells a spreadsheet would read as a formula get a leading apostrophe.`;

export const BULK_SET_ACTIVE_DESCRIPTION = `${writers} Sets isActive on up to 500 collections of the store in one transaction and counts the collections changed and those that already had the status. Ids that are not collections of the store (unknown, or of another store or tenant) are listed in notFound and nothing else is said about them.`;

export const importDescription = (COLLECTIONS_CSV_COLUMNS: string, COLLECTION_IMPORT_MAX_ROWS: number): string =>
  `${writers} The CSV (UTF-8, header row) has the export's columns: ${COLLECTIONS_CSV_COLUMNS}. slug and name are required in every row; isActive is true or false (default true); position a whole number from 0 (empty: kept for an existing collection, after the last for a new one); description (at most 5000 characters) and imageUrl (an http or https URL) may be empty; productSlugs names products of the store by slug, separated by spaces, each once (empty: no products). Every row is validated first: when any row is bad (two rows share a slug, or a product slug is not a product of the store) the answer is 400 listing each as rows[N].column (N counts data rows from 1) and nothing is written. Otherwise all rows are written in one transaction: a row whose slug (case-insensitively) is a collection of the store replaces that collection's fields and products, empty cells clearing the optional ones; any other row creates a collection. At most ${COLLECTION_IMPORT_MAX_ROWS} rows (413 above) and a request body of at most BODY_LIMIT_JSON (1 MB by default, 413 above).`;

export const GET_DESCRIPTION = `${readers} The collection with its products in order (all of them, whatever their status).`;

export const UPDATE_DESCRIPTION = `${writers} Changes only the fields given (null clears description or imageUrl); a slug taken by another collection of the store answers 409 slug_taken.`;

export const DELETE_DESCRIPTION = `${writers} Deletes the collection and its item list; the products themselves stay.`;

export const REORDER_DESCRIPTION = `${writers} ids must be exactly the collections of the store, each once, in the new order (else 400 reorder_mismatch); they get positions 0, 1, 2, … and each collection whose position changes counts as changed.`;

export const ADD_ITEMS_DESCRIPTION = `${writers} The products must be products of the collection's store (else 400 invalid_product listing each as body.productIds[N], and nothing is added). They are added in the order given, at position (0-based; omitted or past the end: at the end), the later items moving down; products already in the collection stay where they are and are listed in skipped.`;

export const REMOVE_ITEMS_DESCRIPTION = `The products to remove are named in the request body (position is ignored). ${writers} Products that are not in the collection are listed in notFound; the remaining items close up.`;
