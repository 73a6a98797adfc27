/** The long descriptions of the flash sales route table (flash-sales.routes.ts), kept out of its rows. */

export const PUBLIC =
  "No token. A store that does not exist or is archived answers 404 store_not_found. Prices (currency, price, salePrice, discountPercent of each product, and each category's discountPercent) are left out when the store does not show prices to this visitor (price visibility). Only published products and active categories are listed.";

export const readers =
  "Any member of the tenant, or an API key of the store with flash-sale-campaigns:read. Another tenant's store or campaign answers 404.";

export const writers =
  "Any member of the tenant (owner, admin, staff), or an API key of the store with flash-sale-campaigns:write; an archived store answers 409 store_archived. Another tenant's store, campaign, product or category answers 404. Each write records one audit entry and one outbox row for the campaign; when the campaign is live (PUBLISHED and inside its window) before or after the write, the published products it reaches are queued for re-indexing at once. A PATCH that changes nothing writes nothing.";

export const publicActiveDescription = (PRECEDENCE: string): string =>
  `${PUBLIC} The PUBLISHED campaigns whose window contains now, ending soonest first (at most 50), each with its products and their flash prices now (salePrice is the effective price: the normal price once a product is sold out). ${PRECEDENCE}`;

export const PUBLIC_BY_SLUG_DESCRIPTION = `${PUBLIC} A PUBLISHED campaign that is UPCOMING (salePrice is the price it will have at the start) or RUNNING, slug compared case-insensitively; a draft, archived, ended or unknown campaign answers 404 flash_sale_not_found.`;

export const listDescription = (paging: string): string =>
  `${readers} Newest first (ids are UUIDv7), archived ones included unless status filters them. ${paging}`;

export const createDescription = (PRECEDENCE: string): string =>
  `${writers} endsAt not after startsAt, or not in the future, answers 400; a slug taken in the store 409 slug_taken. ${PRECEDENCE}`;

export const GET_DESCRIPTION = `${readers} With its products (sold counts against caps) and categories; archived campaigns too.`;

export const UPDATE_DESCRIPTION = `${writers} Changes only the fields given; products and categories are replaced as lists (products that stay keep their soldCount). An archived campaign answers 409 flash_sale_archived.`;

export const ARCHIVE_DESCRIPTION = `${writers} Archives the campaign (status ARCHIVED, archivedAt): its prices stop at once, it leaves the public reads, and it takes no more changes; answers 200 with the archived campaign. Archiving an archived campaign answers the same 200 and writes nothing. Its slug stays taken.`;
