/** The long descriptions of the product tags route table (product-tags.routes.ts), kept out of its rows. */

export const readers = "Any member of the tenant, or an API key of the store with catalog:read. Another tenant's store answers 404.";

export const writers =
  "Any member of the tenant (owner, admin, staff), or an API key of the store with catalog:write; an archived store answers 409 store_archived. Another tenant's store, tag or product answers 404.";

export const LIST_DESCRIPTION = `${readers} cursor, limit and productId are not typed by the specification: cursor is the opaque nextCursor of the previous page, limit 1 to 100 (default 50), productId a UUID (only that product's tags; a product that is not of the store answers 404 product_not_found). Ordered by name (case-insensitively), then id; each tag with the number of products it is assigned to.`;

export const CREATE_DESCRIPTION = `${writers} A slug already used by a tag of the store (case-insensitively) answers 409 slug_taken; without a slug one is derived from the name. Writes one audit entry (product_tag.create) and one outbox row (product_tag.created).`;

export const UPDATE_DESCRIPTION = `${writers} Changes the fields given; a slug taken by another tag of the store answers 409 slug_taken. A change writes one audit entry (product_tag.update) and one outbox row (product_tag.updated); a request that changes nothing writes neither.`;

export const DELETE_DESCRIPTION = `${writers} The tag's assignments go with it. Writes one audit entry (product_tag.delete) and one outbox row (product_tag.deleted) for the tag, and for each product that had it one audit entry (product.untag) and one outbox row (product.updated).`;

export const ASSIGN_DESCRIPTION = `${writers} Every product must be a product of the tag's store, or the answer is 400 invalid_product listing the others (body.productIds[N]) and nothing is assigned. Products that already have the tag are skipped. Each product newly tagged gets one audit entry (product.tag) and one outbox row (product.updated: the product document carries its tags).`;

export const UNASSIGN_DESCRIPTION = `${writers} A product that does not have the tag answers 404 assignment_not_found. Writes one audit entry (product.untag) and one outbox row (product.updated) for the product.`;
