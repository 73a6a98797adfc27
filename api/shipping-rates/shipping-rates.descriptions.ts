/** The long descriptions of the shipping rates route table (shipping-rates.routes.ts), kept out of its rows. */

export const readers =
  "Any member of the tenant, or an API key of the store with shipping-rates:read. Another tenant's store answers 404 store_not_found.";

export const writers =
  "Any member of the tenant (owner, admin, staff), or an API key of the store with shipping-rates:write; an archived store answers 409 store_archived. Another tenant's store or rate answers 404. Each write records one audit entry and one outbox row (queue index, aggregate shipping_rate); a PATCH that changes nothing records neither.";

export const quoteRules =
  "Destinations: a rate covers a district of a city (DISTRICT), a whole city (CITY), or every address no other rate's place covers (EVERYWHERE_ELSE, the fallback); names compare case- and accent-insensitively with whitespace collapsed. Bands are half-open: minWeightGrams ≤ cart weight < maxWeightGrams and minOrderValue ≤ order value < maxOrderValue, a null bound being open. An order value at or above freeShippingThreshold ships free with that rate (price 0, free true). In a quote the most specific destination level that has an applicable rate wins and hides the more general ones (a district's rates replace the city's, the city's replace the fallback); when the specific level has nothing for this cart (e.g. out of its weight bands), the next level's options are offered. Inactive rates are never quoted.";

export const listDescription = (paging: string): string =>
  `${readers} Every rate, active or not, in creation order. ${paging} Neither cursor nor limit is typed by the specification.`;

export const CREATE_DESCRIPTION = `${writers} The rate is priced in the store's currency. ${quoteRules}`;

export const EXPORT_DESCRIPTION = `${readers} A text/csv attachment (shipping-rates-<storeId>.csv) of every rate, active or not.`;

export const UPDATE_DESCRIPTION = `${writers} Changes only the fields given; null clears an optional field. ${quoteRules}`;

export const DELETE_DESCRIPTION = writers;

export const PUBLIC_QUOTE_DESCRIPTION = `No token. Every shipping option of the store for the cart and address, cheapest first (then the shortest estimate). Items name published products or variants of the store (400 invalid_item otherwise, with the item's path); the cart weight comes from the catalog (the variant's weight, else its product's; an item's weightGrams only when the catalog has none; 0 g otherwise) and the order value is orderValue when given, else the catalog prices × quantities. When the store does not show prices to this visitor (price visibility HIDDEN, or SIGNED_IN without a valid access token), catalog prices are never used: the order value is the orderValue given, and without one the quote is made as for an order value of 0 (value bands starting above 0 and free-shipping thresholds above 0 do not apply) and the answer has no orderValue; pricesShown says which applied. An unknown or archived store answers 404 store_not_found. No option (an empty list) means the store does not ship this cart there. ${quoteRules} Orders price their shipping with the same function.`;
