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

export interface PriceSlider {
  /** The slider's bounds: the facet's stats, widened to whole steps. */
  min: number;
  max: number;
  step: number;
  /** Where its thumbs stand: the chosen priceMin and priceMax, else the bounds. */
  from: number;
  to: number;
}

/**
 * The price slider of the search page, bounded by the lowest and highest price of the results (the
 * facet's stats, which ignore the price selection); none without stats or when every result has one
 * price (nothing to slide). Whole units for ranges of 100 and more, cents below.
 */
export function priceSlider(stats: { min: number; max: number } | null | undefined, state: SearchState): PriceSlider | undefined {
  if (!stats || !(stats.max > stats.min)) return undefined;
  const cents = stats.max - stats.min < 100;
  const step = cents ? 0.01 : 1;
  // Prices carry at most 2 decimals; the small nudge keeps 0.29 * 100 = 28.999… from flooring to 0.28.
  const min = cents ? Math.floor(stats.min * 100 + 1e-6) / 100 : Math.floor(stats.min);
  const max = cents ? Math.ceil(stats.max * 100 - 1e-6) / 100 : Math.ceil(stats.max);
  const clamp = (v: number) => Math.min(max, Math.max(min, v));
  const chosen = (key: 'priceMin' | 'priceMax', fallback: number) => {
    const value = Number(state[key]?.[0]);
    return state[key] && Number.isFinite(value) ? clamp(value) : fallback;
  };
  return { min, max, step, from: chosen('priceMin', min), to: chosen('priceMax', max) };
}

/** How many filters a shopper chose (the Filters button on narrow screens says it). */
export function activeFilterCount(state: SearchState): number {
  let n = 0;
  for (const [key, values] of Object.entries(state)) {
    if (key === 'q' || key === 'sort' || key === 'page') continue;
    if (key === 'priceMax' && state.priceMin) continue; // one price range
    n += LIST_KEYS.includes(key as never) ? values.length : 1;
  }
  return n;
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
        slider: priceSlider(facet.stats, state),
        // A bucket with no product under the current filters is not offered: its link would lead to
        // "No products found". A selected one stays, so it can be undone.
        buckets: (facet.buckets ?? [])
          .filter((b) => b.selected || b.count === undefined || b.count > 0)
          .map((b) => ({
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
