/**
 * What public search needs to know about a store besides its index: that it exists and is open,
 * whether it shows prices, which facets it shows (its filter configuration) and the names of the
 * categories, brands and vendors its facet values are ids of. Read from PostgreSQL and cached with
 * the search answers (invalidated by the same store events).
 */
import type { DataSource } from 'typeorm';
import { DEFAULT_FILTER_CONFIG } from '../domain/filter-config';
import { deriveBuckets, NICE_LADDER, type PriceDistribution } from './price-buckets';
import type { FacetSpec, PriceBucketSpec } from './public-search-request';
import { keywordMatches, normaliseSearchText } from '../domain/sponsored-keywords';
import { asPriceVisibility, type PriceVisibility } from '../domain/price-visibility';

export interface StoreProfile {
  id: string;
  tenantId: string;
  currency: string;
  defaultLocale: string;
  priceVisibility: PriceVisibility;
  /** Enabled facets in position order. */
  facets: FacetSpec[];
  /**
   * The price buckets the search counts: the merchant's (a saved configuration with at least one
   * bucket) or, otherwise, derived from the prices of the store's published products
   * (search/price-buckets.ts); empty when the store shows no price facet or its prices allow no two
   * buckets.
   */
  priceBuckets: PriceBucketSpec[];
  priceBucketSource: 'configured' | 'derived';
  categories: Map<string, string>;
  brands: Map<string, string>;
  vendors: Map<string, string>;
  /** Active categories and brands, for suggestions. */
  lexicon: LexiconEntry[];
  /** ACTIVE sponsored listings, best first (highest cost per click, then oldest). */
  sponsored: SponsoredListingRow[];
}

export interface SponsoredListingRow {
  id: string;
  productId: string;
  /** Normalised keywords; none: every search. */
  keywords: string[];
  startsAt: number;
  endsAt: number | null;
  budgetLeft: boolean;
}

export interface LexiconEntry {
  kind: 'category' | 'brand';
  id: string;
  name: string;
  slug: string;
  /** The name's words, normalised, for prefix and typo matching. */
  words: string[];
}

export const lexiconWords = (name: string): string[] =>
  name
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

interface StoreRow {
  id: string;
  tenant_id: string;
  currency: string;
  default_locale: string | null;
  price_visibility: string;
}

interface SavedFacet {
  key: string;
  label: string;
  display: string;
  position: number;
  enabled: boolean;
}

/** The store's profile, or undefined when it does not exist or is archived. */
/**
 * Sponsored candidates for a query: listings inside their window with budget left whose keywords
 * all match (as whole words of the normalised query; a listing without keywords matches every
 * search), in the listings' order. The same rule as the sponsored-listings area's
 * sponsoredCandidates(), evaluated on the cached profile so a search costs no query.
 */
export function sponsoredFor(
  profile: StoreProfile,
  query: string,
  limit: number,
  now = Date.now(),
): Array<{ listingId: string; productId: string }> {
  const normalised = normaliseSearchText(query);
  const out: Array<{ listingId: string; productId: string }> = [];
  for (const listing of profile.sponsored) {
    if (out.length >= limit) break;
    if (!listing.budgetLeft || listing.startsAt > now || (listing.endsAt !== null && listing.endsAt <= now)) continue;
    if (listing.keywords.length > 0 && !listing.keywords.some((k) => keywordMatches(k, normalised))) continue;
    out.push({ listingId: listing.id, productId: listing.productId });
  }
  return out;
}

export async function loadStoreProfile(db: DataSource, storeId: string): Promise<StoreProfile | undefined> {
  const [store]: StoreRow[] = await db.query(
    `SELECT id, tenant_id, currency, default_locale, price_visibility FROM stores WHERE id = $1 AND status <> 'archived'`,
    [storeId],
  );
  if (!store) return undefined;
  const [config]: Array<{ facets: SavedFacet[]; price_buckets: PriceBucketSpec[] }> = await db.query(
    'SELECT facets, price_buckets FROM storefront_filter_configs WHERE store_id = $1',
    [storeId],
  );
  const saved = config ?? {
    facets: DEFAULT_FILTER_CONFIG.facets as SavedFacet[],
    price_buckets: DEFAULT_FILTER_CONFIG.priceBuckets as PriceBucketSpec[],
  };
  // A saved configuration with at least one bucket is the merchant's choice; no saved configuration,
  // or one saved with no buckets (the default's `[]`), means: derived from the store's prices.
  const configured = saved.price_buckets.length > 0;
  const facets = saved.facets
    .filter((f) => f.enabled)
    .sort((a, b) => a.position - b.position)
    .map((f) => ({ key: f.key, label: f.label, display: f.display }));
  const needs = (key: string): boolean => facets.some((f) => f.key === key);
  const [categories, brands, vendors, sponsored, derived] = await Promise.all([
    // Active categories not under an inactive one (an inactive category hides its subtree).
    db.query(
      `WITH RECURSIVE visible AS (
         SELECT id, name, slug, position FROM categories WHERE store_id = $1 AND parent_id IS NULL AND is_active
         UNION ALL
         SELECT c.id, c.name, c.slug, c.position FROM categories c JOIN visible v ON c.parent_id = v.id WHERE c.is_active
       ) SELECT id, name, slug FROM visible ORDER BY position, lower(name)`,
      [storeId],
    ) as Promise<Array<{ id: string; name: string; slug: string }>>,
    db.query('SELECT id, name, slug FROM brands WHERE store_id = $1 AND is_active ORDER BY lower(name)', [storeId]) as Promise<
      Array<{ id: string; name: string; slug: string }>
    >,
    needs('vendor')
      ? (db.query(
          `SELECT DISTINCT ON (vendor_id) vendor_id AS id, vendor_name AS name FROM products
            WHERE store_id = $1 AND vendor_id IS NOT NULL AND status = 'PUBLISHED' ORDER BY vendor_id, updated_at DESC`,
          [storeId],
        ) as Promise<Array<{ id: string; name: string | null }>>)
      : [],
    // The partial index on ACTIVE listings of a store; dates are checked per search, in process.
    db.query(
      `SELECT id, product_id, keywords, starts_at, ends_at, (budget IS NULL OR spent < budget) AS budget_left FROM sponsored_listings
        WHERE store_id = $1 AND status = 'ACTIVE' ORDER BY cost_per_click DESC, created_at ASC, id ASC`,
      [storeId],
    ) as Promise<
      Array<{ id: string; product_id: string; keywords: string[]; starts_at: Date; ends_at: Date | null; budget_left: boolean }>
    >,
    needs('price') && !configured ? loadPriceDistribution(db, storeId).then((dist) => deriveBuckets(dist)) : [],
  ]);
  return {
    id: store.id,
    tenantId: store.tenant_id,
    currency: store.currency,
    defaultLocale: store.default_locale ?? 'en',
    priceVisibility: asPriceVisibility(store.price_visibility),
    facets,
    priceBuckets: configured ? saved.price_buckets : derived.map(({ min, max, label }) => ({ min, max, label })),
    priceBucketSource: configured ? 'configured' : 'derived',
    categories: new Map(categories.map((c) => [c.id, c.name])),
    brands: new Map(brands.map((b) => [b.id, b.name])),
    vendors: new Map(vendors.map((v) => [v.id, v.name ?? v.id])),
    sponsored: sponsored.map((l) => ({
      id: l.id,
      productId: l.product_id,
      keywords: l.keywords,
      startsAt: l.starts_at.getTime(),
      endsAt: l.ends_at?.getTime() ?? null,
      budgetLeft: l.budget_left,
    })),
    lexicon: [
      ...categories.map((c) => ({ kind: 'category' as const, id: c.id, name: c.name, slug: c.slug, words: lexiconWords(c.name) })),
      ...brands.map((b) => ({ kind: 'brand' as const, id: b.id, name: b.name, slug: b.slug, words: lexiconWords(b.name) })),
    ],
  };
}

/**
 * The prices of the store's published products as price-buckets.ts derives buckets from them: how
 * many, the lowest and highest, and a histogram over the nice-number ladder (one scan).
 */
export async function loadPriceDistribution(db: DataSource, storeId: string): Promise<PriceDistribution> {
  const [row]: Array<{ count: number; min: number | null; max: number | null; cells: Array<[number, number]> | null }> = await db.query(
    `WITH p AS (SELECT price::float8 AS price FROM products WHERE store_id = $1 AND status = 'PUBLISHED' AND price IS NOT NULL),
          h AS (SELECT width_bucket(price, $2::float8[]) AS cell, count(*)::int AS n FROM p GROUP BY 1)
     SELECT (SELECT count(*)::int FROM p) AS count, (SELECT min(price) FROM p) AS min, (SELECT max(price) FROM p) AS max,
            (SELECT json_agg(json_build_array(cell, n)) FROM h) AS cells`,
    [storeId, NICE_LADDER],
  );
  const histogram = new Array<number>(NICE_LADDER.length + 1).fill(0);
  for (const [cell, n] of row?.cells ?? []) histogram[cell] = n;
  return { count: row?.count ?? 0, min: row?.min ?? 0, max: row?.max ?? 0, histogram };
}
