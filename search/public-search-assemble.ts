/**
 * Public search, step 4 of 5: assemble (search/public-search.ts wires the steps; docs/search.md,
 * "Public search pipeline").
 *
 * Takes the parsed search (public-search-parse.ts), the store's profile, the sponsored slots and
 * candidates of the plan (public-search-plan.ts) and the run's results (public-search-run.ts);
 * hands on the answer (items with the sponsored slots filled, facets, matching, price visibility)
 * and, after a full run, the facet snapshot of its words and filters (search/facet-snapshot.ts).
 * Next: public-search-cache.ts.
 */
import { takeSnapshot, type FacetSnapshot, type QueryResult } from './facet-snapshot';
import { localeField } from './product-document';
import { bucketLabel } from './price-buckets';
import type { ParsedSearch } from './public-search-parse';
import { SPONSORED_SHARE, type Matching, type SearchAttempts } from './public-search-plan';
import { splitPair, type FacetGroup, type PublicSearchParams, type SearchPlan } from './public-search-request';
import type { SearchRun } from './public-search-run';
import type { StoreProfile } from './store-profile';

export interface SearchItem {
  id: string;
  slug: string;
  title: string;
  type: string;
  brand: { id: string; name: string | null } | null;
  vendor: { id: string; name: string | null } | null;
  currency?: string;
  price?: number;
  compareAtPrice?: number | null;
  discountPercent?: number;
  discounted: boolean;
  inStock: boolean;
  rating: number;
  reviewCount: number;
  imageUrl: string | null;
  /** FLASH_SALE while a running flash sale sets the price (with its end as ISO time), else null. */
  badge: string | null;
  flashSaleEndsAt: string | null;
  sponsored: boolean;
  sponsoredListingId?: string;
  /**
   * Whether the product contains every word of the query (always true without words). False for the
   * products of a looser reading, and for the partial matches that fill a short first page.
   */
  fullMatch: boolean;
}

export interface FacetValue {
  value: string;
  label: string;
  count: number;
  selected: boolean;
}

export interface FacetResult {
  key: string;
  label: string;
  display: string;
  values: FacetValue[];
  /** Price: the lowest and highest price among the results (ignoring the price selection). */
  stats?: { min: number; max: number } | null;
  /** Price: the store's buckets (configured, or derived from its prices), each with its count. */
  buckets?: Array<{ min: number; max: number | null; label: string; count?: number; selected: boolean }>;
  /** Price: whether the merchant configured the buckets or they were derived from the store's prices. */
  bucketSource?: 'configured' | 'derived';
}

export interface SearchAnswer {
  items: SearchItem[];
  page: number;
  perPage: number;
  total: number;
  totalPages: number;
  sort: string;
  facets: FacetResult[];
  /** How the results were matched: strictly, or by a looser rewrite of the query (then `q` is what matched). */
  matching: Matching;
  looseMatch: boolean;
  pricesShown: boolean;
  /**
   * Parameters given but not applied: priceMin, priceMax and a price sort (then `sort` answers
   * relevance) when the visitor may not see prices, so nothing in the answer depends on a price.
   */
  ignoredParams: string[];
}

const RATING_LABEL = (stars: number): string => (stars >= 5 ? '5 stars' : `${stars} stars & up`);

type Hit = Record<string, unknown>;

export interface AssembledSearch {
  answer: SearchAnswer;
  /** After a full run that reached the index: what the next page or sort of this search reuses. */
  snapshot?: FacetSnapshot;
  /** False when the store has no index yet (its searches are not counted as zero or weak results). */
  indexed: boolean;
}

export function assembleSearch(
  parsed: ParsedSearch,
  profile: StoreProfile,
  sponsored: SearchAttempts['sponsored'],
  ran: SearchRun,
): AssembledSearch {
  const { params, pricesShown, ignored } = parsed;
  const { plan, results, matching, partial } = ran;
  return {
    answer: {
      ...answerOf(params, profile, plan, results, sponsored.candidates, sponsored.slots, pricesShown, matching, partial),
      ignoredParams: ignored,
    },
    ...(ran.full && results ? { snapshot: takeSnapshot(plan, results, ran.full.attempt) } : {}),
    indexed: results !== undefined,
  };
}

function answerOf(
  params: PublicSearchParams,
  profile: StoreProfile,
  plan: SearchPlan,
  results: QueryResult[] | undefined,
  candidates: SearchAttempts['sponsored']['candidates'],
  slots: number,
  pricesShown: boolean,
  matching: Matching,
  partial: Hit[],
): Omit<SearchAnswer, 'ignoredParams'> {
  const main = results?.[0];
  const titleField = params.locale ? `title_${localeField(params.locale)}` : undefined;
  const strict = matching.strategy === 'strict';
  const toItem = (hit: Hit, fullMatch = strict): SearchItem => {
    const item: SearchItem = {
      id: hit.id as string,
      slug: hit.slug as string,
      title: ((titleField && (hit[titleField] as string | undefined)) || hit.title) as string,
      type: hit.type as string,
      brand: hit.brandId ? { id: hit.brandId as string, name: (hit.brand as string | null) ?? null } : null,
      vendor: hit.vendorId ? { id: hit.vendorId as string, name: (hit.vendor as string | null) ?? null } : null,
      discounted: hit.discounted as boolean,
      inStock: hit.inStock as boolean,
      rating: hit.rating as number,
      reviewCount: hit.reviewCount as number,
      imageUrl: (hit.imageUrl as string | null) ?? null,
      badge: (hit.badge as string | null) ?? null,
      flashSaleEndsAt: typeof hit.flashSaleEndsAt === 'number' ? new Date(hit.flashSaleEndsAt * 1000).toISOString() : null,
      sponsored: false,
      fullMatch,
    };
    if (pricesShown) {
      item.currency = hit.currency as string;
      item.price = hit.price as number;
      item.compareAtPrice = (hit.compareAtPrice as number | null) ?? null;
      item.discountPercent = hit.discountPercent as number;
    }
    return item;
  };
  const items = [...(main?.hits ?? []).map((hit) => toItem(hit)), ...partial.map((hit) => toItem(hit, false))];

  // Sponsored: matching candidates in the listing's priority order, not already on the page.
  const sponsoredAt = plan.roles.findIndex((r) => r.kind === 'sponsored');
  if (sponsoredAt >= 0 && results && slots > 0) {
    const matched = new Map((results[sponsoredAt]!.hits ?? []).map((h) => [h.id as string, h]));
    const onPage = new Set(items.map((i) => i.id));
    const chosen = candidates.filter((c) => matched.has(c.productId) && !onPage.has(c.productId)).slice(0, slots);
    chosen.forEach((candidate, i) => {
      const item = { ...toItem(matched.get(candidate.productId)!), sponsored: true, sponsoredListingId: candidate.listingId };
      items.splice(Math.min(items.length, i * (SPONSORED_SHARE + 1)), 0, item);
    });
  }

  // The partial matches filling a short first page count: the total is what the pages list.
  const total = (main?.totalHits ?? 0) + partial.length;
  return {
    items,
    page: params.page,
    perPage: params.perPage,
    total,
    totalPages: Math.ceil(total / params.perPage),
    sort: params.sort,
    facets: facetsOf(params, profile, plan, results, pricesShown),
    matching,
    looseMatch: matching.strategy !== 'strict',
    pricesShown,
  };
}

function facetsOf(
  params: PublicSearchParams,
  profile: StoreProfile,
  plan: SearchPlan,
  results: QueryResult[] | undefined,
  pricesShown: boolean,
): FacetResult[] {
  const distributionOf = (group: FacetGroup): { counts: Record<string, number>; stats?: { min: number; max: number } } => {
    const at = plan.roles.findIndex((r) => r.kind === 'facet' && r.group === group.key);
    const result = results?.[at >= 0 ? at : 0];
    return { counts: result?.facetDistribution?.[group.attribute] ?? {}, stats: result?.facetStats?.[group.attribute] };
  };
  const chosen = (values: string[] | undefined): Set<string> => new Set((values ?? []).map((v) => v.toLowerCase()));
  const out: FacetResult[] = [];
  for (const facet of profile.facets) {
    const group = plan.groups.get(facet.key);
    if (!group) continue;
    if (facet.key === 'price' && !pricesShown) continue;
    const { counts, stats } = distributionOf(group);
    const result: FacetResult = { key: facet.key, label: facet.label, display: facet.display, values: [] };
    const byCount = (values: FacetValue[]): FacetValue[] => values.sort((a, b) => b.count - a.count || a.label.localeCompare(b.label));
    switch (facet.key) {
      case 'category':
      case 'brand':
      case 'vendor': {
        const names = facet.key === 'category' ? profile.categories : facet.key === 'brand' ? profile.brands : profile.vendors;
        const selected = chosen(
          facet.key === 'category'
            ? params.categoryIds
            : facet.key === 'brand'
              ? params.brandIds
              : params.vendorId
                ? [params.vendorId]
                : [],
        );
        result.values = byCount(
          Object.entries(counts)
            .filter(([id]) => names.has(id))
            .map(([id, count]) => ({ value: id, label: names.get(id)!, count, selected: selected.has(id.toLowerCase()) })),
        );
        break;
      }
      case 'type':
        result.values = byCount(
          Object.entries(counts).map(([value, count]) => ({ value, label: value, count, selected: params.type === value })),
        );
        break;
      case 'inStock':
      case 'discounted': {
        const current = facet.key === 'inStock' ? params.inStock : params.discounted;
        result.values = ['true', 'false']
          .filter((v) => counts[v] !== undefined)
          .map((v) => ({
            value: v,
            label: v === 'true' ? 'Yes' : 'No',
            count: counts[v]!,
            selected: current !== undefined && String(current) === v,
          }));
        break;
      }
      case 'rating': {
        // Whole stars → "N stars & up" counts (cumulative from the top).
        let running = 0;
        const values: FacetValue[] = [];
        for (let stars = 5; stars >= 1; stars -= 1) {
          running += counts[String(stars)] ?? 0;
          values.push({ value: String(stars), label: RATING_LABEL(stars), count: running, selected: params.minRating === stars });
        }
        result.values = values.filter((v) => v.count > 0);
        break;
      }
      case 'price': {
        result.stats = stats ? { min: stats.min, max: stats.max } : null;
        result.bucketSource = profile.priceBucketSource;
        result.buckets = profile.priceBuckets.map((bucket, i) => {
          const at = plan.roles.findIndex((r) => r.kind === 'priceBucket' && r.bucket === i);
          const label = bucket.label ?? bucketLabel(bucket);
          const selected =
            params.priceMin === bucket.min && (bucket.max === null ? params.priceMax === undefined : params.priceMax === bucket.max);
          return {
            min: bucket.min,
            max: bucket.max,
            label,
            selected,
            ...(at >= 0 ? { count: results?.[at]?.totalHits ?? 0 } : {}),
          };
        });
        break;
      }
      default: {
        // option:<name> / attr:<name>: the `name:value` entries of that name.
        const name = facet.key.slice(facet.key.indexOf(':') + 1).toLowerCase();
        const selected = chosen(facet.key.startsWith('option:') ? params.options : params.attrs);
        const values: FacetValue[] = [];
        for (const [pair, count] of Object.entries(counts)) {
          const split = splitPair(pair);
          if (split.name?.toLowerCase() !== name) continue;
          values.push({ value: pair, label: split.value, count, selected: selected.has(pair.toLowerCase()) });
        }
        result.values = byCount(values);
      }
    }
    out.push(result);
  }
  return out;
}
