/** The long descriptions of the product relations route table (product-relations.routes.ts), kept out of its rows. */

export const readers =
  "Any member of the tenant, or an API key of the product's store with catalog:read. Another tenant's product answers 404 product_not_found.";

export const writers =
  "Any member of the tenant (owner, admin, staff), or an API key of the product's store with catalog:write; an archived store answers 409 store_archived. Another tenant's product or relation answers 404. A change writes one audit entry and one outbox row for the owning product (topic product.updated: the product document carries its relations); a request that changes nothing writes neither.";

export const LIST_DESCRIPTION = `${readers} Every relation, grouped by kind (RELATED, then UPSELL, then CROSS_SELL), each kind by position, with a summary of the related product (any status); not paged.`;

export const UPSERT_DESCRIPTION = `${writers} A relation is identified by (product, relatedProductId, kind): when it exists, only its position changes (audit product_relation.update); otherwise it is created (audit product_relation.create), after the last relation of its kind unless a position is given. The related product must be another product of the same store, else 400 invalid_related_product. A product has at most 500 relations of one kind (409 too_many_relations).`;

export const REORDER_DESCRIPTION = `${writers} ids must list exactly the product's relations of the kind, each once, in the new order (else 400 reorder_mismatch); their positions become 0, 1, 2, … One audit entry (product_relation.reorder, on the product) and one outbox row for the whole reorder.`;

export const DELETE_DESCRIPTION = `${writers} An unknown relation answers 404 product_relation_not_found. Writes one audit entry (product_relation.delete) and one outbox row for the owning product.`;
