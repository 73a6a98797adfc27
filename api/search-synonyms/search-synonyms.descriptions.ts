/** The long descriptions of the search synonyms route table (search-synonyms.routes.ts), kept out of its rows. */

export const readers =
  "Any member of the tenant, or an API key of the store with search-synonyms:read. Another tenant's store or rule answers 404.";

export const writers =
  "Any member of the tenant (owner, admin, staff), or an API key of the store with search-synonyms:write; an archived store answers 409 store_archived. Another tenant's store or rule answers 404. Each write records one audit entry and two outbox rows: one for the rule (aggregate search_synonym) and one for the store (topic search_synonyms.updated) so the store's index settings are re-applied within seconds; a PATCH that changes nothing writes neither.";

export const shape =
  'A rule is MULTI_WAY (terms: 2 to 20 equivalent terms; each one finds what any of the others finds) or ONE_WAY (input: one term, synonyms: 1 to 20 terms; a search for input also finds the synonyms, not the reverse). Every term is 1 to 100 characters after trimming, stored lowercased, and unique within the rule (a ONE_WAY input cannot be one of its synonyms); terms not allowed for the type answer 400. Only active rules (isActive, default true) are applied. Multi-word terms are allowed: Meilisearch supports multi-word synonyms and matches them on the whole phrase, after normalising case, accents and separators, so a rule ["tv", "television set"] makes "tv" find documents containing the phrase "television set" and "television set" find "tv"; a single word of a multi-word term ("set" alone) does not trigger the rule.';

export const LIST_DESCRIPTION = `${readers} search, cursor and limit are not typed by the specification: search is 1 to 200 characters (case-insensitive substring of the input or any term), cursor the opaque nextCursor of the previous page, limit 1 to 100 (default 50). Rules in creation order (UUIDv7). ${shape}`;

export const CREATE_DESCRIPTION = `${writers} ${shape}`;

/** How a listed query is labelled, for both lists. */
const labels =
  "Each query is labelled against the store's current index (two Meilisearch multi-searches for the whole list): answeredNow, published products match every word with the store's synonyms as they are, asked as the strict pass of public search asks; answeredBy PRODUCT, they match without the synonyms too, SYNONYM, only through a synonym rule (asked with each word that triggers a rule sent as a quoted phrase, which Meilisearch never expands: such a word is then matched literally, without typos or prefix), null when not answered; answeredLoosely, not answered strictly but one of the public search's looser readings (other word forms, fewer words) finds products. A store without an index answers false; null when the search engine cannot be reached.";

const counting = (what: string, cap: number): string =>
  `${readers} ${what} is counted per store and normalised query (NFKC, lowercase, whitespace collapsed, trimmed, at most 200 characters); sample is the last query as typed. Searches of a store whose index does not exist yet or whose first indexing is not finished are not counted. The list is not paged: the ${cap} most frequent queries, most frequent first, then most recently seen.`;

export const zeroResultQueriesDescription = (ZERO_RESULT_LIST_CAP: number): string =>
  `${counting('Every public search with a non-empty query that ends with no results (after the looser passes)', ZERO_RESULT_LIST_CAP)} ${labels}`;

export const weakResultQueriesDescription = (ZERO_RESULT_LIST_CAP: number): string =>
  `Extension: the weak results beside the zero-result queries. ${counting("Every public search with a non-empty query whose results came only from a looser pass (the answer's looseMatch: fewer words or other word forms), cached answers included,", ZERO_RESULT_LIST_CAP)} ${labels}`;

export const UPDATE_DESCRIPTION = `${writers} Changes only the fields given; the type cannot change (terms for MULTI_WAY; input and synonyms for ONE_WAY; isActive for both). ${shape}`;

export const DELETE_DESCRIPTION = writers;

export const BUILT_IN_DESCRIPTION = `Extension. ${readers} Every store's index also gets built-in unit-of-measure synonyms (inch, foot, yard, millimetre, centimetre, millilitre, quart, gallon, ounce, pound, kilogram and their abbreviations and plurals), listed here in a fixed order in the shape of a rule (type, terms or input and synonyms). Most are MULTI_WAY groups; the inch is ONE_WAY (inch and inches also find "in", as in "24 in.", but "in", a common word, never finds inch). Built-in rules come first and the store's rules after: a store rule, active or not, replaces the built-in mapping of every term it maps from (a ONE_WAY input, any MULTI_WAY term), so a rule overrides a built-in term and a deactivated rule turns it off. overriddenTerms names the built-in terms so replaced and overriddenBy the ids of the rules that replace them; both are empty while the built-in rule is wholly in force.`;
