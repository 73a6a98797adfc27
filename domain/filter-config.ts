/**
 * What shoppers filter a store's products by: the facets (their display and order) and the price
 * buckets. A store that saved no configuration uses DEFAULT_FILTER_CONFIG; the merchant API
 * (api/filter-config) saves one, and public search reads it (search/store-profile.ts).
 *
 * Price buckets are "configured" when a saved configuration has at least one; otherwise (no saved
 * configuration, or one saved with `priceBuckets: []`, the default) public search derives them from
 * the store's own prices (search/price-buckets.ts).
 */

/** How a facet is shown to shoppers. */
export const FACET_DISPLAYS = ['checkbox', 'radio', 'swatch', 'range', 'toggle', 'rating'] as const;

export interface Facet {
  key: string;
  label: string;
  display: (typeof FACET_DISPLAYS)[number];
  position: number;
  enabled: boolean;
}

export interface PriceBucket {
  min: number;
  max: number | null;
  label?: string;
}

export const withPositions = (facets: Array<Omit<Facet, 'position'>>): Facet[] =>
  facets.map((facet, position) => ({ key: facet.key, label: facet.label, display: facet.display, position, enabled: facet.enabled }));

/** The configuration of a store that saved none. */
export const DEFAULT_FILTER_CONFIG: { facets: Facet[]; priceBuckets: PriceBucket[] } = {
  facets: withPositions([
    { key: 'category', label: 'Category', display: 'checkbox', enabled: true },
    { key: 'brand', label: 'Brand', display: 'checkbox', enabled: true },
    { key: 'price', label: 'Price', display: 'range', enabled: true },
    { key: 'rating', label: 'Rating', display: 'rating', enabled: true },
    { key: 'inStock', label: 'In stock', display: 'toggle', enabled: true },
    { key: 'discounted', label: 'On sale', display: 'toggle', enabled: true },
  ]),
  // None configured: public search derives the buckets from the store's prices.
  priceBuckets: [],
};
