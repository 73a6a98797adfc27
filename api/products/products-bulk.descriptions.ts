/** The long descriptions of the products-bulk route table (products-bulk.routes.ts), kept out of its rows. */

export const common =
  "Any member of the tenant (owner, admin, staff), or an API key of the store with catalog:write; an archived store answers 409 store_archived, another tenant's store 404. Every product id must be a product of the store, else 400 invalid_product (listing them) and nothing changes. The operation is recorded as a bulk edit (see /product-bulk-edits) and answered as one: up to BULK_SYNC_MAX products (default 500) it runs within the request and the answer is the finished edit with a result per product (OK, UNCHANGED when already as asked, FAILED with an error code); above, the answer comes at once with the edit RUNNING and its items PENDING, and the jobs worker processes it (processedCount shows progress; GET /product-bulk-edits/{id} the results). Each changed product gets one audit entry and one outbox row (queue index), as the single-product operations write.";

export const BULK_PUBLISH_DESCRIPTION = `${common} Recorded with action UPDATE_STATUS. A product missing a required attribute of its categories fails with missing_required_attributes; a published one is UNCHANGED.`;

export const BULK_ARCHIVE_DESCRIPTION = `${common} Recorded with action ARCHIVE; an archived product is UNCHANGED.`;

export const BULK_HARD_DELETE_DESCRIPTION = `${common} Recorded with action DELETE. Each item keeps the whole product (its row, variants, images, category, tag, collection and bundle links, relations and sponsored listings) so a revert recreates it with the same ids.`;

export const BULK_SET_CATEGORY_DESCRIPTION = `${common} Recorded with action UPDATE_CATEGORY. A product already in exactly that category is UNCHANGED.`;

export const BULK_SET_STATUS_DESCRIPTION = `${common} Recorded with action UPDATE_STATUS (whatever the status).`;

export const BULK_UPDATE_PRICE_DESCRIPTION = `${common} Recorded with action UPDATE_PRICE.`;

export const BULK_ADD_TAGS_DESCRIPTION = `${common} Recorded with action UPDATE_TAGS. A product that has every tag already is UNCHANGED.`;

export const BULK_REMOVE_TAGS_DESCRIPTION = `${common} Recorded with action UPDATE_TAGS. A product that has none of the tags is UNCHANGED.`;
