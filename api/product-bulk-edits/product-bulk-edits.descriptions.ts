/** The long descriptions of the product-bulk-edits route table (product-bulk-edits.routes.ts), kept out of its rows. */

export const readers =
  "Any member of the tenant, or an API key of the store with product-bulk-edits:read. Another tenant's store or bulk edit answers 404.";

export const LIST_DESCRIPTION = `${readers} Summaries without per-product results, filtered by action and status; cursor is the nextCursor of the previous page (the id of its last edit).`;

export const STORE_OVERVIEW_DESCRIPTION = `${readers} Edits created in the last sinceDays days (default 30), counted per action, per status and per action × status. Reverts count under the action of the edit they reverted.`;

export const GET_DESCRIPTION = `${readers} With one item per selected product (in the order given): its result, error and the previous values of what the edit changed. A RUNNING edit shows its progress in processedCount.`;

export const REVERT_DESCRIPTION =
  "Any member of the tenant, or an API key of the store with product-bulk-edits:write; another tenant's edit answers 404, an archived store 409 store_archived. Restores, for every product the edit changed (items OK), the previous values it recorded: status and publishedAt, categories, tags, product and variant prices; a hard-deleted product is recreated with its ids, variants, images, categories, tags, relations, collection and bundle links and sponsored listings (links to things deleted since are left out). Refused with 409 bulk_edit_conflict when any of those products changed after the edit (its updated_at is no longer the one the edit left, or it was deleted; for a hard delete: its id, slug or a SKU is taken again); the problem lists them in productIds and errors, and nothing is reverted. Also 409 bulk_edit_running, not_revertible (a revert), already_reverted and nothing_to_revert. The revert is itself a bulk edit (operation revert, the action of the edit it reverts, revertOf) answered like the bulk operations (run within the request up to BULK_SYNC_MAX products, else RUNNING on the jobs worker); the reverted edit gets revertedBy. Audited as product_bulk_edit.revert plus one entry per product.";
