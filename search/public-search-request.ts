/**
 * Public search parameters → the one Meilisearch multi-search request that answers them.
 *
 * Filters fall in two kinds:
 * - context filters (status, type, categoryId, brandId, ids, bare option/attribute values, and
 *   `name:value` selections of options or attributes the store shows no facet for) always apply;
 * - facet selections (categoryIds, brandIds, vendorId, price range, minRating, inStock, discounted,
 *   `name:value` selections of a shown option or attribute facet) apply to the results and to every
 *   other facet, but not to their own facet's counts: a shopper who ticks one brand still sees how
 *   many items the other brands have (disjunctive facets).
 *
 * So the request holds the main query (hits, plus the counts of every facet without a selection)
 * and one `limit 0` query per facet that has a selection, filtered by everything except that
 * facet. The price facet's buckets (configured or derived) are counted from the distribution of the
 * products' price cells, asked with the price facet, where their bounds allow (every derived bucket,
 * and configured bounds on the ladder of nice numbers); otherwise, and for an index built before the
 * cells, by one count query per bucket (public-search-run.ts runPlan).
 */
import { localeField } from './product-document';
import { bucketCountsFromCells } from './price-buckets';
import { meiliLocale } from './index-settings';
import { storeIndexUid } from './index-names';
import { inList, quote } from './meili-filter';

/** The orders a shopper can sort search results by. */
export const PUBLIC_SEARCH_SORTS = [
  'newest',
  'price_asc',
  'price_desc',
  'discount',
  'most_reviewed',
  'rating',
  'best_selling',
  'most_viewed',
  'relevance',
] as const;
export type PublicSearchSort = (typeof PUBLIC_SEARCH_SORTS)[number];

export interface PublicSearchParams {
  storeId: string;
  locale?: string;
  q?: string;
  page: number;
  perPage: number;
  sort: PublicSearchSort;
  type?: string;
  categoryId?: string;
  brandId?: string;
  vendorId?: string;
  categoryIds?: string[];
  brandIds?: string[];
  ids?: string[];
  priceMin?: number;
  priceMax?: number;
  minRating?: number;
  inStock?: boolean;
  discounted?: boolean;
  options?: string[];
  attrs?: string[];
}

/** A facet the store shows (its filter configuration, enabled facets in order). */
export interface FacetSpec {
  key: string;
  label: string;
  display: string;
}

export interface PriceBucketSpec {
  min: number;
  max: number | null;
  label?: string;
}

/** The facet attribute of the products' price cells (search/product-document.ts `priceCell`). */
export const PRICE_CELL = 'priceCell';

/** Whether every bucket's count can be summed from the price cells (all bounds on the ladder). */
const countableFromCells = (buckets: PriceBucketSpec[]): boolean => bucketCountsFromCells(buckets, {}) !== undefined;

/** The nine public search sorts → Meilisearch sort; ties fall back to the newest first. */
export const SORTS: Record<PublicSearchSort, string[]> = {
  relevance: [],
  newest: ['createdAt:desc'],
  price_asc: ['price:asc', 'createdAt:desc'],
  price_desc: ['price:desc', 'createdAt:desc'],
  discount: ['discountPercent:desc', 'createdAt:desc'],
  most_reviewed: ['reviewCount:desc', 'rating:desc', 'createdAt:desc'],
  rating: ['rating:desc', 'reviewCount:desc', 'createdAt:desc'],
  best_selling: ['salesCount:desc', 'createdAt:desc'],
  most_viewed: ['viewCount:desc', 'createdAt:desc'],
};

/** What a result item needs; nothing more is read back from Meilisearch. */
export const ITEM_FIELDS = [
  'id',
  'slug',
  'title',
  'type',
  'brandId',
  'brand',
  'vendorId',
  'vendor',
  'currency',
  'price',
  'compareAtPrice',
  'discountPercent',
  'discounted',
  'inStock',
  'rating',
  'reviewCount',
  'imageUrl',
  'badge',
  'flashSaleEndsAt',
];

export type MatchingStrategy = 'all' | 'last' | 'frequency';

/** One Meilisearch query of a multi-search body. */
export interface MeiliQuery {
  indexUid: string;
  q: string;
  filter: Array<string | string[]>;
  /** page and hitsPerPage give exact totals; a probe that only asks "anything at all?" uses limit instead (estimated, cheaper). */
  page?: number;
  hitsPerPage?: number;
  offset?: number;
  limit?: number;
  matchingStrategy: MatchingStrategy;
  facets?: string[];
  sort?: string[];
  attributesToRetrieve?: string[];
  locales?: string[];
}

/** What each query of the request is for, in order, so the answer can be read back. */
export type QueryRole =
  | { kind: 'main' }
  | { kind: 'facet'; group: string }
  | { kind: 'priceBucket'; bucket: number }
  | { kind: 'sponsored' }
  | { kind: 'catalogue' };

export interface SearchPlan {
  queries: MeiliQuery[];
  roles: QueryRole[];
  /** The price buckets the `priceBucket` queries count, in bucket order. */
  priceBuckets?: PriceBucketSpec[];
  /**
   * The price facet's queries also ask for the distribution of `priceCell`, from which every bucket is
   * counted (its bounds are all on the ladder of nice numbers, search/price-buckets.ts): the bucket
   * count queries are then sent only if the index's documents lack the cells (built before them).
   */
  bucketCells?: boolean;
  /** Meilisearch facet attribute of each facet group. */
  groups: Map<string, FacetGroup>;
}

export interface FacetGroup {
  /** `category`, `brand`, …, `option:<name>`, `attr:<name>`. */
  key: string;
  attribute: string;
  /** The filter clauses of this group's selection, OR-ed (absent when nothing is selected). */
  selection?: string[];
  /** A numeric range (price) or threshold (rating) instead of OR-ed values. */
  selectionAnd?: string[];
}

/** `name:value` → [name, value]; a string without a colon (or with nothing before it) is a bare value. */
export function splitPair(raw: string): { name?: string; value: string } {
  const at = raw.indexOf(':');
  if (at <= 0) return { value: at === 0 ? raw.slice(1) : raw };
  return { name: raw.slice(0, at).trim(), value: raw.slice(at + 1).trim() };
}

const facetAttribute: Record<string, string> = {
  category: 'categoryIds',
  brand: 'brandId',
  vendor: 'vendorId',
  type: 'type',
  price: 'price',
  rating: 'stars',
  inStock: 'inStock',
  discounted: 'discounted',
};

/** The facet groups the store shows, with the selections the parameters make in them. */
export function facetGroups(
  params: PublicSearchParams,
  facets: FacetSpec[],
): { groups: Map<string, FacetGroup>; context: Array<string | string[]> } {
  const groups = new Map<string, FacetGroup>();
  for (const facet of facets) {
    const kind = facet.key.split(':')[0];
    const attribute = kind === 'option' ? 'options' : kind === 'attr' ? 'attrs' : facetAttribute[facet.key];
    if (!attribute || groups.has(facet.key)) continue;
    groups.set(facet.key, { key: facet.key, attribute });
  }
  const context: Array<string | string[]> = ['status = "PUBLISHED"'];
  const select = (key: string, clauses: string[], always: Array<string | string[]>): void => {
    const group = groups.get(key);
    if (group) group.selection = [...(group.selection ?? []), ...clauses];
    else context.push(...always);
  };

  if (params.type) select('type', [`type = ${quote(params.type)}`], [`type = ${quote(params.type)}`]);
  if (params.categoryId) context.push(`categoryIds = ${quote(params.categoryId)}`);
  if (params.brandId) context.push(`brandId = ${quote(params.brandId)}`);
  if (params.ids?.length) context.push(inList('id', params.ids));
  if (params.categoryIds?.length)
    select('category', [inList('categoryIds', params.categoryIds)], [inList('categoryIds', params.categoryIds)]);
  if (params.brandIds?.length) select('brand', [inList('brandId', params.brandIds)], [inList('brandId', params.brandIds)]);
  if (params.vendorId) select('vendor', [`vendorId = ${quote(params.vendorId)}`], [`vendorId = ${quote(params.vendorId)}`]);
  if (params.inStock !== undefined) select('inStock', [`inStock = ${params.inStock}`], [`inStock = ${params.inStock}`]);
  if (params.discounted !== undefined) select('discounted', [`discounted = ${params.discounted}`], [`discounted = ${params.discounted}`]);

  const range: string[] = [];
  if (params.priceMin !== undefined) range.push(`price >= ${params.priceMin}`);
  if (params.priceMax !== undefined) range.push(`price <= ${params.priceMax}`);
  if (range.length) {
    const group = groups.get('price');
    if (group) group.selectionAnd = range;
    else context.push(...range);
  }
  if (params.minRating !== undefined) {
    const clause = `rating >= ${params.minRating}`;
    const group = groups.get('rating');
    if (group) group.selectionAnd = [clause];
    else context.push(clause);
  }

  // Options and attributes: selections of one name are OR-ed, different names AND-ed.
  for (const [kind, values, attribute, bareAttribute] of [
    ['option', params.options, 'options', 'optionValues'],
    ['attr', params.attrs, 'attrs', 'attrValues'],
  ] as const) {
    if (!values?.length) continue;
    const byName = new Map<string, string[]>();
    const bare: string[] = [];
    for (const raw of values) {
      const { name, value } = splitPair(raw);
      if (name === undefined) bare.push(value);
      else byName.set(name, [...(byName.get(name) ?? []), `${name}:${value}`]);
    }
    if (bare.length) context.push(inList(bareAttribute, bare));
    for (const [name, pairs] of byName) {
      const key = `${kind}:${name}`;
      const facetKey = [...groups.keys()].find((k) => k.toLowerCase() === key.toLowerCase());
      if (facetKey) groups.get(facetKey)!.selection = [...(groups.get(facetKey)!.selection ?? []), inList(attribute, pairs)];
      else context.push(inList(attribute, pairs));
    }
  }
  return { groups, context };
}

function groupFilter(group: FacetGroup): Array<string | string[]> {
  if (group.selectionAnd) return group.selectionAnd;
  if (group.selection) return group.selection.length === 1 ? [group.selection[0]!] : [group.selection];
  return [];
}

const hasSelection = (group: FacetGroup): boolean => Boolean(group.selection?.length || group.selectionAnd?.length);

export interface RequestOptions {
  matchingStrategy?: MatchingStrategy;
  /** Overrides params.q: a looser reading of it, whose words are all matched whole, short ones exactly (looseWords). */
  q?: string;
  /** Product ids of sponsored candidates; adds a query for those that match the filters. */
  sponsoredIds?: string[];
  /**
   * Adds a count of what the filters alone allow (no words) to a search with words and filters: the
   * run step skips the looser readings when the strict words already found all of it, and a reading
   * finding most of it is too broad to answer (a count by filters is one of Meilisearch's cheapest
   * queries).
   */
  catalogueCount?: boolean;
  /** The store's price buckets (configured or derived), each counted: shown with the range or as links. */
  priceBuckets?: PriceBucketSpec[];
}

/** Shorter last words are matched whole, longer ones also as a prefix (see strictWords). */
export const MIN_PREFIX_LENGTH = 4;

/**
 * The words as Meilisearch receives them with every word matched whole: a trailing space tells it
 * the last word is complete (it otherwise also matches words that start with it).
 */
export function completeWords(q: string): string {
  const words = q.trim();
  return words ? `${words} ` : '';
}

/**
 * The words of a looser reading as Meilisearch receives them: every word whole (completeWords), and
 * a word of MAX_EXACT_LENGTH letters or fewer as a one-word phrase, which Meilisearch matches
 * exactly: one letter changed in a short word mostly makes another word (snow/show, boot/book), and
 * a looser reading that already left words out must not also swap the ones it keeps.
 */
export function looseWords(q: string): string {
  return completeWords(
    q
      .trim()
      .split(/\s+/)
      .map((word) => ([...word].length <= MAX_EXACT_LENGTH && /\p{L}/u.test(word) && !/["]/.test(word) ? `"${word}"` : word))
      .join(' '),
  );
}

/** Words this short are matched exactly in the looser readings (see looseWords). */
export const MAX_EXACT_LENGTH = 4;

/**
 * The shopper's words for the strict pass. Meilisearch matches the last word also as a prefix, which
 * helps a longer word still being typed ("headphon") but turns a short one into noise: "mat" would
 * match "Material:" in every description. So a last word shorter than MIN_PREFIX_LENGTH characters
 * is matched whole.
 */
export function strictWords(q: string): string {
  const words = q.trim();
  const last = words.split(/\s+/).pop() ?? '';
  return [...last].length < MIN_PREFIX_LENGTH ? completeWords(words) : words;
}

/** The multi-search body answering `params` for a store showing `facets`. */
export function buildSearchPlan(params: PublicSearchParams, facets: FacetSpec[], options: RequestOptions = {}): SearchPlan {
  const { groups, context } = facetGroups(params, facets);
  const indexUid = storeIndexUid(params.storeId);
  const q = options.q !== undefined ? looseWords(options.q) : strictWords(params.q ?? '');
  const localeLang = params.locale ? meiliLocale(params.locale) : undefined;
  const base = {
    indexUid,
    q,
    // Strict by default: every word must match (Meilisearch's own default drops words from the end).
    matchingStrategy: options.matchingStrategy ?? 'all',
    ...(localeLang ? { locales: [localeLang] } : {}),
  };
  const allSelections = [...groups.values()].flatMap(groupFilter);
  const queries: MeiliQuery[] = [];
  const roles: QueryRole[] = [];

  const buckets = options.priceBuckets ?? [];
  const price = facets.find((f) => f.key === 'price');
  const bucketCells = Boolean(price && groups.has('price') && buckets.length && countableFromCells(buckets));
  const facetsOfGroup = (group: FacetGroup): string[] =>
    bucketCells && group.key === 'price' ? [group.attribute, PRICE_CELL] : [group.attribute];
  const mainFacets = [...new Set([...groups.values()].filter((g) => !hasSelection(g)).flatMap(facetsOfGroup))];
  const fields = [...ITEM_FIELDS];
  if (params.locale) fields.push(`title_${localeField(params.locale)}`);
  queries.push({
    ...base,
    filter: [...context, ...allSelections],
    page: params.page,
    hitsPerPage: params.perPage,
    ...(mainFacets.length ? { facets: mainFacets } : {}),
    ...(SORTS[params.sort].length ? { sort: SORTS[params.sort] } : {}),
    attributesToRetrieve: fields,
  });
  roles.push({ kind: 'main' });
  if (options.catalogueCount && q && (allSelections.length > 0 || context.length > 1)) {
    queries.push({ ...base, q: '', filter: [...context, ...allSelections], page: 1, hitsPerPage: 0 });
    roles.push({ kind: 'catalogue' });
  }

  for (const group of groups.values()) {
    if (!hasSelection(group)) continue;
    const others = [...groups.values()].filter((g) => g !== group).flatMap(groupFilter);
    queries.push({ ...base, filter: [...context, ...others], page: 1, hitsPerPage: 0, facets: facetsOfGroup(group) });
    roles.push({ kind: 'facet', group: group.key });
  }

  if (price && groups.has('price')) {
    const others = [...groups.values()].filter((g) => g.key !== 'price').flatMap(groupFilter);
    buckets.forEach((bucket, i) => {
      const bounds = [`price >= ${bucket.min}`, ...(bucket.max === null ? [] : [`price < ${bucket.max}`])];
      queries.push({ ...base, filter: [...context, ...others, ...bounds], page: 1, hitsPerPage: 0 });
      roles.push({ kind: 'priceBucket', bucket: i });
    });
  }

  if (options.sponsoredIds?.length) {
    queries.push({
      ...base,
      filter: [...context, ...allSelections, inList('id', options.sponsoredIds)],
      page: 1,
      hitsPerPage: options.sponsoredIds.length,
      attributesToRetrieve: fields,
    });
    roles.push({ kind: 'sponsored' });
  }
  return {
    queries,
    roles,
    groups,
    ...(roles.some((r) => r.kind === 'priceBucket') ? { priceBuckets: buckets, bucketCells } : {}),
  };
}

/**
 * The body our public search POSTs to Meilisearch's `/multi-search` for `params` (strict matching,
 * no sponsored slots): what the search benchmark sends to Meilisearch directly for comparison. The
 * price bucket count queries are left out where the buckets are counted from the price cells (an
 * index built by this code always has them), as the search itself leaves them out.
 */
export function meiliRequestFor(
  params: PublicSearchParams,
  facetKeys: string[],
  priceBuckets: PriceBucketSpec[] = [],
): { queries: MeiliQuery[] } {
  const facets = facetKeys.map((key) => ({ key, label: key, display: key === 'price' ? 'range' : 'checkbox' }));
  const plan = buildSearchPlan(params, facets, { priceBuckets });
  return { queries: plan.queries.filter((_, i) => !(plan.bucketCells && plan.roles[i]!.kind === 'priceBucket')) };
}
