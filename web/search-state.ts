/**
 * The search page's state lives in the query string (shareable URLs): this maps it to the public
 * search parameters, and the search answer's facets to form controls and links.
 */
import type { Query } from './api-client';

export const SORTS: Array<{ value: string; label: string }> = [
  { value: 'relevance', label: 'Relevance' },
  { value: 'best_selling', label: 'Best selling' },
  { value: 'newest', label: 'Newest' },
  { value: 'price_asc', label: 'Price: low to high' },
  { value: 'price_desc', label: 'Price: high to low' },
  { value: 'discount', label: 'Biggest discount' },
  { value: 'rating', label: 'Top rated' },
  { value: 'most_reviewed', label: 'Most reviewed' },
  { value: 'most_viewed', label: 'Most viewed' },
];

/** Query-string keys the search page understands (anything else is dropped). */
const LIST_KEYS = ['categoryIds', 'brandIds', 'options', 'attrs'] as const;
const SINGLE_KEYS = ['q', 'sort', 'page', 'vendorId', 'type', 'priceMin', 'priceMax', 'minRating', 'inStock', 'discounted'] as const;

export type SearchState = Record<string, string[]>;

export function searchState(query: Record<string, string[]>): SearchState {
  const state: SearchState = {};
  for (const key of LIST_KEYS) {
    const values = (query[key] ?? []).flatMap((v) => v.split(',')).filter(Boolean);
    if (values.length) state[key] = [...new Set(values)].slice(0, 40);
  }
  for (const key of SINGLE_KEYS) {
    const value = query[key]?.find((v) => v !== '');
    if (value !== undefined) state[key] = [value.slice(0, 200)];
  }
  if (state.sort && !SORTS.some((s) => s.value === state.sort![0])) delete state.sort;
  if (state.page && !/^\d{1,3}$/.test(state.page[0]!)) delete state.page;
  for (const key of ['priceMin', 'priceMax', 'minRating'] as const)
    if (state[key] && !/^\d+(\.\d+)?$/.test(state[key]![0]!)) delete state[key];
  for (const key of ['inStock', 'discounted'] as const) if (state[key] && state[key]![0] !== 'true') delete state[key];
  return state;
}

export function apiQuery(state: SearchState, fixed: Query): Query {
  const query: Query = { ...fixed, perPage: 24 };
  for (const [key, values] of Object.entries(state)) query[key] = LIST_KEYS.includes(key as never) ? values : values[0];
  return query;
}

/** The page URL for a state (relative to the page path). */
export function stateUrl(pathname: string, state: SearchState, change: Record<string, string[] | undefined> = {}): string {
  const params = new URLSearchParams();
  const next = { ...state, ...change };
  for (const [key, values] of Object.entries(next)) for (const v of values ?? []) params.append(key, v);
  const qs = params.toString();
  return qs ? `${pathname}?${qs}` : pathname;
}

interface FacetValue {
  value: string;
  label: string;
  count: number;
  selected: boolean;
}
interface Facet {
  key: string;
  label: string;
  display: string;
  values: FacetValue[];
  stats?: { min: number; max: number };
  buckets?: Array<{ min: number; max: number | null; label: string; count?: number; selected: boolean }>;
}

/** The form parameter behind a facet key, and whether several values may be chosen. */
function facetParam(key: string): { param: string; multi: boolean } | undefined {
  if (key === 'category') return { param: 'categoryIds', multi: true };
  if (key === 'brand') return { param: 'brandIds', multi: true };
  if (key === 'vendor') return { param: 'vendorId', multi: false };
  if (key === 'type') return { param: 'type', multi: false };
  if (key === 'rating') return { param: 'minRating', multi: false };
  if (key.startsWith('option:')) return { param: 'options', multi: true };
  if (key.startsWith('attr:')) return { param: 'attrs', multi: true };
  return undefined;
}

export function facetView(facets: Facet[], pathname: string, state: SearchState, hidden: { categoryId?: boolean; brandId?: boolean } = {}) {
  const views: unknown[] = [];
  const withoutPage = { ...state };
  delete withoutPage.page;
  for (const [index, facet] of facets.entries()) {
    if (facet.key === 'price') {
      views.push({
        kind: 'price',
        key: facet.key,
        label: facet.label,
        id: `facet-${index}`,
        stats: facet.stats,
        min: state.priceMin?.[0] ?? '',
        max: state.priceMax?.[0] ?? '',
        buckets: (facet.buckets ?? []).map((b) => ({
          ...b,
          url: stateUrl(
            pathname,
            withoutPage,
            b.selected
              ? { priceMin: undefined, priceMax: undefined }
              : { priceMin: [String(b.min)], priceMax: b.max === null ? undefined : [String(b.max)] },
          ),
        })),
      });
      continue;
    }
    if (facet.key === 'inStock' || facet.key === 'discounted') {
      views.push({
        kind: 'toggle',
        key: facet.key,
        label: facet.label,
        id: `facet-${index}`,
        param: facet.key,
        checked: state[facet.key]?.[0] === 'true',
        count: facet.values.find((v) => v.value === 'true')?.count,
      });
      continue;
    }
    if ((facet.key === 'category' && hidden.categoryId) || (facet.key === 'brand' && hidden.brandId)) continue;
    const mapping = facetParam(facet.key);
    if (!mapping) continue;
    const chosen = new Set(state[mapping.param] ?? []);
    views.push({
      kind: mapping.multi ? 'checkbox' : 'radio',
      key: facet.key,
      label: facet.label,
      id: `facet-${index}`,
      param: mapping.param,
      values: facet.values.map((v, i) => ({ ...v, id: `facet-${index}-${i}`, checked: v.selected || chosen.has(v.value) })),
      values_checked: facet.values.some((v) => v.selected || chosen.has(v.value)),
    });
  }
  return views;
}

export function pagination(pathname: string, state: SearchState, page: number, totalPages: number) {
  const last = Math.min(totalPages, 100);
  if (last <= 1) return undefined;
  const link = (n: number) => stateUrl(pathname, state, { page: n === 1 ? undefined : [String(n)] });
  const pages: Array<{ number: number; url: string; current: boolean }> = [];
  for (let n = Math.max(1, page - 2); n <= Math.min(last, page + 2); n += 1) pages.push({ number: n, url: link(n), current: n === page });
  return { page, totalPages: last, previous: page > 1 ? link(page - 1) : null, next: page < last ? link(page + 1) : null, pages };
}
