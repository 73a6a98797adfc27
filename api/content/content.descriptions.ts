/** The long descriptions of the content route table (content.routes.ts), kept out of its rows. */

export const readers =
  "Any member of the tenant, or an API key of the store with cms:read. Another tenant's store answers 404 store_not_found.";

export const writers = (what: string, aggregate: string): string =>
  `Any member of the tenant (owner, admin, staff), or an API key of the store with cms:write; an archived store answers 409 store_archived. Another tenant's store or ${what} answers 404 (content_not_found for the ${what}). Each write records one audit entry and one outbox row (queue index, aggregate ${aggregate}); a PATCH that changes nothing records neither.`;

export const publication =
  'Publication: DRAFT entries are never public; a PUBLISHED entry is public from its publishedAt on (a future date schedules it: it appears by itself when the date comes, and scheduled is true until then). Publishing without a publishedAt stamps the time of the write. live says whether the storefront shows it now.';

export const publicRules =
  "No token. Cached like public search (dropped when the store's content changes, and kept no later than the next scheduled publication). Only live entries (PUBLISHED with publishedAt at or before now) of a store that exists and is not archived (404 store_not_found otherwise). Lists are newest publication first.";

export const listDescription = (noun: string, paging: string): string =>
  `${readers} Every ${noun}, drafts and scheduled ones included, in creation order, with its body. status filters (DRAFT or PUBLISHED). ${paging} status, cursor and limit are not typed by the specification. ${publication}`;

export const createDescription = (noun: string, page: boolean): string =>
  `${writers(noun, page ? 'content_page' : 'content_post')} ${publication}`;

export const updateDescription = (noun: string, page: boolean): string =>
  `${writers(noun, page ? 'content_page' : 'content_post')} Changes only the fields given. ${publication}`;

export const deleteDescription = (noun: string, page: boolean, what: string): string =>
  `${writers(noun, page ? 'content_page' : 'content_post')} The ${what} is removed for good; its slug becomes free.`;

export const publicListPagesDescription = (paging: string): string =>
  `${publicRules} ${paging} Pages come with their bodies. slug (1 to 200 characters, case-insensitive) keeps only the page with that slug: one item, or none when it is not live.`;

export const PUBLIC_GET_PAGE_DESCRIPTION = `${publicRules} The slug matches case-insensitively; a draft, scheduled or unknown page answers 404 content_not_found.`;

export const publicListPostsDescription = (paging: string): string =>
  `${publicRules} ${paging} Posts come without their bodies (excerpt, author and tags are there); read one by slug for its body.`;

export const PUBLIC_GET_POST_DESCRIPTION = `${publicRules} The slug matches case-insensitively; a draft, scheduled or unknown post answers 404 content_not_found.`;
