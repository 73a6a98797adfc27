/** The long descriptions of the pricing route table (pricing.routes.ts), kept out of its rows. */

export const readers =
  "Any member of the tenant, or an API key of the store with pricing:read. Another tenant's store answers 404 store_not_found.";

export const writers =
  "Any member of the tenant (owner, admin, staff), or an API key of the store with pricing:write; an archived store answers 409 store_archived. Another tenant's store or rule answers 404. Each write records one audit entry and one outbox row for the rule; when it changes a price anyone sees now (a rule without customer groups whose window contains now, before or after the write) the published products the rule reaches are queued for re-indexing, so the search index's effective price, `discounted` and the `discount` sort follow. Windows that open or close later re-index their products at that moment (the jobs role's pricing scheduler). A PATCH that changes nothing writes nothing.";

export const listRulesDescription = (paging: string): string =>
  `${readers} Newest first (ids are UUIDv7). ${paging} Each rule says its state now (ACTIVE, SCHEDULED, EXPIRED, INACTIVE).`;

export const createRuleDescription = (STACKING_POLICY: string): string =>
  `${writers} A target that is not the store's answers 404 target_not_found; a PERCENT value (or tier value) above 100 or with more than 2 decimals, targetIds with scope ALL or none with another scope, and endsAt not after startsAt answer 400. ${STACKING_POLICY}`;

export const UPDATE_RULE_DESCRIPTION = `${writers} Changes only the fields given; the result is checked as a whole like a new rule. Changing the scope without targetIds clears them (so ALL needs nothing more, other scopes need their targetIds: 400).`;

export const DELETE_RULE_DESCRIPTION = `${writers} Deletes the rule; prices it set return to what the other rules give.`;

export const computeDescription = (STACKING_POLICY: string): string =>
  `Any member of the tenant, or an API key of the store with pricing:write (it is a POST; it writes nothing). Another tenant's store answers 404 store_not_found; a product or variant that is not the store's answers 404 product_not_found / variant_not_found (the field error names the item); a customerId not of the store 404 customer_not_found; products in different currencies 400 mixed_currencies. For each line: the base unit price, the final unit price, the line total and every rule applied with the amount it took off one unit, in order (or the flash sale that set the price); then totals. The same engine prices orders and the search index's effective price (public: no customer group, quantity 1). ${STACKING_POLICY}`;
