/** The long descriptions of the products route table (products.routes.ts), kept out of its rows. */

export const readers =
  "Any member of the tenant, or an API key of the store with catalog:read. Another tenant's store or product answers 404.";

export const writers =
  "Any member of the tenant (owner, admin, staff), or an API key of the store with catalog:write; an archived store answers 409 store_archived. Another tenant's store or product answers 404. Each change writes one audit entry and one outbox row (queue index, aggregate product); a request that changes nothing writes neither.";

export const untyped =
  'Filters: status, type, brandId, categoryId (products directly in that category), ids, priceMin/priceMax (product price, inclusive; priceMin above priceMax is 400 invalid_range), createdFrom/createdTo (inclusive; from after to is 400 invalid_range), hasBarcode (some variant has a barcode), search (case-insensitive substring of the title, slug or a variant SKU; % and _ are literal). All statuses unless status is given. sortBy name sorts by the title case-insensitively, stock by the sum of variant stock; ties break on id. The specification does not type these parameters: page is 1 to 1000 (default 1), limit 1 to 100 (default 50), status one of DRAFT, PUBLISHED, ARCHIVED, search 1 to 200 characters, ids are UUIDs, type the product type enum, priceMin and priceMax 0 to 1000000000, createdFrom and createdTo ISO 8601 timestamps, hasBarcode true or false, sortBy one of createdAt, updatedAt, name, price, stock (default createdAt), sortDir asc or desc (default desc).';

export const LIST_DESCRIPTION = `${readers} Every product of the store (any status) as summaries, newest first, 100 at a time: total counts them all, and nextCursor (null on the last page) passed back as cursor (an extension) gives the next 100. For filters and sorts use /catalog/products/page.`;

export const CREATE_DESCRIPTION = `${writers} Topic product.created. A slug used by another product of the store answers 409 slug_taken, a SKU used in the store 409 sku_taken; a brand, category or tag of another store 400 invalid_brand, invalid_category or invalid_tag; compareAtPrice below price 400 compare_at_below_price; attribute problems 400 unknown_attribute, invalid_attribute or (when PUBLISHED) missing_required_attributes.`;

export const CATEGORY_VALUE_DESCRIPTION = `${readers} The specification shows only the path; read as the product count and stock value of each category: for every category of the store (ordered by name), the products directly in it (any status) and the sum over them of (variant price, else product price) × variant stock, computed in SQL numeric and answered as a decimal string with 2 decimals.`;

export const PAGE_DESCRIPTION = `${readers} ${untyped} cursor is the opaque nextCursor of the previous page (made for the same sortBy and sortDir, else 400 invalid_cursor); when a cursor is given it wins over page. ids: at most 100 UUIDs. total counts every product matching the filters.`;

export const SEARCH_DESCRIPTION = `${readers} ${untyped} vendorId is a UUID. Paged by page and limit; total counts every match.`;

export const UPDATE_DESCRIPTION = `${writers} Topic product.updated. The same checks as create. A replace identical to the product changes nothing.`;

export const DELETE_DESCRIPTION = `${writers} Topic product.deleted. Its variants, images, category and tag links and relations go with it.`;

export const PUBLISH_DESCRIPTION = `${writers} Topic product.published. Sets PUBLISHED and publishedAt; refuses with 400 missing_required_attributes (listing them) while a required attribute of its categories has no value. Publishing a published product changes nothing.`;

export const ARCHIVE_DESCRIPTION = `${writers} Topic product.archived. publishedAt keeps the last publication time. Archiving an archived product changes nothing.`;

export const DUPLICATE_DESCRIPTION = `${writers} Topic product.created (for the copy). The copy has the slug <slug>-copy (then -copy-2, -copy-3, … until free), status DRAFT, no publishedAt, zero counters, variants without SKUs, and the same title, description, prices, categories, tags, images, attributes and translations.`;
