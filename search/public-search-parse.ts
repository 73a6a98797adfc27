/**
 * Public search, step 1 of 5: parse (search/public-search.ts wires the steps; docs/search.md,
 * "Public search pipeline").
 *
 * Takes the validated request parameters and whether this visitor may see the store's prices;
 * hands on the parameters the search runs with (the price filters and price sorts dropped where
 * prices are hidden, named in `ignored`), the normalised words, and the two cache keys: the whole
 * answer's and the facet snapshot's (search/facet-snapshot.ts). Next: public-search-plan.ts.
 */
import type { PublicSearchParams, PublicSearchSort } from './public-search-request';

export interface ParsedSearch {
  /** The parameters applied (without prices where the visitor may not see them). */
  params: PublicSearchParams;
  /** Parameters given but not applied, for the answer's `ignoredParams`. */
  ignored: string[];
  pricesShown: boolean;
  /** normaliseSearchText(params.q): what zero-result counting and both keys use. */
  q: string;
  /** The answer cache's key: every parameter that changes the answer. */
  cacheKey: string;
  /** The facet snapshot's key: the words and filters, not page, perPage or sort. */
  snapshotKey: string;
}

export function parseSearch(requested: PublicSearchParams, pricesShown: boolean): ParsedSearch {
  const { params, ignored } = pricesShown ? { params: requested, ignored: [] } : withoutPrices(requested);
  const q = normaliseSearchText(params.q);
  return {
    params,
    ignored,
    pricesShown,
    q,
    ...keys(params, q, pricesShown, ignored),
  };
}

/**
 * cacheKey and snapshotKey of one search, with its words and filters normalised and serialised once
 * for both: the same text as the two functions below give.
 */
function keys(
  params: PublicSearchParams,
  q: string,
  pricesShown: boolean,
  ignored: string[],
): Pick<ParsedSearch, 'cacheKey' | 'snapshotKey'> {
  const filters = JSON.stringify(wordsAndFilters(params, q)).slice(1, -1);
  return {
    cacheKey: `[${filters},${JSON.stringify([params.page, params.perPage, params.sort, pricesShown, ignored]).slice(1)}`,
    snapshotKey: `["facets",${filters},${JSON.stringify(pricesShown)}]`,
  };
}

/** Sorts that order by a price or a price-derived value (the percent off). */
export const PRICE_SORTS: ReadonlySet<PublicSearchSort> = new Set(['price_asc', 'price_desc', 'discount']);

/**
 * The parameters a search runs with when the visitor may not see the store's prices: priceMin,
 * priceMax and a price sort are dropped (the sort becomes relevance), so neither the results, their
 * order, their total nor any facet count depends on a price; `ignored` names what was dropped, in a
 * fixed order, for the answer's `ignoredParams`.
 */
export function withoutPrices(params: PublicSearchParams): { params: PublicSearchParams; ignored: string[] } {
  const ignored: string[] = [];
  const applied: PublicSearchParams = { ...params };
  if (applied.priceMin !== undefined) {
    ignored.push('priceMin');
    delete applied.priceMin;
  }
  if (applied.priceMax !== undefined) {
    ignored.push('priceMax');
    delete applied.priceMax;
  }
  if (PRICE_SORTS.has(applied.sort)) {
    ignored.push('sort');
    applied.sort = 'relevance';
  }
  return { params: applied, ignored };
}

/** Normalised search text: NFKC, whitespace collapsed, trimmed, lowercase (matching ignores case). */
export function normaliseSearchText(q: string | undefined): string {
  return (q ?? '').normalize('NFKC').replace(/\s+/g, ' ').trim().toLowerCase();
}

const sortedSet = (values: string[] | undefined): string[] | null =>
  values?.length ? [...new Set(values.map((v) => v.toLowerCase()))].sort() : null;

/**
 * Every parameter of a search except page, perPage and sort, normalised (ids lowercased, sets
 * sorted): what its total, facet counts and matching depend on. The answer cache's key adds the rest.
 */
export function wordsAndFilters(params: PublicSearchParams, normalisedQ: string): unknown[] {
  return [
    params.storeId.toLowerCase(),
    params.locale ?? null,
    normalisedQ,
    params.type ?? null,
    params.categoryId?.toLowerCase() ?? null,
    params.brandId?.toLowerCase() ?? null,
    params.vendorId?.toLowerCase() ?? null,
    sortedSet(params.categoryIds),
    sortedSet(params.brandIds),
    sortedSet(params.ids),
    params.priceMin ?? null,
    params.priceMax ?? null,
    params.minRating ?? null,
    params.inStock ?? null,
    params.discounted ?? null,
    params.options?.length ? [...new Set(params.options)].sort() : null,
    params.attrs?.length ? [...new Set(params.attrs)].sort() : null,
  ];
}

/** The cache key: every parameter that changes the answer, normalised, in a fixed order. */
export function cacheKey(
  params: PublicSearchParams,
  pricesShown: boolean,
  normalisedQ = normaliseSearchText(params.q),
  ignoredParams: string[] = [],
): string {
  return JSON.stringify([...wordsAndFilters(params, normalisedQ), params.page, params.perPage, params.sort, pricesShown, ignoredParams]);
}

/** The snapshot key: the search's words and filters (not page, perPage or sort) and whether prices are shown. */
export function snapshotKey(params: PublicSearchParams, normalisedQ: string, pricesShown: boolean): string {
  return JSON.stringify(['facets', ...wordsAndFilters(params, normalisedQ), pricesShown]);
}
