/** The long descriptions of the sponsored listings route table (sponsored-listings.routes.ts), kept out of its rows. */

export const readers =
  "Any member of the tenant, or an API key of the store with sponsored-listings:read. Another tenant's store answers 404 store_not_found.";

export const writers =
  "Any member of the tenant (owner, admin, staff), or an API key of the store with sponsored-listings:write; an archived store answers 409 store_archived. Another tenant's store, listing or product answers 404. Each write records one audit entry and one outbox row for the store (aggregate store, topic sponsored_listings.updated) so cached storefront results of the store are refreshed; a PATCH that changes nothing writes neither.";

export const lifecycle =
  "A listing is ACTIVE (shown in marked slots of matching storefront search results from startsAt), PAUSED (not shown; the merchant can switch it back) or ENDED. It becomes ENDED when its end date passes (endedReason END_DATE), when a click spends its budget (BUDGET; that click is charged only what is left, so spent never exceeds budget) or when the merchant sets status ENDED (MANUAL). A product has at most one listing that is not ENDED. Amounts are in the store's currency.";

export const LIST_DESCRIPTION = `${readers} Newest first (ids are UUIDv7); cursor is the nextCursor of the previous page (the id of its last item), limit 1 to 200 (default 50), status filters by status. Listings whose end date passed or whose budget is spent are ENDED before the page is read. ${lifecycle}`;

export const CREATE_DESCRIPTION = `${writers} A product that is not the store's answers 404 product_not_found; a product that already has a listing that is not ENDED answers 409 sponsored_listing_exists; endsAt not after startsAt answers 400. ${lifecycle}`;

export const UPDATE_DESCRIPTION = `${writers} Changes only the fields given. A budget not above what was already spent answers 409 budget_not_above_spent; reactivating an ENDED listing that would end again at once answers 409 sponsored_listing_ended. ${lifecycle}`;

export const DELETE_DESCRIPTION = `${writers} Deletes the listing in any status, with its counters.`;

export const TRACK_CLICK_DESCRIPTION =
  'No token. A store that does not exist or is archived answers 404 store_not_found. Otherwise the answer is always 202 { accepted: true }, so the tracker reveals nothing about a listing: the click is counted (clicks + 1, spent + costPerClick, in one guarded update) only for an ACTIVE listing of that store inside its window with budget left, whose product is published (and is productId when given). Repeated clicks on one listing from the same visitor (visitorId, or the user agent without one) and client address within 30 seconds count once, and at most 10 clicks per listing and client address are counted an hour. The click that reaches the budget is charged what is left and ends the listing (endedReason BUDGET). No audit entry: a visitor counter is not a merchant write.';
