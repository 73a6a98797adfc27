/**
 * The benchmark's query mix: text (one to three words from the catalogue's vocabulary, some with a
 * typo), filters (brands, categories, price range, stock, discount, size/colour options, rating),
 * every sort, and pages up to 100 with perPage up to 60. Each set of parameters becomes both the
 * URL of our public search and the multi-search body our endpoint sends Meilisearch.
 */
import type { PublicSearchParams, PublicSearchSort } from '../../search/public-search-request';
import { ADJECTIVES, BRAND_NAMES, CATALOGUE, COLOURS, MATERIALS, SIZES, type BenchStore, type Rng } from './search-data';

export const SORTS: PublicSearchSort[] = [
  'relevance',
  'newest',
  'price_asc',
  'price_desc',
  'discount',
  'most_reviewed',
  'rating',
  'best_selling',
  'most_viewed',
];

const NOUNS = Object.values(CATALOGUE).flat();

/** One edit (drop, swap, replace or double a letter) in a word of at least 5 letters. */
export function typo(word: string, rng: Rng): string {
  if (word.length < 5) return word;
  const at = rng.int(1, word.length - 2);
  switch (rng.int(0, 3)) {
    case 0:
      return word.slice(0, at) + word.slice(at + 1);
    case 1:
      return word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2);
    case 2:
      return word.slice(0, at) + 'abcdefghijklmnopqrstuvwxyz'[rng.int(0, 25)] + word.slice(at + 1);
    default:
      return word.slice(0, at) + word[at] + word.slice(at);
  }
}

function text(rng: Rng): string {
  const shape = rng.int(0, 9);
  const words: string[] = [];
  if (shape <= 2) words.push(rng.pick(NOUNS));
  else if (shape <= 4) words.push(rng.pick(MATERIALS), rng.pick(NOUNS));
  else if (shape <= 5) words.push(rng.pick(BRAND_NAMES).toLowerCase(), rng.pick(NOUNS));
  else if (shape <= 6) words.push(rng.pick(ADJECTIVES), rng.pick(MATERIALS), rng.pick(NOUNS));
  else if (shape <= 7) words.push(rng.pick(BRAND_NAMES).toLowerCase());
  else if (shape <= 8) words.push(rng.pick(NOUNS), rng.pick(COLOURS));
  else words.push(rng.pick(ADJECTIVES), rng.pick(NOUNS));
  // About one query in five carries a typo in one of its words.
  if (rng.chance(0.2)) {
    const i = rng.int(0, words.length - 1);
    words[i] = typo(words[i]!, rng);
  }
  return words.join(' ');
}

/** Deep pages are rarer than the first ones, but reach page 100 (perPage × page ≤ 6000). */
function paging(rng: Rng): { page: number; perPage: number } {
  const perPage = rng.pick([12, 24, 24, 24, 36, 48, 60]);
  const roll = rng.next();
  const page = roll < 0.6 ? 1 : roll < 0.85 ? rng.int(2, 5) : roll < 0.95 ? rng.int(6, 30) : rng.int(31, 100);
  return { page, perPage };
}

/** One random request of the mix. */
export function randomParams(store: BenchStore, rng: Rng): PublicSearchParams {
  const leaves = store.categories.filter((c) => c.parentId);
  const roots = store.categories.filter((c) => !c.parentId);
  const params: PublicSearchParams = { storeId: store.storeId, sort: 'relevance', ...paging(rng) };
  if (rng.chance(0.7)) params.q = text(rng);
  // Sorting: relevance for most text queries; browsing without text uses the other sorts.
  params.sort = params.q && rng.chance(0.6) ? 'relevance' : rng.pick(SORTS);
  if (rng.chance(0.25)) params.brandIds = rng.sample(store.brands, rng.int(1, 3)).map((b) => b.id);
  if (rng.chance(0.3)) params.categoryIds = (rng.chance(0.5) ? rng.sample(roots, 1) : rng.sample(leaves, rng.int(1, 2))).map((c) => c.id);
  if (rng.chance(0.2)) {
    const min = rng.pick([0, 10, 25, 50, 100, 250]);
    params.priceMin = min;
    if (rng.chance(0.7)) params.priceMax = min + rng.pick([25, 50, 100, 500, 1000]);
  }
  if (rng.chance(0.15)) params.inStock = true;
  if (rng.chance(0.1)) params.discounted = true;
  if (rng.chance(0.05)) params.minRating = rng.pick([3, 4, 4.5]);
  if (rng.chance(0.15)) {
    const options: string[] = [];
    if (rng.chance(0.6)) options.push(...rng.sample(SIZES, rng.int(1, 2)).map((s) => `size:${s}`));
    if (options.length === 0 || rng.chance(0.4)) options.push(`colour:${rng.pick(COLOURS).replace(/^\w/, (c) => c.toUpperCase())}`);
    params.options = options;
  }
  return params;
}

/** A stable key of the parameters (for de-duplication). */
export const paramsKey = (p: PublicSearchParams): string => JSON.stringify(p);

/** `count` distinct parameter sets. */
export function distinctParams(store: BenchStore, rng: Rng, count: number): PublicSearchParams[] {
  const seen = new Set<string>();
  const out: PublicSearchParams[] = [];
  while (out.length < count) {
    const p = randomParams(store, rng);
    const key = paramsKey(p);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(p);
  }
  return out;
}

/** The path and query string of our public search for `params` (arrays as repeated parameters). */
export function searchPath(p: PublicSearchParams): string {
  const qs = new URLSearchParams();
  qs.set('storeId', p.storeId);
  if (p.q !== undefined) qs.set('q', p.q);
  if (p.page !== 1) qs.set('page', String(p.page));
  if (p.perPage !== 24) qs.set('perPage', String(p.perPage));
  if (p.sort !== 'relevance') qs.set('sort', p.sort);
  for (const id of p.brandIds ?? []) qs.append('brandIds', id);
  for (const id of p.categoryIds ?? []) qs.append('categoryIds', id);
  if (p.priceMin !== undefined) qs.set('priceMin', String(p.priceMin));
  if (p.priceMax !== undefined) qs.set('priceMax', String(p.priceMax));
  if (p.minRating !== undefined) qs.set('minRating', String(p.minRating));
  if (p.inStock !== undefined) qs.set('inStock', String(p.inStock));
  if (p.discounted !== undefined) qs.set('discounted', String(p.discounted));
  for (const o of p.options ?? []) qs.append('options', o);
  return `/api/v1/catalog/public/search?${qs.toString()}`;
}

/** Zipf(s) over ranks 1..n: `length` sampled indices (0-based, rank 1 most frequent). */
export function zipfSequence(n: number, s: number, length: number, rng: Rng): number[] {
  const cdf: number[] = [];
  let total = 0;
  for (let k = 1; k <= n; k += 1) {
    total += 1 / k ** s;
    cdf.push(total);
  }
  const out: number[] = [];
  for (let i = 0; i < length; i += 1) {
    const u = rng.next() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    out.push(lo);
  }
  return out;
}

/** Prefixes (1–8 characters) of the catalogue's words, for suggest. */
export function suggestPrefixes(rng: Rng, count: number): string[] {
  const words = [...NOUNS, ...MATERIALS, ...ADJECTIVES, ...BRAND_NAMES.map((b) => b.toLowerCase())];
  return Array.from({ length: count }, () => {
    const word = rng.pick(words);
    return word.slice(0, Math.min(word.length, rng.int(1, 8)));
  });
}
